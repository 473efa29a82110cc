package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/clangtest"
	"github.com/gtrace/gtrace/internal/debtool"
)

// buildLibrary builds the stand-in as make cudart does, into dir.
func buildLibrary(t *testing.T, dir string) {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	mapFile, err := filepath.Abs("libcudart.map")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "build", "-buildmode=c-shared",
		"-ldflags=-extldflags=-Wl,--version-script="+mapFile+",-soname,libcudart.so.11.0",
		"-o", filepath.Join(dir, "libcudart.so.11.0"), ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
}

// nvccBuild builds src with nvcc 11.8 as a user would for a GPU, with the runtime as a
// shared library and PTX for compute_80 in the fat binary.
func nvccBuild(t *testing.T, nvcc, clang, src, out string) {
	t.Helper()
	args := []string{"-ccbin", clang, "-cudart", "shared", "-gencode", "arch=compute_80,code=compute_80", "-o", out, src}
	if b, err := exec.Command(nvcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("nvcc %s: %v\n%s", src, err, b)
	}
}

// The example programs of examples/cuda, built by nvcc 11.8 and run unmodified with the
// stand-in first on LD_LIBRARY_PATH: each prints what it prints on a GPU (PASSED from
// its own host-side check), exits 0, and leaves one trace of its launches.
func TestExamplePrograms(t *testing.T) {
	nvcc := debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	clang := clangtest.Clang14(t)
	dir := t.TempDir()
	buildLibrary(t, dir)
	for _, c := range []struct {
		name     string
		args     []string
		want     string
		launches int
	}{
		{"vectoradd", []string{"5000"}, "vectoradd: 5000 elements, sum 9374375.00, 0 wrong: PASSED\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			exe := filepath.Join(dir, c.name)
			nvccBuild(t, nvcc, clang, filepath.Join("..", "..", "examples", "cuda", c.name+".cu"), exe)
			trace := filepath.Join(dir, c.name+".gtrace")
			cmd := exec.Command(exe, c.args...)
			cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir, "GTRACE_TRACE="+trace)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", c.name, err, &stdout, &stderr)
			}
			if stdout.String() != c.want {
				t.Errorf("%s printed %q, want %q (stderr: %s)", c.name, &stdout, c.want, &stderr)
			}
			rd, err := format.Open(trace)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if n := len(rd.Meta().Launches); n != c.launches {
				t.Errorf("the trace holds %d launches, want %d", n, c.launches)
			}
			if !strings.Contains(stderr.String(), "warp-instructions") {
				t.Errorf("stderr does not tell the launches: %s", &stderr)
			}
		})
	}
}
