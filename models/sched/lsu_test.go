package sched

import (
	"fmt"
	"strings"
	"testing"
)

// lsuScript runs steps on an LSU and returns what each answers:
// "res T N C" reserves N passes of C cycles at T (answers the start cycle),
// "q T" asks QueueWait at T, "miss D" holds an MSHR until D, "m T" asks MSHRWait at T,
// "load T" and "store T" ask IssueWait at T with and without an MSHR (all answer "go"
// or "wait@CYCLE").
func lsuScript(u *LSU, script string) string {
	var out []string
	for _, step := range strings.Split(script, ";") {
		var t, n, c int64
		f := strings.Fields(step)
		fmt.Sscan(strings.Join(f[1:], " "), &t, &n, &c)
		answer := func(wait bool, at int64) string {
			if wait {
				return fmt.Sprintf("wait@%d", at)
			}
			return "go"
		}
		switch f[0] {
		case "res":
			out = append(out, fmt.Sprint(u.Reserve(t, int(n), c)))
		case "q":
			out = append(out, answer(u.QueueWait(t)))
		case "miss":
			u.Miss(t)
		case "m":
			out = append(out, answer(u.MSHRWait(t)))
		case "load", "store":
			out = append(out, answer(u.IssueWait(t, f[0] == "load")))
		default:
			panic("unknown step " + step)
		}
	}
	return strings.Join(out, " ")
}

func TestLSU(t *testing.T) {
	for _, tc := range []struct {
		queue        int64
		mshrs        int
		script, want string
	}{
		// Passes queue back to back; an idle pipe starts at once; zero passes take one.
		{32, 4, "res 0 4 2; res 0 1 2; res 20 2 2; res 30 0 2", "0 8 20 30"},
		// 40 cycles of work queued at 0: more than 32, so a memory instruction waits
		// until 8 (40 - 32), and goes at 8.
		{32, 4, "res 0 20 2; q 0; q 7; q 8", "0 wait@8 wait@8 go"},
		// Two MSHRs: the third load waits for the earlier of the two misses (heap
		// order, not arrival order); a miss that landed frees its MSHR.
		{32, 2, "miss 50; miss 30; m 0; m 29; m 30; miss 40; m 31; m 40", "wait@30 wait@30 go wait@40 go"},
		// Below the limit nothing waits, whatever is in flight.
		{32, 3, "miss 100; miss 90; m 0", "go"},
		// IssueWait: the queue first, then an MSHR for a load only.
		{32, 1, "res 0 20 2; miss 50; load 0; load 8; store 8; load 50", "0 wait@8 wait@50 go go"},
	} {
		u := &LSU{Queue: tc.queue, MSHRs: tc.mshrs}
		if got := lsuScript(u, tc.script); got != tc.want {
			t.Errorf("queue %d, %d MSHRs, %q: got %q, want %q", tc.queue, tc.mshrs, tc.script, got, tc.want)
		}
	}
}
