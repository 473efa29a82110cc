// Package progress shows how far a long job has come on stderr: one line redrawn on a
// terminal, whole lines at an interval elsewhere. Every gtrace command that runs for
// long uses it, and so does gtrace run's stand-in for the CUDA runtime, for each launch.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Bar shows "label: done/total unit (pct), rate, ETA" on stderr. On a terminal it
// redraws one line at most ten times a second. Elsewhere (a pipe, a log file, a SLURM
// or nohup job) it writes a whole line every logEvery, so a short command's output
// stays clean and a long one's log shows it moving, and the last count once it ends.
// The rate is measured from the first update (work done before it, such as a resumed
// sweep's, does not count) and shown once a second has passed.
type Bar struct {
	label, unit string
	w           io.Writer
	tty         bool
	every       time.Duration // between lines when not a terminal
	after       time.Duration // on a terminal, nothing is drawn before this has passed
	start       time.Time
	last        time.Time
	drawn       bool      // a terminal line is open
	logged      bool      // a log line was written
	loggedDone  int       // the count it showed last
	t0          time.Time // the first update
	done0       int       // done at the first update
	done1, tot1 int       // the latest counts
}

// LogEvery is how often a Bar writes a line when stderr is not a terminal.
const LogEvery = 10 * time.Second

// New starts a Bar on stderr.
func New(label, unit string) *Bar {
	return On(os.Stderr, Terminal(os.Stderr), label, unit)
}

// On starts a Bar on w, drawn as on a terminal if tty.
func On(w io.Writer, tty bool, label, unit string) *Bar {
	return &Bar{label: label, unit: unit, w: w, tty: tty, every: LogEvery, start: time.Now()}
}

// Terminal says whether f is a terminal.
func Terminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// After makes a terminal show nothing until d has passed since New (a job that ends
// sooner leaves no line), and returns p.
func (p *Bar) After(d time.Duration) *Bar {
	p.after = d
	return p
}

// Update says done of total units are done.
func (p *Bar) Update(done, total int) {
	now := time.Now()
	if p.t0.IsZero() {
		p.t0, p.done0 = now, done
	}
	p.done1, p.tot1 = done, total
	switch {
	case p.tty && now.Sub(p.start) < p.after:
		return
	case p.tty && now.Sub(p.last) < 100*time.Millisecond && done != total:
		return
	case !p.tty && now.Sub(p.since()) < p.every:
		return
	}
	p.last = now
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(now))
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, p.line(now))
	p.logged, p.loggedDone = true, done
}

// since is when the last line was written, or the start.
func (p *Bar) since() time.Time {
	if p.last.IsZero() {
		return p.start
	}
	return p.last
}

// line is the progress text at now.
func (p *Bar) line(now time.Time) string {
	done, total := p.done1, p.tot1
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	rate := ""
	if el := now.Sub(p.t0).Seconds(); el >= 1 && done > p.done0 {
		r := float64(done-p.done0) / el
		eta := time.Duration(float64(total-done) / r * float64(time.Second)).Round(time.Second)
		rate = fmt.Sprintf(", %.3g %s/s, ETA %s", r, p.unit, eta)
	}
	return fmt.Sprintf("%s: %d/%d %s (%.0f%%)%s", p.label, done, total, p.unit, pct, rate)
}

// Done ends the progress line, or writes the last count to a log that showed earlier
// ones; safe to call more than once.
func (p *Bar) Done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
	if p.logged && p.done1 != p.loggedDone {
		fmt.Fprintln(p.w, p.line(time.Now()))
		p.loggedDone = p.done1
	}
	p.logged = false
}

// Clear takes a terminal's progress line away, for output of another kind (a kernel's
// printf on stdout) to start on a clean line; the next Update draws it again.
func (p *Bar) Clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
