package capture

import (
	"fmt"
	"sync"
)

// Memory held by traces.
//
// A CTA's records stay in memory until the writer takes the CTA, in CTA order. Three
// bounds keep that memory finite whatever the instruction budget:
//
//   - One CTA may hold at most Spec.MaxCTATrace bytes of records (format.Warp.Bytes
//     summed over its warps). Past that the CTA faults with FaultBudget at the pc its
//     warp was running: a loop that never exits ends there, in bounded memory, long
//     before the per-warp instruction budget. The bound counts records, not storage,
//     so it faults at the same record for any worker count.
//   - The CTAs that are not the lowest unfinished one wait, between quanta, while the
//     warp sets of CTAs not yet written hold more than gateBytes of storage. The lowest
//     unfinished CTA never waits, so the writer always makes progress; waiting changes
//     when a CTA runs, never what it records.
//   - The free list of warp sets keeps at most freeKeepBytes of storage.
//
// So the records held stay below about MaxCTATrace + gateBytes + freeKeepBytes, plus
// the slack of append's doubling and of the garbage collector.

// DefaultMaxCTATrace is Spec.MaxCTATrace when it is 0: a CTA of 32 warps may run about
// 100 000 warp-instructions per warp, a hundred times the reference kernels' largest.
const DefaultMaxCTATrace = 128 << 20

const (
	gateBytes     = 128 << 20 // storage of unwritten CTAs beyond which all but the lowest wait
	reportStep    = 1 << 20   // a CTA tells the gate of its growth in steps of this size
	freeKeepBytes = 64 << 20  // storage the free list of warp sets keeps
	flushBytes    = 4 << 20   // a worker hands finished CTAs to the writer once they hold this much
)

// memLimits are gateBytes, flushBytes and reportStep for one kernel; tests shrink them.
type memLimits struct{ gate, flush, report int }

// memGate holds back the CTAs above the lowest unfinished one while the warp sets of
// CTAs not yet written hold too much storage.
type memGate struct {
	mu      sync.Mutex
	cond    sync.Cond
	limit   int64
	held    int64        // storage reported by CTAs not yet written
	head    int          // lowest CTA not finished
	done    map[int]bool // finished CTAs above head
	stopped bool
}

func newMemGate(limit int64) *memGate {
	g := &memGate{limit: limit, done: map[int]bool{}}
	g.cond.L = &g.mu
	return g
}

// grow adds n bytes held by CTA id, then waits while the gate is over its limit,
// unless id is the lowest unfinished CTA. It returns errStopped when the run stops
// while it waits.
func (g *memGate) grow(id int, n int64, stop func() bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held += n
	for g.held > g.limit && id != g.head {
		if g.stopped || (stop != nil && stop()) {
			return errStopped
		}
		g.cond.Wait()
	}
	return nil
}

// add adds n bytes held by a CTA that has finished: it never waits.
func (g *memGate) add(n int64) {
	g.mu.Lock()
	g.held += n
	g.mu.Unlock()
}

// finish records that CTA id has ended (written or not).
func (g *memGate) finish(id int) {
	g.mu.Lock()
	if id == g.head {
		g.head++
		for g.done[g.head] {
			delete(g.done, g.head)
			g.head++
		}
	} else if id > g.head {
		g.done[id] = true
	}
	g.mu.Unlock()
	g.cond.Broadcast()
}

// release returns n bytes once the writer has taken their CTA.
func (g *memGate) release(n int64) {
	g.mu.Lock()
	g.held -= n
	g.mu.Unlock()
	g.cond.Broadcast()
}

// stop wakes every waiter for good.
func (g *memGate) stop() {
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

// wake lets waiters look at their stop condition again.
func (g *memGate) wake() { g.cond.Broadcast() }

// account brings the CTA's trace size up to date after warp w ran. It faults when the
// CTA holds more than the kernel's MaxCTATrace, and waits at the gate when the CTAs
// in flight hold too much.
func (c *cta) account(w *warpState) error {
	b, cb := w.rec.Bytes(), w.rec.CapBytes()
	c.held += b - w.held
	c.heldCap += cb - w.heldCap
	w.held, w.heldCap = b, cb
	if c.held > c.k.maxTrace {
		pc := int32(-1)
		if n := w.rec.Len(); n > 0 {
			pc = int32(w.rec.PC[n-1])
		}
		what := "trace"
		if len(c.printf.text) > 0 {
			what = fmt.Sprintf("trace and printf output (%s of it)", mib(len(c.printf.text)))
		}
		return w.fault(FaultBudget, pc, -1, 0, "", fmt.Sprintf(
			"the CTA's %s passed %s held in memory before its warps ended (--max-cta-trace); warp %d had run %d warp-instructions and was here: a loop that never exits?",
			what, mib(c.k.maxTrace), w.idx, w.ninst))
	}
	if c.gate != nil && c.heldCap-c.reported >= c.k.mem.report {
		n := c.heldCap - c.reported
		c.reported = c.heldCap
		return c.gate.grow(c.id, int64(n), c.stop)
	}
	return nil
}

// mib writes a byte count in MiB, with one decimal below 10 MiB.
func mib(n int) string {
	if n < 10<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
