package replay

import "github.com/gtrace/gtrace/format"

// Both engines hold a resident CTA's rows a row window at a time (format.Reader.Windows):
// a window is viewed when a live warp of the CTA first needs it and given back once
// every live warp is past it.

// ctaWindow is one row window of a resident CTA: its warps' views while it is held, and
// how many live warps have not yet passed it.
type ctaWindow struct {
	views   []*format.Warp
	release func()
	pending int
}

// noRows is where a finished warp points: its window may be given back.
var noRows = &format.Warp{}

// ctaWindows is a resident CTA's row windows, in either engine.
type ctaWindows []ctaWindow

// leave records that one live warp is past window j, giving the window back once no
// live warp needs it.
func (ws ctaWindows) leave(j int) {
	w := &ws[j]
	if w.pending--; w.pending == 0 && w.release != nil {
		w.release()
		w.views, w.release = nil, nil
	}
}

// release gives back every window still held.
func (ws ctaWindows) release() {
	for j := range ws {
		if w := &ws[j]; w.release != nil {
			w.release()
			w.views, w.release = nil, nil
		}
	}
}

// view views window j of kernel's CTA cta into ws[j], keeping its pending count.
func (ws ctaWindows) view(r *format.Reader, kernel, cta, j int) error {
	views, release, err := r.ViewWindow(kernel, cta, j)
	if err != nil {
		return err
	}
	ws[j].views, ws[j].release = views, release
	return nil
}
