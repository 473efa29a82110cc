package kernels

import (
	"fmt"

	"github.com/gtrace/gtrace/capture"
)

// The optimisation-techniques and tiling seeds' kernels that the other topics lack
// (kernels/cu/lessons.cu): scatter versus gather, thread coarsening and a grid-stride
// loop, and seed 004's untiled matrix multiply beside tiled_matmul_bounds.
func lessonKernels() []*Kernel {
	const block = 256
	var ks []*Kernel

	// Scatter versus gather: one 7-point integer convolution written both ways.
	conv := func(name, summary string) *Kernel {
		return withCheck(&Kernel{
			Name: name, Entry: name, PTXFile: "lessons.ptx",
			Topic: "scatter versus gather (seed: optimization techniques)", Summary: summary,
			Sizes: []Size{count("n", 1<<22, 1, "elements of in and out")},
			Small: []string{"n=1000"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{Grid: dim1(ceilDiv(n, block)), Block: dim1(block),
					Args: []string{buf("i32", n, "rand:5"), buf("i32", n, "zero"), i32(n)}}
			},
		}, func(sz map[string]int, m mem) (map[int]any, error) {
			return map[int]any{1: conv1dRef(m.i32(0))}, nil
		})
	}
	ks = append(ks,
		conv("conv1d_scatter", "7-point convolution parallel over the input: 7 atomicAdds (RED) per element into out"),
		conv("conv1d_gather", "7-point convolution parallel over the output: 7 loads and one store per element, no atomics"))

	// Thread coarsening: y = a x + y, C elements per thread, the grid C times smaller.
	const a = float32(2.5)
	saxpyRef := func(sz map[string]int, m mem) (map[int]any, error) {
		x, y := m.f32(1), m.f32(2)
		out := make([]float32, len(y))
		for i := range out {
			out[i] = capture.FMA32(a, x[i], y[i])
		}
		return map[int]any{2: out}, nil
	}
	saxpyArgs := func(n int) []string {
		return []string{f32(a), buf("f32", n, "rand:1"), buf("f32", n, "rand:2"), i32(n)}
	}
	topic := "thread coarsening and grid-stride loops (seed: optimization techniques)"
	for _, c := range []int{1, 2, 4, 8} {
		name := fmt.Sprintf("saxpy_c%d", c)
		ks = append(ks, withCheck(&Kernel{
			Name: name, Entry: name, PTXFile: "lessons.ptx", Topic: topic,
			Summary: fmt.Sprintf("y = a x + y, %d element(s) per thread (coarsening factor %d), grid n/%d", c, c, block*c),
			Sizes:   []Size{count("n", 1<<22, 1, "elements")},
			Small:   []string{"n=5000"},
			SIMT:    both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{Grid: dim1(ceilDiv(n, block*c)), Block: dim1(block), Args: saxpyArgs(n)}
			},
		}, saxpyRef))
	}
	ks = append(ks, withCheck(&Kernel{
		Name: "saxpy_gridstride", Entry: "saxpy_gridstride", PTXFile: "lessons.ptx", Topic: topic,
		Summary: "y = a x + y in a grid-stride loop: the seed's saxpy<<<32*numSMs, 256>>>, any grid covers any n",
		Sizes: []Size{count("n", 1<<22, 1, "elements"),
			{Name: "blocks", Default: 32 * 132, Help: "grid size: the seed's 32 x the SM count (132 on an H100/H200 SXM)", Min: 1, Max: 1 << 20}},
		Small: []string{"n=5000", "blocks=3"},
		SIMT:  both,
		Launch: func(sz map[string]int) Launch {
			return Launch{Grid: dim1(sz["blocks"]), Block: dim1(block), Args: saxpyArgs(sz["n"])}
		},
	}, saxpyRef))

	// Seed 004's untiled matrix multiply, 0.25 FLOP/B of global loads.
	ks = append(ks, widthMatmul("matmul_naive", "lessons.ptx",
		"P = M N with no tiling: each thread reads a row of M and a column of N from global memory", "matrix side"))
	return ks
}

// conv1dRef is lessons.cu's convolution: out[j] = sum of w[k] in[j+k-3] over the
// in-range inputs, w = 1 2 3 4 3 2 1, wrapping as int32 does.
func conv1dRef(in []int32) []int32 {
	return maskConvRef(in, []int32{1, 2, 3, 4, 3, 2, 1})
}
