package replay

import (
	"fmt"

	"github.com/gtrace/gtrace/format"
)

// A timed warp reads its trace rows by their number in the warp. A CTA stored in one row
// window (format.Reader.Windows) is viewed whole at launch; one stored in several is
// viewed a window at a time, as the memory engine does (ctaState): warp w's rows in
// window j are its rows j·W .. of the warp, where W, the rows a warp has in every window
// but its last, is the most any of the CTA's warps has in window 0, and a warp with
// fewer than W rows in a window has ended there. The CTA checks both as it views each
// window, so a trace that breaks them is an error, never rows silently lost. A warp
// holds the windows from the one its order's current run begins in (warpFloor) on,
// views each as it first reads a row there, and leaves the ones below as its run moves
// on; a window is given back once no live warp of the CTA still holds it.
//
// A divergent warp under ITS reads rows as far as its issue window (itsWindow) reaches,
// in an order computed over the whole warp (orderer.pathOrder, sched.Divergent): a
// windowed CTA with one is joined whole at launch (format.Reader.ViewCTA) instead.

// ctaRows is how a windowed CTA's rows are held: W, each window's views while a live
// warp holds it, and the windows viewed so far with each warp's rows in the last.
type ctaRows struct {
	rows   int // W; 0 for a CTA viewed whole
	wins   ctaWindows
	viewed int   // windows viewed so far (in order)
	last   []int // rows of each warp in window viewed-1
}

// view views the CTA's windows up to j, in order, checking that each warp's rows
// follow W's rule.
func (s *timedSM) view(c *timedCTA, j int) bool {
	e := s.e
	for c.viewed <= j {
		k := c.viewed
		if err := c.wins.view(e.r, e.ki, c.id, k); err != nil {
			s.err = err
			return false
		}
		views := c.wins[k].views
		c.viewed++
		if k == 0 {
			c.last = make([]int, len(views))
			for _, v := range views {
				c.rows = max(c.rows, v.Len())
			}
		}
		if len(views) != len(c.last) {
			return s.corrupt(c, "window %d has %d warps, window 0 %d", k, len(views), len(c.last))
		}
		for i, v := range views {
			n := v.Len()
			if n > c.rows || (k > 0 && n > 0 && c.last[i] != c.rows) {
				return s.corrupt(c, "warp %d: %d rows in window %d after %d in window %d (a warp has %d rows in each window but its last)", i, n, k, c.last[i], k-1, c.rows)
			}
			c.last[i] = n
		}
	}
	return true
}

// corrupt stops the SM with an error naming c, and answers false.
func (s *timedSM) corrupt(c *timedCTA, f string, args ...any) bool {
	s.err = &format.CorruptError{Kind: format.ErrCorrupt, Offset: -1, Batch: -1,
		Reason: fmt.Sprintf("kernel %d CTA %d: ", s.e.ki, c.id) + fmt.Sprintf(f, args...)}
	return false
}

// row is the view holding row i of w and i's place in it, or nil where w has no row i
// (or viewing its window failed: s.err says so).
func (s *timedSM) row(w *timedWarp, i int) (*format.Warp, int) {
	if k := uint(i - w.base); k < uint(len(w.w.PC)) {
		return w.w, int(k)
	}
	return s.seek(w, i)
}

// seek is row for a row outside w's current view.
func (s *timedSM) seek(w *timedWarp, i int) (*format.Warp, int) {
	c := w.cta
	if c.rows == 0 || i < 0 {
		return nil, 0
	}
	j := i / c.rows
	if j >= len(c.wins) || j < w.left || !s.view(c, j) {
		return nil, 0
	}
	v := c.wins[j].views[w.idx]
	k := i - j*c.rows
	if k >= v.Len() {
		return nil, 0
	}
	w.w, w.base = v, j*c.rows
	return v, k
}

// runAt is w's run that begins at row k (sched.Runs), whose rows w holds from now on.
func (s *timedSM) runAt(w *timedWarp, k int) (int, []uint16) {
	w.floor = k
	v, r := s.row(w, k)
	if v == nil {
		return 0, nil
	}
	return s.e.ord.runAt(k, v.PC[r:], func(i int) (uint32, bool) { return s.pc(w, i) }, &w.ordBuf)
}

// pc is row i's pc.
func (s *timedSM) pc(w *timedWarp, i int) (uint32, bool) {
	v, k := s.row(w, i)
	if v == nil {
		return 0, false
	}
	return v.PC[k], true
}

// pass leaves the windows below the one w's current run begins in (w.floor), or every
// window once w has finished.
func (s *timedSM) pass(w *timedWarp) {
	c := w.cta
	if c.rows == 0 {
		return
	}
	to := len(c.wins)
	if !w.finished {
		to = w.floor / c.rows
	}
	for ; w.left < to; w.left++ {
		c.wins.leave(w.left)
	}
	if w.base/c.rows < w.left {
		w.w, w.base = noRows, 0
	}
}
