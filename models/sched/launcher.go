package sched

// Grid hands out one launch's CTAs to the SMs in id order and counts those that
// retired: the grid side of the CTA launcher (the "block scheduler" of GPGPU-Sim,
// NVIDIA's compute work distributor). Both replay engines take CTAs from one.
type Grid struct {
	Total   int // CTAs in the launch
	next    int // the next CTA to hand out
	retired int
}

// Take hands out the next CTA, or reports that every CTA has been handed out.
func (g *Grid) Take() (id int, ok bool) {
	if g.next >= g.Total {
		return 0, false
	}
	g.next++
	return g.next - 1, true
}

// Peek is the CTA Take would hand out next, if any (what to decode ahead).
func (g *Grid) Peek() (id int, ok bool) { return g.next, g.next < g.Total }

// Left is how many CTAs Take has yet to hand out.
func (g *Grid) Left() int { return g.Total - g.next }

// Retire counts n more CTAs finished and returns how many have.
func (g *Grid) Retire(n int) int {
	g.retired += n
	return g.retired
}

// Retired is how many CTAs have finished.
func (g *Grid) Retired() int { return g.retired }

// Spread places the first CTAs of a launch breadth-first, as NVIDIA's distributor
// does: one to each SM in turn (SM 0, 1, ..., sms-1, then SM 0 again), until every SM
// holds perSM or total CTAs are placed. place is called once per CTA with its SM, in
// that order.
func Spread(total, sms, perSM int, place func(sm int)) {
	placed := 0
	for round := 0; round < perSM && placed < total; round++ {
		for sm := 0; sm < sms && placed < total; sm++ {
			place(sm)
			placed++
		}
	}
}

// CTALauncher is one SM's CTA launch unit. A CTA waits until the SM has room for it
// (Vacate, when an earlier CTA's last result lands) and until the unit is free: it
// starts at most one CTA per Cycles cycles (sm.cta_launch_ns; 0 starts every
// waiting CTA that fits in the same cycle). Waiting CTAs start in the order their
// room was vacated.
type CTALauncher struct {
	Cycles  int64
	waiting []int64 // the cycle from which each waiting CTA has room
	free    int64   // the first cycle the unit may start a CTA
}

// Vacate records that the SM has room for one more CTA from cycle at.
func (l *CTALauncher) Vacate(at int64) { l.waiting = append(l.waiting, at) }

// Launch reports whether a CTA starts at t: the first waiting one with room by t, if
// the unit is free at t. Ask again until it answers false: with Cycles 0 several may
// start at t. A CTA vacated at t while starting the others is seen too.
func (l *CTALauncher) Launch(t int64) bool {
	if l.free > t {
		return false
	}
	for i, at := range l.waiting {
		if at <= t {
			l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
			l.free = t + l.Cycles
			return true
		}
	}
	return false
}

// Next is the first cycle after t at which a waiting CTA can start, or -1 if none waits.
func (l *CTALauncher) Next(t int64) int64 {
	if len(l.waiting) == 0 {
		return -1
	}
	first := l.waiting[0]
	for _, at := range l.waiting[1:] {
		first = min(first, at)
	}
	return max(first, l.free, t+1)
}

// Waiting is how many CTAs wait to start.
func (l *CTALauncher) Waiting() int { return len(l.waiting) }
