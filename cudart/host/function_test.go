package host

import (
	"testing"

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
