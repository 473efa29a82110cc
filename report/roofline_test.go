package report

import (
	"math"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/models/arch"
)

// TestRoofline: the FLOPs of a matrix multiply (2n³) and a vector add (n) come out
// exact from the per-pc counts; intensity, achieved rate and roofs are the replays'
// and the preset's; a copy kernel has none; the page draws one roofline per arch and
// a table row per launch, and without the timing engine says why it draws none.
func TestRoofline(t *testing.T) {
	archs := []string{"fermi", "hopper"}
	pg := buildPage(t, Options{}, archs, "matmul_sdk_1", "add_vectors", "copy")
	want := map[string]float64{"matmul_sdk_1": 2 * 64 * 64 * 64, "add_vectors_kernel": 1000, "copy": 0}
	for _, kp := range pg.Kernels {
		w, ok := want[kp.Name]
		if !ok {
			t.Fatalf("unexpected kernel %s", kp.Name)
		}
		for a, run := range kp.Runs {
			r := run.Roof
			if r.FLOP32 != w || r.FLOP64 != 0 {
				t.Errorf("%s on %s: %g FP32 + %g FP64 FLOPs, want %g", kp.Name, run.Arch, r.FLOP32, r.FLOP64, w)
			}
			cfg, _ := arch.Preset(archs[a], "")
			if r.Peak32 != cfg.PeakFLOPs(false) || r.Peak64 != cfg.PeakFLOPs(true) || r.Bandwidth != cfg.PeakDRAMBytes() ||
				r.L1Bandwidth != cfg.PeakL1Bytes() || r.L2Bandwidth != cfg.PeakL2Bytes() {
				t.Errorf("%s on %s: roofs %g/%g/%g/%g/%g, not the preset's", kp.Name, run.Arch, r.Peak32, r.Peak64, r.Bandwidth, r.L1Bandwidth, r.L2Bandwidth)
			}
			wave, _ := run.Memory.Metric("gtrace__lsu_writeback_wavefronts.sum")
			rd32, _ := run.Memory.Metric("lts__t_sectors_srcunit_tex_op_read.sum")
			at32, _ := run.Memory.Metric("lts__t_sectors_srcunit_tex_op_atom.sum")
			if r.L1Bytes != 128*wave || r.L2Bytes != 32*(rd32+at32) || r.L1Bytes == 0 || r.L2Bytes == 0 {
				t.Errorf("%s on %s: %g L1 and %g L2 bytes, want %g and %g", kp.Name, run.Arch, r.L1Bytes, r.L2Bytes, 128*wave, 32*(rd32+at32))
			}
			rd, _ := run.Memory.Metric("dram__bytes_read.sum")
			wr, _ := run.Memory.Metric("dram__bytes_write.sum")
			ns, _ := run.Timing.Metric("gpu__time_duration.sum")
			if r.DRAMBytes != rd+wr || r.Seconds != ns*1e-9 || r.DRAMBytes == 0 {
				t.Errorf("%s on %s: %g DRAM bytes in %g s, want %g in %g", kp.Name, run.Arch, r.DRAMBytes, r.Seconds, rd+wr, ns*1e-9)
			}
			if w == 0 {
				continue
			}
			if got := r.Achieved(); math.Abs(got-w/(ns*1e-9)) > 1e-9*got {
				t.Errorf("%s on %s: achieved %g FLOP/s, want FLOPs over time %g", kp.Name, run.Arch, got, w/(ns*1e-9))
			}
			// A vector add moves 12 B per FLOP: far below every ridge.
			if kp.Name == "add_vectors_kernel" && r.Bound() != "DRAM" {
				t.Errorf("add_vectors on %s: %s-bound at %g FLOP/B, want DRAM-bound", run.Arch, r.Bound(), r.Intensity())
			}
			if r.Achieved() > r.Ceiling()*(1+1e-9) {
				t.Errorf("%s on %s: %g FLOP/s above the roofs' %g at %g FLOP/B", kp.Name, run.Arch, r.Achieved(), r.Ceiling(), r.Intensity())
			}
		}
	}
	page := writePage(t, pg)
	sec := section(t, page, "roofline")
	if n := strings.Count(sec, "<svg"); n != len(archs) {
		t.Errorf("the roofline section has %d charts, want one per arch (%d)", n, len(archs))
	}
	for _, s := range []string{"FP32 1.34 TFLOP/s", "FP64 0.168 TFLOP/s", "DRAM 177 GB/s", "FP32 66.9 TFLOP/s", "no FP32/FP64 arithmetic",
		"% of the DRAM roof", "<td>3</td><td>copy",
		"L1 1345 GB/s", "L2 ", "L1 33454 GB/s", "FLOP per byte (L1 ▲, L2 ■, DRAM ●)"} {
		if !strings.Contains(sec, s) {
			t.Errorf("the roofline section lacks %q", s)
		}
	}
	sec = section(t, writePage(t, buildPage(t, Options{NoTiming: true}, archs, "add_vectors")), "roofline")
	if strings.Contains(sec, "<svg") || !strings.Contains(sec, "No timing replay (--no-timing): no achieved rates") ||
		!strings.Contains(sec, "FLOP/B (DRAM-bound)") {
		t.Errorf("a roofline without timing draws a chart, or does not say why, or lacks the intensity:\n%s", sec)
	}
}

// section is the page's section with this id.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<section id="`+id+`">`)
	if i < 0 {
		t.Fatalf("the page has no section %q", id)
	}
	j := strings.Index(page[i:], "</section>")
	return page[i : i+j]
}
