package replay

import (
	"strconv"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// stridedStore has thread i store one word at p + i*stride bytes.
const stridedStore = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 s)
{
.reg .b32 %r<7>;
.reg .b64 %rd<5>;
ld.param.u64 %rd1, [p];
ld.param.u32 %r5, [s];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %ntid.x;
mov.u32 %r3, %tid.x;
mad.lo.u32 %r4, %r1, %r2, %r3;
mul.wide.u32 %rd3, %r4, %r5;
add.u64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], %r4;
ret;
}
`

// The L2 slice imbalance is max over mean of the sectors each slice takes: a grid that
// stores to one word sends every sector to one slice, the slice count; a grid that
// stores 4 MB of consecutive words spreads them nearly evenly on every preset. Hopper's
// measured map (l2.slice_map=granules, l2.partition_bits up to bit 19) evens out only
// over megabytes: 160 KB of consecutive words give it 1.5, 2.5 MB 1.125, 4 MB 1.094.
func TestL2SliceImbalance(t *testing.T) {
	store := func(stride, ctas int) *format.Reader {
		r, _ := captureSpec(t, capture.Spec{PTX: []byte(stridedStore), PTXName: "k.ptx", Kernel: "k",
			Grid: format.Dim3{X: uint32(ctas), Y: 1, Z: 1}, Block: format.Dim3{X: 256, Y: 1, Z: 1}, SIMT: format.SIMTITS,
			Args: []string{"buf:u32:" + strconv.Itoa(max(stride/4, 1)*ctas*256), "u32:" + strconv.Itoa(stride)}})
		return r
	}
	one, spread := store(0, 160), store(4, 4096)
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		cfg := preset(t, a)
		if got, want := metric(t, replayOne(t, one, cfg, false), "gtrace__l2_slice_imbalance"), float64(cfg.L2.Slices); got != want {
			t.Errorf("%s: one word: imbalance %v, want the %d slices", a, got, cfg.L2.Slices)
		}
		got := metric(t, replayOne(t, spread, cfg, false), "gtrace__l2_slice_imbalance")
		t.Logf("%s: consecutive words over %d slices: imbalance %.3f", a, cfg.L2.Slices, got)
		if got < 1 || got > 1.1 {
			t.Errorf("%s: consecutive words: imbalance %.3f, want 1 to 1.1", a, got)
		}
	}
}
