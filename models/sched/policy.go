package sched

import (
	"fmt"
	"slices"
)

// Policy chooses which of a scheduler's warps issues next. Warps are small integers (the
// engine's warp slots); Add gives them an age order.
type Policy interface {
	// Add makes warp w of CTA cta eligible, youngest so far (the warps of one CTA are
	// added one after another; only gtoc reads cta).
	Add(w, cta int)
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

// New returns the named policy: "lrr", "gto", "gtrr", "gtoc" or "two-level" (an active
// set of TwoLevelActive warps).
func New(name string) (Policy, error) {
	switch name {
	case "lrr":
		return &LRR{}, nil
	case "gto":
		return &GTO{}, nil
	case "gtrr":
		return &GTRR{}, nil
	case "gtoc":
		return &GTOC{}, nil
	case "two-level":
		return &TwoLevel{Active: TwoLevelActive}, nil
	}
	return nil, fmt.Errorf("sched: unknown policy %q (want lrr, gto, gtrr, gtoc or two-level)", name)
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

func (p *LRR) Add(w, _ int) { p.warps.add(w) }
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
	greedy
}

func (p *GTRR) Remove(w int) {
	p.LRR.Remove(w)
	p.drop(w)
}
func (p *GTRR) Pick(ready func(int) bool) int {
	if p.keeps(ready) {
		return p.last
	}
	return p.LRR.Pick(ready)
}
func (p *GTRR) Issued(w int) {
	p.LRR.Issued(w)
	p.issued(w)
}

// greedy is what GTRR, GTO and GTOC share: the warp that issued last keeps the
// scheduler while it is ready.
type greedy struct {
	last int
	has  bool
}

func (g *greedy) keeps(ready func(int) bool) bool { return g.has && ready(g.last) }
func (g *greedy) issued(w int)                    { g.last, g.has = w, true }
func (g *greedy) drop(w int) {
	if g.has && g.last == w {
		g.has = false
	}
}

// GTO is greedy-then-oldest: keep issuing from the warp that issued last while it can,
// otherwise the oldest ready warp (Rogers et al., MICRO 2012).
type GTO struct {
	warps order
	greedy
}

func (p *GTO) Add(w, _ int) { p.warps.add(w) }
func (p *GTO) Remove(w int) {
	p.warps.remove(w)
	p.drop(w)
}
func (p *GTO) Pick(ready func(int) bool) int {
	if p.keeps(ready) {
		return p.last
	}
	for _, w := range p.warps {
		if ready(w) {
			return w
		}
	}
	return -1
}
func (p *GTO) Issued(w int)         { p.issued(w) }
func (p *GTO) LongStall(w int) bool { return false }

// GTOC is greedy, then the oldest CTA: keep issuing from the warp that issued last while
// it can, otherwise a ready warp of the oldest CTA that has one, taking that CTA's warps
// in round-robin order after the one of it that issued last. Measured on the H200
// (docs/research/hw-facts.md section 21): with issue saturated, an SM's oldest CTA ends
// its first pass in a fifth of the youngest's time, while the warps of one CTA share
// issue evenly (as GTRR gives within one CTA).
type GTOC struct {
	ctas []*ctaWarps // oldest first
	of   []*ctaWarps // by warp
	greedy
}

// ctaWarps is one CTA's warps under GTOC, taken in round robin.
type ctaWarps struct {
	id int
	LRR
}

func (p *GTOC) Add(w, cta int) {
	var c *ctaWarps
	if n := len(p.ctas); n > 0 && p.ctas[n-1].id == cta {
		c = p.ctas[n-1]
	} else {
		c = &ctaWarps{id: cta}
		p.ctas = append(p.ctas, c)
	}
	c.Add(w, cta)
	for len(p.of) <= w {
		p.of = append(p.of, nil)
	}
	p.of[w] = c
}
func (p *GTOC) Remove(w int) {
	if w >= len(p.of) || p.of[w] == nil {
		return
	}
	c := p.of[w]
	p.of[w] = nil
	c.Remove(w)
	if len(c.warps) == 0 {
		i := slices.Index(p.ctas, c)
		p.ctas = slices.Delete(p.ctas, i, i+1)
	}
	p.drop(w)
}
func (p *GTOC) Pick(ready func(int) bool) int {
	if p.keeps(ready) {
		return p.last
	}
	for _, c := range p.ctas {
		if w := c.Pick(ready); w >= 0 {
			return w
		}
	}
	return -1
}
func (p *GTOC) Issued(w int) {
	p.issued(w)
	if w < len(p.of) && p.of[w] != nil {
		p.of[w].Issued(w)
	}
}
func (p *GTOC) LongStall(int) bool { return false }

// TwoLevel keeps an active set of at most Active warps, picked round robin; a warp that
// waits on a long-latency operation leaves the set for the back of the pending queue,
// and the oldest pending warp takes its place (Narasiman et al., MICRO 2011).
type TwoLevel struct {
	Active  int
	active  order
	pending order
	next    int
}

func (p *TwoLevel) Add(w, _ int) {
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
