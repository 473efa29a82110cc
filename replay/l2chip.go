package replay

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/cache"
)

// l2Chip is the chip's L2 as both engines see it: which slice a request enters, what its
// lookup finds, which sectors come from DRAM, and which dirty lines leave for DRAM
// during the kernel. It decides; the memory engine counts the bytes it moves and the
// timing engine times them. The three mechanisms past a plain sectored cache per slice
// come from an H200 (docs/research/hw-facts.md §11), each behind its config key:
//
//   - l2.partitions: the slices and the SMs (by id) split into P equal partitions. A
//     line's home is its slice (l2.slice_map), in the partition the XOR of
//     l2.partition_bits picks when those are given. A read from an SM of another
//     partition enters the slice of the SM's partition at the home's place and keeps a
//     copy of the line there; on a miss it looks at home, and a home miss reads DRAM.
//     Stores and atomics are done at home.
//   - l2.dirty_max: a slice holds at most that fraction of its lines dirty; a store
//     that dirties one more writes back the least recently written dirty line, which
//     stays, clean.
//   - l2.partial_fill: a sector that a store made valid without data (write-validate)
//     and whose bytes were not all written is read from DRAM before it is written back
//     or read.
type l2Chip struct {
	slices   []*cache.Sectored
	sliceMap arch.SliceMap
	parts    int           // l2.partitions
	partBits arch.AddrBits // l2.partition_bits: none, or the XOR that picks a home's partition
	perPart  int           // slices per partition
	sms      int

	dirtyMax int          // dirty lines a slice may hold; 0: no budget
	dirty    []dirtyLines // per slice, with a budget
	// partial holds, for each sector written without data and not yet whole, the bytes
	// written (bit i = byte i); nil without l2.partial_fill.
	partial map[uint64]uint32

	// out collects the lines leaving for DRAM; the engine moves them with drain.
	out []l2Out
}

// l2Out is one line's dirty sectors going to DRAM; fill are those of them to read from
// DRAM first.
type l2Out struct {
	line        uint64
	dirty, fill uint8
}

// dirtyLines orders one slice's dirty lines by their latest store: seq maps a dirty line
// to the number of that store, q holds stores in order (an entry whose number is no
// longer its line's is stale and skipped).
type dirtyLines struct {
	seq  map[uint64]uint64
	q    []dirtyStore
	head int
	n    uint64
}

type dirtyStore struct{ line, seq uint64 }

// newL2Chip builds the L2 of cfg for nsm SMs, every slice from sliceCfg (the engines
// differ in their MSHRs).
func newL2Chip(cfg *arch.Config, nsm int, sliceCfg cache.Config) (*l2Chip, error) {
	l := &l2Chip{sliceMap: cfg.L2.SliceMap, parts: max(cfg.L2.Partitions, 1), partBits: cfg.L2.PartitionBits, sms: max(nsm, 1)}
	for range max(cfg.L2.Slices, 1) {
		c, err := cache.New(sliceCfg)
		if err != nil {
			return nil, fmt.Errorf("l2 slice: %w", err)
		}
		l.slices = append(l.slices, c)
	}
	l.perPart = len(l.slices) / l.parts
	if l.perPart == 0 {
		return nil, fmt.Errorf("l2.partitions %d: more than the %d slices", l.parts, len(l.slices))
	}
	if cfg.L2.DirtyMax > 0 && cfg.L2.DirtyMax < 1 {
		_, _, sets, ways, _ := sliceCfg.Geometry() // cache.New above has checked it
		l.dirtyMax = max(int(math.Floor(cfg.L2.DirtyMax*float64(sets*ways))), 1)
		l.dirty = make([]dirtyLines, len(l.slices))
		for i := range l.dirty {
			l.dirty[i].seq = map[uint64]uint64{}
		}
	}
	if cfg.L2.PartialFill {
		l.partial = map[uint64]uint32{}
	}
	return l, nil
}

// home is the slice that holds line for stores and atomics.
func (l *l2Chip) home(line uint64) int {
	if l.partBits != 0 && l.parts == 2 { // arch.Validate allows the bits with two partitions only
		return l.partBits.Parity(line)*l.perPart + l.sliceMap.Slice(line, l.perPart)
	}
	return l.sliceMap.Slice(line, len(l.slices))
}

// part is the partition of slice s.
func (l *l2Chip) part(s int) int { return min(s/l.perPart, l.parts-1) }

// entry is the slice a read of line from SM sm looks in first, and line's home.
func (l *l2Chip) entry(sm int, line uint64) (near, home int) {
	home = l.home(line)
	if l.parts <= 1 {
		return home, home
	}
	p := min(sm*l.parts/l.sms, l.parts-1)
	if l.part(home) == p {
		return home, home
	}
	return p*l.perPart + home%l.perPart, home
}

// remote reports whether line's home is in another partition than SM sm's: whether
// the SM's reads of it enter a near copy's slice.
func (l *l2Chip) remote(sm int, line uint64) bool {
	near, home := l.entry(sm, line)
	return near != home
}

// load looks up the sectors in mask of line for SM sm. res is the lookup the request
// counts (in the slice it entered, which is slice), far the sectors that missed there
// and hit at home in the other partition, fetch the sectors to read from DRAM. Dirty
// lines that leave are appended to l.out.
func (l *l2Chip) load(sm int, line uint64, mask uint8) (slice int, res cache.Result, far, fetch uint8) {
	near, home := l.entry(sm, line)
	res = l.slices[near].Access(line, mask, cache.Load)
	l.evicted(near, res)
	fetch = res.Fetch
	homeHit := res.Hit
	if near != home {
		homeHit = 0
		if fetch != 0 {
			h := l.slices[home].Access(line, fetch, cache.Load)
			l.evicted(home, h)
			homeHit, fetch = h.Hit, h.Fetch
			far = h.Hit
		}
	}
	if l.partial != nil && homeHit != 0 {
		fetch |= l.takePartial(line, homeHit)
	}
	return near, res, far &^ fetch, fetch
}

// store writes the sectors in mask of line at its home (an atomic or reduction too);
// use holds the bytes written in each of the line's first four sectors (zero: the whole
// sector). Dirty lines that leave are appended to l.out.
func (l *l2Chip) store(line uint64, mask uint8, use *[4]uint32) (slice int, res cache.Result) {
	s := l.home(line)
	res = l.slices[s].Access(line, mask, cache.Store)
	l.evicted(s, res)
	if l.partial != nil {
		l.written(line, mask, res.Miss, use)
	}
	if l.dirty != nil {
		l.dirtied(s, line)
	}
	return s, res
}

// merged takes the sectors in mask of line that a store wrote into an earlier store's
// write on its way (sm.store_merge_lines): no access of their own, but their bytes count
// as written (l2.partial_fill).
func (l *l2Chip) merged(line uint64, mask uint8, use *[4]uint32) {
	if l.partial != nil {
		l.written(line, mask, 0, use)
	}
}

// storeBytes is what a store of the lanes at addrs, width bytes each, writes in each
// sector of line, as l2Chip.store takes it: only l2.partial_fill (partialFill) needs the
// bytes, and zero means whole sectors. Both engines' SMs call it while they run, so it
// reads nothing of the chip.
func storeBytes(partialFill bool, line uint64, addrs []uint64, width int) (use [4]uint32) {
	if partialFill {
		use = usedBytes(line, addrs, width)
	}
	return use
}

// drain calls move for each sector the L2 let go of since the last drain, in order: a
// partial sector's read from DRAM first, then each dirty sector's write.
func (l *l2Chip) drain(move func(addr uint64, write bool)) {
	for _, o := range l.out {
		for b := uint64(0); b < 8; b++ {
			if o.fill&(1<<b) != 0 {
				move(o.line+b*cache.Chunk, false)
			}
			if o.dirty&(1<<b) != 0 {
				move(o.line+b*cache.Chunk, true)
			}
		}
	}
	l.out = l.out[:0]
}

// evicted records a replaced line's dirty sectors as leaving.
func (l *l2Chip) evicted(s int, res cache.Result) {
	if !res.Evicted || res.EvictDirty == 0 {
		return
	}
	if l.dirty != nil {
		delete(l.dirty[s].seq, res.EvictLine)
	}
	l.leave(res.EvictLine, res.EvictDirty)
}

func (l *l2Chip) leave(line uint64, dirty uint8) {
	var fill uint8
	if l.partial != nil {
		fill = l.takePartial(line, dirty)
	}
	l.out = append(l.out, l2Out{line: line, dirty: dirty, fill: fill})
}

// takePartial returns which sectors of mask are partial, and makes them whole (their
// DRAM copy is read in).
func (l *l2Chip) takePartial(line uint64, mask uint8) uint8 {
	var fill uint8
	for m := mask; m != 0; m &= m - 1 {
		b := bits.TrailingZeros8(m)
		a := line + uint64(b)*cache.Chunk
		if _, ok := l.partial[a]; ok {
			fill |= 1 << b
			delete(l.partial, a)
		}
	}
	return fill
}

// written notes the bytes a store wrote: a sector it made valid (missed) starts partial
// unless written whole; a partial one becomes whole once every byte has been written.
func (l *l2Chip) written(line uint64, mask, missed uint8, use *[4]uint32) {
	for m := mask; m != 0; m &= m - 1 {
		b := bits.TrailingZeros8(m)
		bytes := uint32(math.MaxUint32)
		if use != nil && b < len(use) && use[b] != 0 {
			bytes = use[b]
		}
		a := line + uint64(b)*cache.Chunk
		if have, ok := l.partial[a]; ok {
			bytes |= have
		} else if missed&(1<<b) == 0 {
			continue // written into a sector the L2 held whole
		}
		if bytes == math.MaxUint32 {
			delete(l.partial, a)
		} else {
			l.partial[a] = bytes
		}
	}
}

// dirtied moves line to the newest end of slice s's dirty lines and, past the budget,
// writes back the oldest.
func (l *l2Chip) dirtied(s int, line uint64) {
	d := &l.dirty[s]
	d.n++
	d.seq[line] = d.n
	d.q = append(d.q, dirtyStore{line, d.n})
	for len(d.seq) > l.dirtyMax {
		e := d.q[d.head]
		d.head++
		if d.seq[e.line] != e.seq {
			continue // stored again since, or gone
		}
		delete(d.seq, e.line)
		if dirty := l.slices[s].Clean(e.line); dirty != 0 {
			l.leave(e.line, dirty)
		}
	}
	if d.head > 1024 && d.head > len(d.q)/2 {
		d.q = append(d.q[:0], d.q[d.head:]...)
		d.head = 0
	}
}
