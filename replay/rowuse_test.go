package replay

import (
	"math/rand/v2"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// The memory engine's shortcut for a run of lanes reading consecutive words (rowUse)
// marks the same bytes as marking lane by lane (usedBytes), for every layout the trace
// stores (format.Warp.AppendMem picks uniform, strided or deltas), masks with and without
// holes, widths, and lines before, inside and after the access.
func TestRowUseIsUsedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := &smState{}
	strided := 0
	for n := 0; n < 20000; n++ {
		width := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
		stride := []int64{int64(width), int64(width), 0, 2 * int64(width), -int64(width), 3}[rng.IntN(6)]
		mask := []uint32{^uint32(0), 0xFFFF, 0x0FF0, 1, 0x80000000, rng.Uint32()}[rng.IntN(6)]
		if mask == 0 {
			mask = 1
		}
		base := uint64(1<<20) + uint64(rng.IntN(512))
		var lanes [32]uint64
		for l := range lanes {
			lanes[l] = base + uint64(stride*int64(l))
		}
		if rng.IntN(5) == 0 { // a gather: no stride
			for l := range lanes {
				lanes[l] = base + uint64(rng.IntN(1024))
			}
		}
		var w format.Warp
		w.AppendMem(0, mask, 0, 0, &lanes)
		if w.Mode[0] == format.AddrStride && w.Stride[0] == int64(width) {
			strided++
		}
		addrs := w.Addrs(0, nil)
		for line := base&^127 - 256; line <= base+uint64(32*width)+256; line += 128 {
			s.haveAddrs = false
			if got, want := s.rowUse(&w, 0, line, width), usedBytes(line, addrs, width); got != want {
				t.Fatalf("mask %#x base %#x stride %d width %d line %#x: rowUse %x, usedBytes %x", mask, base, stride, width, line, got, want)
			}
		}
	}
	if strided < 1000 {
		t.Fatalf("only %d rows took the shortcut: the test does not exercise it", strided)
	}
}
