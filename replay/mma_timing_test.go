package replay

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// mmaProbePTX is scripts/hw/mma.cu's latency and throughput kernels in PTX: each warp
// runs iters rounds of chains independent mmas of shape (m16n8k16 or m16n8k8), chain j
// accumulating into its own registers (D into C).
func mmaProbePTX(shape string, chains int) string {
	var b strings.Builder
	b.WriteString(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 iters)
{
.reg .b32 %r<64>;
.reg .pred %p<2>;
ld.param.u32 %r1, [iters];
mov.u32 %r2, 0;
mov.b32 %r3, 0x3c003c00;
LOOP:
`)
	for j := range chains {
		c := fmt.Sprintf("{%%r%d, %%r%d, %%r%d, %%r%d}", 10+4*j, 11+4*j, 12+4*j, 13+4*j)
		a, bb := "{%r3, %r3, %r3, %r3}", "{%r3, %r3}"
		if shape == "m16n8k8" {
			a, bb = "{%r3, %r3}", "{%r3}"
		}
		fmt.Fprintf(&b, "mma.sync.aligned.%s.row.col.f32.f16.f16.f32 %s, %s, %s, %s;\n", shape, c, a, bb, c)
	}
	b.WriteString(`add.u32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, %r1;
@%p1 bra LOOP;
ret;
}
`)
	return b.String()
}

// TestMmaTiming replays the H100 probe's mma kernels (traces/hw/h100-2026-11-27-mma/
// mma.csv) on hopper and compares what the tensor pipe gives with what the H100 did, per
// mma from the difference of two loop counts (the launch's fixed cost cancels): a
// dependent chain's cycles per mma within 1 cycle of the H100's 24.1 (m16n8k16) and
// 17.1 (m16n8k8), and one block of 8 warps × 8 chains within 5% of the H100's 0.66 and
// 0.98 mmas per SM and cycle. A trace with an mma cannot be timed on fermi, which has
// no tensor cores.
func TestMmaTiming(t *testing.T) {
	cycles := func(shape string, warps, chains, iters int, a string) float64 {
		r := captureProbe(t, "mma.ptx", mmaProbePTX(shape, chains), 1, 32*warps, fmt.Sprint("u32:", iters))
		return metric(t, timeOne(t, r, a), "sm__cycles_elapsed.avg")
	}
	for _, c := range []struct {
		shape          string
		latency, perSM float64 // the H100's: cycles per dependent mma, mmas per SM and cycle
	}{{"m16n8k16", 24.1, 0.658}, {"m16n8k8", 17.1, 0.981}} {
		lat := (cycles(c.shape, 1, 1, 128, "hopper") - cycles(c.shape, 1, 1, 64, "hopper")) / 64
		if math.Abs(lat-c.latency) > 1 {
			t.Errorf("%s: a dependent chain takes %.1f cycles per mma, the H100 %.1f", c.shape, lat, c.latency)
		}
		rate := 8 * 8 * 32 / (cycles(c.shape, 8, 8, 64, "hopper") - cycles(c.shape, 8, 8, 32, "hopper"))
		t.Logf("%s: %.2f cycles per dependent mma (H100 %.1f), %.3f mmas per SM and cycle (H100 %.3f)", c.shape, lat, c.latency, rate, c.perSM)
		if math.Abs(rate/c.perSM-1) > 0.05 {
			t.Errorf("%s: 8 warps of 8 chains complete %.3f mmas per SM and cycle, the H100 %.3f", c.shape, rate, c.perSM)
		}
	}
	r := captureProbe(t, "mma.ptx", mmaProbePTX("m16n8k16", 1), 1, 32, "u32:1")
	if _, err := Timing(context.Background(), r, preset(t, "fermi"), Options{}); err == nil || !strings.Contains(err.Error(), "has no tensor cores") {
		t.Errorf("timing an mma on fermi: %v, want an error saying it has no tensor cores", err)
	}
}

// TestMmaDeep: which mma shapes are timed at depth 16 (sm.mma_cycles_k16, lat.mma_k16),
// PTX and SASS names alike.
func TestMmaDeep(t *testing.T) {
	for op, want := range map[string]bool{
		"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32": true, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32": false,
		"HMMA.16816.F32": true, "HMMA.1688.F32.BF16": false, "HMMA.884.F32.STEP0": false, "IMMA.16832.S8.S8": true,
		"DMMA.884": false, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64": false,
	} {
		if got := mmaDeep(op); got != want {
			t.Errorf("%s: deep %v, want %v", op, got, want)
		}
	}
}
