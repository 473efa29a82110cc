package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Off a terminal, progress writes whole lines (no carriage returns or escapes), none
// before its interval has passed, and the last count when it ends after a line; on a
// terminal it redraws one line and ends it.
func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{label: "sweep", unit: "tasks", w: &buf, every: time.Hour, start: time.Now()}
	p.update(1, 8)
	p.done()
	if buf.Len() != 0 {
		t.Fatalf("a run shorter than the interval wrote %q", buf.String())
	}
	p = &progress{label: "sweep", unit: "tasks", w: &buf, every: 30 * time.Millisecond, start: time.Now()}
	p.update(0, 8)
	time.Sleep(40 * time.Millisecond)
	p.update(2, 8)
	p.update(3, 8) // within the interval: no line
	p.update(8, 8) // the end is no exception off a terminal: done writes it
	p.done()
	p.done()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "sweep: 2/8 tasks (25%)" || lines[1] != "sweep: 8/8 tasks (100%)" ||
		strings.ContainsAny(buf.String(), "\r\x1b") {
		t.Errorf("log lines %q", buf.String())
	}
	buf.Reset()
	p = &progress{label: "capture", unit: "CTAs", w: &buf, tty: true, start: time.Now()}
	p.update(5, 10)
	p.update(10, 10)
	p.done()
	if buf.String() != "\rcapture: 5/10 CTAs (50%)\x1b[K\rcapture: 10/10 CTAs (100%)\x1b[K\n" {
		t.Errorf("terminal progress %q", buf.String())
	}
}
