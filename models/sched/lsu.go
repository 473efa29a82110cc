package sched

// LSU is an SM's memory instruction pipe (the LSU/MIO queue) and its miss status
// holding registers, with time. A memory instruction reserves the pipe for its passes
// (Reserve); the queue holds Queue cycles of work, and an instruction that would find
// more waits to issue (QueueWait: ncu's mio_throttle, or lg_throttle for global,
// local and texture memory). Each L1 miss holds an MSHR until its data lands (Miss);
// a load that finds every one of MSHRs busy waits for the first to free (MSHRWait).
// The zero value with Queue and MSHRs set is idle.
type LSU struct {
	Queue int64 // cycles of work the queue holds before issue waits
	MSHRs int   // misses in flight at most

	free   int64   // cycle the pipe is free
	rem    int64   // hundredths of a cycle booked past free (Extend)
	misses []int64 // completion cycles of the misses in flight: a min-heap
}

// Reserve takes the pipe for n passes of cyc cycles each (at least one pass) from t
// on, and returns the cycle the first pass starts.
func (u *LSU) Reserve(t int64, n int, cyc int64) int64 {
	start := u.begin(t)
	u.free = start + int64(max(n, 1))*cyc
	return start
}

// Take takes the pipe for c hundredths of a cycle from t on (its fractions carry to
// the next booking while the pipe stays busy), and returns the cycle it starts.
func (u *LSU) Take(t, c int64) int64 {
	start := u.begin(t)
	u.free = start
	u.Extend(c)
	return start
}

// Extend books c more hundredths of a cycle onto the pipe's last booking.
func (u *LSU) Extend(c int64) {
	u.rem += c
	u.free += u.rem / 100
	u.rem %= 100
}

// begin is the cycle a booking at t starts: t, or when the pipe frees; a pipe idle at
// t drops the fraction of a cycle it had booked.
func (u *LSU) begin(t int64) int64 {
	if t > u.free {
		u.rem = 0
		return t
	}
	return u.free
}

// Free is the cycle work booked at t would start: t, or when the pipe frees.
func (u *LSU) Free(t int64) int64 { return max(t, u.free) }

// QueueWait reports whether an instruction that wants the pipe at t must wait, and
// until when: the queue holds more than Queue cycles of work.
func (u *LSU) QueueWait(t int64) (bool, int64) {
	if u.free > t+u.Queue {
		return true, u.free - u.Queue
	}
	return false, t
}

// IssueWait reports whether a memory instruction that wants the pipe at t must wait,
// and until when: for the queue (QueueWait), then, for a load (mshr), for an MSHR
// (MSHRWait).
func (u *LSU) IssueWait(t int64, mshr bool) (bool, int64) {
	if wait, at := u.QueueWait(t); wait {
		return true, at
	}
	if mshr {
		return u.MSHRWait(t)
	}
	return false, t
}

// Miss holds an MSHR until cycle done.
func (u *LSU) Miss(done int64) {
	h := append(u.misses, done)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	u.misses = h
}

// MSHRWait reports whether a load at t finds every MSHR busy, and until when: the
// first of them frees then.
func (u *LSU) MSHRWait(t int64) (bool, int64) {
	if len(u.misses) < u.MSHRs {
		return false, t
	}
	u.retire(t)
	if len(u.misses) >= u.MSHRs {
		return true, u.misses[0]
	}
	return false, t
}

// retire frees the MSHRs whose data landed by t.
func (u *LSU) retire(t int64) {
	h := u.misses
	for len(h) > 0 && h[0] <= t {
		n := len(h) - 1
		h[0] = h[n]
		h = h[:n]
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < n && h[l] < h[m] {
				m = l
			}
			if l+1 < n && h[l+1] < h[m] {
				m = l + 1
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	u.misses = h
}
