package sched

// Pipe is one scheduler's share of an execution pipe, Lanes wide: a warp instruction
// needs 32 lanes, so it occupies the pipe for 32/Lanes cycles (2 on Fermi's 16-lane
// halves), and a pipe wider than 32 lanes (Kepler's 48 per scheduler) lets a
// dual-issuing scheduler start three warp instructions every two cycles. Credit accrues
// Lanes per cycle up to Lanes rounded up to whole warps, so an idle pipe does not bank
// issue slots. The zero value (with Lanes set) starts full.
type Pipe struct {
	Lanes  int
	credit int
	at     int64
	init   bool
}

func (p *Pipe) capacity() int64 { return int64(max((p.Lanes+31)/32, 1) * 32) }

func (p *Pipe) refill(now int64) {
	if !p.init {
		p.init, p.credit, p.at = true, int(p.capacity()), now
	}
	if now > p.at {
		c := int64(p.credit) + int64(p.Lanes)*(now-p.at)
		p.credit = int(min(c, p.capacity()))
		p.at = now
	}
}

// Free reports whether a warp instruction can start at now, and if not, when it can.
func (p *Pipe) Free(now int64) (bool, int64) {
	if p.Lanes <= 0 {
		return true, now
	}
	if now > p.at || !p.init {
		p.refill(now)
	}
	if p.credit >= 32 {
		return true, now
	}
	need := 32 - p.credit
	return false, now + int64((need+p.Lanes-1)/p.Lanes)
}

// Take starts a warp instruction at now; Free must have said yes.
func (p *Pipe) Take(now int64) { p.TakeN(now, 1) }

// TakeN starts n back-to-back warp instructions at now (an instruction that SASS
// expands into n): the pipe is busy for n times one instruction's cycles.
func (p *Pipe) TakeN(now int64, n int) {
	if p.Lanes <= 0 {
		return
	}
	p.refill(now)
	p.credit -= 32 * max(n, 1)
}
