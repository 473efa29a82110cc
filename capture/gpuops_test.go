package capture

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var updateGPUOpCases = flag.Bool("update-gpu-opcases", false, "rewrite capture/testdata/gpu-opcases from the opCases a GPU checks")

const (
	// gpuOpCaseDir holds each GPU-checked opCase's kernel and the threads' inputs, the
	// files scripts/hw/opcases.py runs.
	gpuOpCaseDir = "testdata/gpu-opcases"
	// gpuOpCaseRun is what an H100 wrote for them.
	gpuOpCaseRun = "../traces/hw/h100-2026-11-27-opcases"
)

// gpuOpCases are the opCases whose Go references a GPU checks: forms whose semantics
// the PTX ISA leaves partly to the GPU (elect.sync's leader) or that are new.
func gpuOpCases() []opCase {
	return slices.Concat(packedMinMaxCases(), syncOpCases(), cpAsyncCases(), ldmatrixCases(), mbarrierCases(), cvtCases(), videoCases(), scalarVideoCases())
}

// TestOpCasesOnGPU checks the Go references of gpuOpCases (which capture meets: the
// tests that run them) against what an H100 computed from the same kernels and
// inputs (scripts/hw/opcases.sh), thread by thread; and that gpuOpCaseDir is current.
func TestOpCasesOnGPU(t *testing.T) {
	cases := gpuOpCases()
	x := opInputs()
	files := map[string][]byte{"inputs.bin": opInputBytes(x)}
	for _, c := range cases {
		files[c.name+".ptx"] = []byte(opKernel(c))
	}
	if *updateGPUOpCases {
		if err := os.RemoveAll(gpuOpCaseDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(gpuOpCaseDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(gpuOpCaseDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	have, err := filepath.Glob(filepath.Join(gpuOpCaseDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range have {
		if files[filepath.Base(p)] == nil {
			t.Errorf("%s is no opCase's: run go test ./capture -run TestOpCasesOnGPU -update-gpu-opcases", p)
		}
	}
	for name, want := range files {
		if got, err := os.ReadFile(filepath.Join(gpuOpCaseDir, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s/%s is stale (%v): run go test ./capture -run TestOpCasesOnGPU -update-gpu-opcases, then scripts/hw/opcases.sh on a GPU", gpuOpCaseDir, name, err)
		}
	}
	for _, c := range cases {
		out, err := os.ReadFile(filepath.Join(gpuOpCaseRun, c.name+".bin"))
		if err != nil {
			t.Errorf("%s: no GPU result (%v): run scripts/hw/opcases.sh on a GPU", c.name, err)
			continue
		}
		if len(out) != 16*len(x) {
			t.Errorf("%s: the GPU result has %d bytes, want %d", c.name, len(out), 16*len(x))
			continue
		}
		checkOpOut(t, c, x, out, "the H100")
	}
	names := make([]string, 0, len(cases))
	for _, c := range cases {
		names = append(names, c.name)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(cases) {
		t.Errorf("opCase names repeat: %v", names)
	}
}

// opInputBytes lays out the threads' inputs as the opCase kernels read them.
func opInputBytes(x [][3]uint64) []byte {
	in := make([]byte, 24*len(x))
	for i, v := range x {
		for j := range v {
			binary.LittleEndian.PutUint64(in[24*i+8*j:], v[j])
		}
	}
	return in
}
