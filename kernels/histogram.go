package kernels

import "fmt"

// Histograms (kernels/cu/histogram.cu): global atomics that return nothing (RED),
// global atomics that return (ATOM), and privatisation in shared memory per block
// and per warp. Bins are a power of two from 1 (every atomic on one word) to 4096.
// The input is rand's values 0..999 (so at most 1000 bins are ever used), with
// about hot% of the elements 0 (capture's hot:P INIT), a skewed input that makes
// bin 0 contended whatever the bin count.
func histogramKernels() []*Kernel {
	const block = 256
	bins := Size{Name: "bins", Default: 256, Help: "histogram bins (a power of two)", Min: 1, Max: 4096, Pow2: true}
	n := count("n", 1<<20, 1, "input elements")
	hot := Size{Name: "hot", Default: 0, Help: "percentage of input elements that are 0 (skew)", Zero: true, Max: 100}
	// input is the histogrammed buffer's SPEC: uniform (as the held-out launches
	// were collected) unless skewed.
	input := func(sz map[string]int) string {
		if sz["hot"] == 0 {
			return buf("i32", sz["n"], "rand:7")
		}
		return buf("i32", sz["n"], fmt.Sprintf("hot:%d:7", sz["hot"]))
	}
	binOf := func(sz map[string]int, in []int32) []int32 {
		h := make([]int32, sz["bins"])
		for _, v := range in {
			h[uint32(v)&uint32(sz["bins"]-1)]++
		}
		return h
	}
	topic := "histograms and privatisation (seed: optimization techniques)"
	// hist_global and hist_global_ret differ only in the ticket buffer the second keeps.
	globalKernel := func(name, summary string, tickets bool) *Kernel {
		return &Kernel{
			Name: name, Entry: name, PTXFile: "histogram.ptx", Topic: topic, Summary: summary,
			Sizes: []Size{n, bins, hot},
			Small: []string{"n=1000", "bins=16"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				args := []string{input(sz), buf("i32", sz["bins"], "zero")}
				if tickets {
					args = append(args, buf("i32", n, "zero"))
				}
				return Launch{Grid: dim1(ceilDiv(n, block)), Block: dim1(block), Args: append(args, i32(n), i32(sz["bins"]))}
			},
		}
	}
	global := globalKernel("hist_global", "atomicAdd(&hist[in[i] & (bins-1)], 1), result unused: RED", false)
	ret := globalKernel("hist_global_ret", "ticket[i] = atomicAdd(&hist[in[i] & (bins-1)], 1): returning ATOM", true)
	blocks := Size{Name: "blocks", Default: 264, Help: "grid size (a grid-stride loop covers n)", Min: 1, Max: 1 << 16}
	// privatised kernels count into shared copies of the bins, copies per block of
	// them, then add each non-zero bin to the global histogram once per block.
	privatised := func(name, summary string, copies int) *Kernel {
		return &Kernel{
			Name: name, Entry: name, PTXFile: "histogram.ptx", Topic: topic, Summary: summary,
			Sizes: []Size{n, bins, blocks, hot},
			Small: []string{"n=1000", "bins=16", "blocks=3"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				return Launch{Grid: dim1(sz["blocks"]), Block: dim1(block), DynShared: uint32(4 * copies * sz["bins"]),
					Args: []string{input(sz), buf("i32", sz["bins"], "zero"), i32(sz["n"]), i32(sz["bins"])}}
			},
		}
	}
	shared := privatised("hist_shared",
		"per-block bins in dynamic shared memory (shared atomics), then one global atomicAdd per non-zero bin", 1)
	warp := privatised("hist_warp",
		"per-warp bins in dynamic shared memory (no two warps share a word), summed per block, then one global atomicAdd per non-zero bin",
		block/32)
	for _, k := range []*Kernel{global, shared, warp} {
		withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			return map[int]any{1: binOf(sz, m.i32(0))}, nil
		})
	}
	// The tickets depend on the order the atomics ran in; what holds in any order is
	// that the tickets of one bin are 0, 1, ... up to its count, each once.
	ret.Check = func(sz map[string]int, init, final [][]byte) error {
		if len(init) == 5 && len(final) == 5 && len(final[2]) == 4*sz["n"] && len(init[0]) == 4*sz["n"] {
			if err := checkTickets(sz["bins"], i32s(init[0]), i32s(final[2])); err != nil {
				return fmt.Errorf("kernels: %s: %w", ret.Name, err)
			}
		}
		if err := checkAgainst(ret, sz, init, final, func(sz map[string]int, m mem) (map[int]any, error) {
			return map[int]any{1: binOf(sz, m.i32(0)), 2: i32s(final[2])}, nil
		}); err != nil {
			return fmt.Errorf("kernels: %s: %w", ret.Name, err)
		}
		return nil
	}
	return []*Kernel{global, ret, shared, warp}
}

// checkTickets checks that the tickets of each bin are a permutation of 0..count-1.
func checkTickets(bins int, in, ticket []int32) error {
	seen := make([]map[int32]bool, bins)
	for i, v := range in {
		b := uint32(v) & uint32(bins-1)
		if seen[b] == nil {
			seen[b] = map[int32]bool{}
		}
		t := ticket[i]
		if t < 0 || seen[b][t] {
			return fmt.Errorf("ticket[%d] = %d for bin %d: below zero or given twice", i, t, b)
		}
		seen[b][t] = true
	}
	for b, s := range seen {
		for t := range s {
			if int(t) >= len(s) {
				return fmt.Errorf("bin %d: ticket %d of %d increments", b, t, len(s))
			}
		}
	}
	return nil
}
