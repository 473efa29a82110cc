package kernels

// Access patterns of the held-out set (kernels/cu/access.cu): scattered reads and
// writes through a permutation, strided reads, a dynamic shared-memory array of any
// size up to the per-CTA maximum, and __constant__ reads at 1 to 32 addresses per
// warp.
func accessKernels() []*Kernel {
	const block = 256
	topic := "access patterns (held-out set)"
	n := Size{Name: "n", Default: 1 << 20, Help: "elements (a power of two: the permutation masks with n-1)", Min: 32, Pow2: true}
	// hashed is access.cu's permutation of 0..n-1.
	hashed := func(i, n int) int { return int(uint32(i) * 2654435761 & uint32(n-1)) }
	oneD := func(n int) Launch {
		return Launch{Grid: dim1(ceilDiv(n, block)), Block: dim1(block),
			Args: []string{buf("f32", n, "rand:3"), buf("f32", n, "zero"), i32(n)}}
	}
	gather := withCheck(&Kernel{
		Name: "gather", Entry: "gather", PTXFile: "access.ptx", Topic: topic,
		Summary: "out[i] = in[p(i)], p a multiplicative-hash permutation: scattered reads, ordered writes",
		Sizes:   []Size{n}, Small: []string{"n=1024"}, SIMT: both,
		Launch: func(sz map[string]int) Launch { return oneD(sz["n"]) },
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		in := m.f32(0)
		out := make([]float32, len(in))
		for i := range out {
			out[i] = in[hashed(i, len(in))]
		}
		return map[int]any{1: out}, nil
	})
	scatter := withCheck(&Kernel{
		Name: "scatter", Entry: "scatter", PTXFile: "access.ptx", Topic: topic,
		Summary: "out[p(i)] = in[i], p a multiplicative-hash permutation: ordered reads, scattered writes",
		Sizes:   []Size{n}, Small: []string{"n=1024"}, SIMT: both,
		Launch: func(sz map[string]int) Launch { return oneD(sz["n"]) },
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		in := m.f32(0)
		out := make([]float32, len(in))
		for i := range in {
			out[hashed(i, len(in))] = in[i]
		}
		return map[int]any{1: out}, nil
	})
	strided := withCheck(&Kernel{
		Name: "strided", Entry: "strided", PTXFile: "access.ptx", Topic: topic,
		Summary: "out[i] = in[i * stride]: one useful word per stride",
		Sizes: []Size{count("n", 1<<20, 1, "elements written"),
			{Name: "stride", Default: 8, Help: "words between two reads", Min: 1, Max: 1024}},
		Small: []string{"n=1000", "stride=3"}, SIMT: both,
		Launch: func(sz map[string]int) Launch {
			n, s := sz["n"], sz["stride"]
			return Launch{Grid: dim1(ceilDiv(n, block)), Block: dim1(block),
				Args: []string{buf("f32", n*s, "rand:3"), buf("f32", n, "zero"), i32(n), i32(s)}}
		},
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		in, s := m.f32(0), sz["stride"]
		out := make([]float32, sz["n"])
		for i := range out {
			out[i] = in[i*s]
		}
		return map[int]any{1: out}, nil
	})
	sweep := withCheck(&Kernel{
		Name: "shared_sweep", Entry: "shared_sweep", PTXFile: "access.ptx", Topic: topic,
		Summary: "fill a dynamic shared array of `words` words, then read it back reversed: shared memory up to the per-CTA maximum",
		Sizes: []Size{{Name: "words", Default: 8192, Help: "4-byte words of dynamic shared memory per CTA (58112 is Hopper's 227 KB)", Min: 1, Max: 1 << 16},
			{Name: "blocks", Default: 264, Help: "grid size", Min: 1, Max: 1 << 16}},
		Small: []string{"words=300", "blocks=3"}, SIMT: both,
		Launch: func(sz map[string]int) Launch {
			b := sz["blocks"]
			return Launch{Grid: dim1(b), Block: dim1(block), DynShared: uint32(4 * sz["words"]),
				Args: []string{buf("i32", b*block, "zero"), i32(sz["words"])}}
		},
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		words, blocks := sz["words"], sz["blocks"]
		out := make([]int32, blocks*block)
		for b := range blocks {
			for t := range block {
				var acc uint32
				for i := t; i < words; i += block {
					acc += 3*uint32(words-1-i) + uint32(b)
				}
				out[b*block+t] = int32(acc)
			}
		}
		return map[int]any{0: out}, nil
	})
	lanes := withCheck(&Kernel{
		Name: "constant_lanes", Entry: "constant_lanes", PTXFile: "access.ptx", Topic: topic,
		Summary: "sum c_table[(lane % distinct) * 32 + k] over k: __constant__ reads at `distinct` addresses per warp",
		Sizes: []Size{{Name: "distinct", Default: 4, Help: "different constant addresses per warp", Min: 1, Max: 32},
			{Name: "iters", Default: 16, Help: "reads per thread", Min: 1, Max: 1024},
			{Name: "blocks", Default: 264, Help: "grid size", Min: 1, Max: 1 << 16}},
		Small: []string{"distinct=3", "iters=5", "blocks=2"}, SIMT: both,
		Launch: func(sz map[string]int) Launch {
			b := sz["blocks"]
			return Launch{Grid: dim1(b), Block: dim1(block),
				Args:   []string{buf("f32", b*block, "zero"), i32(sz["distinct"]), i32(sz["iters"])},
				Consts: []string{"c_table=f32:1024:iota"}}
		},
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		out := make([]float32, sz["blocks"]*block)
		for i := range out {
			base := (i % block % 32 % sz["distinct"]) * 32
			var acc float32
			for k := range sz["iters"] {
				acc += float32((base + k) & 1023)
			}
			out[i] = acc
		}
		return map[int]any{0: out}, nil
	})
	return []*Kernel{gather, scatter, strided, sweep, lanes}
}
