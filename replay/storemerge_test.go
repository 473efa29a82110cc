package replay

import "testing"

// TestStoreMerge: a store's line joins the newest earlier line of its address while
// that one is among the last sm.store_merge_lines lines sent and has not left the path
// when the store issues; the sectors the earlier line does not carry yet go with it.
func TestStoreMerge(t *testing.T) {
	if newStoreMerge(0) != nil {
		t.Fatal("sm.store_merge_lines 0 keeps a record")
	}
	m := newStoreMerge(2)
	steps := []struct {
		why    string
		line   uint64
		mask   uint8
		issued int64
		send   int64 // when a line that joins nothing leaves the path
		ok     bool
		left   int64
		fresh  uint8
	}{
		{"the first line of its address", 0x100, 0b0011, 0, 5, false, 0, 0},
		{"issued as the line leaves", 0x100, 0b0110, 5, 20, true, 5, 0b0100},
		{"the joined line carries the later one's sectors too", 0x100, 0b0100, 4, 25, true, 5, 0},
		{"issued after the line left", 0x100, 0b1111, 6, 40, false, 0, 0},
		{"and the line sent then", 0x100, 0b1000, 39, 41, true, 40, 0},
		{"another line", 0x200, 0b0001, 39, 42, false, 0, 0},
		{"a third line pushes 0x100 out of a record of 2", 0x300, 0b0001, 40, 43, false, 0, 0},
		{"so 0x100 joins nothing", 0x100, 0b1111, 40, 44, false, 0, 0},
		{"and 0x100 sent again is there", 0x100, 0b0011, 41, 45, true, 44, 0},
	}
	for _, s := range steps {
		ok, left, fresh := m.join(s.line, s.mask, s.issued)
		if ok != s.ok || left != s.left || fresh != s.fresh {
			t.Errorf("%s: line %#x sectors %04b issued at %d joins %v, leaving at %d with %04b new, want %v, %d, %04b",
				s.why, s.line, s.mask, s.issued, ok, left, fresh, s.ok, s.left, s.fresh)
		}
		if !ok {
			m.sent(s.line, s.mask, s.send)
		}
	}
}
