package main

import (
	"fmt"
	"os"
	"time"
)

// progress draws "label: done/total unit (pct), rate, ETA" on stderr, at most ten times a
// second, and only when stderr is a terminal, so logs and pipes stay clean. The rate is
// measured from the first update (work done before it, such as a resumed sweep's, does
// not count) and shown once a second has passed.
type progress struct {
	label, unit string
	tty         bool
	last        time.Time
	drawn       bool
	t0          time.Time // the first update
	done0       int       // done at the first update
}

func newProgress(label, unit string) *progress {
	fi, err := os.Stderr.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	return &progress{label: label, unit: unit, tty: tty}
}

func (p *progress) update(done, total int) {
	if !p.tty || (time.Since(p.last) < 100*time.Millisecond && done != total) {
		return
	}
	p.last = time.Now()
	if p.t0.IsZero() {
		p.t0, p.done0 = p.last, done
	}
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	rate := ""
	if el := p.last.Sub(p.t0).Seconds(); el >= 1 && done > p.done0 {
		r := float64(done-p.done0) / el
		eta := time.Duration(float64(total-done) / r * float64(time.Second)).Round(time.Second)
		rate = fmt.Sprintf(", %.3g %s/s, ETA %s", r, p.unit, eta)
	}
	fmt.Fprintf(os.Stderr, "\r%s: %d/%d %s (%.0f%%)%s\x1b[K", p.label, done, total, p.unit, pct, rate)
	p.drawn = true
}

// done ends the progress line; safe to call more than once.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(os.Stderr)
		p.drawn = false
	}
}
