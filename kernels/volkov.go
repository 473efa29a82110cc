package kernels

import (
	"fmt"

	"github.com/gtrace/gtrace/capture"
)

// Volkov, "Better Performance at Lower Occupancy" (seed
// volkov-better-performance-at-lower-occupancy): arithmetic chains with ILP 1-4,
// memcpy with more bytes in flight per thread, the SDK matrix multiply with 1-8
// outputs per thread; and the tiling seed's matrix multiply with boundary checks
// (memory-types-and-tiling).
func volkovKernels() []*Kernel {
	var ks []*Kernel
	const topic = "ILP against occupancy (seed: Volkov)"

	// Part I: one block (the seed runs one block on one SM and varies its size).
	for ilp := 1; ilp <= 4; ilp++ {
		k := &Kernel{
			Name: fmt.Sprintf("volkov_ilp%d", ilp), Entry: fmt.Sprintf("volkov_ilp%d", ilp), PTXFile: "volkov.ptx",
			Topic:   topic,
			Summary: fmt.Sprintf("%d independent chains of a = a * b + c per thread, 16 fmas each per trip, one block", ilp),
			Sizes: []Size{
				{Name: "threads", Default: 256, Help: "threads in the one block", Min: 32, Max: 1024, Multiple: 32},
				{Name: "iters", Default: 64, Help: "outer trips (16 fmas per chain each)", Min: 1, Max: 1 << 16},
			},
			Small: []string{"threads=64", "iters=3"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["threads"]
				// b = 1 and c = 0.5 keep every value an exact float, so the
				// reference matches whatever order the fmas round in.
				return Launch{Grid: dim1(1), Block: dim1(n),
					Args: []string{buf("f32", n, "zero"), f32(1), f32(0.5), i32(sz["iters"])}}
			},
		}
		chains := ilp
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			n, iters := sz["threads"], sz["iters"]
			out := make([]float32, n)
			for t := range out {
				var sum float32
				for c := range chains {
					a := float32(t + c)
					for range iters * 16 {
						a = a*1 + 0.5
					}
					if c == 0 {
						sum = a
					} else {
						sum += a
					}
				}
				out[t] = sum
			}
			return map[int]any{0: out}, nil
		}))
	}

	// Part II: memcpy, N elements of T per thread; dynamic shared memory only
	// lowers occupancy, as the seed does.
	type cp struct {
		name  string
		per   int // floats per thread
		typ   string
		count int // elements of typ per thread
	}
	for _, c := range []cp{
		{"volkov_memcpy_f1", 1, "float", 1}, {"volkov_memcpy_f2", 2, "float", 2},
		{"volkov_memcpy_f4", 4, "float", 4}, {"volkov_memcpy_f8", 8, "float", 8},
		{"volkov_memcpy_float2x8", 16, "float2", 8}, {"volkov_memcpy_float4x8", 32, "float4", 8},
	} {
		per := c.per
		k := &Kernel{
			Name: c.name, Entry: c.name, PTXFile: "volkov.ptx", Topic: topic,
			Summary: fmt.Sprintf("memcpy, %d %s per thread: all loads, then all stores", c.count, c.typ),
			Sizes: []Size{
				{Name: "n", Default: 1 << 22, Help: "floats to copy (a tail of less than one block's span stays uncopied)", Min: per * 32, Max: maxCount, Multiple: per},
				{Name: "block", Default: 128, Help: "threads per block", Min: 32, Max: 1024, Multiple: 32},
				{Name: "smem", Default: 1, Help: "dynamic shared bytes per block (at least 1): raise it to lower occupancy; replay refuses more than the preset's shared.max_per_cta (227 KB on Hopper)", Min: 1, Max: 256 << 10},
			},
			Small: []string{fmt.Sprintf("n=%d", per*32*5), "block=64"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n, b := sz["n"], sz["block"]
				return Launch{Grid: dim1(max(n/(per*b), 1)), Block: dim1(b), DynShared: uint32(sz["smem"]),
					Args: []string{buf("f32", n, "zero"), buf("f32", n, "rand:1")}}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			n, b := sz["n"], sz["block"]
			src := m.f32(1)
			if n < per*b {
				return nil, fmt.Errorf("n=%d is less than one block's span %d", n, per*b)
			}
			out := make([]float32, n)
			copy(out, src[:n/(per*b)*per*b])
			return map[int]any{0: out}, nil
		}))
	}

	// Part IV: the SDK matrix multiply at BLOCK_SIZE 32 with 1, 2, 4, 8 outputs
	// per thread (blocks of 32 x 32/OUT threads). Square n x n matrices.
	for _, out := range []int{1, 2, 4, 8} {
		name := fmt.Sprintf("matmul_sdk_%d", out)
		k := &Kernel{
			Name: name, Entry: name, PTXFile: "volkov.ptx", Topic: topic,
			Summary: fmt.Sprintf("SDK matrixMul, BLOCK_SIZE 32, %d output(s) per thread, blocks of 32x%d", out, 32/out),
			Sizes:   []Size{{Name: "n", Default: 1024, Help: "matrix side", Min: 32, Max: 4096, Multiple: 32}},
			Small:   []string{"n=64"},
			SIMT:    both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{Grid: dim2(n/32, n/32), Block: dim2(32, 32/out),
					Args: []string{buf("f32", n*n, "zero"), buf("f32", n*n, "rand:1"), buf("f32", n*n, "rand:2"), i32(n), i32(n)}}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			n := sz["n"]
			return map[int]any{0: matmulRef(m.f32(1), m.f32(2), n, 32)}, nil
		}))
	}

	// The tiling seed's kernel: 16 x 16 tiles, any Width, zero padding.
	ks = append(ks, widthMatmul("tiled_matmul_bounds", "volkov.ptx",
		"P = M N with 16x16 shared-memory tiles and boundary checks, for any Width",
		"matrix side (need not be a multiple of 16)"))

	// The divergence seed's if/else, with each path loading its own array: what the
	// timing replay uses to show a stack serialising two memory waits and ITS
	// overlapping them.
	const dblock = 256
	d := &Kernel{
		Name: "divergence_two_loads", Entry: "divergence_two_loads", PTXFile: "volkov.ptx",
		Topic:   "divergence (seed: hardware mapping; CRS stack vs ITS)",
		Summary: "if (threadIdx.x & 0x4) v = a[i]*3+1; else v = b[i]-7; out[i] = v ^ 0x55: each path waits on its own load",
		Sizes:   []Size{{Name: "blocks", Default: 64, Help: "blocks of 256 threads", Min: 1, Max: 1 << 16}},
		Small:   []string{"blocks=2"},
		SIMT:    both,
		Launch: func(sz map[string]int) Launch {
			n := sz["blocks"] * dblock
			return Launch{Grid: dim1(sz["blocks"]), Block: dim1(dblock),
				Args: []string{buf("i32", n, "zero"), buf("i32", n, "rand:1"), buf("i32", n, "rand:2")}}
		},
	}
	ks = append(ks, withCheck(d, func(sz map[string]int, m mem) (map[int]any, error) {
		a, b := m.i32(1), m.i32(2)
		out := make([]int32, len(a))
		for i := range out {
			v := b[i] - 7
			if i%dblock&4 != 0 {
				v = a[i]*3 + 1
			}
			out[i] = v ^ 0x55
		}
		return map[int]any{0: out}, nil
	}))
	return ks
}

// widthMatmul is the tiling seed's P = M N (args M, N, P, Width) for Width x Width
// matrices of any Width, one output per thread in blocks of 16 x 16, untiled or tiled.
func widthMatmul(name, ptxFile, summary, widthHelp string) *Kernel {
	return withCheck(&Kernel{
		Name: name, Entry: name, PTXFile: ptxFile,
		Topic:   "tiling (seed: memory types and tiling)",
		Summary: summary,
		Sizes:   []Size{{Name: "width", Default: 1000, Help: widthHelp, Min: 1, Max: 4096}},
		Small:   []string{"width=37"},
		SIMT:    both,
		Launch: func(sz map[string]int) Launch {
			w := sz["width"]
			return Launch{Grid: dim2(ceilDiv(w, 16), ceilDiv(w, 16)), Block: dim2(16, 16),
				Args: []string{buf("f32", w*w, "rand:1"), buf("f32", w*w, "rand:2"), buf("f32", w*w, "zero"), i32(w)}}
		},
	}, func(sz map[string]int, m mem) (map[int]any, error) {
		w := sz["width"]
		return map[int]any{2: matmulRef(m.f32(0), m.f32(1), w, 16)}, nil
	})
}

// matmulRef is C = A B for n x n row-major matrices, accumulating each output from
// k = 0 in one fused multiply-add per step, as the kernels do; tile only documents
// that the kernels' tiles keep that order (padding adds fma(0, 0, s) = s).
func matmulRef(a, b []float32, n, tile int) []float32 {
	_ = tile
	c := make([]float32, n*n)
	for i := range n {
		for j := range n {
			var s float32
			for k := range n {
				s = capture.FMA32(a[i*n+k], b[k*n+j], s)
			}
			c[i*n+j] = s
		}
	}
	return c
}
