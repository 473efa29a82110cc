package cache

import "testing"

func TestInFlight(t *testing.T) {
	f := NewInFlight(1<<10, 1000)
	f.Fill(0x1000, 0b0011, 100) // sectors 0 and 1 land at 100
	f.Fill(0x1000, 0b0100, 120) // sector 2 at 120
	for _, tc := range []struct {
		mask uint8
		t    int64
		want int64
	}{
		{0b0001, 50, 100},  // in flight: lands at 100
		{0b1000, 50, 0},    // never fetched
		{0b0111, 50, 120},  // the latest of the sectors asked for
		{0b0011, 100, 0},   // landed at 100: nothing to wait for at 100
		{0b0111, 100, 120}, // sector 2 still on its way
	} {
		if got := f.Pending(0x1000, tc.mask, tc.t); got != tc.want {
			t.Errorf("Pending(%#b at %d) = %d, want %d", tc.mask, tc.t, got, tc.want)
		}
	}
	if got := f.Pending(0x1080, 0b0001, 0); got != 0 {
		t.Errorf("another line's sector pending until %d", got)
	}
	if f.Len() != 3 {
		t.Errorf("holds %d sectors, want 3", f.Len())
	}
}

// Every second fill prunes what landed more than 10 cycles before it.
func TestInFlightPrunes(t *testing.T) {
	f := NewInFlight(2, 10)
	f.Fill(0x0, 0b1111, 5)
	f.Fill(0x80, 0b0001, 15) // prunes: 5 is not before 15 - 10
	if f.Len() != 5 {
		t.Fatalf("holds %d sectors after the first pruning, want 5", f.Len())
	}
	f.Fill(0x100, 0b0001, 30)
	f.Fill(0x180, 0b0001, 40) // prunes what landed before 30: line 0x0 and 0x80
	if f.Len() != 2 || f.Pending(0x0, 0b0001, 0) != 0 || f.Pending(0x100, 0b0001, 0) != 30 {
		t.Errorf("after the second pruning: %d sectors, line 0 pending %d, line 0x100 pending %d; want 2, 0, 30",
			f.Len(), f.Pending(0x0, 0b0001, 0), f.Pending(0x100, 0b0001, 0))
	}
}
