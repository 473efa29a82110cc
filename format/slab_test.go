package format

import (
	"testing"
	"unsafe"
)

// cut lays a batch's columns out in one slab: each aligned to its element, in cut's
// order (those read from the batch in the order decode reads them), none overlapping
// the next, and every column read from the batch with at least zstdSlack bytes after
// it (its frame may write past it). A slab from a larger batch is reused.
func TestCutLaysColumnsApart(t *testing.T) {
	var d decoder
	for _, tc := range []struct{ n, coords int }{{1000, 6}, {0, 0}, {1, 0}, {7, 14}, {333, 0}} {
		d.cut(tc.n, tc.coords)
		c := &d.cols
		type col struct {
			name       string
			p          unsafe.Pointer
			len, size  int
			readFromIt bool
		}
		ptr := func(p unsafe.Pointer, n int) unsafe.Pointer {
			if n == 0 {
				return nil
			}
			return p
		}
		cols := []col{
			{"base", ptr(unsafe.Pointer(unsafe.SliceData(c.base)), len(c.base)), len(c.base), 8, true},
			{"stride", ptr(unsafe.Pointer(unsafe.SliceData(d.stride)), len(d.stride)), len(d.stride), 8, false},
			{"pc", ptr(unsafe.Pointer(unsafe.SliceData(c.pc)), len(c.pc)), len(c.pc), 4, true},
			{"mask", ptr(unsafe.Pointer(unsafe.SliceData(c.mask)), len(c.mask)), len(c.mask), 4, true},
			{"doff", ptr(unsafe.Pointer(unsafe.SliceData(c.doff)), len(c.doff)), len(c.doff), 4, true},
			{"coff", ptr(unsafe.Pointer(unsafe.SliceData(c.coff)), len(c.coff)), len(c.coff), 4, true},
			{"coords", ptr(unsafe.Pointer(unsafe.SliceData(c.coords)), len(c.coords)), len(c.coords), 4, true},
			{"path", ptr(unsafe.Pointer(unsafe.SliceData(c.path)), len(c.path)), len(c.path), 2, true},
			{"mode", ptr(unsafe.Pointer(unsafe.SliceData(d.mode)), len(d.mode)), len(d.mode), 1, false},
			{"flags", ptr(unsafe.Pointer(unsafe.SliceData(d.flags)), len(d.flags)), len(d.flags), 1, false},
		}
		want := map[string]int{"base": tc.n, "pc": tc.n, "mask": tc.n, "doff": tc.n + 1, "coff": tc.n + 1,
			"coords": tc.coords, "path": tc.n, "stride": tc.n, "mode": tc.n, "flags": tc.n}
		start := uintptr(unsafe.Pointer(&d.slab[0]))
		end := start + uintptr(len(d.slab))
		prev := start
		for _, x := range cols {
			if x.len != want[x.name] {
				t.Errorf("n=%d: %s has %d elements, want %d", tc.n, x.name, x.len, want[x.name])
			}
			if x.len == 0 {
				continue
			}
			at := uintptr(x.p)
			if at%uintptr(x.size) != 0 || at < prev || at+uintptr(x.len*x.size) > end {
				t.Errorf("n=%d: %s at slab byte %d (%d bytes) is misaligned, overlaps the one before (ends at %d) or runs past the slab's %d",
					tc.n, x.name, at-start, x.len*x.size, prev-start, len(d.slab))
			}
			prev = at + uintptr(x.len*x.size)
			if x.readFromIt && int(end-prev) < zstdSlack {
				t.Errorf("n=%d: %s has %d bytes after it, want zstdSlack (%d)", tc.n, x.name, end-prev, zstdSlack)
			}
		}
		if tc.n == 1000 && len(d.slab) < 36*1000+zstdSlack {
			t.Errorf("slab of %d bytes for 1000 rows", len(d.slab))
		}
		if tc.n < 1000 && cap(d.slab) < 36*1000 {
			t.Errorf("n=%d: the slab of the 1000-row batch was not reused (cap %d)", tc.n, cap(d.slab))
		}
	}
}
