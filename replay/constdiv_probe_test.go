package replay

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"
)

// constdivPTX is scripts/hw/constdiv.cu's cdiv: lane l loads word
// ((l%D)*stride + i) % 4096 of a 16 KB constant table at iteration i, four iterations
// a trip with their four loads first, as ptxas unrolled it for the GPU (LDC x4).
const constdivPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .const .align 4 .b8 table[16384];
.visible .entry k(.param .u32 D, .param .u32 stride, .param .u32 iters)
{
.reg .b32 %r<16>;
.reg .b64 %rd<6>;
.reg .f32 %f<6>;
.reg .pred %p<2>;
ld.param.u32 %r1, [D];
ld.param.u32 %r2, [stride];
ld.param.u32 %r3, [iters];
mov.u32 %r4, %tid.x;
and.b32 %r5, %r4, 31;
rem.u32 %r6, %r5, %r1;
mul.lo.u32 %r7, %r6, %r2;
mov.u64 %rd1, table;
mov.u32 %r8, 0;
mov.f32 %f1, 0f00000000;
LOOP:
add.u32 %r9, %r7, %r8;
and.b32 %r10, %r9, 4095;
mul.wide.u32 %rd2, %r10, 4;
add.s64 %rd3, %rd1, %rd2;
ld.const.f32 %f2, [%rd3];
add.u32 %r10, %r9, 1;
and.b32 %r10, %r10, 4095;
mul.wide.u32 %rd2, %r10, 4;
add.s64 %rd4, %rd1, %rd2;
ld.const.f32 %f3, [%rd4];
add.u32 %r10, %r9, 2;
and.b32 %r10, %r10, 4095;
mul.wide.u32 %rd2, %r10, 4;
add.s64 %rd5, %rd1, %rd2;
ld.const.f32 %f4, [%rd5];
add.u32 %r10, %r9, 3;
and.b32 %r10, %r10, 4095;
mul.wide.u32 %rd2, %r10, 4;
add.s64 %rd3, %rd1, %rd2;
ld.const.f32 %f5, [%rd3];
add.f32 %f1, %f1, %f2;
add.f32 %f1, %f1, %f3;
add.f32 %f1, %f1, %f4;
add.f32 %f1, %f1, %f5;
add.u32 %r8, %r8, 4;
setp.lt.u32 %p1, %r8, %r3;
@%p1 bra LOOP;
ret;
}
`

// A warp's constant load takes the SM's memory pipe const.address_cycles per distinct
// address: on an H200, 2 SM cycles per address per SM with 8 warps per SM, whatever
// the stride, and one warp alone pays it in its latency
// (traces/hw/h200-2026-11-25-constdiv, docs/research/hw-facts.md §10). The engine
// replays one SM's share of each launch (one CTA on an sm.count=1 chip: each SM's
// constant cache is its own) at the clock ncu ran it at. With 8 warps per SM and two
// or more addresses the pipe is the limit, and the engine must come within 5% of the
// hardware's cycles; the rest is logged: one warp alone is latency-bound (the engine
// is 85% slow at D=1 to 21% fast at D=32: its constant misses cost more than the
// GPU's), and D=1 with 8 warps is 15% fast.
func TestTimingConstantProbe(t *testing.T) {
	recs, metric := readProbeRun(t, "../traces/hw/h200-2026-11-25-constdiv/", "constdiv")
	n := 0
	for _, rec := range recs {
		v := probeInts(t, "constdiv-free.csv", rec[:6]) // id, D, stride, blocks, threads, iters
		id, d, stride, threads, iters := v[0], v[1], v[2], v[4], v[5]
		if stride != 16 || threads != 32 && v[3] != 132 || d == 4 || d == 16 {
			continue // one launch per (D, warps per SM) within 15 s of test time
		}
		n++
		hw := metric[id]["sm__cycles_elapsed.avg"]
		r := captureProbe(t, "constdiv.ptx", constdivPTX, 1, threads, fmt.Sprint("u32:", d), fmt.Sprint("u32:", stride), fmt.Sprint("u32:", iters))
		cfg := presetOf(t, "hopper", "h200", "sm.count=1", "sm.clock_mhz="+strconv.Itoa(int(math.Round(hw/metric[id]["gpu__time_duration.sum"]*1e3))))
		cyc, err := Cycles(context.Background(), r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := cyc[0]/hw - 1
		t.Logf("D=%-2d %d warps per SM: hw %8.0f cycles, model %8.0f (%+.1f%%)", d, threads/32, hw, cyc[0], 100*e)
		if threads == 256 && d >= 2 && math.Abs(e) > 0.05 {
			t.Errorf("D=%d, %d warps per SM: %.0f cycles, hardware %.0f (%+.1f%%), want within 5%%", d, threads/32, cyc[0], hw, 100*e)
		}
	}
	if n != 8 {
		t.Fatalf("%d launches compared, want 8 (D = 1, 2, 8, 32 at 1 and 8 warps per SM)", n)
	}
}
