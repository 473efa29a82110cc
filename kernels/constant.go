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
	ks := []*Kernel{withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
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

	// One convolution with its mask in a global buffer and in __constant__ memory.
	const block = 256
	conv := func(name, summary string, global bool) *Kernel {
		return withCheck(&Kernel{
			Name: name, Entry: name, PTXFile: "constant.ptx",
			Topic: "constant memory (seed: hardware mapping)", Summary: summary,
			Sizes: []Size{count("n", 1<<22, 1, "elements of in and out")},
			Small: []string{"n=1000"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				in, out := buf("i32", n, "rand:5"), buf("i32", n, "zero")
				l := Launch{Grid: dim1(ceilDiv(n, block)), Block: dim1(block)}
				if global {
					l.Args = []string{in, buf("i32", convMask, "iota"), out, i32(n)}
				} else {
					l.Args = []string{in, out, i32(n)}
					l.Consts = []string{"c_mask=i32:7:iota"}
				}
				return l
			},
		}, func(sz map[string]int, m mem) (map[int]any, error) {
			if global {
				return map[int]any{2: maskConvRef(m.i32(0), m.i32(1))}, nil
			}
			return map[int]any{1: maskConvRef(m.i32(0), iotaMask())}, nil
		})
	}
	return append(ks,
		conv("conv1d_mask_global", "7-point convolution whose mask is a global buffer: every lane of a warp loads the same mask[k]", true),
		conv("conv1d_mask_const", "the same convolution with the mask in __constant__ memory, the seed's place for coefficients all threads read", false))
}

// convMask is the length of constant.cu's convolution mask.
const convMask = 7

// iotaMask is the mask the launches give the convolution: mask[k] = k.
func iotaMask() []int32 {
	w := make([]int32, convMask)
	for k := range w {
		w[k] = int32(k)
	}
	return w
}

// maskConvRef is constant.cu's convolution: out[j] = sum of mask[k] in[j+k-3] over the
// in-range inputs, wrapping as int32 does.
func maskConvRef(in, mask []int32) []int32 {
	out := make([]int32, len(in))
	for j := range out {
		for k, wk := range mask[:convMask] {
			if i := j + k - convMask/2; i >= 0 && i < len(in) {
				out[j] += wk * in[i]
			}
		}
	}
	return out
}
