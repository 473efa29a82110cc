package sched

import "fmt"

// Policy chooses which of a scheduler's warps issues next. Warps are small integers (the
// engine's warp slots); Add gives them an age order.
type Policy interface {
	// Add makes warp w eligible, youngest so far.
	Add(w int)
	// Remove drops warp w (it finished).
	Remove(w int)
	// Pick returns the warp to issue from among those for which ready is true, or -1.
	Pick(ready func(w int) bool) int
	// Issued tells the policy that w issued this cycle.
	Issued(w int)
	// LongStall tells the policy that w waits on a long-latency operation (a global
	// load, a barrier); the two-level policy moves such a warp out of its active set. It
	// reports whether the set changed, so the caller knows another warp may now issue.
	LongStall(w int) bool
}

// New returns the named policy: "lrr", "gto" or "two-level" (an active set of
// TwoLevelActive warps).
func New(name string) (Policy, error) {
	switch name {
	case "lrr":
		return &LRR{}, nil
	case "gto":
		return &GTO{}, nil
	case "gtrr":
		return &GTRR{}, nil
	case "two-level":
		return &TwoLevel{Active: TwoLevelActive}, nil
	}
	return nil, fmt.Errorf("sched: unknown policy %q (want lrr, gto, gtrr or two-level)", name)
}

// TwoLevelActive is the two-level scheduler's active-set size: Narasiman et al. (MICRO
// 2011) fetch in groups of 8 warps; Gebhart et al. (ISCA 2011) find 6-8 active warps
// enough.
const TwoLevelActive = 8

// order is a list of warps in age order (oldest first).
type order []int

func (o *order) add(w int) { *o = append(*o, w) }

func (o *order) remove(w int) int {
	for i, x := range *o {
		if x == w {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return i
		}
	}
	return -1
}

// LRR is loose round robin: the warp after the last one that issued goes first.
type LRR struct {
	warps order
	next  int // index into warps where the next search starts
}

func (p *LRR) Add(w int) { p.warps.add(w) }
func (p *LRR) Remove(w int) {
	if i := p.warps.remove(w); i >= 0 && i < p.next {
		p.next--
	}
}
func (p *LRR) Pick(ready func(int) bool) int {
	n := len(p.warps)
	for k := range n {
		i := (p.next + k) % n
		if ready(p.warps[i]) {
			return p.warps[i]
		}
	}
	return -1
}
func (p *LRR) Issued(w int) {
	for i, x := range p.warps {
		if x == w {
			p.next = (i + 1) % max(len(p.warps), 1)
			return
		}
	}
}
func (p *LRR) LongStall(int) bool { return false }

// GTRR is greedy-then-round-robin: keep issuing from the warp that issued last while it
// can, otherwise the next ready warp in round-robin order after it. Like GTO it keeps a
// warp's back-to-back instructions together (what operand reuse caches need); unlike
// GTO's oldest-first fallback it starves no warp.
type GTRR struct {
	LRR
	last int
	has  bool
}

func (p *GTRR) Remove(w int) {
	p.LRR.Remove(w)
	if p.has && p.last == w {
		p.has = false
	}
}
func (p *GTRR) Pick(ready func(int) bool) int {
	if p.has && ready(p.last) {
		return p.last
	}
	return p.LRR.Pick(ready)
}
func (p *GTRR) Issued(w int) {
	p.LRR.Issued(w)
	p.last, p.has = w, true
}

// GTO is greedy-then-oldest: keep issuing from the warp that issued last while it can,
// otherwise the oldest ready warp (Rogers et al., MICRO 2012).
type GTO struct {
	warps order
	last  int
	has   bool
}

func (p *GTO) Add(w int) { p.warps.add(w) }
func (p *GTO) Remove(w int) {
	p.warps.remove(w)
	if p.has && p.last == w {
		p.has = false
	}
}
func (p *GTO) Pick(ready func(int) bool) int {
	if p.has && ready(p.last) {
		return p.last
	}
	for _, w := range p.warps {
		if ready(w) {
			return w
		}
	}
	return -1
}
func (p *GTO) Issued(w int)         { p.last, p.has = w, true }
func (p *GTO) LongStall(w int) bool { return false }

// TwoLevel keeps an active set of at most Active warps, picked round robin; a warp that
// waits on a long-latency operation leaves the set for the back of the pending queue,
// and the oldest pending warp takes its place (Narasiman et al., MICRO 2011).
type TwoLevel struct {
	Active  int
	active  order
	pending order
	next    int
}

func (p *TwoLevel) Add(w int) {
	if len(p.active) < max(p.Active, 1) {
		p.active.add(w)
	} else {
		p.pending.add(w)
	}
}
func (p *TwoLevel) Remove(w int) {
	if i := p.active.remove(w); i >= 0 {
		if i < p.next {
			p.next--
		}
		p.refill()
		return
	}
	p.pending.remove(w)
}
func (p *TwoLevel) refill() {
	for len(p.active) < max(p.Active, 1) && len(p.pending) > 0 {
		p.active.add(p.pending[0])
		p.pending = p.pending[1:]
	}
}
func (p *TwoLevel) Pick(ready func(int) bool) int {
	n := len(p.active)
	for k := range n {
		i := (p.next + k) % n
		if ready(p.active[i]) {
			return p.active[i]
		}
	}
	return -1
}
func (p *TwoLevel) Issued(w int) {
	for i, x := range p.active {
		if x == w {
			p.next = (i + 1) % max(len(p.active), 1)
			return
		}
	}
}
func (p *TwoLevel) LongStall(w int) bool {
	if len(p.pending) == 0 {
		return false
	}
	if i := p.active.remove(w); i >= 0 {
		if i < p.next {
			p.next--
		}
		if p.next >= len(p.active) {
			p.next = 0
		}
		p.pending.add(w)
		p.refill()
		return true
	}
	return false
}
