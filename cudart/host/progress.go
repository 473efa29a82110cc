package host

import (
	"fmt"
	"io"
	"time"

	"github.com/gtrace/gtrace/internal/progress"
)

// LaunchLog is the Progress gtrace run's stand-in shows on the program's stderr: a
// launch that takes more than a second draws its CTAs on a terminal (elsewhere, a line
// every progress.LogEvery), and every interval a line sums the run up so far. It
// writes only while the program is inside a launch, so its lines never cut into the
// program's own.
type LaunchLog struct {
	w          io.Writer
	tty        bool
	every      time.Duration
	start      time.Time // of the run
	last       time.Time // the last summary line
	bar        *progress.Bar
	launches   int
	warpInsts  uint64
	failedRuns int
}

// NewLaunchLog shows progress on w (a terminal if tty), with a summary line every
// interval (none if 0).
func NewLaunchLog(w io.Writer, tty bool, every time.Duration) *LaunchLog {
	now := time.Now()
	return &LaunchLog{w: w, tty: tty, every: every, start: now, last: now}
}

// Start implements Progress.
func (l *LaunchLog) Start(n int, kernel string, c Config) {
	l.bar = progress.On(l.w, l.tty, fmt.Sprintf("gtrace run: launch %d, %s <<<%v, %v>>>", n, kernel, c.Grid, c.Block), "CTAs").After(time.Second)
}

// CTAs implements Progress.
func (l *LaunchLog) CTAs(done, total int) {
	if l.bar != nil {
		l.bar.Update(done, total)
	}
}

// End implements Progress.
func (l *LaunchLog) End(warpInsts uint64, err error) {
	if l.bar != nil {
		l.bar.Done()
		l.bar = nil
	}
	l.launches++
	l.warpInsts += warpInsts
	if err != nil {
		l.failedRuns++
	}
	if now := time.Now(); l.every > 0 && now.Sub(l.last) >= l.every {
		l.last = now
		failed := ""
		if l.failedRuns > 0 {
			failed = fmt.Sprintf(" (%d failed)", l.failedRuns)
		}
		noun := "launches"
		if l.launches == 1 {
			noun = "launch"
		}
		fmt.Fprintf(l.w, "gtrace run: %d %s%s, %d warp-instructions in %s\n", l.launches, noun, failed, l.warpInsts,
			now.Sub(l.start).Round(time.Second))
	}
}
