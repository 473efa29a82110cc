package kernels

import "fmt"

// Reduction V1-V5.2 of the coalescing seed (cuda-performance-coalescing-banks-reduction):
// one pass of 256-thread blocks, each writing the sum of its part of the input to
// d_odata[blockIdx.x]. The references add in each version's own order (the load,
// then the tree in shared memory), so the partial sums compare exactly.
func reductionKernels() []*Kernel {
	const (
		block = 256 // the seed's "good starting point"; V5.2 is compiled for it
		tile  = 8   // TILE in reduction.cu: adds on load in V4.2, V5.1, V5.2
	)
	type version struct {
		name, entry, summary string
		perThread            int  // input elements each thread adds on load
		interleaved          bool // tree pairs (t, t+c) for t a multiple of 2c, c = 1, 2, 4...
	}
	var ks []*Kernel
	for _, v := range []version{
		{"reduce_v1", "reduce_v1", "V1 interleaved addressing with %: divergent branches in every warp", 1, true},
		{"reduce_v2", "reduce_v2", "V2 strided index (index = 2*c*tid): no divergence but in the last warps; bank conflicts", 1, true},
		{"reduce_v3", "reduce_v3", "V3 sequential addressing: active threads stay contiguous", 1, false},
		{"reduce_v4_1", "reduce_v4_1", "V4.1 V3 plus one add on load (each block reduces 2*256 elements)", 2, false},
		{"reduce_v4_2", "reduce_v4_2", "V4.2 V3 plus TILE=8 adds on load (each block reduces 8*256 elements)", tile, false},
		{"reduce_v5_1", "reduce_v5_1", "V5.1 V4.2 with the last warp unrolled through a volatile pointer", tile, false},
		{"reduce_v5_2", "reduce_v5_2", "V5.2 V4.2 with the tree completely unrolled for blockSize 256", tile, false},
	} {
		per := block * v.perThread
		k := &Kernel{
			Name: v.name, Entry: v.entry, PTXFile: "reduction.ptx",
			Topic:   "reduction (seed: coalescing, divergence)",
			Summary: v.summary,
			// The kernels leave shared memory unset past n, as the seed's do: n
			// must fill every block.
			Sizes: []Size{count("n", 1<<22, per, "floats to reduce")},
			Small: []string{fmt.Sprintf("n=%d", 2*per)}, // two blocks
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{
					Grid: dim1(n / per), Block: dim1(block), DynShared: block * 4,
					Args: []string{buf("f32", n, "rand:1"), buf("f32", n/per, "zero"), i32(n)},
				}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			in := m.f32(0)
			sums := make([]float32, len(in)/per)
			s := make([]float32, block)
			for b := range sums {
				for t := range s {
					idx := b*per + t
					if v.perThread == 1 {
						s[t] = in[idx]
						continue
					}
					// V4.1 stores in[idx] then adds in[idx+256]; V4.2 and V5 start
					// from 0 and add TILE elements 256 apart.
					acc := in[idx]
					if v.perThread == tile {
						acc = 0 + in[idx]
					}
					for c := 1; c < v.perThread; c++ {
						acc += in[idx+c*block]
					}
					s[t] = acc
				}
				if v.interleaved {
					for c := 1; c < block; c *= 2 {
						for t := 0; t+c < block; t += 2 * c {
							s[t] += s[t+c]
						}
					}
					sums[b] = s[0]
				} else {
					// V5's unrolled last warp adds the same pairs for the lanes
					// that matter, provided a warp's lanes run each instruction
					// together (the volatile version relies on it).
					sums[b] = treeSum(s)
				}
			}
			return map[int]any{1: sums}, nil
		}))
	}
	return ks
}

// treeSum adds s in the shared-memory tree with sequential addressing (reduction V3 on):
// s[t] += s[t+c] for t < c, c = len(s)/2 down to 1, as float32, and returns s[0]. It
// leaves the partial sums in s. len(s) is a power of two.
func treeSum(s []float32) float32 {
	for c := len(s) / 2; c > 0; c >>= 1 {
		for t := 0; t < c; t++ {
			s[t] += s[t+c]
		}
	}
	return s[0]
}
