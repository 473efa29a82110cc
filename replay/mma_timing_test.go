package replay

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// mmaProbeForms are scripts/hw/mma.cu's variants as mmaProbePTX writes them: the PTX
// opcode after "mma.sync.aligned." and its A, B and C fragments' registers.
var mmaProbeForms = map[string]struct {
	op         string
	nA, nB, nC int
}{
	"m16n8k16":     {"m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4},
	"m16n8k8":      {"m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4},
	"m16n8k8.tf32": {"m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 4},
	"m16n8k32.s8":  {"m16n8k32.row.col.s32.s8.s8.s32", 4, 2, 4},
	"m16n8k16.s8":  {"m16n8k16.row.col.s32.s8.s8.s32", 2, 1, 4},
	"m8n8k4.f64":   {"m8n8k4.row.col.f64.f64.f64.f64", 1, 1, 2},
}

// mmaProbePTX is scripts/hw/mma.cu's latency and throughput kernels in PTX: each warp
// runs iters trips of rounds rounds of chains independent mmas of form
// (mmaProbeForms), chain j accumulating into its own registers (D into C). nvcc's PTX
// of mma.cu has 64 rounds a trip in the latency kernel (its 4096 trips are known) and
// 4 in the throughput kernel: the loop's branch, which holds a warp lat.branch cycles,
// comes that seldom.
func mmaProbePTX(form string, chains, rounds int) string {
	f := mmaProbeForms[form]
	reg, a, bb := "%r", "%r3", "%r3"
	if strings.HasSuffix(form, "f64") {
		reg, a, bb = "%fd", "%fd1", "%fd1"
	}
	list := func(x string, n int) string { return "{" + strings.TrimSuffix(strings.Repeat(x+", ", n), ", ") + "}" }
	var b strings.Builder
	b.WriteString(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 iters)
{
.reg .b32 %r<64>;
.reg .f64 %fd<64>;
.reg .pred %p<2>;
ld.param.u32 %r1, [iters];
mov.u32 %r2, 0;
mov.b32 %r3, 0x3c003c00;
mov.f64 %fd1, 0d3FF0000000000000;
LOOP:
`)
	var round strings.Builder
	for j := range chains {
		var cs []string
		for i := range f.nC {
			cs = append(cs, fmt.Sprintf("%s%d", reg, 10+4*j+i))
		}
		c := "{" + strings.Join(cs, ", ") + "}"
		fmt.Fprintf(&round, "mma.sync.aligned.%s %s, %s, %s, %s;\n", f.op, c, list(a, f.nA), list(bb, f.nB), c)
	}
	b.WriteString(strings.Repeat(round.String(), rounds))
	b.WriteString(`add.u32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, %r1;
@%p1 bra LOOP;
ret;
}
`)
	return b.String()
}

// TestMmaTiming replays the H100 probe's mma kernels (traces/hw/h100-2026-11-27-mma/
// and -mma-more/mma.csv) on hopper and compares what the tensor pipe gives with what the
// H100 did, per mma from the difference of two loop counts (the launch's fixed cost
// cancels): a dependent chain's cycles per mma within 1 cycle of the H100's (24.1 for
// m16n8k16, 17.1 for m16n8k8, 26.1 for m8n8k4.f64), and one block of 8 warps × 8 chains
// within 5% of the H100's mmas per SM and cycle, for f16, tf32, s8 and f64 inputs. A
// trace with an mma cannot be timed on fermi, which has no tensor cores, nor one with
// an f64 mma on the RTX 3090, whose tensor cores take no f64.
func TestMmaTiming(t *testing.T) {
	cycles := func(shape string, warps, chains, rounds, iters int, a string) float64 {
		r := captureProbe(t, "mma.ptx", mmaProbePTX(shape, chains, rounds), 1, 32*warps, fmt.Sprint("u32:", iters))
		return metric(t, timeOne(t, r, a), "sm__cycles_elapsed.avg")
	}
	for _, c := range []struct {
		shape          string
		latency, perSM float64 // the H100's: cycles per dependent mma, mmas per SM and cycle
	}{{"m16n8k16", 24.1, 0.658}, {"m16n8k8", 17.1, 0.981}, {"m16n8k8.tf32", 24.1, 0.658}, {"m16n8k32.s8", 24.1, 0.655},
		{"m16n8k16.s8", 17.1, 0.974}, {"m8n8k4.f64", 26.1, 0.2315}} {
		lat := (cycles(c.shape, 1, 1, 64, 8, "hopper") - cycles(c.shape, 1, 1, 64, 4, "hopper")) / 256
		if math.Abs(lat-c.latency) > 1 {
			t.Errorf("%s: a dependent chain takes %.1f cycles per mma, the H100 %.1f", c.shape, lat, c.latency)
		}
		rate := 8 * 8 * 4 * 8 / (cycles(c.shape, 8, 8, 4, 16, "hopper") - cycles(c.shape, 8, 8, 4, 8, "hopper"))
		t.Logf("%s: %.2f cycles per dependent mma (H100 %.1f), %.3f mmas per SM and cycle (H100 %.3f)", c.shape, lat, c.latency, rate, c.perSM)
		if math.Abs(rate/c.perSM-1) > 0.05 {
			t.Errorf("%s: 8 warps of 8 chains complete %.3f mmas per SM and cycle, the H100 %.3f", c.shape, rate, c.perSM)
		}
	}
	r := captureProbe(t, "mma.ptx", mmaProbePTX("m16n8k16", 1, 1), 1, 32, "u32:1")
	if _, err := Timing(context.Background(), r, preset(t, "fermi"), Options{}); err == nil || !strings.Contains(err.Error(), "has no tensor cores") {
		t.Errorf("timing an mma on fermi: %v, want an error saying it has no tensor cores", err)
	}
	r = captureProbe(t, "mma.ptx", mmaProbePTX("m8n8k4.f64", 1, 1), 1, 32, "u32:1")
	if _, err := Timing(context.Background(), r, presetOf(t, "ampere", "rtx3090"), Options{}); err == nil || !strings.Contains(err.Error(), "has no f64 tensor cores") {
		t.Errorf("timing an f64 mma on the RTX 3090: %v, want an error saying it has no f64 tensor cores", err)
	}
}

// TestMmaClass: which cost class each mma is timed in (sm.mma_cycles_k8/k16/f64 and
// their latencies), PTX and SASS names alike.
func TestMmaClass(t *testing.T) {
	for op, want := range map[string]int{
		"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32": mmaK16, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32": mmaK8,
		"HMMA.16816.F32": mmaK16, "HMMA.1688.F32.BF16": mmaK8, "HMMA.884.F32.STEP0": mmaK8, "IMMA.16832.S8.S8": mmaK16,
		"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32": mmaK16, "HMMA.1688.F32.TF32": mmaK16,
		"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32": mmaK16, "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32": mmaK8,
		"IMMA.16816.S8.S8": mmaK8, "DMMA.884": mmaF64, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64": mmaF64,
	} {
		if got := mmaClass(op); got != want {
			t.Errorf("%s: class %d, want %d", op, got, want)
		}
	}
}
