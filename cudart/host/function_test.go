package host

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// The occupancy API on the H100 preset gives what the H100 gave for a kernel with no
// static shared memory and at most 32 registers (examples/cuda/occupancy.cu's square,
// traces/hw/h100-2026-11-26-occupancy/examples.txt); TestRun compares the whole program's
// output, static shared memory and opt-ins included.
func TestOccupancyAPI(t *testing.T) {
	r, _ := newSaxpy(t)
	blocks := []struct {
		threads int
		smem    uint64
		want    int
	}{
		{1, 0, 32}, {96, 0, 21}, {640, 0, 3}, {1000, 0, 2}, {1025, 0, 0},
		{128, 20000, 11}, {128, 49152, 4}, {128, 49153, 0},
	}
	for _, c := range blocks {
		if n, err := r.OccupancyMaxActiveBlocks(scaleStub, c.threads, c.smem, OccupancyDefault); n != c.want || err != nil {
			t.Errorf("%d threads, %d B: %d blocks (%v), want %d", c.threads, c.smem, n, err, c.want)
		}
	}
	for _, bad := range []struct {
		threads int
		flags   uint
	}{{0, 0}, {-1, 0}, {128, 2}} {
		if _, err := r.OccupancyMaxActiveBlocks(scaleStub, bad.threads, 0, bad.flags); !hasCode(err, InvalidValue) {
			t.Errorf("%d threads, flags %d: %v, want cudaErrorInvalidValue", bad.threads, bad.flags, err)
		}
	}
	if _, err := r.OccupancyMaxActiveBlocks(0x1234, 128, 0, 0); !hasCode(err, InvalidDeviceFunc) {
		t.Errorf("no kernel: %v, want cudaErrorInvalidDeviceFunction", err)
	}
	// A carve-out preference of 50% is the 132 KB carve-out: 6 blocks of 21120 B.
	if err := r.FuncSetAttribute(scaleStub, FuncAttrPreferredSharedMemoryCarveout, 50); err != nil {
		t.Fatal(err)
	}
	if n, err := r.OccupancyMaxActiveBlocks(scaleStub, 128, 20000, OccupancyDefault); n != 6 || err != nil {
		t.Errorf("preferring 50%%: %d blocks (%v), want 6", n, err)
	}
	if err := r.FuncSetAttribute(scaleStub, FuncAttrPreferredSharedMemoryCarveout, -1); err != nil {
		t.Fatal(err)
	}
	avail := []struct {
		blocks, threads int
		want            uint64
	}{{1, 128, 49152}, {7, 256, 33280}, {16, 64, 14592}, {32, 32, 7296}}
	for _, c := range avail {
		if n, err := r.OccupancyAvailableDynamicShared(scaleStub, c.blocks, c.threads); n != c.want || err != nil {
			t.Errorf("%d blocks of %d threads: %d B (%v), want %d", c.blocks, c.threads, n, err, c.want)
		}
	}
	for _, bad := range [][2]int{{33, 32}, {3, 1024}, {1, 2048}, {0, 128}} {
		if _, err := r.OccupancyAvailableDynamicShared(scaleStub, bad[0], bad[1]); !hasCode(err, InvalidValue) {
			t.Errorf("%d blocks of %d threads: %v, want cudaErrorInvalidValue", bad[0], bad[1], err)
		}
	}
	a, err := r.FuncAttributes(scaleStub)
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxThreadsPerBlock != 1024 || a.MaxDynamicSharedSizeBytes != 49152 || a.PreferredShmemCarveout != -1 || a.BinaryVersion != 90 || a.NumRegs != 32 || a.SharedSizeBytes != 0 {
		t.Errorf("attributes %+v", a)
	}
}

// Told of a GTX 480 (Fermi: 1536 threads, 8 blocks and 32768 registers per SM), the same
// kernel's occupancy is that GPU's: 512 threads of 32 registers fit twice, by registers.
func TestOccupancyAPIOtherGPU(t *testing.T) {
	r, _ := newSaxpy(t)
	fermi, err := arch.Lookup("fermi", "")
	if err != nil {
		t.Fatal(err)
	}
	r.gpu, r.attrs = fermi, attributes(fermi)
	for _, c := range []struct{ threads, want int }{{1024, 1}, {512, 2}, {128, 8}} {
		if n, err := r.OccupancyMaxActiveBlocks(scaleStub, c.threads, 0, OccupancyDefault); n != c.want || err != nil {
			t.Errorf("gtx480, %d threads: %d blocks (%v), want %d", c.threads, n, err, c.want)
		}
	}
}

// A kernel's registers come from the fat binary's cubin the GPU can run, else from
// ptxas for the GPU, else are assumed (said once a run). The multi fixture holds sm_80
// cubins (saxpy 10 registers, scale 8) and PTX for compute_70 and compute_90.
func TestKernelRegisters(t *testing.T) {
	multi := func(t *testing.T, gpu string, ptxas func(ptx []byte, kernel, target string) (int, error)) (*Runtime, *bytes.Buffer) {
		t.Helper()
		var said bytes.Buffer
		g, err := arch.Lookup(gpu, "")
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Options{Out: filepath.Join(t.TempDir(), "run.gtrace"), Producer: "test", Workers: 2, GPU: g, Stderr: &said, Ptxas: ptxas})
		if err != nil {
			t.Fatal(err)
		}
		fb, err := os.ReadFile(filepath.Join("..", "fatbin", "testdata", "multi.fatbin"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.RegisterFatBinary(fb)
		if err != nil {
			t.Fatal(err)
		}
		for stub, name := range map[uintptr]string{saxpyStub: "_Z5saxpyifPKfPf", scaleStub: "_Z5scalePff"} {
			if err := r.RegisterFunction(h, stub, name); err != nil {
				t.Fatal(err)
			}
		}
		return r, &said
	}
	regs := func(t *testing.T, r *Runtime, stub uintptr) FuncAttributes {
		t.Helper()
		a, err := r.FuncAttributes(stub)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	// An A100 (sm_80) runs the sm_80 cubins: their counts, and nothing said.
	r, said := multi(t, "ampere", nil)
	if s, c := regs(t, r, saxpyStub).NumRegs, regs(t, r, scaleStub).NumRegs; s != 10 || c != 8 || said.Len() > 0 {
		t.Errorf("ampere: saxpy %d, scale %d registers (said %q); want 10 and 8 from the cubins", s, c, said)
	}

	// An H100 (sm_90) cannot run sm_80 cubins, and there is no ptxas: 32 assumed,
	// said once for both kernels.
	r, said = multi(t, "hopper", nil)
	if s, c := regs(t, r, saxpyStub).NumRegs, regs(t, r, scaleStub).NumRegs; s != 32 || c != 32 {
		t.Errorf("hopper, no ptxas: %d and %d registers; want 32 assumed", s, c)
	}
	if n := strings.Count(said.String(), "\n"); n != 1 || !strings.Contains(said.String(), "no cubin for sm_90") {
		t.Errorf("hopper, no ptxas: said %q; want one line naming the missing sm_90 cubin", said)
	}

	// ptxas for sm_90 with 200 registers a thread: 10 warps of 6400 fill the H100's
	// 65536, so a block holds at most 320 threads; 1024 are refused at launch as a
	// GPU refuses them, and a launch that fits records the count in its trace.
	var asked []string
	r, said = multi(t, "hopper", func(ptx []byte, kernel, target string) (int, error) {
		asked = append(asked, kernel+" "+target)
		return 200, nil
	})
	a := regs(t, r, saxpyStub)
	if a.NumRegs != 200 || a.MaxThreadsPerBlock != 320 || said.Len() > 0 {
		t.Errorf("ptxas's 200: %d registers, %d threads at most (said %q); want 200 and 320", a.NumRegs, a.MaxThreadsPerBlock, said)
	}
	if n, err := r.OccupancyMaxActiveBlocks(saxpyStub, 256, 0, OccupancyDefault); n != 1 || err != nil {
		t.Errorf("256 threads of 200 registers: %d blocks (%v); want 1", n, err)
	}
	if n, err := r.OccupancyMaxActiveBlocks(saxpyStub, 384, 0, OccupancyDefault); n != 0 || err != nil {
		t.Errorf("384 threads of 200 registers: %d blocks (%v); want 0", n, err)
	}
	x, _ := r.Malloc(4 * 256)
	params := [][]byte{le32(256), le32(math.Float32bits(2)), le64(x), le64(x)}
	one := format.Dim3{X: 1, Y: 1, Z: 1}
	err := r.Launch(context.Background(), saxpyStub, Config{Grid: one, Block: format.Dim3{X: 1024, Y: 1, Z: 1}}, params)
	if !hasCode(err, LaunchOutOfResources) || !strings.Contains(err.Error(), "200 registers") {
		t.Errorf("1024 threads of 200 registers: %v; want cudaErrorLaunchOutOfResources", err)
	}
	if err := r.Launch(context.Background(), saxpyStub, Config{Grid: one, Block: format.Dim3{X: 256, Y: 1, Z: 1}}, params); err != nil {
		t.Fatal(err)
	}
	if len(r.meta) != 1 || r.meta[0].RegsPerThread != 200 {
		t.Errorf("the launch's registers in the trace: %+v; want 200", r.meta)
	}
	if !slices.Equal(asked, []string{"_Z5saxpyifPKfPf sm_90"}) {
		t.Errorf("ptxas was asked %q; want saxpy for sm_90 once", asked)
	}
}
