package main

import (
	"encoding/csv"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// csvMetrics reads `replay --format csv` into metric -> value for one kernel.
func csvMetrics(t *testing.T, out, kernel string) map[string]float64 {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, r := range rows {
		if len(r) < 7 || r[2] != kernel {
			continue
		}
		v, err := strconv.ParseFloat(r[6], 64)
		if err == nil {
			m[r[5]] = v
		}
	}
	return m
}

// TestImportAccelsim imports the hand-written Accel-Sim fixture and replays it on every
// arch with both engines; the counts are the fixture's, by hand (format/accelsim's test
// checks each lane address).
func TestImportAccelsim(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fx.gtrace")
	fixture := filepath.Join("..", "..", "format", "accelsim", "testdata", "fixture")
	code, stdout, errs := gtrace(t, "import", "accelsim", fixture, "-o", out)
	if code != 0 || !strings.Contains(stdout, "2 kernels, 33 warp-instructions; 2 MemcpyHtoD lines skipped") {
		t.Fatalf("import: exit %d\n%s%s", code, stdout, errs)
	}
	code, stdout, errs = gtrace(t, "inspect", out)
	if code != 0 || !strings.Contains(stdout, "code               SASS sm_80 traced on a GPU (Accel-Sim tracer 3, NVBit 1.5.5)") {
		t.Errorf("inspect: exit %d, want it to say the code is SASS\n%s%s", code, stdout, errs)
	}
	want := map[string]float64{
		// LDG.E: 2 coalesced warps (4 sectors each); LDG.E.64 list: 2 warps x 4 lanes 256 B
		// apart (4 sectors each); the upper half-warp of CTA 1 (2 sectors); a warp with no
		// active lane moves nothing.
		"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum":   5,
		"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum":    18,
		"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": 2,
		// STS at 0x80, 0x84, 0x88, 0x100: 0x80 and 0x100 share bank 0, two wavefronts.
		"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 4,
		// the generic LD.E whose addresses fall in the shared window
		"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 2,
		// STL: 32 lanes at one offset, interleaved by lane: 128 B, 4 sectors, per warp
		"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": 8,
	}
	for _, arch := range []string{"fermi", "kepler", "ampere", "hopper"} {
		code, stdout, errs = gtrace(t, "replay", out, "--arch", arch, "--format", "csv")
		if code != 0 {
			t.Fatalf("replay --arch %s: exit %d\n%s", arch, code, errs)
		}
		got := csvMetrics(t, stdout, "_Z6fixturePfS_")
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", arch, k, got[k], v)
			}
		}
		code, stdout, errs = gtrace(t, "replay", out, "--arch", arch, "--engine", "timing", "--format", "csv")
		if got := csvMetrics(t, stdout, "_Z5smallPi"); code != 0 || got["smsp__inst_executed.sum"] != 6 {
			t.Errorf("replay --arch %s --engine timing: exit %d, %v instructions of _Z5smallPi, want 6\n%s", arch, code, got["smsp__inst_executed.sum"], errs)
		}
	}
	code, _, errs = gtrace(t, "export", out, "--format", "parquet", "-o", filepath.Join(t.TempDir(), "fx.parquet"))
	if code != 0 {
		t.Errorf("export parquet: exit %d %s", code, errs)
	}

	// Exported again and imported again, the trace replays to the same counters.
	dir := filepath.Join(t.TempDir(), "again")
	code, stdout, errs = gtrace(t, "export", out, "--format", "accelsim", "--sass", "sm_80", "-o", dir)
	if code != 0 || !strings.Contains(stdout, "2 kernels, 33 warp-instructions as SASS sm_80") {
		t.Fatalf("export accelsim: exit %d\n%s%s", code, stdout, errs)
	}
	if code, _, errs = gtrace(t, "export", out, "--format", "accelsim", "-o", dir); code != 1 || !strings.Contains(errs, "already holds an Accel-Sim trace") {
		t.Errorf("export into a trace folder: exit %d %q; want 1, refusing to overwrite", code, errs)
	}
	again := filepath.Join(t.TempDir(), "again.gtrace")
	if code, stdout, errs = gtrace(t, "import", "accelsim", dir, "-o", again); code != 0 {
		t.Fatalf("import of the export: exit %d\n%s%s", code, stdout, errs)
	}
	_, first, _ := gtrace(t, "replay", out, "--arch", "hopper", "--format", "csv")
	_, second, _ := gtrace(t, "replay", again, "--arch", "hopper", "--format", "csv")
	if first != second {
		t.Errorf("replay after export and import:\n%s\nwant\n%s", second, first)
	}
	for _, args := range [][]string{
		{"import", "accelsim", filepath.Join(fixture, "kernelslist.g"), "-o", out},
		{"import", "accelsim", fixture, "-o", out, "--unknown-opcode", "skip"},
		{"import", "nvbit", fixture, "-o", out},
	} {
		if code, _, errs := gtrace(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, errs)
		}
	}
}
