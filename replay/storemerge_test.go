package replay

import "testing"

// TestStoreMerge: a store's line joins the newest earlier line of its address while
// that one is among the last sm.store_merge_lines lines sent and has not left the path
// when the store issues; only the sectors both carry are joined.
func TestStoreMerge(t *testing.T) {
	if newStoreMerge(0) != nil {
		t.Fatal("sm.store_merge_lines 0 keeps a record")
	}
	m := newStoreMerge(2)
	steps := []struct {
		why          string
		line         uint64
		mask         uint8
		issued, left int64
		joined       uint8
	}{
		{"the first line of its address", 0x100, 0b0011, 0, 5, 0},
		{"issued as the line leaves", 0x100, 0b0110, 5, 20, 0b0010},
		{"the joined line carries the later one's sectors too", 0x100, 0b0100, 4, 25, 0b0100},
		{"issued after the line left", 0x100, 0b1111, 6, 40, 0},
		{"another line", 0x200, 0b0001, 31, 41, 0},
		{"a third line pushes 0x100 out of a record of 2", 0x300, 0b0001, 32, 42, 0},
		{"so 0x100 joins nothing", 0x100, 0b1111, 33, 43, 0},
		{"and 0x300 is still there", 0x300, 0b0011, 34, 44, 0b0001},
	}
	for _, s := range steps {
		if got := m.take(s.line, s.mask, s.issued, s.left); got != s.joined {
			t.Errorf("%s: line %#x sectors %04b joins %04b, want %04b", s.why, s.line, s.mask, got, s.joined)
		}
	}
}
