package kernels

import (
	"fmt"
	"slices"
)

// Stream compaction and an algorithm-cascading reduction (kernels/cu/compaction.cu),
// the optimisation-techniques seed's "Compaction" and "Algorithm Cascading".
func compactionKernels() []*Kernel {
	const block = 256
	n := count("n", 1<<22, 1, "input elements")
	keep := Size{Name: "keep", Default: 50, Help: "percentage of the elements kept (those below 10 x keep; the input is 0..999)", Zero: true, Max: 100}
	topic := "stream compaction (seed: optimization techniques)"
	compact := func(name, summary string) *Kernel {
		k := &Kernel{
			Name: name, Entry: name, PTXFile: "compaction.ptx", Topic: topic, Summary: summary,
			Sizes: []Size{n, keep},
			Small: []string{"n=1000"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{Grid: dim1(ceilDiv(n, block)), Block: dim1(block),
					Args: []string{buf("i32", n, "rand:9"), buf("i32", n, "zero"), buf("i32", 1, "zero"), i32(n), i32(10 * sz["keep"])}}
			},
		}
		// The kept elements land in the order the atomics ran in: check the set, then
		// that nothing else changed.
		k.Check = func(sz map[string]int, init, final [][]byte) error {
			if err := checkAgainst(k, sz, init, final, func(sz map[string]int, m mem) (map[int]any, error) {
				in, out, got := m.i32(0), i32s(final[1]), i32s(final[2])
				var want []int32
				for _, v := range in {
					if v < int32(10*sz["keep"]) {
						want = append(want, v)
					}
				}
				if int(got[0]) != len(want) {
					return nil, fmt.Errorf("count is %d, want %d kept elements", got[0], len(want))
				}
				kept := slices.Clone(out[:len(want)])
				slices.Sort(kept)
				slices.Sort(want)
				if !slices.Equal(kept, want) {
					return nil, fmt.Errorf("the %d elements written to out are not the kept ones (sorted, they differ)", len(want))
				}
				// out's kept prefix as written (its order is free), zeros after it.
				exp := make([]int32, len(out))
				copy(exp, out[:len(want)])
				return map[int]any{1: exp, 2: []int32{int32(len(want))}}, nil
			}); err != nil {
				return fmt.Errorf("kernels: %s: %w", k.Name, err)
			}
			return nil
		}
		return k
	}
	atomic := compact("compact_atomic", "keep the elements below a threshold: one atomicAdd on one counter per kept element")
	warp := compact("compact_warp", "keep the elements below a threshold: a ballot per warp and one atomicAdd of its popcount (warp-aggregated)")

	cascade := withCheck(&Kernel{
		Name: "reduce_cascade", Entry: "reduce_cascade", PTXFile: "compaction.ptx",
		Topic:   "reduction (seed: optimization techniques, algorithm cascading)",
		Summary: "each thread adds n/(blocks x 256) elements sequentially (grid-stride), then one shared-memory tree per block",
		Sizes: []Size{count("n", 1<<22, 1, "floats to reduce"),
			{Name: "blocks", Default: 264, Help: "grid size: the sequential share per thread is n/(blocks x 256)", Min: 1, Max: 1 << 20}},
		Small: []string{"n=5000", "blocks=3"},
		SIMT:  both,
		Launch: func(sz map[string]int) Launch {
			n, b := sz["n"], sz["blocks"]
			return Launch{Grid: dim1(b), Block: dim1(block), DynShared: 4 * block,
				Args: []string{buf("f32", n, "rand:1"), buf("f32", b, "zero"), i32(n)}}
		},
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		return map[int]any{1: cascadeRef(m.f32(0), sz["blocks"], block)}, nil
	})
	return []*Kernel{atomic, warp, cascade}
}

// cascadeRef is reduce_cascade's sums in its order: thread t of block b adds
// in[b*block+t], then every blocks*block-th element after it, as float32; the block
// then adds its sums in reduction V3's tree (treeSum).
func cascadeRef(in []float32, blocks, block int) []float32 {
	sums := make([]float32, blocks)
	s := make([]float32, block)
	for b := range sums {
		for t := range s {
			var acc float32
			for i := b*block + t; i < len(in); i += blocks * block {
				acc += in[i]
			}
			s[t] = acc
		}
		sums[b] = treeSum(s)
	}
	return sums
}
