package sched

// WarpOrder is the order in which one warp's trace records may issue: a warp's issue
// state between the trace and the scheduler.
//
// A warp that never diverged, or that runs under a SIMT stack, issues its records one
// after another: in trace order, or in the order the in-block scheduler chose (the
// records of one basic block reordered as ptxas would). A divergent warp under
// Independent Thread Scheduling (Volta and later) may issue from any of its paths: each
// record follows the previous record of its path, a path's first record follows the
// latest split before it (the one that opened it, or a later, nested one: an order
// that is never too loose), and a reconvergence record follows every earlier record.
// It looks at most window records past the oldest it has not issued.
type WarpOrder struct {
	n  int
	lo int // in order: records issued; divergent: the oldest unissued record
	// A streamed in-order warp (Streamed) holds one run of its order at a time: places
	// at .. at+m-1, record at+off[k-at] issued k-th (off nil: record k); n is unknown
	// (-1) until runs says the warp has ended.
	at, m       int
	off         []uint16
	runs        Runs
	last        int     // the record issued last
	ord         []int32 // in order: ord[k] is the record issued k-th (nil: trace order)
	*divergence         // a divergent warp's (nil: in order)
}

// divergence is a divergent warp's order: dep[i] is the record i follows (-1: none), or
// reconverge: every earlier one. It is apart from WarpOrder, which a timing engine keeps
// in each warp's hottest bytes, because few warps diverge.
type divergence struct {
	window int
	dep    []int32
	done   []bool
}

// reconverge in WarpOrder.dep marks a record that follows every earlier record.
const reconverge = -2

// InOrder is the order of a warp of n records that issues them one after another:
// record ord[k] k-th, or record k where ord is nil.
func InOrder(n int, ord []int32) WarpOrder { return WarpOrder{n: n, ord: ord} }

// Runs gives a streamed in-order warp its order a run at a time: Runs(k) is the run
// that begins at the warp's k-th place, as its length m (0: the warp has no k-th
// record) and its order, record k+off[j] issued at place k+j (nil: trace order, record
// k+j): off is a permutation of 0..m-1, which the order only reads, so runs through
// the same block may share one. Runs is called with k = 0 first, then with each run's
// end, so a source may forget what came before k.
type Runs func(k int) (m int, off []uint16)

// Streamed is InOrder for a warp whose order is computed as it issues, a run at a time,
// so that neither the order nor the records need be held whole: the same order as
// InOrder given every run's ord joined.
func Streamed(runs Runs) WarpOrder {
	o := WarpOrder{n: -1, runs: runs}
	o.fill()
	return o
}

// fill moves a streamed warp on to its next run once every place of the current one
// has issued.
func (o *WarpOrder) fill() {
	if o.runs != nil && o.lo >= o.at+o.m && o.n < 0 {
		o.nextRun()
	}
}

func (o *WarpOrder) nextRun() {
	o.at = o.lo
	o.m, o.off = o.runs(o.lo)
	if o.m == 0 {
		o.n = o.lo
	}
}

// Divergent is the order of a divergent warp under Independent Thread Scheduling:
// paths[i] is record i's path, flags[i] its flags, in which split marks a record
// whose branch opened paths and rejoin the first record after they rejoined. A
// record may issue at most window records past the oldest unissued one.
//
// ord (nil: trace order) reorders records within runs of one path, as the in-block
// scheduler does: ord[k] is the record that takes the k-th record's place in its
// path, so a path's records follow each other in ord's order. A run ord reorders
// must hold no rejoin record, must end at its split record if it has one, and must
// span fewer than window records of the trace, or the warp could wait on a record
// it never looks at.
func Divergent[F ~uint8](paths []uint16, flags []F, split, rejoin F, window int, ord []int32) WarpOrder {
	n := len(paths)
	o := WarpOrder{n: n, divergence: &divergence{window: window, dep: make([]int32, n), done: make([]bool, n)}}
	last := map[uint16]int32{}
	lastSplit := int32(-1)
	rec := func(k int) int32 {
		if ord == nil {
			return int32(k)
		}
		return ord[k]
	}
	for k := range n {
		i := rec(k)
		p := paths[i]
		switch prev, seen := last[p]; {
		case k == 0:
			o.dep[i] = -1
		case flags[i]&rejoin != 0:
			o.dep[i] = reconverge
		case seen:
			o.dep[i] = prev
		case lastSplit >= 0:
			o.dep[i] = lastSplit
		default:
			o.dep[i] = int32(k) - 1 // the record before this place: before i's whole run
		}
		last[p] = i
		if flags[i]&split != 0 {
			lastSplit = int32(i)
		}
	}
	return o
}

// IsDivergent reports whether the warp may issue from several paths.
func (o *WarpOrder) IsDivergent() bool { return o.divergence != nil }

// Next is the record an in-order warp issues next (the only candidate).
func (o *WarpOrder) Next() int { return o.record(o.lo) }

// Latest is the record issued last, for an in-order warp; for a divergent one, the
// record before the oldest unissued one (record 0 before any issued). A streamed warp
// that has issued nothing answers its first record.
func (o *WarpOrder) Latest() int {
	if o.runs != nil {
		if o.lo == 0 {
			return o.Next()
		}
		return o.last
	}
	return o.record(max(o.lo-1, 0))
}

func (o *WarpOrder) record(k int) int {
	switch {
	case o.off != nil:
		return o.at + int(o.off[k-o.at])
	case o.ord == nil:
		return k
	}
	return int(o.ord[k])
}

// Candidates calls fn with the records the warp may issue next, oldest first, until
// fn returns true: the next record of an in-order warp; of a divergent warp, each
// unissued record within the window whose predecessor has issued.
func (o *WarpOrder) Candidates(fn func(i int) bool) {
	if o.divergence == nil {
		fn(o.Next())
		return
	}
	end := min(o.lo+o.window, o.n)
	for i := o.lo; i < end; i++ {
		if o.done[i] {
			continue
		}
		switch d := o.dep[i]; {
		case d == reconverge && i != o.lo:
			continue
		case d >= 0 && !o.done[d]:
			continue
		}
		if fn(i) {
			return
		}
	}
}

// Issued records that record i issued. i must be a candidate.
func (o *WarpOrder) Issued(i int) {
	if o.divergence == nil {
		o.lo++
		o.last = i
		o.fill()
		return
	}
	o.done[i] = true
	for o.lo < o.n && o.done[o.lo] {
		o.lo++
	}
}

// Finished reports whether every record has issued.
func (o *WarpOrder) Finished() bool { return o.n >= 0 && o.lo >= o.n }
