package sched

import (
	"fmt"
	"strings"
	"testing"
)

// pickScript runs a policy over a short script and returns the picked warps:
// "r0,1,2" = warps 0, 1, 2 ready this cycle; each pick is followed by Issued.
func pickScript(p Policy, warps int, script string) string {
	for w := range warps {
		p.Add(w)
	}
	var out []string
	for _, step := range strings.Fields(script) {
		switch {
		case strings.HasPrefix(step, "long"):
			var w int
			fmt.Sscanf(step, "long%d", &w)
			p.LongStall(w)
			continue
		case strings.HasPrefix(step, "rm"):
			var w int
			fmt.Sscanf(step, "rm%d", &w)
			p.Remove(w)
			continue
		}
		ready := map[int]bool{}
		for _, f := range strings.Split(strings.TrimPrefix(step, "r"), ",") {
			var w int
			if _, err := fmt.Sscanf(f, "%d", &w); err == nil {
				ready[w] = true
			}
		}
		w := p.Pick(func(w int) bool { return ready[w] })
		if w >= 0 {
			p.Issued(w)
		}
		out = append(out, fmt.Sprint(w))
	}
	return strings.Join(out, " ")
}

func TestPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy       string
		warps        int
		script, want string
	}{
		// LRR rotates past the last issuer.
		{"lrr", 4, "r0,1,2,3 r0,1,2,3 r0,1,2,3 r0,1,2,3 r0,1,2,3", "0 1 2 3 0"},
		{"lrr", 4, "r0,1,2,3 r0,2 r0,2 r", "0 2 0 -1"},
		// GTO sticks with a warp while it is ready, then the oldest.
		{"gto", 4, "r0,1,2,3 r0,1,2,3 r1,2,3 r1,2,3 r0,1", "0 0 1 1 1"},
		{"gto", 4, "r2,3 r3 r1,2,3", "2 3 3"},
		// Removing the greedy warp falls back to the oldest.
		{"gto", 3, "r1,2 rm1 r1,2", "1 2"},
		// GTRR sticks with a warp while it is ready, then the next in round-robin
		// order after it, not the oldest: warp 0, ready again, waits its turn.
		{"gtrr", 4, "r0,1,2,3 r0,1,2,3 r1,2,3 r0,2,3 r0,3 r0,1", "0 0 1 2 3 0"},
		// Removing the greedy warp falls back to round robin.
		{"gtrr", 3, "r1,2 rm1 r0,2", "1 2"},
		// Two-level: active set {0..7}; a long stall swaps in warp 8.
		{"two-level", 10, "r0,8,9 long0 r0,8,9 r0,8,9", "0 8 8"}, // 9 is still pending
		{"two-level", 10, "r8,9", "-1"},
	} {
		p, err := New(tc.policy)
		if err != nil {
			t.Fatal(err)
		}
		if got := pickScript(p, tc.warps, tc.script); got != tc.want {
			t.Errorf("%s %q: picked %q, want %q", tc.policy, tc.script, got, tc.want)
		}
	}
	if _, err := New("fifo"); err == nil || !strings.Contains(err.Error(), "two-level") {
		t.Errorf("New(fifo) = %v, want an error listing the policies", err)
	}
}

func TestScoreboard(t *testing.T) {
	var s Scoreboard
	// r1 <- load (long, ready at 100); r2 <- fma (fixed, ready at 18).
	s.Add(0, []uint16{1}, 100, Long)
	s.Add(1, []uint16{2}, 19, Fixed)
	for _, tc := range []struct {
		now    int64
		rd, wr []uint16
		ok     bool
		until  int64
		why    Reason
	}{
		{2, []uint16{3}, []uint16{4}, true, 2, 0},       // independent
		{2, []uint16{2}, []uint16{4}, false, 19, Fixed}, // RAW on the fma
		{2, []uint16{1, 2}, nil, false, 100, Long},      // waits for the later one
		{2, []uint16{3}, []uint16{1}, false, 100, Long}, // WAW on the load
		{19, []uint16{2}, nil, true, 19, 0},
		{100, []uint16{1, 2}, nil, true, 100, 0},
	} {
		ok, until, why := s.Check(tc.now, tc.rd, tc.wr)
		if ok != tc.ok || until != tc.until || why != tc.why {
			t.Errorf("at %d read %v write %v: ok=%v until=%d why=%d, want %v %d %d", tc.now, tc.rd, tc.wr, ok, until, why, tc.ok, tc.until, tc.why)
		}
	}
	// Full: the 33rd pending write waits for the earliest.
	var f Scoreboard
	for i := range ScoreboardSize {
		f.Add(0, []uint16{uint16(i)}, int64(50+i), Long)
	}
	if ok, until, _ := f.Check(1, nil, []uint16{99}); ok || until != 50 {
		t.Errorf("full scoreboard: ok=%v until=%d, want false 50", ok, until)
	}
}

// TestPipe: issue rates of one scheduler's pipe share.
func TestPipe(t *testing.T) {
	for _, tc := range []struct {
		lanes  int
		cycles int64
		want   int // warp instructions started, at most 2 per cycle (dual issue)
	}{
		{16, 10, 5},  // Fermi: one per 2 cycles
		{32, 10, 10}, // Hopper SMSP: one per cycle
		{48, 10, 15}, // Kepler, dual issue: three per 2 cycles
		{2, 32, 2},   // Fermi SFU share: 4 SFUs / 2 schedulers: one per 16 cycles
	} {
		p := Pipe{Lanes: tc.lanes}
		n := 0
		for now := range tc.cycles {
			for range 2 {
				if ok, _ := p.Free(now); ok {
					p.Take(now)
					n++
				}
			}
		}
		if n != tc.want {
			t.Errorf("%d lanes over %d cycles: %d warp instructions, want %d", tc.lanes, tc.cycles, n, tc.want)
		}
	}
	p := Pipe{Lanes: 16}
	p.Take(0)
	if ok, at := p.Free(0); ok || at != 2 {
		t.Errorf("16-lane pipe busy at 0: free=%v at %d, want false at 2", ok, at)
	}
}
