package sched

import "testing"

// TestLSUFractions: Take and Extend book hundredths of a cycle; the fractions add up
// while the pipe stays busy (four lines at 1.25 are 5 cycles, not 4) and are dropped
// when it idles.
func TestLSUFractions(t *testing.T) {
	var u LSU
	for i, want := range []int64{10, 11, 12, 13} { // four lines of 1.25 from cycle 10
		if got := u.Take(10, 125); got != want {
			t.Errorf("line %d starts at %d, want %d", i, got, want)
		}
	}
	if u.free != 15 || u.rem != 0 {
		t.Errorf("after four lines of 1.25 from 10: free %d + %d/100, want 15", u.free, u.rem)
	}
	u.Extend(50) // half a cycle more: 15.5
	if got := u.Reserve(15, 1, 1); got != 15 || u.free != 16 || u.rem != 50 {
		t.Errorf("a pass at 15 behind 15.5: starts %d, frees %d + %d/100; want 15, 16 + 50", got, u.free, u.rem)
	}
	if got := u.Take(100, 30); got != 100 || u.free != 100 || u.rem != 30 {
		t.Errorf("idle until 100: starts %d, frees %d + %d/100; want 100, 100 + 30 (the old half cycle dropped)", got, u.free, u.rem)
	}
}
