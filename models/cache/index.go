package cache

import "math/bits"

// lineIndex maps a line number to its slot for caches with many ways
// (Ampere/Hopper L1s have hundreds per set), where a linear tag scan would
// dominate. Open addressing with linear probing and backward-shift deletion:
// no tombstones and no allocation after New. A key and its slot sit side by
// side, so a probe touches one host cache line.
type lineIndex struct {
	e     []indexEntry
	shift uint
}

type indexEntry struct {
	key  uint64
	slot int32 // slot+1; 0 = empty
}

// indexSize is how many entries the index of n slots has: the power of two at least 2n.
func indexSize(n uint64) uint64 { return 1 << bits.Len64(2*n-1) }

func newLineIndex(n int) lineIndex {
	size := int(indexSize(uint64(n)))
	return lineIndex{
		e:     make([]indexEntry, size),
		shift: uint(64 - bits.TrailingZeros(uint(size))),
	}
}

func (x *lineIndex) home(line uint64) int {
	return int((line * 0x9E3779B97F4A7C15) >> x.shift)
}

func (x *lineIndex) get(line uint64) int {
	m := len(x.e) - 1
	for i := x.home(line); ; i = (i + 1) & m {
		e := &x.e[i]
		if e.slot == 0 {
			return -1
		}
		if e.key == line {
			return int(e.slot) - 1
		}
	}
}

func (x *lineIndex) put(line uint64, slot int) {
	m := len(x.e) - 1
	i := x.home(line)
	for x.e[i].slot != 0 && x.e[i].key != line {
		i = (i + 1) & m
	}
	x.e[i] = indexEntry{line, int32(slot + 1)}
}

func (x *lineIndex) del(line uint64) {
	m := len(x.e) - 1
	i := x.home(line)
	for x.e[i].key != line || x.e[i].slot == 0 {
		if x.e[i].slot == 0 {
			return
		}
		i = (i + 1) & m
	}
	// Backward-shift: pull later entries of the probe run into the hole.
	for j := (i + 1) & m; x.e[j].slot != 0; j = (j + 1) & m {
		h := x.home(x.e[j].key)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			x.e[i] = x.e[j]
			i = j
		}
	}
	x.e[i].slot = 0
}

func (x *lineIndex) clear() { clear(x.e) }
