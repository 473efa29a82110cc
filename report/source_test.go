package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/cudart"
	"github.com/gtrace/gtrace/internal/clangtest"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// sourcePage captures transpose_v1 (its test sizes) from PTX compiled out of cu with a
// line table, and builds the report on hopper with both engines.
func sourcePage(t *testing.T, cu string, opts Options) *Page {
	t.Helper()
	clangtest.Clang14(t)
	ptx, _, err := cudart.Compile(context.Background(), cu)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernels.Lookup("transpose_v1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := kernels.TraceOf(context.Background(), k.Name, k.Small, func(s *capture.Spec) { s.PTX, s.PTXName = ptx, cu })
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := arch.Preset("hopper", "")
	if err != nil {
		t.Fatal(err)
	}
	pg, err := Build(context.Background(), []Input{{Name: "transpose_v1", Trace: r}}, []*arch.Config{cfg}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// TestSourceViewOfCUDALines: a trace with a line table gets a view of its CUDA lines
// (the file read from the path the table names), whose per-line counters add up to the
// kernel's totals; the uncoalesced finding links to the line of the transpose's copy;
// a file that is gone is named, not fatal, and --source-dir finds it by its name.
func TestSourceViewOfCUDALines(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../kernels/cu/transpose.cu")
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := os.ReadFile("../kernels/cu/gtrace_cuda.h")
	if err != nil {
		t.Fatal(err)
	}
	// The kernels' header includes gtrace's device header by its path in the tree;
	// Compile puts that header on the include path.
	hdr = []byte(strings.Replace(string(hdr), `"../../cudart/include/gtrace_cuda_runtime.h"`, `<gtrace_cuda_runtime.h>`, 1))
	cu := filepath.Join(dir, "transpose.cu")
	for name, b := range map[string][]byte{cu: src, filepath.Join(dir, "gtrace_cuda.h"): hdr} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pg := sourcePage(t, cu, Options{})
	kp := &pg.Kernels[0]
	sv := kp.Source
	if sv == nil || sv.ByPTX || sv.Note != "" || len(sv.Files) == 0 || sv.Files[0].Path != cu || !sv.Files[0].Found {
		t.Fatalf("want a view of %s's lines, read: %+v", cu, sv)
	}
	copyLine := "_A_t[row * sizeX + col] = _A[col * sizeY + row];"
	var hot *SourceLine
	for i := range sv.Files[0].Lines {
		if ln := &sv.Files[0].Lines[i]; strings.Contains(ln.Text, copyLine) {
			hot = ln
		}
	}
	if hot == nil || len(hot.PCs) == 0 {
		t.Fatalf("no line of %s reads %q with instructions", cu, copyLine)
	}
	// The lines' counters add up to the kernel's: every executed pc is on one line.
	var inst, stalls, secs, reqs float64
	for _, f := range sv.Files {
		for _, ln := range f.Lines {
			if !math.IsNaN(ln.Cells[colInst]) {
				inst += ln.Cells[colInst]
			}
			if !math.IsNaN(ln.Cells[colStalls]) {
				stalls += ln.Cells[colStalls]
			}
		}
	}
	run := &kp.Runs[0]
	if want := metric(t, run.Memory, "smsp__inst_executed.sum"); inst != want {
		t.Errorf("lines' warp-instructions add to %.0f, the kernel's are %.0f", inst, want)
	}
	var wantStalls float64
	for _, m := range run.Timing.Metrics {
		if strings.HasPrefix(m.Name, stallPrefix) {
			wantStalls += m.Value
		}
	}
	if stalls != wantStalls || stalls == 0 {
		t.Errorf("lines' stall cycles add to %.0f, the kernel's are %.0f", stalls, wantStalls)
	}
	for _, op := range []string{"ld", "st"} {
		secs += metric(t, run.Memory, "l1tex__t_sectors_pipe_lsu_mem_global_op_"+op+".sum")
		reqs += metric(t, run.Memory, "l1tex__t_requests_pipe_lsu_mem_global_op_"+op+".sum")
	}
	if got := hot.Cells[colSectors]; got != secs/reqs {
		t.Errorf("the copy's line shows %.2f sectors per request, the kernel's global accesses (all on it) take %.2f", got, secs/reqs)
	}

	// The page: the line's text, its row id, and the finding's link to it.
	page := writePage(t, pg)
	row := fmt.Sprintf("k0-f0-L%d", hot.Line)
	if !strings.Contains(page, `<details id="`+row+`"><summary class="srow"><span>`+fmt.Sprint(hot.Line)+`</span>`) {
		t.Fatalf("the page has no source row %s for %q", row, copyLine)
	}
	if !strings.Contains(page, `<a href="#`+row+`">`) {
		t.Errorf("no finding links to the copy's line (%s)", row)
	}

	// The file gone: the view says which, and shows PTX; --source-dir finds it.
	moved := t.TempDir()
	if err := os.Rename(cu, filepath.Join(moved, "transpose.cu")); err != nil {
		t.Fatal(err)
	}
	gone := buildSource(kp.Launch, run, 0, readSource(""))
	if gone.Files[0].Found || !strings.Contains(gone.Note, cu) {
		t.Errorf("a missing file is not named: %q", gone.Note)
	}
	found := buildSource(kp.Launch, run, 0, readSource(moved))
	if !found.Files[0].Found || found.Note != "" {
		t.Errorf("the source dir does not find %s: %q", filepath.Base(cu), found.Note)
	}
}

// TestSourceViewByPTX: a trace without a line table gets one row per executed PTX
// instruction and says why, and every finding links to its instruction's row.
func TestSourceViewByPTX(t *testing.T) {
	pg := buildPage(t, Options{SourceArch: "fermi"}, []string{"fermi", "hopper"}, "transpose_v2")
	kp := &pg.Kernels[0]
	sv := kp.Source
	if sv == nil || !sv.ByPTX || !strings.Contains(sv.Note, "no line table") || sv.Run != 0 {
		t.Fatalf("want a view by PTX on fermi that says why: %+v", sv)
	}
	executed := 0
	for _, p := range kp.Runs[0].Memory.PerPC {
		if metricOf(p, "gtrace__ptx_inst_executed.sum") > 0 {
			executed++
		}
	}
	if n := len(sv.Files[0].Lines); n != executed || n == 0 {
		t.Errorf("%d PTX rows, %d instructions executed", n, executed)
	}
	page := writePage(t, pg)
	links := regexp.MustCompile(`<a href="#(k0-pc\d+)">`).FindAllStringSubmatch(page, -1)
	if len(links) == 0 {
		t.Fatal("no finding links to its instruction")
	}
	for _, l := range links {
		if !strings.Contains(page, `id="`+l[1]+`"`) {
			t.Errorf("a finding links to #%s, which no row has", l[1])
		}
	}
	if _, err := Build(context.Background(), nil, nil, Options{}); err == nil {
		t.Error("a report on no arch builds")
	}
	if _, err := Build(context.Background(), nil, []*arch.Config{mustPreset(t, "hopper")}, Options{SourceArch: "kepler"}); err == nil ||
		!strings.Contains(err.Error(), "kepler") {
		t.Errorf("a source arch outside the report's archs: %v", err)
	}
}

func metric(t *testing.T, k *replay.KernelReport, name string) float64 {
	t.Helper()
	v, ok := k.Metric(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return v
}

func metricOf(p replay.PCReport, name string) float64 {
	for _, m := range p.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return 0
}

func mustPreset(t *testing.T, name string) *arch.Config {
	t.Helper()
	cfg, err := arch.Preset(name, "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
