package progress

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
	p := &Bar{label: "sweep", unit: "tasks", w: &buf, every: time.Hour, start: time.Now()}
	p.Update(1, 8)
	p.Done()
	if buf.Len() != 0 {
		t.Fatalf("a run shorter than the interval wrote %q", buf.String())
	}
	p = &Bar{label: "sweep", unit: "tasks", w: &buf, every: 30 * time.Millisecond, start: time.Now()}
	p.Update(0, 8)
	time.Sleep(40 * time.Millisecond)
	p.Update(2, 8)
	p.Update(3, 8) // within the interval: no line
	p.Update(8, 8) // the end is no exception off a terminal: done writes it
	p.Done()
	p.Done()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "sweep: 2/8 tasks (25%)" || lines[1] != "sweep: 8/8 tasks (100%)" ||
		strings.ContainsAny(buf.String(), "\r\x1b") {
		t.Errorf("log lines %q", buf.String())
	}
	buf.Reset()
	p = &Bar{label: "capture", unit: "CTAs", w: &buf, tty: true, start: time.Now()}
	p.Update(5, 10)
	p.Update(10, 10)
	p.Done()
	if buf.String() != "\rcapture: 5/10 CTAs (50%)\x1b[K\rcapture: 10/10 CTAs (100%)\x1b[K\n" {
		t.Errorf("terminal progress %q", buf.String())
	}
}

// After keeps a terminal clear of jobs shorter than its delay; a longer one draws.
func TestAfter(t *testing.T) {
	var buf bytes.Buffer
	p := On(&buf, true, "launch", "CTAs").After(time.Hour)
	p.Update(1, 2)
	p.Update(2, 2)
	p.Done()
	if buf.Len() != 0 {
		t.Errorf("a job shorter than After drew %q", buf.String())
	}
	p = On(&buf, true, "launch", "CTAs").After(10 * time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	p.Update(2, 2)
	p.Done()
	if buf.String() != "\rlaunch: 2/2 CTAs (100%)\x1b[K\n" {
		t.Errorf("a job longer than After drew %q", buf.String())
	}
}

// Clear takes a drawn terminal line away once, and Done then ends no line.
func TestClear(t *testing.T) {
	var buf bytes.Buffer
	p := On(&buf, true, "launch", "CTAs")
	p.Clear()
	if buf.Len() != 0 {
		t.Errorf("Clear with nothing drawn wrote %q", buf.String())
	}
	p.Update(2, 2)
	p.Clear()
	p.Clear()
	p.Done()
	if buf.String() != "\rlaunch: 2/2 CTAs (100%)\x1b[K\r\x1b[K" {
		t.Errorf("drawn, cleared twice, done: %q", buf.String())
	}
}
