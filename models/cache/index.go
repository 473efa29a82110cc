package cache

import "math/bits"

// lineIndex maps a line number to its slot for caches with many ways
// (Ampere/Hopper L1s have hundreds per set), where a linear tag scan would
// dominate. Open addressing with linear probing and backward-shift deletion:
// no tombstones and no allocation after New.
type lineIndex struct {
	keys  []uint64
	slots []int32 // slot+1; 0 = empty
	shift uint
}

func newLineIndex(n int) lineIndex {
	size := 1 << bits.Len(uint(2*n-1)) // power of two ≥ 2n
	return lineIndex{
		keys:  make([]uint64, size),
		slots: make([]int32, size),
		shift: uint(64 - bits.TrailingZeros(uint(size))),
	}
}

func (x *lineIndex) home(line uint64) int {
	return int((line * 0x9E3779B97F4A7C15) >> x.shift)
}

func (x *lineIndex) get(line uint64) int {
	m := len(x.keys) - 1
	for i := x.home(line); ; i = (i + 1) & m {
		if x.slots[i] == 0 {
			return -1
		}
		if x.keys[i] == line {
			return int(x.slots[i]) - 1
		}
	}
}

func (x *lineIndex) put(line uint64, slot int) {
	m := len(x.keys) - 1
	i := x.home(line)
	for x.slots[i] != 0 && x.keys[i] != line {
		i = (i + 1) & m
	}
	x.keys[i], x.slots[i] = line, int32(slot+1)
}

func (x *lineIndex) del(line uint64) {
	m := len(x.keys) - 1
	i := x.home(line)
	for x.keys[i] != line || x.slots[i] == 0 {
		if x.slots[i] == 0 {
			return
		}
		i = (i + 1) & m
	}
	// Backward-shift: pull later entries of the probe run into the hole.
	for j := (i + 1) & m; x.slots[j] != 0; j = (j + 1) & m {
		h := x.home(x.keys[j])
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			x.keys[i], x.slots[i] = x.keys[j], x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
}

func (x *lineIndex) clear() { clear(x.slots) }
