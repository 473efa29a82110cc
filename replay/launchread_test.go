package replay

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// fmaChain is scripts/hw/codefetch.cu's code_k<n> in PTX: n FFMAs in straight-line
// code on one float a thread, and a store no thread makes (the result never has the
// magic pattern), so the launch reads no data.
func fmaChain(n int) string {
	return `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .f32 a, .param .f32 b, .param .u32 magic, .param .u64 sink)
{
.reg .pred %p<2>;
.reg .f32 %f<4>;
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.f32 %f1, [a];
ld.param.f32 %f2, [b];
ld.param.u32 %r1, [magic];
mov.u32 %r2, %tid.x;
cvt.rn.f32.u32 %f3, %r2;
` + strings.Repeat("fma.rn.f32 %f3, %f3, %f1, %f2;\n", n) + `mov.b32 %r3, %f3;
setp.ne.s32 %p1, %r3, %r1;
@%p1 bra DONE;
ld.param.u64 %rd1, [sink];
cvta.to.global.u64 %rd2, %rd1;
st.global.f32 [%rd2], %f3;
DONE:
ret;
}
`
}

// TestLaunchReadsItsCode: a launch that reads no data reads the driver's launch state
// and its own code from DRAM, as the H200 does under ncu --cache-control all
// (scripts/hw/probe.sh codefetch, traces/hw/h200-2026-11-28-codefetch): the code_k<n>
// launches of one warp, n FFMAs, within 10% in both engines (the estimate of the
// code's size is sass.go's; the fixed part is the median of the run). Off
// (sm.inst_bytes 0), both read nothing.
func TestLaunchReadsItsCode(t *testing.T) {
	launches, metrics := readProbeRun(t, "../traces/hw/h200-2026-11-28-codefetch/", "codefetch")
	hw := map[int]float64{} // FFMAs → DRAM bytes read, one warp
	for _, l := range launches {
		if l[1] == "code" && l[4] == "1" { // id,kind,n,stride,blocks,...
			id, _ := strconv.Atoi(l[0])
			n, _ := strconv.Atoi(l[2])
			hw[n] = metrics[id]["dram__bytes_read.sum"]
		}
	}
	if len(hw) != 6 {
		t.Fatalf("%d one-warp code launches in the run, want 6", len(hw))
	}
	cfg := presetOf(t, "hopper", "h200")
	off := presetOf(t, "hopper", "h200", "sm.inst_bytes=0")
	for _, n := range []int{0, 16, 64, 256, 1024, 4096} {
		r := captureWarp(t, fmaChain(n), "f32:1.0001", "f32:0.5", "u32:2143289345", "buf:f32:16")
		tr, err := Timing(context.Background(), r, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, kr := range []*KernelReport{replayOne(t, r, cfg, false), &tr.Kernels[0]} {
			got := metric(t, kr, "dram__bytes_read.sum")
			off := fmt.Sprintf("%+.1f%%", 100*(got/hw[n]-1))
			t.Logf("%s, %4d FFMAs: DRAM read %6.0f B, H200 %6.0f (%s)", [2]string{"memory", "timing"}[i], n, got, hw[n], off)
			if math.Abs(got/hw[n]-1) > 0.10 {
				t.Errorf("%s, %d FFMAs: DRAM read %.0f B, H200 %.0f (%s): want within 10%%", [2]string{"memory", "timing"}[i], n, got, hw[n], off)
			}
		}
		if got := metric(t, replayOne(t, r, off, false), "dram__bytes_read.sum"); got != 0 {
			t.Errorf("sm.inst_bytes=0, %d FFMAs: DRAM read %.0f B, want 0", n, got)
		}
	}
}
