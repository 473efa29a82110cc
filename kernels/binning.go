package kernels

import (
	"fmt"
	"slices"
)

// Input binning and cutoff binning (kernels/cu/binning.cu), the
// optimisation-techniques seed's "Binning" and "Cutoff Binning": a cutoff Coulomb
// sum on a lattice, every atom against every point and only the 3 x 3 bins around
// a point's own, and the scatter that puts a plain atom list into bins.
func binningKernels() []*Kernel {
	const cell = binCell
	cells := Size{Name: "cells", Default: 16, Help: "bins per side: the lattice is 8 cells x 8 cells points", Min: 1, Max: 1024}
	capacity := Size{Name: "cap", Default: 8, Help: "atom slots per bin (an unused slot holds a charge-0 atom)", Min: 1, Max: 1024}
	topic := "cutoff binning (seed: optimization techniques)"
	cutoff := func(name, summary string, shared bool) *Kernel {
		return withCheck(&Kernel{
			Name: name, Entry: name, PTXFile: "binning.ptx", Topic: topic, Summary: summary,
			Sizes: []Size{cells, capacity},
			Small: []string{"cells=3", "cap=4"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				c, k := sz["cells"], sz["cap"]
				l := Launch{Grid: dim2(c, c), Block: dim2(cell, cell),
					Args: []string{buf("i32", c*c*k, "rand:13"), buf("i32", c*c*cell*cell, "zero"), i32(c), i32(k)}}
				if shared {
					l.DynShared = uint32(9 * k * 4)
				}
				return l
			},
		}, func(sz map[string]int, m mem) (map[int]any, error) {
			return map[int]any{1: cutoffRef(m.i32(0), sz["cells"], sz["cap"])}, nil
		})
	}
	ks := []*Kernel{
		cutoff("cutoff_direct", "cutoff sum on a lattice, every point against every atom slot: O(points x atoms), the data-unscalable form", false),
		cutoff("cutoff_binned", "the same sum over the 3x3 bins around each point's own: O(points x 9 cap)", false),
		cutoff("cutoff_binned_shared", "the binned sum with each block's 9 bins staged in shared memory first", true),
	}

	// Binning: x, y, q, n, bins, counts, cells, cap, overflow, noverflow.
	bin := &Kernel{
		Name: "bin_atoms", Entry: "bin_atoms", PTXFile: "binning.ptx", Topic: "binning (seed: optimization techniques)",
		Summary: "put a plain atom list into fixed-capacity bins: one atomicAdd on its bin's count per atom, the full bins' atoms to an overflow list",
		Sizes:   []Size{count("n", 1024, 1, "atoms (coordinates 0..999, wrapped into the lattice)"), cells, capacity},
		Small:   []string{"n=200", "cells=4", "cap=8"},
		SIMT:    both,
		Launch: func(sz map[string]int) Launch {
			n, c, k := sz["n"], sz["cells"], sz["cap"]
			return Launch{Grid: dim1(ceilDiv(n, 256)), Block: dim1(256),
				Args: []string{buf("i32", n, "rand:21"), buf("i32", n, "rand:22"), buf("i32", n, "rand:23"), i32(n),
					buf("i32", c*c*k, "zero"), buf("i32", c*c, "zero"), i32(c), i32(k), buf("i32", n, "zero"), buf("i32", 1, "zero")}}
		},
	}
	bin.Check = func(sz map[string]int, init, final [][]byte) error {
		if err := checkAgainst(bin, sz, init, final, func(sz map[string]int, m mem) (map[int]any, error) {
			return binAtomsExpect(sz, m, i32s(final[4]), i32s(final[8]), i32s(final[9])[0])
		}); err != nil {
			return fmt.Errorf("kernels: %s: %w", bin.Name, err)
		}
		return nil
	}
	return append(ks, bin)
}

// cutoffRef is binning.cu's energies, computed the way a CPU would: each atom adds
// its contribution to the lattice points within the cutoff around it (a scatter).
func cutoffRef(atoms []int32, cells, capacity int) []int32 {
	const cell, cut2 = binCell, binCell * binCell
	w := cells * cell
	e := make([]int32, w*w)
	for s, a := range atoms {
		b := s / capacity
		dx, dy, q := unpackAtom(a)
		ax, ay := b%cells*cell+dx, b/cells*cell+dy
		for py := max(ay-cell+1, 0); py < min(ay+cell, w); py++ {
			for px := max(ax-cell+1, 0); px < min(ax+cell, w); px++ {
				if d2 := (px-ax)*(px-ax) + (py-ay)*(py-ay); d2 < cut2 {
					e[py*w+px] += q * int32(cut2-d2)
				}
			}
		}
	}
	return e
}

// binAtomsExpect checks bin_atoms' outputs against its inputs and returns them as
// expected. The counts are fixed; which atoms took a full bin's slots, the slots'
// order and the overflow list's order follow the atomics' order, so for every bin
// the check is on multisets: its slots' packed atoms and its overflow atoms
// together are the atoms that fall in it.
func binAtomsExpect(sz map[string]int, m mem, bins, overflow []int32, nover int32) (map[int]any, error) {
	n, cells, capacity := sz["n"], sz["cells"], sz["cap"]
	xs, ys, qs := m.i32(0), m.i32(1), m.i32(2)
	w := cells * binCell
	bin := make([]int, n)
	packed := make([]int32, n)
	want := make([][]int32, cells*cells) // each bin's packed atoms
	for i := range n {
		x, y := wrap(int(xs[i]), w), wrap(int(ys[i]), w)
		bin[i], packed[i] = binOf(x, y, cells), packAtom(x, y, qs[i])
		want[bin[i]] = append(want[bin[i]], packed[i])
	}
	counts := make([]int32, cells*cells)
	var over int32
	for b, a := range want {
		counts[b] = int32(len(a))
		over += int32(max(len(a)-capacity, 0))
	}
	if nover != over {
		return nil, fmt.Errorf("%d atoms in the overflow list, want %d", nover, over)
	}
	got := make([][]int32, cells*cells)
	for b := range got {
		got[b] = slices.Clone(bins[b*capacity:][:min(int(counts[b]), capacity)])
	}
	seen := make([]bool, n)
	for _, i := range overflow[:over] {
		if i < 0 || int(i) >= n || seen[i] {
			return nil, fmt.Errorf("overflow list holds atom %d twice or out of range", i)
		}
		seen[i] = true
		got[bin[i]] = append(got[bin[i]], packed[i])
	}
	for b := range want {
		slices.Sort(want[b])
		slices.Sort(got[b])
		if !slices.Equal(got[b], want[b]) {
			return nil, fmt.Errorf("bin %d: its slots and overflow atoms are not the %d atoms that fall in it (sorted, they differ)", b, len(want[b]))
		}
	}
	// The slots as written, unused ones 0; the overflow list as written, 0 after it.
	expBins := make([]int32, len(bins))
	for b := range counts {
		n := min(int(counts[b]), capacity)
		copy(expBins[b*capacity:][:n], bins[b*capacity:][:n])
	}
	expOver := make([]int32, len(overflow))
	copy(expOver, overflow[:over])
	return map[int]any{4: expBins, 5: counts, 8: expOver, 9: []int32{over}}, nil
}

// wrap is v modulo w in [0, w), as bin_atoms wraps a coordinate into the box.
func wrap(v, w int) int { return (v%w + w) % w }

// binCell is binning.cu's CELL: a bin's side in lattice points, and the cutoff radius.
const binCell = 8

// binOf is the bin (row-major over cells x cells) that holds lattice point (x, y).
func binOf(x, y, cells int) int { return y/binCell*cells + x/binCell }

// packAtom is the binned layout's word for an atom at (x, y) of charge q: its offsets
// in its bin and its charge, x & 7 | (y & 7) << 3 | q << 6.
func packAtom(x, y int, q int32) int32 { return int32(x&7 | (y&7)<<3 | int(q&3)<<6) }

// unpackAtom is packAtom's inverse: the offsets in the bin and the charge.
func unpackAtom(a int32) (dx, dy int, q int32) { return int(a & 7), int(a >> 3 & 7), a >> 6 & 3 }
