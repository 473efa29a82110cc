package kernels

// Divergence: the hardware-mapping seed's if/else around calls and its nested
// example (cuda-hardware-mapping-simt-memory-spaces), and the coalescing seed's
// warp partitioning, threadIdx.x > 15 against threadIdx.x > warpSize - 1
// (cuda-performance-coalescing-banks-reduction). A, B and C are device functions:
// A(p) *p = *p*3 + 1, B(p) *p -= 7, C(p) *p ^= 0x55.
func divergenceKernels() []*Kernel {
	const block = 64 // two warps: "> warpSize - 1" then splits the block, not a warp
	fA := func(v int32) int32 { return v*3 + 1 }
	fB := func(v int32) int32 { return v - 7 }
	fC := func(v int32) int32 { return v ^ 0x55 }
	blocks := Size{Name: "blocks", Default: 1024, Help: "blocks of 64 threads", Min: 1, Max: 1 << 20}
	kernel := func(name, entry, summary string, f func(v int32, gid, tid int) int32) *Kernel {
		k := &Kernel{
			Name: name, Entry: entry, PTXFile: "divergence.ptx",
			Topic:   "divergence (seed: hardware mapping, coalescing)",
			Summary: summary,
			Sizes:   []Size{blocks}, Small: []string{"blocks=2"}, SIMT: both,
			Launch: func(sz map[string]int) Launch {
				b := sz["blocks"]
				return Launch{Grid: dim1(b), Block: dim1(block), Args: []string{buf("i32", b*block, "rand:1")}}
			},
		}
		return withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			out := m.i32(0)
			for gid := range out {
				out[gid] = f(out[gid], gid, gid%block)
			}
			return map[int]any{0: out}, nil
		})
	}
	// The nested example takes a bound N; by default it stops 16 threads short of
	// the grid, so that the last warp also diverges on the bounds test.
	nested := &Kernel{
		Name: "divergence_nested", Entry: "divergence_nested", PTXFile: "divergence.ptx",
		Topic: "divergence (seed: hardware mapping, coalescing)",
		Summary: "if (tid < N) { if (tid % 2 == 0) out[tid] += 2; else out[tid] -= 8; }: " +
			"the inner branch compiles to predication",
		Sizes: []Size{blocks, {Name: "n", Default: 1024*block - 16, Help: "the bound N (threads past it do nothing)",
			Min: 1, Max: 1 << 26}},
		Small: []string{"blocks=2", "n=100"},
		SIMT:  both,
		Launch: func(sz map[string]int) Launch {
			b := sz["blocks"]
			return Launch{Grid: dim1(b), Block: dim1(block), Args: []string{buf("i32", b*block, "rand:1"), i32(sz["n"])}}
		},
	}
	withCheck(nested, func(sz map[string]int, m mem) (map[int]any, error) {
		out := m.i32(0)
		for tid := 0; tid < len(out) && tid < sz["n"]; tid++ {
			if tid%2 == 0 {
				out[tid] += 2
			} else {
				out[tid] -= 8
			}
		}
		return map[int]any{0: out}, nil
	})
	return []*Kernel{
		kernel("divergence_if_else", "divergence_if_else",
			"if (threadIdx.x & 0x4) A(); else B(); C(); every warp splits 16/16 and reconverges before C",
			func(v int32, gid, tid int) int32 {
				if tid&4 != 0 {
					return fC(fA(v))
				}
				return fC(fB(v))
			}),
		nested,
		kernel("divergence_half_warp", "divergence_half_warp",
			"if (threadIdx.x > 15) A(); C(); the first warp of each block diverges",
			func(v int32, gid, tid int) int32 {
				if tid > 15 {
					v = fA(v)
				}
				return fC(v)
			}),
		kernel("divergence_warp_aligned", "divergence_warp_aligned",
			"if (threadIdx.x > warpSize - 1) A(); C(); the branch splits the block between warps, no warp diverges",
			func(v int32, gid, tid int) int32 {
				if tid > 31 {
					v = fA(v)
				}
				return fC(v)
			}),
	}
}
