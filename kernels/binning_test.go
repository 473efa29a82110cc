package kernels

// Hand-made references for binning.go's kernels, written thread by thread from
// binning.cu, for TestCheckAcceptsHandMadeAndRejectsCorrupt.
func init() {
	const cell, cut2 = binCell, binCell * binCell
	contribution := func(a int32, bx, by, px, py int) int32 {
		ox, oy, q := unpackAtom(a)
		dx, dy := bx*cell+ox-px, by*cell+oy-py
		if d2 := dx*dx + dy*dy; d2 < cut2 {
			return q * int32(cut2-d2)
		}
		return 0
	}
	handMadeRefs["cutoff_direct"] = func(l Launch, sz map[string]int, a []any) {
		atoms, energy, cells, capacity := a[0].([]int32), a[1].([]int32), a[2].(int), a[3].(int)
		forThreads(l, func(bx, by, tx, ty int) {
			px, py := bx*cell+tx, by*cell+ty
			var e int32
			for s := range cells * cells * capacity {
				b := s / capacity
				e += contribution(atoms[s], b%cells, b/cells, px, py)
			}
			energy[py*cells*cell+px] = e
		})
	}
	// The shared-memory form sums the same atoms in the same order.
	binned := func(l Launch, sz map[string]int, a []any) {
		atoms, energy, cells, capacity := a[0].([]int32), a[1].([]int32), a[2].(int), a[3].(int)
		forThreads(l, func(bx, by, tx, ty int) {
			px, py := bx*cell+tx, by*cell+ty
			var e int32
			for nby := max(by-1, 0); nby <= min(by+1, cells-1); nby++ {
				for nbx := max(bx-1, 0); nbx <= min(bx+1, cells-1); nbx++ {
					for s := range capacity {
						e += contribution(atoms[(nby*cells+nbx)*capacity+s], nbx, nby, px, py)
					}
				}
			}
			energy[py*cells*cell+px] = e
		})
	}
	handMadeRefs["cutoff_binned"] = binned
	handMadeRefs["cutoff_binned_shared"] = binned
	// bin_atoms from the last thread to the first: another order the atomics may
	// run in, which the check must accept.
	handMadeRefs["bin_atoms"] = func(l Launch, sz map[string]int, a []any) {
		xs, ys, qs, n := a[0].([]int32), a[1].([]int32), a[2].([]int32), a[3].(int)
		bins, counts, cells, capacity := a[4].([]int32), a[5].([]int32), a[6].(int), a[7].(int)
		overflow, nover := a[8].([]int32), a[9].([]int32)
		w := cells * cell
		for i := n - 1; i >= 0; i-- {
			x, y := wrap(int(xs[i]), w), wrap(int(ys[i]), w)
			b := binOf(x, y, cells)
			if slot := counts[b]; int(slot) < capacity {
				bins[b*capacity+int(slot)] = packAtom(x, y, qs[i])
			} else {
				overflow[nover[0]] = int32(i)
				nover[0]++
			}
			counts[b]++
		}
	}
}
