package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/cudart"
	"github.com/gtrace/gtrace/internal/clangtest"
	"github.com/gtrace/gtrace/internal/debtool"
)

// gtrace runs the CLI in-process and returns its exit code, stdout and stderr.
func gtrace(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"gtrace"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpListsTheContract(t *testing.T) {
	code, out, _ := gtrace(t, "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	for _, cmd := range []string{"capture", "replay", "compare", "inspect", "export", "import", "kernels", "archs", "validate", "advise", "report", "sweep"} {
		if !strings.Contains(out, "\n   "+cmd+" ") {
			t.Errorf("--help does not list %s:\n%s", cmd, out)
		}
	}
	if code, out, _ := gtrace(t, "--version"); code != 0 || !strings.Contains(out, "gtrace version") {
		t.Errorf("--version: %d %q", code, out)
	}
}

func TestBadInputIsAClearError(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.gtrace")
	if err := os.WriteFile(junk, []byte("this is not an arrow file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"inspect", junk},
		{"replay", junk, "--arch", "hopper"},
		{"advise", junk, "--arch", "hopper"},
		{"report", junk, "-o", filepath.Join(dir, "r.html")},
		{"inspect", filepath.Join(dir, "missing.gtrace")},
	} {
		code, _, errs := gtrace(t, args...)
		if code != 1 || !strings.HasPrefix(errs, "gtrace: ") || strings.Contains(errs, "panic") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and a one-line error", args, code, errs)
		}
	}
	for _, args := range [][]string{
		{"replay", junk, "--arch", "volta"},
		{"capture", "no_such_kernel"},
		{"capture", "transpose_v1", "--size", "n=7"},
		{"capture", "--ptx", junk},
		{"replay", junk, "--arch", "hopper", "--set", "l1.nonsense=3"},
		{"advise", junk, "--arch", "hopper", "--format", "xml"},
		{"advise", junk},
		{"report"},
		{"report", junk, "-o", filepath.Join(dir, "r.txt")},
	} {
		code, _, errs := gtrace(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error (exit 2)", args, code, errs)
		}
	}
}

// An out-of-bounds read (Rodinia srad's J[-cols]) stops capture, naming --oob=warn;
// with it the capture completes, reports the pc once with its count, and replays.
func TestCaptureOOBWarn(t *testing.T) {
	dir := t.TempDir()
	ptx := writePTX(t, dir, "up.ptx", `.version 7.0
.target sm_80
.address_size 64
.visible .entry up(.param .u64 pj, .param .u64 pd)
{
.reg .b32 %r<4>;
.reg .f32 %f<4>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [pj];
ld.param.u64 %rd2, [pd];
cvta.to.global.u64 %rd1, %rd1;
cvta.to.global.u64 %rd2, %rd2;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
ld.global.f32 %f1, [%rd4+-64];
add.s64 %rd5, %rd2, %rd3;
st.global.f32 [%rd5], %f1;
ret;
}
`)
	tr := filepath.Join(dir, "up.gtrace")
	// --regs unknown: stderr must not depend on whether ptxas is on PATH.
	args := []string{"capture", "--ptx", ptx, "--kernel", "up", "--grid", "1", "--block", "64",
		"--arg", "buf:f32:64:iota", "--arg", "buf:f32:64", "--regs", "unknown", "-o", tr}
	code, _, errs := gtrace(t, args...)
	if code != 1 || !strings.Contains(errs, "out-of-bounds global access") || !strings.Contains(errs, "--oob=warn") {
		t.Fatalf("J[-16] without --oob: exit %d, %q; want a fault naming --oob=warn", code, errs)
	}
	if _, err := os.Stat(tr); err == nil {
		t.Errorf("a faulted capture left %s", tr)
	}
	code, out, errs := gtrace(t, append(args, "--oob", "warn")...)
	want := "gtrace capture: --oob=warn: 1 instruction accessed out of bounds; the trace holds their addresses:\n" +
		"  pc 7 (ld.global.f32 %f1, [%rd4+-64];): 16 out-of-bounds global lane accesses; the reads gave zeros " +
		"(first: CTA 0, thread 0, address 0xfffffffc0; nearest arg 0 (buf:f32:64:iota) [0x1000000000, +256))\n"
	if code != 0 || errs != want || !strings.Contains(out, "captured up: 1 CTAs") {
		t.Errorf("--oob warn: exit %d\nstdout %q\nstderr %q\nwant    %q", code, out, errs, want)
	}
	// The trace says how it was captured, and which warp-instructions went out of bounds.
	wantInspect := "  out of bounds      captured under --oob=warn: 1 warp-instructions at 1 pc had lanes outside every buffer " +
		"(their reads gave zeros, their writes were dropped)\n" +
		"                     pc 7 (ld.global.f32 %f1, [%rd4+-64];): 1\n"
	if code, out, errs := gtrace(t, "inspect", tr); code != 0 || !strings.Contains(out, wantInspect) {
		t.Errorf("inspect of the --oob=warn trace: exit %d\n%s%s\nwant it to hold\n%s", code, out, errs, wantInspect)
	}
	if code, out, errs := gtrace(t, "replay", tr, "--arch", "hopper", "--format", "json"); code != 0 || !strings.Contains(out, `"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 2,`) {
		t.Errorf("replay of the --oob=warn trace: exit %d, %s%s; want 2 load requests", code, out, errs)
	}
	if code, _, errs := gtrace(t, append(args, "--oob", "ignore")...); code != 2 || !strings.Contains(errs, `--oob "ignore"`) {
		t.Errorf("--oob ignore: exit %d, %q; want a usage error naming it", code, errs)
	}
}

// The main path end to end: capture a reference kernel (its output checked against the
// Go reference), inspect it, export it, replay it as JSON and compare it.
func TestCaptureInspectReplay(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.gtrace")
	code, out, errs := gtrace(t, "capture", "transpose_v2", "--size", "n=64", "-o", tr, "--simt", "stack")
	if code != 0 || !strings.Contains(out, "checked against the Go reference: ok") {
		t.Fatalf("capture: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = gtrace(t, "inspect", tr)
	if code != 0 || !strings.Contains(out, "matrixTransposeShared") || !strings.Contains(out, "SIMT stack") ||
		!strings.Contains(out, "bytes per warp-instruction") || !strings.Contains(out, "gtrace format v3 (metadata checksum verified)") ||
		!strings.Contains(out, "record batches 1  (1 group of CTAs)") ||
		strings.Contains(out, "out of bounds") {
		t.Fatalf("inspect: exit %d\n%s%s", code, out, errs)
	}
	// A trace of the first format still inspects, and says that it is unchecked.
	code, out, errs = gtrace(t, "inspect", filepath.Join("..", "..", "format", "testdata", "v1-loop.gtrace"))
	if code != 0 || !strings.Contains(out, "gtrace format v1 (unchecked:") {
		t.Fatalf("inspect v1: exit %d\n%s%s", code, out, errs)
	}
	pq := filepath.Join(dir, "t.parquet")
	if code, out, errs = gtrace(t, "export", tr, "--format", "parquet", "-o", pq); code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, errs)
	}
	if fi, err := os.Stat(pq); err != nil || fi.Size() == 0 {
		t.Fatalf("export wrote nothing: %v", err)
	}
	code, out, errs = gtrace(t, "replay", tr, "--arch", "hopper", "--format", "json", "-o", filepath.Join(dir, "s.parquet"))
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errs)
	}
	var rep struct {
		Kernels []struct {
			Name    string             `json:"name"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("replay json: %v\n%s", err, out)
	}
	// 64x64 floats in 32x32 tiles: 4 CTAs x 32 warps, one shared load each, 32-way.
	m := rep.Kernels[0].Metrics
	if m["smsp__sass_inst_executed_op_shared_ld.sum"] != 128 || m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] != 128*32 {
		t.Errorf("replay: shared loads %v, wavefronts %v; want 128 and 4096",
			m["smsp__sass_inst_executed_op_shared_ld.sum"], m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"])
	}
	code, out, errs = gtrace(t, "replay", tr, "--arch", "fermi", "--engine", "timing", "--format", "csv")
	if code != 0 || !strings.Contains(out, ",sm__cycles_elapsed.avg,") {
		t.Fatalf("replay --engine timing: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = gtrace(t, "compare", tr, tr, "--arch", "fermi,hopper")
	if code != 0 || strings.Count(strings.SplitN(out, "\n", 3)[1], "@") != 4 {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errs)
	}
	// Two GPUs of one arch, named every way arch.Lookup takes: the columns say the GPU.
	code, out, errs = gtrace(t, "compare", tr, tr, "--arch", "hopper,hopper/h200", "--format", "table")
	if header := strings.Fields(strings.SplitN(out, "\n", 3)[1]); code != 0 ||
		!slices.Equal(header[1:], []string{"t@hopper/h100", "t@hopper/h200", "t@hopper/h100", "t@hopper/h200"}) {
		t.Fatalf("compare of two hopper GPUs: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = gtrace(t, "replay", tr, "--arch", "h200"); code != 0 || !strings.Contains(out, " on h200 (hopper)") {
		t.Errorf("replay --arch h200: exit %d\n%s%s", code, out, errs)
	}
	// The column read of the 32×32 tile is the transpose lesson's 32-way conflict: the
	// advisor names it, its fix, and the wavefronts the pad saves (4096 → 128).
	code, out, errs = gtrace(t, "advise", tr, "--arch", "ampere")
	if code != 0 || !strings.Contains(out, "bank-conflicts at pc") || !strings.Contains(out, "[32][33]") ||
		!strings.Contains(out, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 4096 → 128") {
		t.Fatalf("advise: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = gtrace(t, "advise", tr, "--arch", "hopper", "--format", "json")
	var adv struct {
		Kernels []struct {
			Findings []struct{ Rule string } `json:"findings"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &adv); code != 0 || err != nil || len(adv.Kernels) != 1 ||
		len(adv.Kernels[0].Findings) != 1 || adv.Kernels[0].Findings[0].Rule != "bank-conflicts" {
		t.Fatalf("advise --format json: exit %d, %v\n%s%s", code, err, out, errs)
	}
	// A fix that moves the cost to another counter names it: the column walk read
	// through a texture, global load sectors to texture sectors.
	col := filepath.Join(dir, "col.gtrace")
	if code, _, errs = gtrace(t, "capture", "tex_column_global", "--size", "width=64", "--size", "height=64", "-o", col); code != 0 {
		t.Fatalf("capture tex_column_global: exit %d\n%s", code, errs)
	}
	const texSecs = "l1tex__t_sectors_pipe_tex_mem_texture.sum"
	if code, out, errs = gtrace(t, "advise", col, "--arch", "hopper", "--no-timing"); code != 0 ||
		!strings.Contains(out, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum 4096 → "+texSecs+" 2048 (2.0× less)") {
		t.Errorf("advise tex_column_global: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = gtrace(t, "advise", col, "--arch", "hopper", "--no-timing", "--format", "json")
	var moved struct {
		Kernels []struct {
			Findings []struct {
				Rule, Metric string
				Into         string `json:"after_metric"`
			} `json:"findings"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &moved); code != 0 || err != nil || len(moved.Kernels) != 1 ||
		!slices.ContainsFunc(moved.Kernels[0].Findings, func(f struct {
			Rule, Metric string
			Into         string `json:"after_metric"`
		}) bool {
			return f.Rule == "2d-local-read" && f.Into == texSecs
		}) {
		t.Errorf("advise --format json on tex_column_global: exit %d, %v\n%s%s", code, err, out, errs)
	}
	// Volkov's one chain per thread on hopper: latency-bound, from the timing replay,
	// with the issue rate it expects to rise; --no-timing skips the rule.
	ilp := filepath.Join(dir, "ilp1.gtrace")
	if code, _, errs = gtrace(t, "capture", "volkov_ilp1", "--size", "threads=256", "--size", "iters=4", "-o", ilp); code != 0 {
		t.Fatalf("capture volkov_ilp1: exit %d\n%s", code, errs)
	}
	code, out, errs = gtrace(t, "advise", ilp, "--arch", "hopper")
	if code != 0 || !strings.Contains(out, "latency-bound at pc") || !strings.Contains(out, "smsp__inst_executed.avg.per_cycle_active") ||
		!strings.Contains(out, "× more)") || !strings.Contains(out, "2 independent chains") {
		t.Errorf("advise volkov_ilp1: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = gtrace(t, "advise", ilp, "--arch", "hopper", "--no-timing"); code != 0 || strings.Contains(out, "latency-bound") {
		t.Errorf("advise --no-timing: exit %d\n%s%s", code, out, errs)
	}
	// The report: one page with every section, and the source view on the arch asked.
	page := filepath.Join(dir, "r.html")
	code, _, errs = gtrace(t, "report", tr, "--arch", "fermi,hopper", "--source-arch", "fermi", "-o", page)
	html, err := os.ReadFile(page)
	if code != 0 || err != nil {
		t.Fatalf("report: exit %d, %v\n%s", code, err, errs)
	}
	for _, want := range []string{`<section id="summary">`, `<section id="source">`, `<section id="advice">`, ") on fermi/gtx480</span>", "[32][33]"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if code, _, errs = gtrace(t, "report", tr, "--arch", "hopper", "--source-arch", "kepler", "-o", page); code != 1 || !strings.Contains(errs, `"kepler"`) {
		t.Errorf("report --source-arch outside --arch: exit %d, %q", code, errs)
	}
	if code, out, _ = gtrace(t, "archs", "hopper/h200"); code != 0 || !strings.Contains(out, "l2.size") {
		t.Errorf("archs hopper/h200: exit %d\n%s", code, out)
	}
}

// A failed capture leaves no file behind, and keeps an earlier one.
func TestFailedCaptureKeepsEarlierFile(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.gtrace")
	if err := os.WriteFile(tr, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := gtrace(t, "capture", "spinlock", "--simt", "stack", "-o", tr)
	if code != 1 || !strings.Contains(errs, "capture with --simt its") {
		t.Fatalf("spinlock under stack: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(tr); string(b) != "earlier" {
		t.Errorf("the earlier file was replaced by %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// A user's own CUDA file: compiled with clang-14 (skipped where it is not installed),
// named by its source name, arguments from --arg specs.
// writeSaxpy writes a one-line saxpy.cu into dir and returns its path.
func writeSaxpy(t *testing.T, dir string) string {
	t.Helper()
	cu := filepath.Join(dir, "saxpy.cu")
	src := "__global__ void saxpy(int n, float a, const float *x, float *y)\n" +
		"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
	if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return cu
}

// --regs auto records what ptxas allocates for a --ptx/--cu kernel and says so; without
// ptxas the count stays unknown, saying why; --regs N and unknown override it, and a
// count past 255 is a usage error.
func TestCaptureRegisters(t *testing.T) {
	clangtest.Clang14(t)
	debtool.PathNonFree(t, "ptxas", "nvidia-cuda-toolkit")
	dir := t.TempDir()
	cu := writeSaxpy(t, dir)
	ptx, _, err := cudart.Compile(context.Background(), cu)
	if err != nil {
		t.Fatal(err)
	}
	ptxFile := filepath.Join(dir, "saxpy.ptx")
	if err := os.WriteFile(ptxFile, ptx, 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "s.gtrace")
	capture := func(more ...string) (int, string) {
		t.Helper()
		code, out, errs := gtrace(t, append([]string{"capture", "--ptx", ptxFile, "--kernel", "saxpy", "--grid", "1", "--block", "64",
			"--arg", "i32:64", "--arg", "f32:2", "--arg", "buf:f32:64", "--arg", "buf:f32:64", "-o", tr}, more...)...)
		if code != 0 && code != 2 {
			t.Fatalf("capture %v: exit %d\n%s%s", more, code, out, errs)
		}
		return code, errs
	}
	regsOf := func() string {
		t.Helper()
		_, out, _ := gtrace(t, "inspect", tr)
		m := regexp.MustCompile(`registers/thread (\S+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("inspect shows no registers:\n%s", out)
		}
		return m[1]
	}
	_, errs := capture()
	m := regexp.MustCompile(`saxpy uses (\d+) registers a thread \(ptxas \d+\.\d+ for sm_80\)`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("capture --regs auto said %q; want ptxas's count", errs)
	}
	if got := regsOf(); got != m[1] {
		t.Errorf("the trace records %s registers; capture said %s", got, m[1])
	}
	if capture("--regs", "77"); regsOf() != "77" {
		t.Errorf("--regs 77 records %s", regsOf())
	}
	if capture("--regs", "unknown"); regsOf() != "unknown" {
		t.Errorf("--regs unknown records %s", regsOf())
	}
	if code, errs := capture("--regs", "256"); code != 2 || !strings.Contains(errs, "from 1 to 255") {
		t.Errorf("--regs 256: exit %d, %q; want a usage error", code, errs)
	}
	t.Setenv("PATH", t.TempDir())
	if _, errs := capture(); !strings.Contains(errs, "saxpy's registers are unknown (ptxas is not on PATH") || regsOf() != "unknown" {
		t.Errorf("no ptxas: %q, the trace records %s; want unknown and why", errs, regsOf())
	}
}

func TestCaptureUserCU(t *testing.T) {
	clangtest.Clang14(t)
	dir := t.TempDir()
	cu := writeSaxpy(t, dir)
	tr := filepath.Join(dir, "s.gtrace")
	code, out, errs := gtrace(t, "capture", "--cu", cu, "--kernel", "saxpy", "--grid", "4", "--block", "256",
		"--arg", "i32:1000", "--arg", "f32:2", "--arg", "buf:f32:1000:rand", "--arg", "buf:f32:1000:iota", "-o", tr)
	if code != 0 {
		t.Fatalf("capture --cu: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = gtrace(t, "replay", tr, "--arch", "ampere", "--format", "csv")
	// 1000 floats: 31 full warps and one of 8 lanes, one coalesced load each of x and y.
	if code != 0 || !strings.Contains(out, ",l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,64\n") {
		t.Errorf("replay: exit %d\n%s", code, out)
	}
	// A wrong argument count is caught before emulation, naming the kernel's parameters.
	code, _, errs = gtrace(t, "capture", "--cu", cu, "--kernel", "saxpy", "--grid", "4", "--block", "256", "--arg", "i32:1000")
	if code == 0 || errs == "" {
		t.Errorf("capture with one argument for four parameters: exit %d, %q", code, errs)
	}
	// A fault names the .cu line: n = 2000 over buffers of 1000 floats.
	code, _, errs = gtrace(t, "capture", "--cu", cu, "--kernel", "saxpy", "--grid", "8", "--block", "256",
		"--arg", "i32:2000", "--arg", "f32:2", "--arg", "buf:f32:1000:rand", "--arg", "buf:f32:1000:iota", "-o", tr)
	if code != 1 || !strings.Contains(errs, " at "+cu+":2: out-of-bounds global access") {
		t.Errorf("out-of-bounds saxpy: exit %d, %q; want a fault at %s:2", code, errs, cu)
	}
	// printf prints on stdout, lane by lane; a format a GPU prints differently is told
	// with its .cu line; --printf-limit drops whole calls past it, and says how many.
	hello := filepath.Join(dir, "hello.cu")
	src := "#include <cstdio>\n__global__ void hello(int n)\n{ if (threadIdx.x < n)\n" +
		"    printf(\"hello from %d of %d (%hhx)\\n\", threadIdx.x, blockDim.x, threadIdx.x + 250); }\n"
	if err := os.WriteFile(hello, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	helloCapture := func(more ...string) (int, string, string) {
		return gtrace(t, append([]string{"capture", "--cu", hello, "--kernel", "hello", "--grid", "1", "--block", "8", "--arg", "i32:3"}, more...)...)
	}
	code, out, errs = helloCapture("-o", filepath.Join(dir, "h.gtrace"))
	if want := "hello from 0 of 8 (fa)\nhello from 1 of 8 (fb)\nhello from 2 of 8 (fc)\ncaptured "; code != 0 || !strings.HasPrefix(out, want) ||
		!strings.Contains(errs, hello+":4 (pc ") || !strings.Contains(errs, "printf's format has the hh length") {
		t.Errorf("capture of a printf: exit %d, printed\n%s\nwant it to start %q; stderr (want the hh length noted at %s:4):\n%s", code, out, want, hello, errs)
	}
	code, out, errs = helloCapture("--printf-limit", "50", "-o", filepath.Join(dir, "h.gtrace"))
	if code != 0 || !strings.HasPrefix(out, "hello from 0 of 8 (fa)\nhello from 1 of 8 (fb)\ncaptured ") ||
		!strings.Contains(errs, "1 printf calls printed nothing: the launch's output reached its limit after 46 bytes (--printf-limit)") {
		t.Errorf("--printf-limit 50: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs = helloCapture("--printf-limit", "lots"); code != 2 || !strings.Contains(errs, "--printf-limit") {
		t.Errorf("--printf-limit lots: exit %d, %q; want a usage error naming it", code, errs)
	}
	for _, h := range []string{"0", "lots"} {
		if code, _, errs = helloCapture("--heap", h); code != 2 || !strings.Contains(errs, "--heap") {
			t.Errorf("--heap %s: exit %d, %q; want a usage error naming it", h, code, errs)
		}
	}
	// clang-14 turns a clamp into min.NaN.f32 on sm_80.
	clamp := filepath.Join(dir, "clamp.cu")
	src = "__global__ void clamp(float *a, int n)\n{ int i = blockIdx.x * blockDim.x + threadIdx.x;\n" +
		"  if (i < n) { float v = a[i]; a[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); } }\n"
	if err := os.WriteFile(clamp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = gtrace(t, "capture", "--cu", clamp, "--kernel", "clamp", "--grid", "1", "--block", "64",
		"--arg", "buf:f32:64:rand", "--arg", "i32:64", "-o", filepath.Join(dir, "c.gtrace"))
	if code != 0 {
		t.Errorf("capture of a clamp (min.NaN.f32): exit %d\n%s%s", code, out, errs)
	}
}

// A legacy texture reference in a user's CUDA file (as Rodinia's kmeans reads its
// points) is bound to a buf argument by --texref; without it the first fetch faults,
// naming the option, and a malformed one is a usage error.
func TestCaptureTexRef(t *testing.T) {
	clangtest.Clang14(t)
	dir := t.TempDir()
	cu := filepath.Join(dir, "shift.cu")
	src := "texture<float, 1, cudaReadModeElementType> t_x;\n__global__ void shift(const float *x, float *y, int n)\n" +
		"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = tex1Dfetch(t_x, i + 1); }\n"
	if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "s.gtrace")
	capture := func(more ...string) (int, string, string) {
		return gtrace(t, append([]string{"capture", "--cu", cu, "--kernel", "shift", "--grid", "4", "--block", "256",
			"--arg", "buf:f32:1000:iota", "--arg", "buf:f32:1000", "--arg", "i32:1000", "-o", tr}, more...)...)
	}
	if code, out, errs := capture("--texref", "t_x=0"); code != 0 {
		t.Fatalf("--texref t_x=0: exit %d\n%s%s", code, out, errs)
	}
	// 1000 threads in 32 warps, each warp one fetch.
	if code, out, _ := gtrace(t, "replay", tr, "--arch", "ampere", "--format", "csv"); code != 0 || !strings.Contains(out, ",l1tex__t_requests_pipe_tex_mem_texture.sum,32\n") {
		t.Errorf("replay: exit %d\n%s", code, out)
	}
	if code, _, errs := capture(); code != 1 || !strings.Contains(errs, "texture reference t_x is not bound") || !strings.Contains(errs, "--texref t_x=ARG") {
		t.Errorf("no --texref: exit %d, %q; want a fault naming --texref", code, errs)
	}
	if code, _, errs := capture("--texref", "t_x"); code != 2 || !strings.Contains(errs, "--texref") {
		t.Errorf("--texref t_x: exit %d, %q; want a usage error", code, errs)
	}
	if code, _, errs := capture("--texref", "t_y=0"); code == 0 || !strings.Contains(errs, "reads no texture reference t_y (it reads t_x)") {
		t.Errorf("--texref t_y=0: exit %d, %q; want an error naming t_x", code, errs)
	}
}

// cuda-include prints a folder of headers named as the CUDA SDK's, and the flags that
// compile with them; capture --cu puts them on the include path, so a whole program's
// file, host code and #include <cuda_runtime.h> included, compiles as it is.
func TestCUDAInclude(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, errs := gtrace(t, "cuda-include")
	dir := strings.TrimSpace(out)
	if code != 0 || !filepath.IsAbs(dir) {
		t.Fatalf("cuda-include: exit %d, %q %q", code, out, errs)
	}
	for _, h := range []string{"cuda_runtime.h", "device_launch_parameters.h", "gtrace_cuda_runtime.h"} {
		if _, err := os.Stat(filepath.Join(dir, h)); err != nil {
			t.Errorf("cuda-include folder: %v", err)
		}
	}
	code, out, _ = gtrace(t, "cuda-include", "--flags")
	if code != 0 || !strings.Contains(out, "-I "+dir+" ") || !strings.Contains(out, "-include gtrace_cuda_runtime.h") {
		t.Errorf("cuda-include --flags: exit %d, %q", code, out)
	}
	if code, _, errs := gtrace(t, "cuda-include", "x"); code != 2 || errs == "" {
		t.Errorf("cuda-include x: exit %d, %q; want a usage error", code, errs)
	}

	clangtest.Clang14(t)
	cu := filepath.Join(t.TempDir(), "warpsum.cu")
	src := `#include <cuda_runtime.h>
#include <stdio.h>
__global__ void __launch_bounds__(64) warpsum(const float4 *in, float *out)
{
	float4 v = __ldg(&in[blockIdx.x * blockDim.x + threadIdx.x]);
	float s = v.x + v.y + v.z + v.w;
	for (int o = 16; o > 0; o /= 2)
		s += __shfl_down_sync(0xffffffff, s, o);
	if (threadIdx.x % 32 == 0)
		atomicAdd(out, s);
}
int main()
{
	float4 *in;
	float *out;
	cudaMalloc(&in, 256 * sizeof(float4));
	cudaMalloc(&out, sizeof(float));
	warpsum<<<4, 64>>>(in, out);
	printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
	return 0;
}
`
	if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "w.gtrace")
	code, out, errs = gtrace(t, "capture", "--cu", cu, "--kernel", "warpsum", "--grid", "4", "--block", "64",
		"--arg", "buf:f32:1024:iota", "--arg", "buf:f32:1", "-o", tr)
	if code != 0 {
		t.Fatalf("capture --cu of a whole program: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = gtrace(t, "inspect", tr)
	if code != 0 || !strings.Contains(out, "warpsum") {
		t.Errorf("inspect: exit %d\n%s", code, out)
	}
	// The PTX is compiled against that folder, so a fault inside a header function (the
	// __ldg past the end of in) names the user's call and a header the user can open.
	code, _, errs = gtrace(t, "capture", "--cu", cu, "--kernel", "warpsum", "--grid", "4", "--block", "64",
		"--arg", "buf:f32:1000", "--arg", "buf:f32:1", "-o", tr)
	if want := " at " + cu + ":5, in " + filepath.Join(dir, "gtrace_cuda_runtime.h") + ":"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("capture --cu, __ldg out of bounds: exit %d, %q; want a fault%s", code, errs, want)
	}
}

// A whole custom arch from --config: a base preset plus overrides, no --arch needed; a
// replay with neither is a usage error.
func TestReplayConfigFile(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.gtrace")
	if code, out, errs := gtrace(t, "capture", "transpose_v1", "--size", "n=64", "-o", tr); code != 0 {
		t.Fatalf("capture: %d %s%s", code, out, errs)
	}
	cfg := filepath.Join(dir, "fermi-cg.cfg")
	if err := os.WriteFile(cfg, []byte("base = fermi/gtx480\nl1.cache_global = false  # -dlcm=cg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// -dlcm=cg moves global loads to 32-byte segments: V1's column reads are 32 segments
	// per request either way, but the transaction unit changes from lines to segments,
	// so bus utilisation goes from 4/128 to 4/32.
	code, out, errs := gtrace(t, "replay", tr, "--config", cfg, "--format", "csv")
	if code != 0 || !strings.Contains(out, ",gtrace__global_ld_bus_utilization.pct,12.5\n") {
		t.Errorf("replay --config: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := gtrace(t, "replay", tr); code != 2 || !strings.Contains(errs, "--config") {
		t.Errorf("replay without --arch or --config: exit %d, %q", code, errs)
	}
}

// TestCaptureExe captures a kernel from a program's fat binary: the multi-architecture
// fixture nvcc made (cudart/fatbin/testdata) put into a copy of /bin/true as its
// .nv_fatbin section, with objcopy. The kernel is named as in the source; the PTX of
// the highest architecture runs.
func TestCaptureExe(t *testing.T) {
	objcopy := debtool.Path(t, "objcopy", "binutils")
	dir := t.TempDir()
	prog := filepath.Join(dir, "saxpy")
	if out, err := exec.Command(objcopy, "--add-section", ".nv_fatbin=../../cudart/fatbin/testdata/multi.fatbin",
		"/bin/true", prog).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	tr := filepath.Join(dir, "s.gtrace")
	code, out, errs := gtrace(t, "capture", "--exe", prog, "--kernel", "scale", "--grid", "1", "--block", "32",
		"--arg", "buf:f32:32:iota", "--arg", "f32:0.5", "-o", tr)
	if code != 0 || !strings.Contains(out, "captured _Z5scalePff: 1 CTAs") {
		t.Fatalf("capture --exe: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = gtrace(t, "inspect", tr)
	if code != 0 || !strings.Contains(out, "nvcc (from saxpy's fat binary)") {
		t.Errorf("inspect: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--exe", prog, "--kernel", "nosuch"}, "no kernel \"nosuch\" in the program's PTX; its kernels: _Z5saxpyifPKfPf, _Z5scalePff"},
		{[]string{"--exe", "/bin/true", "--kernel", "scale"}, "no .nv_fatbin or __nv_relfatbin section"},
		{[]string{"--exe", "../../cudart/fatbin/testdata/saxpy.cu", "--kernel", "scale"}, "not an ELF program"},
		{[]string{"--exe", prog, "--ptx", "x.ptx", "--kernel", "scale"}, "give one of --ptx, --cu and --exe"},
		{[]string{"--exe", prog}, "--kernel NAME (the kernel to run) is required with --exe"},
	} {
		code, _, errs := gtrace(t, append(append([]string{"capture"}, c.args...), "--grid", "1", "--block", "32")...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("capture %v: exit %d, %q; want %q", c.args, code, errs, c.want)
		}
	}
}

// writePTX writes src to dir/name and returns its path.
func writePTX(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCaptureClockNote: a kernel that reads the clock captures, and capture says what the
// reads gave (the warp's instruction count, not cycles).
func TestCaptureClockNote(t *testing.T) {
	dir := t.TempDir()
	ptx := writePTX(t, dir, "clk.ptx", `.version 7.0
.target sm_80
.address_size 64
.visible .entry clk(.param .u64 p)
{
.reg .b64 %rd<4>;
mov.u64 %rd1, %clock64;
ld.param.u64 %rd2, [p];
cvta.to.global.u64 %rd3, %rd2;
st.global.u64 [%rd3], %rd1;
ret;
}
`)
	code, _, errs := gtrace(t, "capture", "--ptx", ptx, "--kernel", "clk", "--grid", "1", "--block", "1",
		"--arg", "buf:u64:1", "-o", filepath.Join(dir, "clk.gtrace"))
	want := "gtrace capture: kernel clk reads %clock64 at pc 0: gtrace gives the warp's count of executed instructions there, not cycles"
	if code != 0 || !strings.Contains(errs, want) {
		t.Errorf("capture of a clock read: exit %d, stderr %q; want it to say\n%s", code, errs, want)
	}
}
