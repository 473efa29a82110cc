package kernels

// Grid-stride copies of the hardware-mapping seed's "vector loads / stores"
// (cuda-hardware-mapping-simt-memory-spaces). The seed gives no launch; the
// default grid is small enough that each thread loops (2^22 ints over 1024 blocks
// of 256 threads: 16 iterations), which is what a grid-stride loop is for.
func copyKernels() []*Kernel {
	const block = 256
	sizes := func(mult int) []Size {
		return []Size{
			count("n", 1<<22, mult, "ints to copy"),
			{Name: "blocks", Default: 1024, Help: "grid size (the loop strides over it)", Min: 1, Max: 1 << 20},
		}
	}
	type variant struct {
		name, entry, summary string
		inArg                int // index of d_in; d_out is the other pointer
		mult                 int
	}
	var ks []*Kernel
	for _, v := range []variant{
		{"device_copy_scalar", "device_copy_scalar_kernel", "d_out[i] = d_in[i], plain loads", 0, 1},
		{"copy", "copy", "d_out[i] = d_in[i] through __restrict pointers: non-coherent loads (ld.global.nc)", 1, 1},
		{"copy4", "copy4", "int4 copy of n/4 elements through __restrict pointers: 16-byte ld.global.nc.v4", 1, 4},
	} {
		k := &Kernel{
			Name: v.name, Entry: v.entry, PTXFile: "copy.ptx",
			Topic:   "vector loads and __restrict (seed: hardware mapping)",
			Summary: v.summary,
			Sizes:   sizes(v.mult),
			Small:   []string{"n=1000", "blocks=2"},
			SIMT:    both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				args := []string{buf("i32", n, "zero"), buf("i32", n, "zero"), i32(n)}
				args[v.inArg] = buf("i32", n, "rand:1")
				return Launch{Grid: dim1(sz["blocks"]), Block: dim1(block), Args: args}
			},
		}
		in, out := v.inArg, 1-v.inArg
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			return map[int]any{out: m.i32(in)}, nil
		}))
	}
	return ks
}
