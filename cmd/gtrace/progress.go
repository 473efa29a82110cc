package main

import (
	"fmt"
	"os"
	"time"
)

// progress draws "label: done/total unit" on stderr, at most ten times a second, and only
// when stderr is a terminal, so logs and pipes stay clean.
type progress struct {
	label, unit string
	tty         bool
	last        time.Time
	drawn       bool
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
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	fmt.Fprintf(os.Stderr, "\r%s: %d/%d %s (%.0f%%)", p.label, done, total, p.unit, pct)
	p.drawn = true
}

// done ends the progress line; safe to call more than once.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(os.Stderr)
		p.drawn = false
	}
}
