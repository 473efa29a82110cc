package cache

import (
	"math/rand/v2"
	"testing"
)

// sectorTable is InFlight as it was first written, one map entry per sector: the
// reference the grouped table must agree with.
type sectorTable struct {
	at           map[uint64]int64
	fills, every int
	horizon      int64
}

func (f *sectorTable) Fill(line uint64, mask uint8, at int64) {
	for b := uint64(0); b < 8; b++ {
		if mask&(1<<b) != 0 {
			f.at[line+b*Chunk] = at
		}
	}
	if f.fills++; f.fills >= f.every {
		f.fills = 0
		for a, d := range f.at {
			if d < at-f.horizon {
				delete(f.at, a)
			}
		}
	}
}

func (f *sectorTable) Pending(line uint64, mask uint8, t int64) int64 {
	var d int64
	for b := uint64(0); b < 8; b++ {
		if a, ok := f.at[line+b*Chunk]; ok && mask&(1<<b) != 0 && a > t {
			d = max(d, a)
		}
	}
	return d
}

// TestInFlightIsPerSector: random fills and questions on lines of 32, 64, 128 and 256
// bytes, and on 256-byte spans that start at any sector (so spans that start inside a
// group and spill into the next), with pruning, give the same answers and sizes as a
// table keyed by sector.
func TestInFlightIsPerSector(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, lineBytes := range []uint64{32, 64, 128, 256, 0} {
		secs, align := lineBytes/Chunk, lineBytes
		if lineBytes == 0 {
			secs, align = 8, Chunk
		}
		full := uint8(1<<secs - 1)
		every, horizon := 1+rng.IntN(50), int64(rng.IntN(400))
		got := NewInFlight(every, horizon)
		want := &sectorTable{at: map[uint64]int64{}, every: every, horizon: horizon}
		now := int64(0)
		for op := range 20000 {
			line := uint64(rng.IntN(64)) * align
			mask := uint8(rng.Uint32()) & full
			now += int64(rng.IntN(5))
			if rng.IntN(2) == 0 {
				at := now + int64(rng.IntN(300))
				got.Fill(line, mask, at)
				want.Fill(line, mask, at)
			} else {
				q := now - int64(rng.IntN(100))
				if g, w := got.Pending(line, mask, q), want.Pending(line, mask, q); g != w {
					t.Fatalf("%d-byte lines, op %d: Pending(%#x, %#b, %d) = %d, want %d", lineBytes, op, line, mask, q, g, w)
				}
			}
			if got.Len() != len(want.at) {
				t.Fatalf("%d-byte lines, op %d: holds %d sectors, want %d", lineBytes, op, got.Len(), len(want.at))
			}
		}
	}
}
