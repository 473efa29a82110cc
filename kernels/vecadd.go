package kernels

// The hardware-mapping seed's first kernel (cuda-hardware-mapping-simt-memory-spaces).
func vecaddKernels() []*Kernel {
	const block = 512 // the seed's block_size
	k := &Kernel{
		Name:    "add_vectors",
		Entry:   "add_vectors_kernel",
		PTXFile: "vecadd.ptx",
		Topic:   "vector add (seed: hardware mapping)",
		Summary: "c[i] = a[i] + b[i], 512 threads per block, ceil(N/512) blocks",
		Sizes:   []Size{{Name: "n", Default: 1 << 20, Help: "vector length", Min: 1}},
		Small:   []string{"n=1000"},
		SIMT:    both,
		Launch: func(sz map[string]int) Launch {
			n := sz["n"]
			return Launch{
				Grid: dim1(ceilDiv(n, block)), Block: dim1(block),
				Args: []string{buf("f32", n, "zero"), buf("f32", n, "rand:1"), buf("f32", n, "rand:2"), i32(n)},
			}
		},
	}
	return []*Kernel{withCheck(k, func(sz map[string]int, in mem) (map[int]any, error) {
		a, b := in.f32(1), in.f32(2)
		c := make([]float32, len(a))
		for i := range c {
			c[i] = a[i] + b[i]
		}
		return map[int]any{0: c}, nil
	})}
}
