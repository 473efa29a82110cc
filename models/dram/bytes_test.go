package dram

import (
	"runtime"
	"testing"

	"github.com/gtrace/gtrace/internal/heaptest"
)

// TestBytesIsWhatChannelsTake: Config.Bytes, which replay sums before it builds a
// model, is what NewChannels (the timing engine's, over a Model of its own) allocates
// for its per-bank and per-channel state, to within the allocator's rounding.
func TestBytesIsWhatChannelsTake(t *testing.T) {
	timing := Timing{ClockMHz: 1000, BandwidthGBs: 64, RowMissNS: 10, LatencyCycles: 100}
	for _, n := range []struct{ channels, banks int }{{16, 16}, {1024, 64}, {100000, 64}} {
		cfg := titan
		cfg.Channels, cfg.Banks = n.channels, n.banks
		var c *Channels
		var err error
		got := heaptest.Allocated(3, func() { c, err = NewChannels(cfg, timing) })
		if err != nil {
			t.Fatal(err)
		}
		want := cfg.Bytes()
		// Beyond the slices: the two structs, a few hundred bytes.
		if got < want || float64(got) > 1.05*float64(want)+1024 {
			t.Errorf("%d channels × %d banks: NewChannels allocated %d B, Bytes says %d", n.channels, n.banks, got, want)
		}
		runtime.KeepAlive(c)
	}
}
