package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
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
}

// The example programs of examples/cuda, built by nvcc 11.8 and run unmodified: each
// prints what it prints on a GPU (PASSED from its own host-side check), and gtrace run
// writes one trace of its launches that replays.
func runExamples(t *testing.T, lib string) {
	for _, c := range []struct {
		name     string
		args     []string
		want     string
		launches int
	}{
		{"vectoradd", []string{"5000"}, "vectoradd: 5000 elements, sum 9374375.00, 0 wrong: PASSED\n", 1},
		{"constants", []string{"10000"}, "constants: 10000 points, scale 0.50, 4368 and 5616 positive, 0 wrong: PASSED\n", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			exe := nvccProgram(t, filepath.Join("..", "..", "examples", "cuda", c.name+".cu"), "-cudart", "shared")
			trace := filepath.Join(t.TempDir(), c.name+".gtrace")
			code, out, errs := gtrace(t, append([]string{"run", "--cudart", lib, "-o", trace, exe}, c.args...)...)
			if code != 0 || out != c.want {
				t.Fatalf("exit %d, printed %q, want %q\nstderr:\n%s", code, out, c.want, errs)
			}
			if !strings.Contains(errs, "launch") || !strings.Contains(errs, trace) {
				t.Errorf("stderr does not sum the run up: %s", errs)
			}
			rd, err := format.Open(trace)
			if err != nil {
				t.Fatal(err)
			}
			n := len(rd.Meta().Launches)
			rd.Close()
			if n != c.launches {
				t.Errorf("the trace holds %d launches, want %d", n, c.launches)
			}
			for _, arch := range []string{"fermi", "kepler", "ampere", "hopper"} {
				if code, _, errs := gtrace(t, "replay", trace, "--arch", arch); code != 0 {
					t.Errorf("replay --arch %s: exit %d: %s", arch, code, errs)
				}
			}
		})
	}
}

// What gtrace run says when it cannot or should not run a program, and that the
// program's arguments, its unsupported calls and its exit status come through.
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
		{nil, "name the program to run"},
	} {
		code, _, errs := gtrace(t, append([]string{"run"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("run %v: exit %d, %q; want %q", c.args, code, errs, c.want)
		}
	}
}
