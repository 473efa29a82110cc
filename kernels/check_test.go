package kernels

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Each Check is proven on a tiny launch: it must accept a final state computed here
// by hand, by running the CUDA code thread by thread as written in kernels/cu, and
// it must reject that state with one element changed, in a written buffer and in a
// buffer the kernel only reads.
//
// The test data are small integers held in floats, so every sum is exact in any
// order: a reference that added in the wrong order could not hide behind rounding,
// and the hand-made reductions can simply add up a block.

func tinySizes(t *testing.T, k *Kernel) map[string]int {
	sz, err := ParseSizes(k, k.Small)
	if err != nil {
		t.Fatalf("%s: Small %v: %v", k.Name, k.Small, err)
	}
	return sz
}

// testInit makes the initial contents of every memory argument: zero and iota as
// capture makes them, and in place of rand and const small integers (within ±20),
// different for every argument.
func testInit(t *testing.T, l Launch) [][]byte {
	lay, err := layoutOf(l)
	if err != nil {
		t.Fatal(err)
	}
	init := make([][]byte, len(lay))
	for i, a := range lay {
		if !a.memory {
			continue
		}
		f := strings.Split(a.spec, ":")
		kind := "zero"
		if first := map[bool]int{false: 3, true: 4}[a.tex]; len(f) > first {
			kind = f[first] // zero, iota, rand or const
		}
		b := make([]byte, a.count*a.typ.size())
		for e := 0; e < a.count; e++ {
			var v int
			switch kind {
			case "zero":
				continue
			case "iota":
				v = e
			default:
				v = (e*7919+i*104729)%41 - 20
			}
			switch a.typ {
			case "f32":
				binary.LittleEndian.PutUint32(b[4*e:], math.Float32bits(float32(v)))
			case "f64":
				binary.LittleEndian.PutUint64(b[8*e:], math.Float64bits(float64(v)))
			case "i32":
				binary.LittleEndian.PutUint32(b[4*e:], uint32(int32(v)))
			default:
				t.Fatalf("argument %d %q: no test data for type %s", i, a.spec, a.typ)
			}
		}
		init[i] = b
	}
	return init
}

// handMade computes the final state from the initial one, the way the CUDA code
// does it, one thread at a time. args holds the initial contents, decoded, and is
// updated in place: []float32, []float64 or []int32 for memory, the value for a
// scalar.
type handMade func(l Launch, sz map[string]int, args []any)

func forThreads(l Launch, body func(bx, by, tx, ty int)) {
	for by := 0; by < int(l.Grid.Y); by++ {
		for bx := 0; bx < int(l.Grid.X); bx++ {
			for ty := 0; ty < int(l.Block.Y); ty++ {
				for tx := 0; tx < int(l.Block.X); tx++ {
					body(bx, by, tx, ty)
				}
			}
		}
	}
}

func forBlocks(l Launch, body func(b int)) {
	for b := 0; b < int(l.Grid.X); b++ {
		body(b)
	}
}

func granularity(id func(bo, wo, tx int32) int32) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		in, out, elements := a[0].([]int32), a[1].([]int32), int32(a[2].(int))
		forThreads(l, func(bx, _, tx, _ int) {
			bo, wo := int32(bx*int(l.Block.X)), 32*int32(tx/32)
			i := id(bo, wo, int32(tx)) % elements
			out[i] = in[i]
		})
	}
}

func pattern(index func(i, lane, n int) int) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		in, out, n := a[0].([]float32), a[1].([]float32), a[2].(int)
		forThreads(l, func(bx, _, tx, _ int) {
			if i := bx*int(l.Block.X) + tx; i < n {
				out[i] = in[index(i, tx%32, n)]
			}
		})
	}
}

func gridStrideCopy(in, out int, vec int) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		src, dst, n := a[in].([]int32), a[out].([]int32), a[2].(int)
		stride := int(l.Block.X * l.Grid.X)
		forThreads(l, func(bx, _, tx, _ int) {
			for i := bx*int(l.Block.X) + tx; i < n/vec; i += stride {
				copy(dst[vec*i:vec*i+vec], src[vec*i:vec*i+vec])
			}
		})
	}
}

func transposeTiled(l Launch, sz map[string]int, a []any) {
	in, out, n := a[0].([]float32), a[1].([]float32), a[2].(int)
	for by := 0; by < int(l.Grid.Y); by++ {
		for bx := 0; bx < int(l.Grid.X); bx++ {
			var mat [32][32]float32
			for ty := 0; ty < 32; ty++ {
				for tx := 0; tx < 32; tx++ {
					mat[ty][tx] = in[(32*by+ty)*n+32*bx+tx]
				}
			}
			for ty := 0; ty < 32; ty++ {
				for tx := 0; tx < 32; tx++ {
					out[(32*bx+ty)*n+32*by+tx] = mat[tx][ty]
				}
			}
		}
	}
}

// blockSums adds up each block's share of the input: exact for integer data.
func blockSums(l Launch, sz map[string]int, a []any) {
	in, out := a[0].([]float32), a[1].([]float32)
	per := len(in) / len(out)
	for b := range out {
		var s float32
		for _, v := range in[b*per : (b+1)*per] {
			s += v
		}
		out[b] = s
	}
}

func tile64(f func(tile []float32, tidx int) float32) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		in, out := a[0].([]float32), a[1].([]float32)
		forBlocks(l, func(b int) {
			tile := in[64*b : 64*b+64]
			for tidx := 0; tidx < 32; tidx++ {
				out[32*b+tidx] = f(tile, tidx)
			}
		})
	}
}

func bankSums(stride int) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		in, out := a[0].([]float32), a[1].([]float32)
		forBlocks(l, func(b int) {
			mydata := make([]float32, 32*stride)
			for tid := 0; tid < 32; tid++ {
				for i := 0; i < 32; i++ {
					mydata[tid+i*stride] = in[b*1024+i*32+tid]
				}
			}
			for tid := 0; tid < 32; tid++ {
				var col, row float32
				for i := 0; i < 32; i++ {
					col += mydata[tid+i*stride]
					row += mydata[tid*stride+i]
				}
				out[b*64+tid], out[b*64+32+tid] = col, row
			}
		})
	}
}

func texWalk(rowMajor bool) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		data, width, height, out := a[0].([]float32), a[1].(int), a[2].(int), a[3].([]float32)
		forThreads(l, func(bx, _, tx, _ int) {
			var sum float32
			for tid := bx*int(l.Block.X) + tx; tid < height*width; tid += int(l.Block.X * l.Grid.X) {
				rowid, colid := tid/width, tid%width
				if !rowMajor {
					rowid, colid = tid%height, tid/height
				}
				sum += data[rowid*width+colid]
			}
			out[bx*int(l.Block.X)+tx] = sum
		})
	}
}

func texRandom(l Launch, sz map[string]int, a []any) {
	const Area = 8
	data, pitch, width, out, samples := a[0].([]float32), a[1].(int), a[2].(int), a[4].([]float32), a[5].(int)
	bdx, bdy := int(l.Block.X), int(l.Block.Y)
	forThreads(l, func(bx, by, tx, ty int) {
		xin := bx*bdx + Area*(tx/Area)
		yin := by*bdy + Area*(ty/Area)
		ux, uy := uint32(tx), uint32(ty)
		xseed := ux*9182 + uy*91882 + ux*uy*811 + 72923181
		yseed := ux*981 + uy*124523 + ux*uy*327 + 98721121
		var sum float32
		for s := 0; s < samples; s++ {
			x, y := int(xseed%Area), int(yseed%Area)
			xseed *= 1587
			yseed *= 6971
			sum += data[xin+x+(yin+y)*pitch]
		}
		out[bx*bdx+tx+(by*bdy+ty)*width] = sum
	})
}

// particle updates one particle's six fields, given as pointers.
func particle(x, y, z, vx, vy, vz *float32) {
	*vy -= 9.8 * 0.5
	*x += *vx * 0.5
	*y += *vy * 0.5
	*z += *vz * 0.5
}

func divergence(f func(v int32, tidx int) int32) handMade {
	return func(l Launch, sz map[string]int, a []any) {
		out := a[0].([]int32)
		forThreads(l, func(bx, _, tx, _ int) {
			i := bx*int(l.Block.X) + tx
			out[i] = f(out[i], tx)
		})
	}
}

var handMadeRefs = map[string]handMade{
	"add_vectors": func(l Launch, sz map[string]int, a []any) {
		c, x, y, n := a[0].([]float32), a[1].([]float32), a[2].([]float32), a[3].(int)
		for i := 0; i < n; i++ {
			c[i] = x[i] + y[i]
		}
	},
	"test_coalesced": granularity(func(bo, wo, tx int32) int32 { return bo + wo + tx%32 }),
	"test_mixed":     granularity(func(bo, wo, tx int32) int32 { return bo + wo + (tx*7)%32 }),
	"test_offset_2":  granularity(func(bo, wo, tx int32) int32 { return (bo + wo + tx%32) * 2 }),
	"test_offset_4":  granularity(func(bo, wo, tx int32) int32 { return (bo + wo + tx%32) * 4 }),
	"test_offset_8":  granularity(func(bo, wo, tx int32) int32 { return (bo + wo + tx%32) * 8 }),
	"test_offset_32": granularity(func(bo, wo, tx int32) int32 { return (bo + wo + tx%32) * 32 }),
	"test_scattered": granularity(func(bo, wo, tx int32) int32 { return (bo + wo + tx%32) * 121 }),

	"coalesce_sequential": pattern(func(i, lane, n int) int { return i }),
	"coalesce_permuted":   pattern(func(i, lane, n int) int { return i - lane + (31 - lane) }),
	"coalesce_misaligned": pattern(func(i, lane, n int) int { return i + 1 }),
	"coalesce_broadcast":  pattern(func(i, lane, n int) int { return i / 32 }),
	"coalesce_random":     pattern(func(i, lane, n int) int { return int(uint32(i) * 2654435761 % uint32(n)) }),

	"device_copy_scalar": gridStrideCopy(0, 1, 1),
	"copy":               gridStrideCopy(1, 0, 1),
	"copy4":              gridStrideCopy(1, 0, 4),

	"transpose_v1": func(l Launch, sz map[string]int, a []any) {
		A, At, sizeX, sizeY := a[0].([]float32), a[1].([]float32), a[2].(int), a[3].(int)
		forThreads(l, func(bx, by, tx, ty int) {
			row := int(l.Block.Y)*by + ty
			col := int(l.Block.X)*bx + tx
			At[row*sizeX+col] = A[col*sizeY+row]
		})
	},
	"transpose_v2": transposeTiled,
	"transpose_v3": transposeTiled,
	"transpose_v4": transposeTiled,

	"reduce_v1": blockSums, "reduce_v2": blockSums, "reduce_v3": blockSums,
	"reduce_v4_1": blockSums, "reduce_v4_2": blockSums, "reduce_v5_1": blockSums, "reduce_v5_2": blockSums,

	"bank_linear":        tile64(func(tile []float32, tidx int) float32 { return tile[tidx] - 3 }),
	"bank_same_word":     tile64(func(tile []float32, tidx int) float32 { return tile[tidx-tidx%2] }),
	"bank_two_way":       tile64(func(tile []float32, tidx int) float32 { return tile[tidx+tidx%2*31] }),
	"bank_sums_padded":   bankSums(33),
	"bank_sums_unpadded": bankSums(32),
	"bank_double": func(l Launch, sz map[string]int, a []any) {
		in, out := a[0].([]float64), a[1].([]float64)
		forBlocks(l, func(b int) {
			var dtile [32]float64
			copy(dtile[:], in[32*b:])
			for tidx := 0; tidx < 32; tidx++ {
				out[32*b+tidx] = dtile[31-tidx] * 2
			}
		})
	},

	"constant_access": func(l Launch, sz map[string]int, a []any) {
		d, dc, out := a[0].([]float32), a[1].([]float32), a[2].([]float32)
		var c [128]float32 // c_array=f32:128:iota
		for i := range c {
			c[i] = float32(i)
		}
		forThreads(l, func(bx, _, tx, _ int) {
			out[bx*int(l.Block.X)+tx] = c[0] + c[bx] + c[tx] + d[bx] + d[tx] + dc[bx] + dc[tx]
		})
	},

	"conv1d_mask_global": func(l Launch, sz map[string]int, a []any) {
		gatherConv(l, a[0].([]int32), a[1].([]int32), a[2].([]int32), a[3].(int))
	},
	"conv1d_mask_const": func(l Launch, sz map[string]int, a []any) {
		gatherConv(l, a[0].([]int32), []int32{0, 1, 2, 3, 4, 5, 6}, a[1].([]int32), a[2].(int)) // c_mask=i32:7:iota
	},

	"tex_row_global": texWalk(true), "tex_row_restrict": texWalk(true), "tex_row_tex": texWalk(true),
	"tex_column_global": texWalk(false), "tex_column_restrict": texWalk(false), "tex_column_tex": texWalk(false),
	"tex_random_global": texRandom, "tex_random_restrict": texRandom, "tex_random_tex": texRandom,

	"particles_aos": func(l Launch, sz map[string]int, a []any) {
		p := a[0].([]float32)
		for i := 0; i < a[1].(int); i++ {
			q := p[6*i : 6*i+6]
			particle(&q[0], &q[1], &q[2], &q[3], &q[4], &q[5])
		}
	},
	"particles_soa": func(l Launch, sz map[string]int, a []any) {
		x, y, z, vx, vy, vz := a[0].([]float32), a[1].([]float32), a[2].([]float32), a[3].([]float32), a[4].([]float32), a[5].([]float32)
		for i := 0; i < a[6].(int); i++ {
			particle(&x[i], &y[i], &z[i], &vx[i], &vy[i], &vz[i])
		}
	},
	"particles_asta": func(l Launch, sz map[string]int, a []any) {
		p := a[0].([]float32)
		for i := 0; i < a[1].(int); i++ {
			t := p[i/32*192 : i/32*192+192] // one tile: x[32] y[32] z[32] vx[32] vy[32] vz[32]
			k := i % 32
			particle(&t[k], &t[32+k], &t[64+k], &t[96+k], &t[128+k], &t[160+k])
		}
	},

	"divergence_if_else": divergence(func(v int32, tidx int) int32 {
		if tidx&0x4 != 0 {
			v = v*3 + 1 // A
		} else {
			v -= 7 // B
		}
		return v ^ 0x55 // C
	}),
	"divergence_nested": func(l Launch, sz map[string]int, a []any) {
		out, N := a[0].([]int32), a[1].(int)
		forThreads(l, func(bx, _, tx, _ int) {
			if tid := bx*int(l.Block.X) + tx; tid < N {
				if tid%2 == 0 {
					out[tid] += 2
				} else {
					out[tid] -= 8
				}
			}
		})
	},
	"divergence_half_warp": divergence(func(v int32, tidx int) int32 {
		if tidx > 15 {
			v = v*3 + 1
		}
		return v ^ 0x55
	}),
	"divergence_warp_aligned": divergence(func(v int32, tidx int) int32 {
		if tidx > 32-1 {
			v = v*3 + 1
		}
		return v ^ 0x55
	}),
	"spinlock": func(l Launch, sz map[string]int, a []any) {
		counter := a[1].([]int32)
		forThreads(l, func(_, _, _, _ int) { counter[0]++ })
	},

	"hist_global": func(l Launch, sz map[string]int, a []any) {
		in, hist, n, bins := a[0].([]int32), a[1].([]int32), a[2].(int), a[3].(int)
		forThreads(l, func(bx, _, tx, _ int) {
			if i := bx*int(l.Block.X) + tx; i < n {
				hist[uint32(in[i])&uint32(bins-1)]++
			}
		})
	},
	"hist_global_ret": func(l Launch, sz map[string]int, a []any) {
		in, hist, ticket, n, bins := a[0].([]int32), a[1].([]int32), a[2].([]int32), a[3].(int), a[4].(int)
		forThreads(l, func(bx, _, tx, _ int) {
			if i := bx*int(l.Block.X) + tx; i < n {
				b := uint32(in[i]) & uint32(bins-1)
				ticket[i] = hist[b]
				hist[b]++
			}
		})
	},
	"hist_shared": func(l Launch, sz map[string]int, a []any) {
		in, hist, n, bins := a[0].([]int32), a[1].([]int32), a[2].(int), a[3].(int)
		stride := int(l.Block.X * l.Grid.X)
		forBlocks(l, func(b int) {
			bin := make([]int32, bins)
			for t := 0; t < int(l.Block.X); t++ {
				for i := b*int(l.Block.X) + t; i < n; i += stride {
					bin[uint32(in[i])&uint32(bins-1)]++
				}
			}
			for j, c := range bin {
				hist[j] += c
			}
		})
	},
	"hist_warp": func(l Launch, sz map[string]int, a []any) {
		in, hist, n, bins := a[0].([]int32), a[1].([]int32), a[2].(int), a[3].(int)
		stride := int(l.Block.X * l.Grid.X)
		forBlocks(l, func(b int) {
			copies := make([][]int32, l.Block.X/32)
			for w := range copies {
				copies[w] = make([]int32, bins)
				for t := 32 * w; t < 32*(w+1); t++ {
					for i := b*int(l.Block.X) + t; i < n; i += stride {
						copies[w][uint32(in[i])&uint32(bins-1)]++
					}
				}
			}
			for j := range bins {
				for _, c := range copies {
					hist[j] += c[j]
				}
			}
		})
	},
	"gather": func(l Launch, sz map[string]int, a []any) {
		in, out, n := a[0].([]float32), a[1].([]float32), a[2].(int)
		for i := 0; i < n; i++ {
			out[i] = in[int((uint32(i)*2654435761)%uint32(n))]
		}
	},
	"scatter": func(l Launch, sz map[string]int, a []any) {
		in, out, n := a[0].([]float32), a[1].([]float32), a[2].(int)
		for i := 0; i < n; i++ {
			out[int((uint32(i)*2654435761)%uint32(n))] = in[i]
		}
	},
	"strided": func(l Launch, sz map[string]int, a []any) {
		in, out, n, stride := a[0].([]float32), a[1].([]float32), a[2].(int), a[3].(int)
		for i := 0; i < n; i++ {
			out[i] = in[stride*i]
		}
	},
	"shared_sweep": func(l Launch, sz map[string]int, a []any) {
		out, words := a[0].([]int32), a[1].(int)
		forBlocks(l, func(b int) {
			sweep := make([]uint32, words)
			for i := range sweep {
				sweep[i] = 3*uint32(i) + uint32(b)
			}
			for t := 0; t < int(l.Block.X); t++ {
				var acc uint32
				for i := t; i < words; i += int(l.Block.X) {
					acc += sweep[words-1-i]
				}
				out[b*int(l.Block.X)+t] = int32(acc)
			}
		})
	},
	"constant_lanes": func(l Launch, sz map[string]int, a []any) {
		out, distinct, iters := a[0].([]float32), a[1].(int), a[2].(int)
		var c [1024]float32 // c_table=f32:1024:iota
		for i := range c {
			c[i] = float32(i)
		}
		forThreads(l, func(bx, _, tx, _ int) {
			base := tx % 32 % distinct * 32
			var acc float32
			for k := 0; k < iters; k++ {
				acc += c[(base+k)&1023]
			}
			out[bx*int(l.Block.X)+tx] = acc
		})
	},
}

// decode turns the initial contents into the values handMade works on.
func decode(t *testing.T, l Launch, init [][]byte) []any {
	lay, err := layoutOf(l)
	if err != nil {
		t.Fatal(err)
	}
	args := make([]any, len(lay))
	for i, a := range lay {
		switch {
		case a.memory && a.typ == "f32":
			args[i] = f32s(init[i])
		case a.memory && a.typ == "f64":
			args[i] = f64s(init[i])
		case a.memory && a.typ == "i32":
			args[i] = i32s(init[i])
		case a.memory:
			t.Fatalf("argument %d: type %s", i, a.typ)
		case a.typ == "i32":
			v, err := strconv.Atoi(strings.TrimPrefix(a.spec, "i32:"))
			if err != nil {
				t.Fatal(err)
			}
			args[i] = v
		case a.typ == "f32":
			args[i] = strings.TrimPrefix(a.spec, "f32:")
		default:
			t.Fatalf("argument %d: scalar %q", i, a.spec)
		}
	}
	return args
}

func encode(v any) []byte {
	switch v := v.(type) {
	case []float32:
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	case []float64:
		b := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	case []int32:
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return b
	}
	return nil
}

// corrupt changes element e of a buffer of the given element size so that it
// compares unequal (adds one to its low byte for integers, changes floats by
// one).
func corrupt(b []byte, typ elemType, e int) {
	switch typ {
	case "f32":
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*e:]))
		binary.LittleEndian.PutUint32(b[4*e:], math.Float32bits(v+1))
	case "f64":
		v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*e:]))
		binary.LittleEndian.PutUint64(b[8*e:], math.Float64bits(v+1))
	default:
		b[e*typ.size()]++
	}
}

func TestCheckAcceptsHandMadeAndRejectsCorrupt(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			ref, ok := handMadeRefs[k.Name]
			if !ok {
				t.Fatalf("no hand-made reference: add one to handMadeRefs")
			}
			sz := tinySizes(t, k)
			l := k.Launch(sz)
			init := testInit(t, l)
			args := decode(t, l, testInit(t, l))
			ref(l, sz, args)
			lay, _ := layoutOf(l)
			final := make([][]byte, len(init))
			written, readOnly := -1, -1
			for i, a := range lay {
				if !a.memory {
					continue
				}
				final[i] = encode(args[i])
				if string(final[i]) != string(init[i]) {
					if written < 0 {
						written = i
					}
				} else if readOnly < 0 {
					readOnly = i
				}
			}
			if written < 0 {
				t.Fatal("the hand-made run wrote nothing: the test data cannot tell right from wrong")
			}
			if err := k.Check(sz, init, final); err != nil {
				t.Fatalf("rejects the hand-made result: %v", err)
			}

			// One wrong element in the middle of a written buffer.
			bad := cloneAll(final)
			e := lay[written].count / 2
			corrupt(bad[written], lay[written].typ, e)
			if err := k.Check(sz, init, bad); err == nil {
				t.Errorf("accepts argument %d with element %d changed", written, e)
			} else {
				t.Logf("corrupt output: %v", err)
			}
			// One stray write to a buffer the kernel only reads.
			if readOnly >= 0 {
				bad := cloneAll(final)
				corrupt(bad[readOnly], lay[readOnly].typ, 0)
				if err := k.Check(sz, init, bad); err == nil {
					t.Errorf("accepts a change to read-only argument %d", readOnly)
				}
			}
			// A truncated buffer is an error, not a panic.
			short := cloneAll(final)
			short[written] = short[written][:len(short[written])-1]
			if err := k.Check(sz, init, short); err == nil {
				t.Errorf("accepts a truncated argument %d", written)
			}
		})
	}
}

func cloneAll(b [][]byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		if b[i] != nil {
			out[i] = append([]byte(nil), b[i]...)
		}
	}
	return out
}
