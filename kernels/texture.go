package kernels

// Texture versus global memory, from the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces): row after row, column after column
// and random sampling in an 8x8 neighbourhood, each through a texture object, a
// plain global pointer and a const __restrict pointer. The seed's uchar4 texels are
// one float each here (same 4 bytes, same addresses); the sums add in the kernels'
// order.
func textureKernels() []*Kernel {
	type access struct {
		suffix, entrySuffix, how string
		data                     func(w, h int) string // the image argument
	}
	accesses := []access{
		{"_global", "", "plain global loads", func(w, h int) string { return buf("f32", w*h, "rand:1") }},
		{"_restrict", "Restrict", "const __restrict global loads (ld.global.nc)", func(w, h int) string { return buf("f32", w*h, "rand:1") }},
		{"_tex", "Tex", "tex2D through a texture object", func(w, h int) string { return tex2d("f32", w, h, "rand:1") }},
	}
	var ks []*Kernel
	for _, walk := range []struct {
		name, entry, summary string
		rowMajor             bool
	}{
		{"tex_row", "deviceLoadRowAfterRow", "row after row: consecutive threads read consecutive texels of a row", true},
		{"tex_column", "deviceLoadColumnAfterColumn", "column after column: consecutive threads read consecutive texels of a column", false},
	} {
		for _, a := range accesses {
			k := &Kernel{
				Name: walk.name + a.suffix, Entry: walk.entry + a.entrySuffix, PTXFile: "texture.ptx",
				Topic:   "texture vs global (seed: hardware mapping)",
				Summary: walk.summary + "; grid-stride, each thread sums its texels; " + a.how,
				Sizes: []Size{
					{Name: "width", Default: 1024, Help: "image width", Min: 1, Max: 1 << 14},
					{Name: "height", Default: 1024, Help: "image height", Min: 1, Max: 1 << 14},
					{Name: "blocks", Default: 64, Help: "grid size", Min: 1, Max: 1 << 16},
					{Name: "threads", Default: 256, Help: "block size", Min: 1, Max: 1024},
				},
				Small: []string{"width=40", "height=24", "blocks=2", "threads=64"},
				SIMT:  both,
				Launch: func(sz map[string]int) Launch {
					w, h, b, t := sz["width"], sz["height"], sz["blocks"], sz["threads"]
					return Launch{
						Grid: dim1(b), Block: dim1(t),
						Args: []string{a.data(w, h), i32(w), i32(h), buf("f32", b*t, "zero")},
					}
				},
			}
			rowMajor := walk.rowMajor
			ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
				w, h, threads := sz["width"], sz["height"], sz["blocks"]*sz["threads"]
				img := m.f32(0)
				out := make([]float32, threads)
				for gid := range out {
					var sum float32
					for tid := gid; tid < w*h; tid += threads {
						row, col := tid/w, tid%w
						if !rowMajor {
							row, col = tid%h, tid/h
						}
						sum += img[row*w+col]
					}
					out[gid] = sum
				}
				return map[int]any{3: out}, nil
			}))
		}
	}

	// deviceReadRandom<Area = 8> on 32x8 blocks: each thread sums `samples`
	// pseudo-random texels of its 8x8 neighbourhood.
	const area, bx, by = 8, 32, 8
	for _, a := range accesses {
		k := &Kernel{
			Name: "tex_random" + a.suffix, Entry: "deviceReadRandom" + a.entrySuffix, PTXFile: "texture.ptx",
			Topic:   "texture vs global (seed: hardware mapping)",
			Summary: "random sampling in an 8x8 neighbourhood, one thread per pixel; " + a.how,
			Sizes: []Size{
				{Name: "width", Default: 512, Help: "image width", Min: bx, Max: 1 << 14, Multiple: bx},
				{Name: "height", Default: 512, Help: "image height", Min: by, Max: 1 << 14, Multiple: by},
				{Name: "samples", Default: 16, Help: "texels each thread adds", Min: 1, Max: 1 << 16},
			},
			Small: []string{"width=64", "height=16", "samples=5"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				w, h := sz["width"], sz["height"]
				return Launch{
					Grid: dim2(w/bx, h/by), Block: dim2(bx, by),
					// (data, pitch, width, height, out, samples); pitch = width.
					Args: []string{a.data(w, h), i32(w), i32(w), i32(h), buf("f32", w*h, "zero"), i32(sz["samples"])},
				}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			w, h, samples := sz["width"], sz["height"], sz["samples"]
			img := m.f32(0)
			out := make([]float32, w*h)
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					tx, ty := uint32(x%bx), uint32(y%by)
					xin := x - x%bx + area*int(tx/area)
					yin := y - y%by + area*int(ty/area)
					xseed := tx*9182 + ty*91882 + tx*ty*811 + 72923181
					yseed := tx*981 + ty*124523 + tx*ty*327 + 98721121
					var sum float32
					for s := 0; s < samples; s++ {
						dx, dy := int(xseed%area), int(yseed%area)
						xseed *= 1587
						yseed *= 6971
						sum += img[xin+dx+(yin+dy)*w]
					}
					out[x+y*w] = sum
				}
			}
			return map[int]any{4: out}, nil
		}))
	}
	return ks
}
