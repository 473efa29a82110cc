package smem

import (
	"fmt"
	"math/bits"
)

// MaxWays is the largest conflict degree the histogram records.
const MaxWays = 32

// Result describes one warp instruction.
type Result struct {
	Wavefronts int // passes needed
	Ideal      int // passes with no conflict: one per lane group with an active lane
	Ways       int // worst distinct-words-per-bank in any pass (1 = conflict-free)
}

// Conflicts is the extra passes the conflicts cost (ncu's
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_* counts Wavefronts minus
// requests instead; for 4-byte accesses the two agree).
func (r Result) Conflicts() int { return r.Wavefronts - r.Ideal }

// Stats accumulate over Access calls.
type Stats struct {
	Requests   uint64
	Wavefronts uint64
	Ideal      uint64
	Ways       [MaxWays + 1]uint64 // Ways[n]: requests whose worst pass was n-way
}

// Banks is one SM's shared-memory bank model. Not safe for concurrent use.
type Banks struct {
	banks, width int
	words        [32][32]uint64 // distinct words per bank in the current pass
	count        [32]int
	stats        Stats
}

// New returns banks of the given count (a power of two, at most 32) and
// width in bytes (4 or 8).
func New(banks, width int) (*Banks, error) {
	if banks < 1 || banks > 32 || bits.OnesCount(uint(banks)) != 1 {
		return nil, fmt.Errorf("smem: %d banks: want a power of two up to 32", banks)
	}
	if width != 4 && width != 8 {
		return nil, fmt.Errorf("smem: bank width %d B: want 4 or 8", width)
	}
	return &Banks{banks: banks, width: width}, nil
}

// Stats returns the counts so far.
func (b *Banks) Stats() Stats { return b.stats }

// ResetStats zeroes the counts.
func (b *Banks) ResetStats() { b.stats = Stats{} }

// Access processes one warp instruction: addrs are the active lanes' shared
// addresses in lane order, mask their lanes (if it does not have len(addrs)
// bits set, lanes 0..len(addrs)-1 are assumed), size the bytes per lane
// (1 to 16). Loads and stores follow the same rules.
func (b *Banks) Access(mask uint32, addrs []uint64, size int) Result {
	if len(addrs) > 32 {
		addrs = addrs[:32]
	}
	size = min(max(size, 1), 16)
	if bits.OnesCount32(mask) != len(addrs) {
		mask = uint32(1<<len(addrs) - 1)
	}
	var r Result
	if len(addrs) == 0 {
		return r
	}
	group := min(max(b.banks*b.width/size, 1), 32)
	shift := uint(bits.TrailingZeros(uint(b.width)))
	bankMask := uint64(b.banks - 1)
	i := 0
	for g := 0; g < 32; g += group {
		gmask := mask & uint32((uint64(1)<<(g+group))-(uint64(1)<<g))
		if gmask == 0 {
			continue
		}
		clear(b.count[:b.banks])
		ways := 1
		for m := gmask; m != 0; m &= m - 1 {
			a := addrs[i]
			i++
			last := (a + uint64(size) - 1) >> shift
			for word := a >> shift; word <= last; word++ {
				bank := int(word & bankMask)
				n := b.count[bank]
				seen := false
				for _, x := range b.words[bank][:min(n, 32)] {
					if x == word {
						seen = true
						break
					}
				}
				if !seen {
					if n < 32 {
						b.words[bank][n] = word
					}
					n++
					b.count[bank] = n
					ways = max(ways, n)
				}
			}
		}
		r.Ideal++
		r.Wavefronts += ways
		r.Ways = max(r.Ways, ways)
	}
	b.stats.Requests++
	b.stats.Wavefronts += uint64(r.Wavefronts)
	b.stats.Ideal += uint64(r.Ideal)
	b.stats.Ways[min(r.Ways, MaxWays)]++
	return r
}
