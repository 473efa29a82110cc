package kernels

// Matrix transpose V1-V4 of the coalescing seed
// (cuda-performance-coalescing-banks-reduction), on square n x n float matrices:
// the seed's V1 and V2 index formulas only agree with each other for sizeX ==
// sizeY.
func transposeKernels() []*Kernel {
	type version struct {
		name, entry, summary string
		blockY               int
	}
	var ks []*Kernel
	for _, v := range []version{
		{"transpose_v1", "matrixTranspose", "V1 naive: one thread per element, strided (column) loads, coalesced stores", 32},
		{"transpose_v2", "matrixTransposeShared", "V2 through a 32x32 shared tile: coalesced both ways, 32-way bank conflict on the tile's column read", 32},
		{"transpose_v3", "matrixTransposeSharedPadded", "V3 shared tile padded to 32x33: no bank conflict", 32},
		{"transpose_v4", "matrixTransposeUnrolled", "V4 padded tile, TILE=32 SIDE=8: 32x8 threads, 4 elements each, unrolled", 8},
	} {
		k := &Kernel{
			Name: v.name, Entry: v.entry, PTXFile: "transpose.ptx",
			Topic:   "transpose (seed: coalescing, banks)",
			Summary: v.summary,
			Sizes: []Size{{Name: "n", Default: 2048, Help: "matrix side (n x n floats)",
				Min: 32, Max: 1 << 14, Multiple: 32}},
			Small: []string{"n=64"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{
					Grid: dim2(n/32, n/32), Block: dim2(32, v.blockY),
					Args: []string{buf("f32", n*n, "rand:1"), buf("f32", n*n, "zero"), i32(n), i32(n)},
				}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			n := sz["n"]
			a := m.f32(0)
			t := make([]float32, n*n)
			for r := 0; r < n; r++ {
				for c := 0; c < n; c++ {
					t[r*n+c] = a[c*n+r]
				}
			}
			return map[int]any{1: t}, nil
		}))
	}
	return ks
}
