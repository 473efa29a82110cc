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
	count        [32]int // distinct words per bank in the current pass
	// seen holds the words of the current pass, an open-addressing set whose entries
	// count only when their pass stamp is the current one, so a pass clears nothing.
	seen  [256]seenWord
	pass  uint32
	stats Stats
}

type seenWord struct {
	word uint64
	pass uint32
}

// remembers reports whether word is in the current pass's set, adding it if not and
// add is true.
func (b *Banks) remembers(word uint64, add bool) bool {
	for i := (word * 0x9E3779B97F4A7C15) >> 56; ; i = (i + 1) & 255 {
		e := &b.seen[i]
		if e.pass != b.pass {
			if add {
				*e = seenWord{word, b.pass}
			}
			return false
		}
		if e.word == word {
			return true
		}
	}
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

// PassBytes is the bytes one conflict-free wavefront moves: banks times their width.
func (b *Banks) PassBytes() int { return b.banks * b.width }

// Stats returns the counts so far.
func (b *Banks) Stats() Stats { return b.stats }

// ResetStats zeroes the counts.
func (b *Banks) ResetStats() { b.stats = Stats{} }

// newPass empties the set of words seen.
func (b *Banks) newPass() {
	b.pass++
	if b.pass == 0 { // wrapped: stale stamps could match
		b.seen = [256]seenWord{}
		b.pass = 1
	}
}

// Access processes one warp instruction: addrs are the active lanes' shared
// addresses in lane order, mask their lanes (if it does not have len(addrs)
// bits set, lanes 0..len(addrs)-1 are assumed), size the bytes per lane
// (1 to 16). Loads and stores follow the same rules.
func (b *Banks) Access(mask uint32, addrs []uint64, size int) Result {
	return b.access(mask, addrs, size, true)
}

// Atomic processes one warp's shared-memory atomic: as Access, except that lanes on
// the same word do not share a wavefront, since each must see the one before it. A
// pass takes as many wavefronts as its busiest bank has lanes: on an H200, 32 lanes on
// one word take 32 wavefronts, as do 32 lanes on 32 words of one bank, and 16 banks of
// two lanes each take two (scripts/hw/atomics.sh, docs/research/hw-facts.md §9).
func (b *Banks) Atomic(mask uint32, addrs []uint64, size int) Result {
	return b.access(mask, addrs, size, false)
}

// Spread is the wavefronts one pass of lanes needs that write size bytes each at addrs
// with no merging: the most lanes on one bank, lanes on the same word counted apart
// (at least 1). It records nothing in Stats. A cp.async's shared side takes a pass per
// source line (replay): on an H100 its wavefronts count lanes with one destination
// apart, where a store's merge them (scripts/hw/ldgsts.cu, docs/issue-19.md item 68).
func (b *Banks) Spread(addrs []uint64, size int) int {
	return b.passWays(addrs, min(max(size, 1), 16), false)
}

// passWays is the wavefronts one pass of lanes at addrs, size bytes each, needs: the
// most words on one bank (at least 1), a word the bank already holds in this pass not
// counted again when merge is set.
func (b *Banks) passWays(addrs []uint64, size int, merge bool) int {
	clear(b.count[:b.banks])
	b.newPass()
	shift := uint(bits.TrailingZeros(uint(b.width)))
	bankMask := uint64(b.banks - 1)
	ways := 1
	for _, a := range addrs {
		last := (a + uint64(size) - 1) >> shift
		for word := a >> shift; word <= last; word++ {
			bank := int(word & bankMask)
			n := b.count[bank]
			// A bank remembers its first 32 distinct words of a pass; one past
			// those counts each time it comes (only a 1-bank model reaches that).
			if !merge || !b.remembers(word, n < 32) {
				n++
				b.count[bank] = n
				ways = max(ways, n)
			}
		}
	}
	return ways
}

func (b *Banks) access(mask uint32, addrs []uint64, size int, merge bool) Result {
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
	i := 0
	for g := 0; g < 32; g += group {
		gmask := mask & uint32((uint64(1)<<(g+group))-(uint64(1)<<g))
		if gmask == 0 {
			continue
		}
		k := bits.OnesCount32(gmask)
		ways := b.passWays(addrs[i:i+k], size, merge)
		i += k
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
