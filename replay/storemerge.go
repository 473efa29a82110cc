package replay

// storeMerge is what an SM's stores left on their way to the L2 that a later store's
// line may join (sm.store_merge_lines): the last lines sent down the stores' path,
// newest last, each with the sectors it carries and the cycle it leaves the path. A
// line whose address is one of them, still on the path when the later store issues,
// joins it: it takes no time of the path, and only the sectors the earlier line does
// not carry yet reach the L2, with it (scripts/hw/wcombine.cu, hw-facts section 34;
// docs/issue-11.md item 39).
type storeMerge struct {
	lines []mergeLine // a ring of the last len(lines) lines sent
	next  int         // where the next line sent goes
	n     int         // lines in the ring
}

type mergeLine struct {
	line uint64
	mask uint8
	left int64
}

// newStoreMerge returns an SM's record of the last lines lines, or nil for none: a nil
// record joins nothing and keeps nothing.
func newStoreMerge(lines int) *storeMerge {
	if lines <= 0 {
		return nil
	}
	return &storeMerge{lines: make([]mergeLine, lines)}
}

// join reports whether the line of a store issued at issued (its sectors in mask; none:
// it joins nothing) joins an earlier line still on the path, the cycle that one leaves,
// and the sectors of mask it did not carry yet.
func (m *storeMerge) join(line uint64, mask uint8, issued int64) (ok bool, left int64, fresh uint8) {
	if m == nil || mask == 0 {
		return false, 0, 0
	}
	for i := 1; i <= m.n; i++ {
		l := &m.lines[(m.next-i+len(m.lines))%len(m.lines)]
		if l.line != line {
			continue
		}
		if l.left < issued {
			break // gone; any older one of the line left before it
		}
		fresh = mask &^ l.mask
		l.mask |= mask
		return true, l.left, fresh
	}
	return false, 0, 0
}

// sent records a line sent down the path with the sectors in mask, leaving it at left.
func (m *storeMerge) sent(line uint64, mask uint8, left int64) {
	if m == nil {
		return
	}
	m.lines[m.next] = mergeLine{line: line, mask: mask, left: left}
	m.next = (m.next + 1) % len(m.lines)
	m.n = min(m.n+1, len(m.lines))
}
