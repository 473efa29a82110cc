package cache

import (
	"runtime"
	"testing"

	"github.com/gtrace/gtrace/internal/heaptest"
)

// TestBytesIsWhatAllocTakes: Config.Bytes, which the engines sum over every cache
// before they build one (replay's checkModelMemory), is what a cache's first access
// allocates, to within the allocator's rounding.
func TestBytesIsWhatAllocTakes(t *testing.T) {
	for _, cfg := range []Config{
		{Size: 256 << 10, Sets: 4, MSHRs: 256},  // an Ampere/Hopper-like L1: 512 ways, indexed
		{Size: 4 << 20, Ways: 16},               // an L2 slice
		{Size: 64 << 20, Ways: 16, MSHRs: 1024}, // a large one
		{Size: 2 << 10, Line: 64, Ways: 4},      // a constant cache
		{Size: 1 << 30, Sets: 64, Sector: 128},  // 1 GB: what an absurd --set asks for
	} {
		var c *Sectored
		got := heaptest.Allocated(3, func() {
			var err error
			if c, err = New(cfg); err != nil {
				t.Fatal(err)
			}
			c.Access(0x1000, 1, Load)
		})
		want := cfg.Bytes()
		if want == 0 || got < want || float64(got) > 1.05*float64(want)+4096 {
			t.Errorf("%+v: the first access allocated %d B, Bytes says %d", cfg, got, want)
		}
		runtime.KeepAlive(c)
	}
	if b := (Config{Size: 1000, Ways: 4}).Bytes(); b != 0 {
		t.Errorf("an invalid config takes %d B, want 0", b)
	}
}
