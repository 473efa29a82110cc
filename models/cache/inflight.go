package cache

import "math/bits"

// InFlight is the sectors on their way into a cache and the cycle each lands, for a
// timing model: an access that finds a sector the functional cache already holds but
// whose fill has not landed waits for it, as an MSHR merge does. Old entries are
// forgotten every so many fills, once they landed more than a horizon before the
// latest fill: nothing asked about them can still be waiting. The zero value is not
// usable; call NewInFlight. Not safe for concurrent use.
//
// Sectors are kept in groups of eight consecutive ones (256 bytes, the longest line),
// one map entry per group, so a fill or a question about a line's sectors costs one
// map lookup, not one per sector. Line addresses are multiples of Chunk.
type InFlight struct {
	index   map[uint64]int32 // group (sector address / 256) → its entry in groups
	groups  []flightGroup
	free    []int32 // entries of groups no longer in use
	n       int     // sectors held
	fills   int     // Fill calls since the last pruning
	every   int
	horizon int64
}

// flightGroup is eight consecutive sectors: which are held, and the cycle each lands.
type flightGroup struct {
	held uint8
	at   [8]int64
}

const groupShift = 8 // log2 of the bytes of a group: 8 sectors of Chunk bytes

// NewInFlight returns an empty table that prunes every `every` Fill calls the sectors
// that landed more than horizon cycles before the fill that triggers it.
func NewInFlight(every int, horizon int64) *InFlight {
	return &InFlight{index: map[uint64]int32{}, every: max(every, 1), horizon: horizon}
}

// split gives the group of line's first sector, and the sectors of mask in that group
// (lo) and in the next (hi): a line that starts inside a group (one shorter than 256
// bytes) may spill its upper sectors into the next.
func split(line uint64, mask uint8) (key uint64, lo, hi uint8) {
	first := line / Chunk % 8
	return line >> groupShift, uint8(uint16(mask) << first), uint8(uint16(mask) >> (8 - first))
}

// Fill records that the sectors of mask in line land at cycle at.
func (f *InFlight) Fill(line uint64, mask uint8, at int64) {
	key, lo, hi := split(line, mask)
	if lo != 0 {
		f.fill(key, lo, at)
	}
	if hi != 0 {
		f.fill(key+1, hi, at)
	}
	if f.fills++; f.fills >= f.every {
		f.fills = 0
		f.prune(at - f.horizon)
	}
}

func (f *InFlight) fill(key uint64, m uint8, at int64) {
	i, ok := f.index[key]
	if !ok {
		if k := len(f.free); k > 0 {
			i, f.free = f.free[k-1], f.free[:k-1]
		} else {
			i = int32(len(f.groups))
			f.groups = append(f.groups, flightGroup{})
		}
		f.index[key] = i
	}
	g := &f.groups[i]
	f.n += bits.OnesCount8(m &^ g.held)
	g.held |= m
	for ; m != 0; m &= m - 1 {
		g.at[bits.TrailingZeros8(m)] = at
	}
}

// prune forgets the sectors that landed before cycle before.
func (f *InFlight) prune(before int64) {
	for key, i := range f.index {
		g := &f.groups[i]
		for m := g.held; m != 0; m &= m - 1 {
			if b := bits.TrailingZeros8(m); g.at[b] < before {
				g.held &^= 1 << b
				f.n--
			}
		}
		if g.held == 0 {
			delete(f.index, key)
			f.free = append(f.free, i)
		}
	}
}

// Pending returns the latest cycle after t at which a sector of mask in line lands,
// or 0 when none is in flight at t.
func (f *InFlight) Pending(line uint64, mask uint8, t int64) int64 {
	key, lo, hi := split(line, mask)
	d := int64(0)
	if lo != 0 {
		d = f.pending(key, lo, t)
	}
	if hi != 0 {
		d = max(d, f.pending(key+1, hi, t))
	}
	return d
}

func (f *InFlight) pending(key uint64, m uint8, t int64) int64 {
	i, ok := f.index[key]
	if !ok {
		return 0
	}
	g := &f.groups[i]
	d := int64(0)
	for m &= g.held; m != 0; m &= m - 1 {
		if a := g.at[bits.TrailingZeros8(m)]; a > t {
			d = max(d, a)
		}
	}
	return d
}

// Len is the number of sectors the table holds, landed or not.
func (f *InFlight) Len() int { return f.n }
