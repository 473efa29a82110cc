package sched

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDivergentOrderProgresses: a divergent warp given an order by the rules Divergent
// states (runs of one path, no rejoin record inside, a split record last, fewer than
// window records of the trace from first to last) always has a record to issue until
// it finishes, whichever candidate issues each time, and issues each path's records
// in the order given. The traces are random, malformed ones included (a new path with
// no split before it).
func TestDivergentOrderProgresses(t *testing.T) {
	const split, rejoin = 1, 2
	rng := rand.New(rand.NewPCG(19, 11))
	for trial := range 3000 {
		n := 1 + rng.IntN(160)
		window := 2 + rng.IntN(40)
		paths := make([]uint16, n)
		flags := make([]uint8, n)
		for i := range n {
			paths[i] = uint16(rng.IntN(4))
			switch rng.IntN(10) {
			case 0:
				flags[i] = split
			case 1:
				flags[i] = rejoin
			}
		}
		byPath := map[uint16][]int32{}
		for i, p := range paths {
			byPath[p] = append(byPath[p], int32(i))
		}
		ord := make([]int32, n)
		for i := range ord {
			ord[i] = int32(i)
		}
		for _, recs := range byPath {
			for j := 0; j < len(recs); {
				if flags[recs[j]]&rejoin != 0 {
					j++
					continue
				}
				m, most := 1, 1+rng.IntN(8)
				for m < most && j+m < len(recs) && flags[recs[j+m]]&rejoin == 0 &&
					flags[recs[j+m-1]]&split == 0 && int(recs[j+m]-recs[j]) < window {
					m++
				}
				seg := recs[j : j+m]
				perm := rng.Perm(m)
				if flags[seg[m-1]]&split != 0 { // the split stays last
					k := slices.Index(perm, m-1)
					perm[k], perm[m-1] = perm[m-1], perm[k]
				}
				for k, p := range perm {
					ord[seg[k]] = seg[p]
				}
				j += m
			}
		}
		o := Divergent(paths, flags, split, rejoin, window, ord)
		issued := map[uint16][]int32{}
		for !o.Finished() {
			var cands []int
			o.Candidates(func(i int) bool { cands = append(cands, i); return false })
			if len(cands) == 0 {
				t.Fatalf("trial %d: no candidate with %d of %d records left (paths %v flags %v window %d order %v)",
					trial, n-o.lo, n, paths, flags, window, ord)
			}
			i := cands[rng.IntN(len(cands))]
			o.Issued(i)
			issued[paths[i]] = append(issued[paths[i]], int32(i))
		}
		for p, recs := range byPath {
			want := make([]int32, len(recs))
			for k, pos := range recs {
				want[k] = ord[pos]
			}
			if !slices.Equal(issued[p], want) {
				t.Fatalf("trial %d: path %d issued %v, want %v", trial, p, issued[p], want)
			}
		}
	}
}

// TestStreamedIsInOrder: a warp whose order comes a run at a time issues the same
// records in the same order as InOrder given the runs joined, answers Latest and
// Finished the same after every issue, and asks for each run once, at its first place.
func TestStreamedIsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 29))
	for trial := range 2000 {
		n := rng.IntN(60)
		var starts []int // each run's first place
		ord := make([]int32, n)
		for k := 0; k < n; {
			m := min(1+rng.IntN(9), n-k)
			starts = append(starts, k)
			for j, p := range rng.Perm(m) {
				ord[k+j] = int32(k + p)
			}
			if rng.IntN(3) == 0 { // trace order for this run
				for j := range m {
					ord[k+j] = int32(k + j)
				}
			}
			k += m
		}
		var asked []int
		runs := func(k int) (int, []uint16) {
			asked = append(asked, k)
			i := slices.Index(starts, k)
			if i < 0 {
				return 0, nil
			}
			end := n
			if i+1 < len(starts) {
				end = starts[i+1]
			}
			if isTraceOrder(ord[k:end], k) {
				return end - k, nil
			}
			off := make([]uint16, end-k)
			for j, r := range ord[k:end] {
				off[j] = uint16(int(r) - k)
			}
			return end - k, off
		}
		want := InOrder(n, ord)
		got := Streamed(runs)
		for step := 0; ; step++ {
			if w, g := want.Finished(), got.Finished(); w != g {
				t.Fatalf("trial %d step %d: Finished %v, want %v", trial, step, g, w)
			}
			if want.Finished() {
				break
			}
			if step > 0 && want.Latest() != got.Latest() {
				t.Fatalf("trial %d step %d: Latest %d, want %d", trial, step, got.Latest(), want.Latest())
			}
			w, g := want.Next(), got.Next()
			if w != g {
				t.Fatalf("trial %d step %d: Next %d, want %d", trial, step, g, w)
			}
			want.Issued(w)
			got.Issued(g)
		}
		if wantAsked := append(slices.Clone(starts), n); !slices.Equal(asked, wantAsked) {
			t.Fatalf("trial %d: runs asked at %v, want %v", trial, asked, wantAsked)
		}
	}
}

func isTraceOrder(ord []int32, k int) bool {
	for j, r := range ord {
		if int(r) != k+j {
			return false
		}
	}
	return true
}
