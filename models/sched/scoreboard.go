package sched

// Reason is what a pending register write is waiting for. The timing engine names its
// stall reasons after it, as Nsight Compute's warp states do.
type Reason uint8

const (
	// Fixed is a fixed-latency pipe result (ALU, FMA, FP64): ncu's "wait".
	Fixed Reason = iota
	// Short is an MIO result (shared memory, SFU, constant cache): ncu's
	// "short_scoreboard".
	Short
	// Long is an L1TEX result (global, local, texture memory): ncu's "long_scoreboard".
	Long
)

// ScoreboardSize bounds the pending writes one warp may have; an instruction that would
// add one more waits. Volkov's memcpy keeps 14 float4 loads in flight per thread.
const ScoreboardSize = 32

// Scoreboard tracks one warp's pending register writes. The zero value is empty.
type Scoreboard struct {
	n     int
	regs  [ScoreboardSize][]uint16
	ready [ScoreboardSize]int64
	why   [ScoreboardSize]Reason
	last  int64 // the latest ready time of any entry
}

// Check reports whether an instruction that reads rd and writes wr can issue at now.
// If not, it returns the earliest time it might and why it waits.
func (s *Scoreboard) Check(now int64, rd, wr []uint16) (ok bool, until int64, why Reason) {
	if s.last <= now {
		s.n = 0
		return true, now, 0
	}
	s.prune(now)
	for i := range s.n {
		for _, r := range s.regs[i] {
			if contains(rd, r) || contains(wr, r) {
				if !ok && until != 0 && s.ready[i] <= until {
					continue
				}
				until, why = s.ready[i], s.why[i]
			}
		}
	}
	if until > now {
		return false, until, why
	}
	if s.n == ScoreboardSize && len(wr) > 0 {
		u := s.ready[0]
		for i := 1; i < s.n; i++ {
			u = min(u, s.ready[i])
		}
		return false, u, s.why[0]
	}
	return true, now, 0
}

func contains(l []uint16, r uint16) bool {
	for _, x := range l {
		if x == r {
			return true
		}
	}
	return false
}

func (s *Scoreboard) prune(now int64) {
	j := 0
	for i := range s.n {
		if s.ready[i] > now {
			s.regs[j], s.ready[j], s.why[j] = s.regs[i], s.ready[i], s.why[i]
			j++
		}
	}
	s.n = j
}

// Add records that regs will be written at ready. Check must have said the instruction
// may issue. regs is kept, not copied.
func (s *Scoreboard) Add(now int64, regs []uint16, ready int64, why Reason) {
	if len(regs) == 0 || ready <= now {
		return
	}
	if s.n == ScoreboardSize {
		s.prune(now)
		if s.n == ScoreboardSize {
			return
		}
	}
	s.regs[s.n], s.ready[s.n], s.why[s.n] = regs, ready, why
	s.n++
	s.last = max(s.last, ready)
}

// Drained is the time every pending write has landed.
func (s *Scoreboard) Drained() int64 { return s.last }
