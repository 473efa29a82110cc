package kernels

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
)

// Hand-made references for volkov.go's kernels, written thread by thread from the
// .cu source, for TestCheckAcceptsHandMadeAndRejectsCorrupt.
func init() {
	ilp := func(chains int) handMade {
		return func(l Launch, sz map[string]int, a []any) {
			out := a[0].([]float32)
			b, _ := strconv.ParseFloat(a[1].(string), 32)
			c, _ := strconv.ParseFloat(a[2].(string), 32)
			iters := a[3].(int)
			forThreads(l, func(_, _, tx, _ int) {
				v := [4]float32{float32(tx), float32(tx + 1), float32(tx + 2), float32(tx + 3)}
				for range iters {
					for range 16 {
						for j := range chains {
							v[j] = capture.FMA32(v[j], float32(b), float32(c))
						}
					}
				}
				s := v[0]
				for j := 1; j < chains; j++ {
					s += v[j]
				}
				out[tx] = s
			})
		}
	}
	memcpy := func(per int) handMade {
		return func(l Launch, sz map[string]int, a []any) {
			dst, src := a[0].([]float32), a[1].([]float32)
			// Thread tx of block bx copies floats per*bx*blockDim + i*blockDim*vec
			// + tx*vec + (0..vec-1), for i < per/vec elements of vec floats.
			vec := max(per/8, 1)
			n := per / vec
			forThreads(l, func(bx, _, tx, _ int) {
				bd := int(l.Block.X)
				for i := range n {
					e := n*bx*bd + i*bd + tx
					for v := range vec {
						dst[e*vec+v] = src[e*vec+v]
					}
				}
			})
		}
	}
	matmul := func(out int) handMade {
		return func(l Launch, sz map[string]int, a []any) {
			C, A, B, wA, wB := a[0].([]float32), a[1].([]float32), a[2].([]float32), a[3].(int), a[4].(int)
			forThreads(l, func(bx, by, tx, ty int) {
				for i := range out {
					row, col := by*32+ty+i*(32/out), bx*32+tx
					var s float32
					for k := range wA {
						s = capture.FMA32(A[row*wA+k], B[k*wB+col], s)
					}
					C[row*wB+col] = s
				}
			})
		}
	}
	handMadeRefs["volkov_ilp1"] = ilp(1)
	handMadeRefs["volkov_ilp2"] = ilp(2)
	handMadeRefs["volkov_ilp3"] = ilp(3)
	handMadeRefs["volkov_ilp4"] = ilp(4)
	handMadeRefs["volkov_memcpy_f1"] = memcpy(1)
	handMadeRefs["volkov_memcpy_f2"] = memcpy(2)
	handMadeRefs["volkov_memcpy_f4"] = memcpy(4)
	handMadeRefs["volkov_memcpy_f8"] = memcpy(8)
	handMadeRefs["volkov_memcpy_float2x8"] = memcpy(16)
	handMadeRefs["volkov_memcpy_float4x8"] = memcpy(32)
	handMadeRefs["matmul_sdk_1"] = matmul(1)
	handMadeRefs["matmul_sdk_2"] = matmul(2)
	handMadeRefs["matmul_sdk_4"] = matmul(4)
	handMadeRefs["matmul_sdk_8"] = matmul(8)
	handMadeRefs["divergence_two_loads"] = func(l Launch, sz map[string]int, a []any) {
		out, x, y := a[0].([]int32), a[1].([]int32), a[2].([]int32)
		forThreads(l, func(bx, _, tx, _ int) {
			i := bx*int(l.Block.X) + tx
			if tx&4 != 0 {
				out[i] = (x[i]*3 + 1) ^ 0x55
			} else {
				out[i] = (y[i] - 7) ^ 0x55
			}
		})
	}
	handMadeRefs["tiled_matmul_bounds"] = widthMatmulByThread
}

// widthMatmulByThread is the hand-made reference of the width matmuls (untiled and
// 16x16-tiled): thread (row, col) of the 16x16 blocks sums its row of M times its
// column of N in k order, one fused multiply-add per step.
func widthMatmulByThread(l Launch, sz map[string]int, a []any) {
	M, N, P, w := a[0].([]float32), a[1].([]float32), a[2].([]float32), a[3].(int)
	forThreads(l, func(bx, by, tx, ty int) {
		row, col := by*16+ty, bx*16+tx
		if row >= w || col >= w {
			return
		}
		var s float32
		for k := range w {
			s = capture.FMA32(M[row*w+k], N[k*w+col], s)
		}
		P[row*w+col] = s
	})
}

// TestVolkovLessons: the instruction each kernel is about is in its PTX.
func TestVolkovLessons(t *testing.T) {
	for name, want := range map[string]string{
		"volkov_ilp4":            "fma.rn.f32",
		"volkov_memcpy_float2x8": "ld.global.v2.f32",
		"volkov_memcpy_float4x8": "ld.global.v4.f32",
		"matmul_sdk_8":           "ld.shared.f32",
		"tiled_matmul_bounds":    "bar.sync",
	} {
		eachEntryBody(t, name, func(p Producer, body string) {
			if !strings.Contains(body, want) {
				t.Errorf("%s (%v): no %s in its entry", name, p, want)
			}
		})
	}
}
