package cache

// InFlight is the sectors on their way into a cache and the cycle each lands, for a
// timing model: an access that finds a sector the functional cache already holds but
// whose fill has not landed waits for it, as an MSHR merge does. Old entries are
// forgotten every so many fills, once they landed more than a horizon before the
// latest fill: nothing asked about them can still be waiting. The zero value is not
// usable; call NewInFlight. Not safe for concurrent use.
type InFlight struct {
	at      map[uint64]int64 // sector address → cycle its data lands
	fills   int              // Fill calls since the last pruning
	every   int
	horizon int64
}

// NewInFlight returns an empty table that prunes every `every` Fill calls the sectors
// that landed more than horizon cycles before the fill that triggers it.
func NewInFlight(every int, horizon int64) *InFlight {
	return &InFlight{at: map[uint64]int64{}, every: max(every, 1), horizon: horizon}
}

// Fill records that the sectors of mask in line land at cycle at.
func (f *InFlight) Fill(line uint64, mask uint8, at int64) {
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

// Pending returns the latest cycle after t at which a sector of mask in line lands,
// or 0 when none is in flight at t.
func (f *InFlight) Pending(line uint64, mask uint8, t int64) int64 {
	var d int64
	for b := uint64(0); b < 8; b++ {
		if mask&(1<<b) != 0 {
			if a, ok := f.at[line+b*Chunk]; ok && a > t {
				d = max(d, a)
			}
		}
	}
	return d
}

// Len is the number of sectors the table holds, landed or not.
func (f *InFlight) Len() int { return len(f.at) }
