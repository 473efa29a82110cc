package main

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/cudart/host"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/clangtest"
	"github.com/gtrace/gtrace/internal/debtool"
)

// standIn builds the stand-in library as make cudart does, into a folder t removes.
func standIn(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "cudart", "libcudart"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cudart")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-buildmode=c-shared",
		"-ldflags=-extldflags=-Wl,--version-script="+filepath.Join(dir, "libcudart.map")+",-soname,"+host.LibName,
		"-o", filepath.Join(out, host.LibName), ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, b)
	}
	return out
}

// nvccProgram builds src as a user would for a GPU: nvcc 11.8, the runtime as a shared
// library, PTX for compute_80 in the fat binary (extra flags after).
func nvccProgram(t *testing.T, src string, extra ...string) string {
	t.Helper()
	nvcc := debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	clang := clangtest.Clang14(t)
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".cu"))
	args := append([]string{"-ccbin", clang, "-gencode", "arch=compute_80,code=compute_80", "-o", exe}, extra...)
	if b, err := exec.Command(nvcc, append(args, src)...).CombinedOutput(); err != nil {
		t.Fatalf("nvcc %s: %v\n%s", src, err, b)
	}
	return exe
}

// gtrace run over programs nvcc 11.8 built, with the stand-in built once.
func TestRun(t *testing.T) {
	debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	lib := standIn(t)
	t.Run("examples", func(t *testing.T) { runExamples(t, lib) })
	t.Run("refuses-and-reports", func(t *testing.T) { runRefusesAndReports(t, lib) })
	t.Run("oob", func(t *testing.T) { runOOB(t, lib) })
	t.Run("gpu", func(t *testing.T) { runGPU(t, lib) })
	t.Run("progress", func(t *testing.T) { runProgress(t, lib) })
	t.Run("plan-h100", func(t *testing.T) { runPlanOnTheH100(t, lib) })
}

// --progress sets how often a line sums the run up, between launches: at every launch
// when the interval is shorter than one, never when it is 0, and not at all in a run
// shorter than the default 10 s.
func runProgress(t *testing.T, lib string) {
	exe := nvccProgram(t, filepath.Join("..", "..", "examples", "cuda", "constants.cu"), "-cudart", "shared")
	trace := filepath.Join(t.TempDir(), "c.gtrace")
	summary := regexp.MustCompile(`(?m)^gtrace run: \d launch(es)?, \d+ warp-instructions in \d+s$`)
	for _, c := range []struct {
		flag  []string
		lines int
	}{{[]string{"--progress", "1ns"}, 2}, {[]string{"--progress", "0"}, 0}, {nil, 0}} {
		args := append(append([]string{"run"}, c.flag...), "--cudart", lib, "-o", trace, exe, "100")
		code, _, errs := gtrace(t, args...)
		if n := len(summary.FindAllString(errs, -1)); code != 0 || n != c.lines {
			t.Errorf("%v: exit %d, %d summary lines, want %d:\n%s", c.flag, code, n, c.lines, errs)
		}
	}
	if code, _, errs := gtrace(t, "run", "--progress", "-1s", "--cudart", lib, exe); code != 2 || !strings.Contains(errs, "--progress") {
		t.Errorf("--progress -1s: exit %d, %s; want a usage error naming --progress", code, errs)
	}
}

// --gpu names the preset a program is told of: deviceprops sizes its grid from it, and
// prints the preset's values.
func runGPU(t *testing.T, lib string) {
	exe := nvccProgram(t, filepath.Join("..", "..", "examples", "cuda", "deviceprops.cu"), "-cudart", "shared")
	trace := filepath.Join(t.TempDir(), "k20x.gtrace")
	code, out, errs := gtrace(t, "run", "--gpu", "kepler/k20x", "--cudart", lib, "-o", trace, exe, "1000")
	for _, want := range []string{"compute capability 3.5, 14 multiprocessors at 732 MHz\n", "L2 1572864 B, 2 copy engines\n",
		"global memory 6442450944 B\n", "attributes agree with the properties\n", "sum 99000\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--gpu kepler/k20x: exit %d, output lacks %q:\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
	rd, err := format.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	if l := rd.Meta().Launches; len(l) != 1 || l[0].Grid.X != 28 {
		t.Errorf("launches %+v: want one of 28 blocks, two per K20X multiprocessor", l)
	}
	rd.Close()
	if code, _, errs := gtrace(t, "run", "--gpu", "h300", "--cudart", lib, exe); code != 2 || !strings.Contains(errs, "--gpu") {
		t.Errorf("--gpu h300: exit %d, %s; want a usage error naming --gpu", code, errs)
	}
}

// gpuRun is what an example program printed on a real GPU, and its exit status.
type gpuRun struct {
	out  string
	exit int
}

// gpuRuns reads what the example programs printed on a real GPU
// (scripts/hw/examples.sh), by "NAME ARGS".
func gpuRuns(t *testing.T, path string) map[string]gpuRun {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]gpuRun{}
	blocks := regexp.MustCompile(`(?m)^== `).Split(string(b), -1) // a run starts a line with "== "
	for _, blk := range blocks[1:] {
		head, body, _ := strings.Cut(blk, "\n")
		i := strings.LastIndex(body, "exit ")
		if i < 0 {
			t.Fatalf("%s: the run %q has no exit status", path, head)
		}
		exit, err := strconv.Atoi(strings.TrimSpace(body[i+len("exit "):]))
		if err != nil {
			t.Fatalf("%s: the run %q: %v", path, head, err)
		}
		runs[head] = gpuRun{body[:i], exit}
	}
	return runs
}

// The example programs of examples/cuda, built by nvcc 11.8 and run unmodified with
// the arguments of examples/cuda/runs.txt: each prints exactly what it printed on an
// H100 (scripts/hw/examples.sh; its own host-side checks say PASSED), and gtrace run
// writes one trace of its launches that replays on every architecture that can run it
// (the others refuse it, saying which limit it is over). A program whose kernel faults
// (fault.cu) prints what the H100 printed, every call after the fault returning the
// fault's code, and gtrace run exits 1 though the program exits 0: the trace lacks the
// launch that faulted. texref.cu's texture references need CUDA 11 (nvcc 11.8 here; the
// H100 ran a build of it from nvcc 11.8 with the static runtime).
func runExamples(t *testing.T, lib string) {
	gpu := gpuRuns(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-26-examples", "examples.txt"))
	// printf.cu's runs: scripts/hw/printf.sh, which also keeps their stderr.
	maps.Copy(gpu, gpuRuns(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-26-printf", "examples.txt")))
	maps.Copy(gpu, gpuRuns(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-26-pitch", "examples.txt")))
	maps.Copy(gpu, gpuRuns(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-26-occupancy", "examples.txt")))
	// bounds.cu's: built by nvcc 11.8 with the static runtime (launch configuration
	// errors differ in CUDA 13's: the folder's README).
	maps.Copy(gpu, gpuRuns(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-26-bounds", "examples.txt")))
	maps.Copy(gpu, gpuRuns(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-27-malloc", "examples.txt")))
	all := []string{"fermi", "kepler", "ampere", "hopper"}
	sticky := func(code string) string {
		return "the fault is sticky, as on a GPU: the 6 runtime calls after it returned " + code
	}
	cases := map[string]struct { // by the line of runs.txt
		launches int
		archs    []string // where it replays; the rest refuse it
		stderr   string   // what the run also says, if anything
		copies   string   // the program's copies, as gtrace inspect sums them ("": none)
		syncs    string   // its calls that order streams, as gtrace inspect sums them ("": none)
		faults   bool     // a launch faults: gtrace run exits 1 where the program exits 0
	}{
		"vectoradd 5000": {1, all, "", "2 h2d of 40000 B, 1 d2h of 20000 B", "", false},
		// Symbol copies count too: two cudaMemcpyToSymbol (h2d), three cudaMemcpyFromSymbol (d2h).
		"constants 10000": {2, all, "", "3 h2d of 40032 B, 5 d2h of 80012 B", "", false},
		// Told of an H100 (the default --gpu): its properties as the H100 reports them.
		"deviceprops 100000": {1, all, "", "1 h2d of 400000 B, 1 d2h of 400000 B", "", false},
		// 64 KiB of shared memory per block: sm_70 and later, after the opt-in. The
		// launch before the opt-in is refused, as on a GPU, and told; the run succeeds.
		"streams 3 2": {3, []string{"ampere", "hopper"}, "1 call failed; the first: kernel _Z7reversePKfPf <<<1,1,1, 256,1,1, 65536>>>: 65536 bytes of dynamic shared memory, over the kernel's 49152: above 48 KiB of shared memory a kernel must opt in first",
			"3 h2d of 393216 B (3 pinned), 3 d2h of 393216 B (3 pinned)", "2 cudaEventRecord, 3 cudaStreamSynchronize, 1 cudaEventSynchronize", false},
		// The copy after the first launch is in the trace; the one after the fault is not.
		"fault oob":        {1, all, sticky("cudaErrorIllegalAddress"), "1 d2h of 128 B", "", true},
		"fault misaligned": {1, all, sticky("cudaErrorMisalignedAddress"), "1 d2h of 128 B", "", true},
		"fault trap":       {1, all, sticky("cudaErrorLaunchFailure"), "1 d2h of 128 B", "", true},
		// Texture references: the five bindings a GPU refuses are refused, and told.
		"texref 1000": {1, all, "5 calls failed; the first: cudaBindTexture(tf): 0x1000000004 is not aligned to 512 bytes", "4 h2d of 9276 B, 6 d2h of 2484 B", "", false},
		// Device printf: what kernels print comes out where a GPU prints it, after the
		// host's earlier lines, at the calls that wait for the device.
		"printf formats": {1, all, "", "3 h2d of 51 B, 1 d2h of 128 B", "1 cudaDeviceSynchronize", false},
		"printf lanes 3": {3, all, "", "1 d2h of 4 B", "", false},
		"printf limits":  {0, nil, "1 call failed; the first: cudaLimit 99: no such limit", "", "", false},
		// A failed assert prints the GPU's line on stderr, and is sticky.
		"printf assert": {0, nil, "examples/cuda/printf.cu:84: void checked(int *): block: [1,0,0], thread: [5,0,0] Assertion `v[i] != 37` failed.\n", "", "", true},
		// What the last kernel printed is lost when the program does not wait for it.
		"printf noflush": {1, all, "bytes that kernels printed were not printed: the program ended without waiting for its kernels", "", "", false},
		// Pitched memory: cudaMallocPitch's pitches, 2D copies in three directions and a
		// 2D memset; the four bad calls fail with the H100's codes, and are told.
		"pitch 300 20": {1, all, "4 calls failed; the first: cudaMemcpy2D: a row of 32 bytes is wider than the destination's pitch 16 or the source's 1200",
			"1 h2d of 24000 B, 1 d2h of 24000 B, 1 d2d of 24000 B", "1 cudaStreamSynchronize", false},
		// The occupancy API and cudaFuncGetAttributes: blocks per multiprocessor across
		// block and shared memory sizes, opt-ins and a carve-out preference, as on the
		// H100, whose 13 bad calls fail here too; the launch is sized by
		// cudaOccupancyMaxPotentialBlockSize.
		"occupancy 100000": {1, all, "13 calls failed; the first: cudaOccupancyMaxActiveBlocksPerMultiprocessor(_Z6squarePKfPfi): a block of 0 threads; want at least 1",
			"1 h2d of 400000 B, 1 d2h of 400000 B", "", false},
		// __launch_bounds__: the attributes, the occupancy API and the suggested block
		// sizes of bounded kernels, a launch one thread past each bound refused, and bad
		// launch configurations refused with the H100's codes under CUDA 11.8's runtime.
		"bounds 10000": {4, all, "13 calls failed; the first: kernel _Z4b256Pii <<<39,1,1, 257,1,1, 0>>>: a block of 257 threads, over the 256 that its .maxntid (__launch_bounds__) allows",
			"1 d2h of 40000 B", "", false},
		// Device malloc and free: the heap size an H100 rounds a request to, blocks kept
		// from one launch to the next and freed there, malloc(0) not NULL, and the three
		// calls CUDA refuses on the heap failing with the H100's codes.
		"malloc 1000": {3, all, "3 calls failed; the first: cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2097152): a kernel that calls malloc or free has run, which fixed the heap at 4194304 bytes",
			"4 d2h of 8024 B", "1 cudaDeviceSynchronize", false},
		"pitch 5 3": {1, all, "4 calls failed; the first: cudaMemcpy2D: a row of 32 bytes is wider than the destination's pitch 16 or the source's 20",
			"1 h2d of 60 B, 1 d2h of 60 B, 1 d2d of 60 B", "1 cudaStreamSynchronize", false},
	}
	runs, err := os.ReadFile(filepath.Join("..", "..", "examples", "cuda", "runs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(runs), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		name, args := fields[0], fields[1:]
		c, ok := cases[line]
		want, measured := gpu[line]
		if !ok || !measured {
			t.Errorf("examples/cuda/runs.txt: %q has no case here (%v) or no output from the GPU (%v): add one, rerun scripts/hw/examples.sh", line, ok, measured)
			continue
		}
		n++
		t.Run(line, func(t *testing.T) {
			exe := nvccProgram(t, filepath.Join("..", "..", "examples", "cuda", name+".cu"), "-cudart", "shared")
			trace := filepath.Join(t.TempDir(), name+".gtrace")
			code, out, errs := gtrace(t, append([]string{"run", "--cudart", lib, "-o", trace, exe}, args...)...)
			wantExit := want.exit
			if c.faults && wantExit == 0 {
				wantExit = 1
			}
			if code != wantExit || out != want.out {
				t.Fatalf("exit %d, printed %q; want exit %d (on the GPU: %d), %q\nstderr:\n%s", code, out, wantExit, want.exit, want.out, errs)
			}
			if failed := strings.Contains(errs, "1 launch did not run to the end: the trace lacks it"); failed != c.faults {
				t.Errorf("stderr tells of a launch that did not run to the end: %v, want %v:\n%s", failed, c.faults, errs)
			}
			if !strings.Contains(errs, "launch") || !strings.Contains(errs, c.stderr) || c.launches > 0 && !strings.Contains(errs, trace) {
				t.Errorf("stderr does not sum the run up (want %q): %s", c.stderr, errs)
			}
			if c.launches == 0 {
				if _, err := os.Stat(trace); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a run with no launch in the trace wrote %s: %v", trace, err)
				}
				return
			}
			rd, err := format.Open(trace)
			if err != nil {
				t.Fatal(err)
			}
			got := len(rd.Meta().Launches)
			for _, l := range rd.Meta().Launches { // nvcc is here, so ptxas is
				if l.RegsPerThread == 0 || strings.Contains(errs, "registers a thread taken as") {
					t.Errorf("launch of %s: registers a thread unknown; want ptxas's count for sm_90:\n%s", l.Kernel, errs)
				}
			}
			rd.Close()
			if got != c.launches {
				t.Errorf("the trace holds %d launches, want %d", got, c.launches)
			}
			if _, info, _ := gtrace(t, "inspect", trace); c.copies == "" && strings.Contains(info, "\ncopies ") ||
				c.copies != "" && !strings.Contains(info, "\ncopies "+c.copies+"\n") {
				t.Errorf("gtrace inspect does not sum the copies up as %q (\"\": none):\n%s", c.copies, info)
			} else if c.syncs == "" && strings.Contains(info, "\nstream calls ") ||
				c.syncs != "" && !strings.Contains(info, "\nstream calls "+c.syncs+"\n") {
				t.Errorf("gtrace inspect does not sum the stream calls up as %q (\"\": none):\n%s", c.syncs, info)
			}
			checkRunPlan(t, trace, c.copies, strings.HasPrefix(line, "streams"))
			for _, arch := range all {
				code, _, errs := gtrace(t, "replay", trace, "--arch", arch)
				switch fits := slices.Contains(c.archs, arch); {
				case fits && code != 0:
					t.Errorf("replay --arch %s: exit %d: %s", arch, code, errs)
				case !fits && (code == 0 || !strings.Contains(errs, "over the")):
					t.Errorf("replay --arch %s: exit %d, %q; want a refusal naming the limit", arch, code, errs)
				}
			}
		})
	}
	if n != len(cases) {
		t.Errorf("%d example runs in examples/cuda/runs.txt for %d cases here", n, len(cases))
	}
}

// What gtrace run says when it cannot or should not run a program, and that the
// program's arguments, its unsupported calls and its exit status come through.
// A kernel that reads one element before and after its buffer (halo.cu, as Rodinia's
// srad does) faults, naming --oob=warn; under it the program runs on, gets the GPU's
// answer, and each reading instruction is listed once with its count of lanes.
func runOOB(t *testing.T, lib string) {
	exe := nvccProgram(t, filepath.Join("testdata", "halo.cu"), "-cudart", "shared")
	trace := filepath.Join(t.TempDir(), "halo.gtrace")
	code, _, errs := gtrace(t, "run", "--cudart", lib, "-o", trace, exe, "1000")
	if code == 0 || !strings.Contains(errs, "out-of-bounds global access") || !strings.Contains(errs, "gtrace run --oob=warn") {
		t.Errorf("without --oob: exit %d; want a failure naming gtrace run --oob=warn:\n%s", code, errs)
	}
	code, out, errs := gtrace(t, "run", "--oob", "warn", "--cudart", lib, "-o", trace, exe, "1000")
	if code != 0 || out != "1000 of 1000 values agree with the host's\n" {
		t.Fatalf("--oob warn: exit %d, printed %q\n%s", code, out, errs)
	}
	reads := "1 out-of-bounds global lane accesses; the reads gave zeros"
	if !strings.Contains(errs, "--oob=warn: 2 instructions accessed memory out of bounds") || strings.Count(errs, reads) != 2 ||
		!strings.Contains(errs, "first: CTA 0, thread 0, address 0xffffffffc") || !strings.Contains(errs, "first: CTA 7, thread 103") {
		t.Errorf("--oob warn does not list the two reads (in[-1] by thread 0, in[1000] by CTA 7's thread 103):\n%s", errs)
	}
}

func runRefusesAndReports(t *testing.T, lib string) {
	exe := nvccProgram(t, filepath.Join("testdata", "unsupported.cu"), "-cudart", "shared")
	trace := filepath.Join(t.TempDir(), "u.gtrace")
	code, out, errs := gtrace(t, "run", "--cudart", lib, "-o", trace, exe, "-o", "--simt", "x y")
	wantOut := "arg 1: -o\narg 2: --simt\narg 3: x y\n" +
		"cudaGraphCreate: cudaErrorNotSupported; last error: cudaErrorNotSupported\nlaunch: cudaSuccess\n"
	if code != 3 || out != wantOut {
		t.Errorf("exit %d, printed %q; want exit 3 and %q\nstderr:\n%s", code, out, wantOut, errs)
	}
	for _, want := range []string{"cudaGraphCreate is not supported", "cudaGraphCreate (1×)", ": 1 launch, ", "exited with status 3"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	static := nvccProgram(t, filepath.Join("testdata", "unsupported.cu"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cudart", lib, static}, "does not load libcudart.so.11.0 (nvcc links the CUDA runtime statically by default): rebuild it with nvcc -cudart shared"},
		{[]string{"--cudart", t.TempDir(), exe}, "no libcudart.so.11.0 stand-in in"},
		{[]string{"--cudart", lib, "/nonexistent/prog"}, "no such file"},
		{[]string{"--cudart", lib, "../../cudart/fatbin/testdata/saxpy.cu"}, "permission denied"},
		{[]string{"--simt", "warp", exe}, "want stack or its"},
		{[]string{"--oob", "ignore", exe}, `--oob "ignore": want fault or warn`},
		{nil, "name the program to run"},
	} {
		code, _, errs := gtrace(t, append([]string{"run"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("run %v: exit %d, %q; want %q", c.args, code, errs, c.want)
		}
	}
}

// checkRunPlan lays out a gtrace run trace with gtrace plan on hopper: a step for each
// launch and copy (copies is inspect's sum of them), the whole no longer than its steps
// one after another, and shorter when the program overlaps its streams.
func checkRunPlan(t *testing.T, trace, copies string, overlaps bool) {
	t.Helper()
	tl := planJSON(t, trace, "--arch", "hopper")
	rd, err := format.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	m := rd.Meta()
	rd.Close()
	runs, pcie := 0, 0
	for _, sp := range tl.Spans {
		switch {
		case strings.HasPrefix(sp.What, "run launch "):
			runs++
		case sp.Engine == "h2d" || sp.Engine == "d2h":
			pcie++
		}
	}
	host := 0
	for _, tr := range m.Transfers {
		if tr.Kind == format.HostToDevice || tr.Kind == format.DeviceToHost {
			host++
		}
	}
	if runs != len(m.Launches) || pcie != host || tl.TotalNS <= 0 || tl.TotalNS > tl.SerialNS*(1+1e-9) {
		t.Errorf("plan: %d launches run of %d, %d copies over PCIe of %d (%s), total %.0f ns, serial %.0f", runs, len(m.Launches), pcie, host, copies, tl.TotalNS, tl.SerialNS)
	}
	if overlaps != (tl.TotalNS < tl.SerialNS*(1-1e-9)) {
		t.Errorf("plan: total %.0f ns, serial %.0f: want the streams to overlap: %v", tl.TotalNS, tl.SerialNS, overlaps)
	}
}
