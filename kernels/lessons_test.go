package kernels

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
)

// Hand-made references for lessons.go's kernels, written thread by thread from the
// .cu source, for TestCheckAcceptsHandMadeAndRejectsCorrupt.
func init() {
	w := [7]int32{1, 2, 3, 4, 3, 2, 1}
	handMadeRefs["conv1d_scatter"] = func(l Launch, sz map[string]int, a []any) {
		in, out, n := a[0].([]int32), a[1].([]int32), a[2].(int)
		forThreads(l, func(bx, _, tx, _ int) {
			i := bx*int(l.Block.X) + tx
			if i >= n {
				return
			}
			for k := range 7 {
				if j := i - k + 3; j >= 0 && j < n {
					out[j] += w[k] * in[i]
				}
			}
		})
	}
	handMadeRefs["conv1d_gather"] = func(l Launch, sz map[string]int, a []any) {
		gatherConv(l, a[0].([]int32), w[:], a[1].([]int32), a[2].(int))
	}
	saxpy := func(c int) handMade {
		return func(l Launch, sz map[string]int, a []any) {
			f, _ := strconv.ParseFloat(a[0].(string), 32)
			x, y, n := a[1].([]float32), a[2].([]float32), a[3].(int)
			forThreads(l, func(bx, _, tx, _ int) {
				for j := range c {
					if i := bx*int(l.Block.X)*c + tx + j*int(l.Block.X); i < n {
						y[i] = capture.FMA32(float32(f), x[i], y[i])
					}
				}
			})
		}
	}
	handMadeRefs["saxpy_c1"] = saxpy(1)
	handMadeRefs["saxpy_c2"] = saxpy(2)
	handMadeRefs["saxpy_c4"] = saxpy(4)
	handMadeRefs["saxpy_c8"] = saxpy(8)
	handMadeRefs["saxpy_gridstride"] = func(l Launch, sz map[string]int, a []any) {
		f, _ := strconv.ParseFloat(a[0].(string), 32)
		x, y, n := a[1].([]float32), a[2].([]float32), a[3].(int)
		stride := int(l.Block.X * l.Grid.X)
		forThreads(l, func(bx, _, tx, _ int) {
			for i := bx*int(l.Block.X) + tx; i < n; i += stride {
				y[i] = capture.FMA32(float32(f), x[i], y[i])
			}
		})
	}
	handMadeRefs["matmul_naive"] = widthMatmulByThread

	// compaction.go's kernels: compact_atomic in thread order; compact_warp warp by
	// warp from the last (another order the atomics may run in, which the check
	// must accept).
	handMadeRefs["compact_atomic"] = func(l Launch, sz map[string]int, a []any) {
		in, out, cnt, n, below := a[0].([]int32), a[1].([]int32), a[2].([]int32), a[3].(int), a[4].(int)
		forThreads(l, func(bx, _, tx, _ int) {
			if i := bx*int(l.Block.X) + tx; i < n && in[i] < int32(below) {
				out[cnt[0]] = in[i]
				cnt[0]++
			}
		})
	}
	handMadeRefs["compact_warp"] = func(l Launch, sz map[string]int, a []any) {
		in, out, cnt, n, below := a[0].([]int32), a[1].([]int32), a[2].([]int32), a[3].(int), a[4].(int)
		threads := int(l.Grid.X * l.Block.X)
		for w := (threads+31)/32 - 1; w >= 0; w-- {
			for i := 32 * w; i < 32*w+32 && i < n; i++ {
				if in[i] < int32(below) {
					out[cnt[0]] = in[i]
					cnt[0]++
				}
			}
		}
	}
	handMadeRefs["reduce_cascade"] = func(l Launch, sz map[string]int, a []any) {
		in, out, n := a[0].([]float32), a[1].([]float32), a[2].(int)
		block, stride := int(l.Block.X), int(l.Block.X*l.Grid.X)
		forBlocks(l, func(b int) {
			partial := make([]float32, block)
			for t := range partial {
				for i := b*block + t; i < n; i += stride {
					partial[t] += in[i]
				}
			}
			for c := block / 2; c > 0; c /= 2 {
				for t := range c {
					partial[t] += partial[t+c]
				}
			}
			out[b] = partial[0]
		})
	}
}

// TestLessonsInPTX: each kernel's PTX, from both producers, has what its lesson is
// about, and lacks what the other form of the lesson has.
func TestLessonsInPTX(t *testing.T) {
	for _, c := range []struct {
		name     string
		has, not string
		count    int // how many times has occurs, 0: any
	}{
		{"conv1d_scatter", "atom.global.add", "st.global", 7},
		{"conv1d_gather", "st.global", "atom.", 1},
		{"saxpy_c1", "fma.rn.f32", "", 1},
		{"saxpy_c8", "fma.rn.f32", "", 8},
		{"matmul_naive", "ld.global", "bar.sync", 0},
		{"compact_atomic", "atom.global.add", "vote.sync.ballot", 1},
		{"compact_warp", "vote.sync.ballot", "", 1},
		{"compact_warp", "atom.global.add", "", 1},
		{"reduce_cascade", "bar.sync", "", 0},
		{"cutoff_direct", "ld.global", "bar.sync", 0},
		{"cutoff_binned", "ld.global", "ld.shared", 0},
		{"cutoff_binned_shared", "ld.shared", "", 0},
		{"cutoff_binned_shared", "bar.sync", "", 1},
		{"bin_atoms", "atom.global.add", "", 2},
	} {
		eachEntryBody(t, c.name, func(p Producer, body string) {
			n := strings.Count(body, c.has)
			if n == 0 || c.count > 0 && n != c.count {
				t.Errorf("%s (%v): %d %s in its entry, want %d", c.name, p, n, c.has, c.count)
			}
			if c.not != "" && strings.Contains(body, c.not) {
				t.Errorf("%s (%v): %s in its entry", c.name, p, c.not)
			}
		})
	}
}

// gatherConv is the 7-point convolution of conv1d_gather and conv1d_mask_*, thread by
// thread: thread j sums w[k] * in[j+k-3] over the inputs in range.
func gatherConv(l Launch, in, w, out []int32, n int) {
	forThreads(l, func(bx, _, tx, _ int) {
		j := bx*int(l.Block.X) + tx
		if j >= n {
			return
		}
		var s int32
		for k := range 7 {
			if i := j + k - 3; i >= 0 && i < n {
				s += w[k] * in[i]
			}
		}
		out[j] = s
	})
}
