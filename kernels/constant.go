package kernels

// The hardware-mapping seed's constant-memory example
// (cuda-hardware-mapping-simt-memory-spaces): c_array[0], c_array[blockIdx.x],
// c_array[threadIdx.x] from __constant__ memory, the same two patterns from a plain
// global d_array and from a const __restrict dc_array (ld.global.nc).
func constantKernels() []*Kernel {
	k := &Kernel{
		Name: "constant_access", Entry: "constant_access", PTXFile: "constant.ptx",
		Topic:   "constant memory (seed: hardware mapping)",
		Summary: "out = c[0] + c[bid] + c[tid] + d[bid] + d[tid] + dc[bid] + dc[tid]: uniform and per-lane reads of constant, global and read-only data",
		Sizes: []Size{
			{Name: "blocks", Default: 128, Help: "grid size (c_array[blockIdx.x] needs at most 128)", Min: 1, Max: 128},
			{Name: "threads", Default: 128, Help: "block size (c_array[threadIdx.x] needs at most 128)", Min: 1, Max: 128},
		},
		Small: []string{"blocks=4", "threads=40"},
		SIMT:  both,
		Launch: func(sz map[string]int) Launch {
			b, t := sz["blocks"], sz["threads"]
			return Launch{
				Grid: dim1(b), Block: dim1(t),
				Args: []string{buf("f32", 128, "rand:1"), buf("f32", 128, "rand:2"), buf("f32", b*t, "zero")},
				// The reference reads c_array[i] = i.
				Consts: []string{"c_array=f32:128:iota"},
			}
		},
	}
	return []*Kernel{withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
		bs, ts := sz["blocks"], sz["threads"]
		d, dc := m.f32(0), m.f32(1)
		out := make([]float32, bs*ts)
		for b := 0; b < bs; b++ {
			for t := 0; t < ts; t++ {
				// Left to right, as the kernel adds.
				out[b*ts+t] = 0 + float32(b) + float32(t) + d[b] + d[t] + dc[b] + dc[t]
			}
		}
		return map[int]any{2: out}, nil
	})}
}
