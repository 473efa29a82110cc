package replay

import (
	"context"
	"fmt"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// aggregatePTX has one atomic of each kind the rule tells apart, every lane active,
// in this order: an add of 1 to a parameter's address (Aggregated), a RED of a
// parameter's value to it (Aggregated), an add of %tid (the operand varies), an add to
// a per-lane address, a float add, an exchange, an add whose address register is
// written twice (either value per lane after divergent code), and a shared add.
const aggregatePTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry agg(.param .u64 p, .param .u32 n)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .f32 %f<4>;
.reg .b64 %rd<16>;
.shared .align 4 .b32 s[32];
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
ld.param.u32 %r1, [n];
mov.u32 %r2, %tid.x;
atom.global.add.u32 %r3, [%rd2], 1;
red.global.add.u32 [%rd2+4], %r1;
atom.global.add.u32 %r4, [%rd2+8], %r2;
mul.wide.u32 %rd3, %r2, 4;
add.s64 %rd4, %rd2, %rd3;
atom.global.add.u32 %r5, [%rd4+64], 1;
atom.global.add.f32 %f1, [%rd2+12], 0f3F800000;
atom.global.exch.b32 %r6, [%rd2+16], %r1;
mov.u64 %rd5, %rd2;
setp.lt.u32 %p1, %r2, 16;
@%p1 bra SKIP;
add.s64 %rd5, %rd2, 4;
SKIP:
atom.global.add.u32 %r7, [%rd5+20], 1;
atom.shared.add.u32 %r8, [s], 1;
add.s32 %r9, %r3, %r4;
add.s32 %r9, %r9, %r5;
add.s32 %r9, %r9, %r6;
add.s32 %r9, %r9, %r7;
add.s32 %r9, %r9, %r8;
cvt.rzi.u32.f32 %r10, %f1;
add.s32 %r9, %r9, %r10;
st.global.u32 [%rd4+256], %r9;
ret;
}
`

// TestAggregatedAtomics: which atomics ptxas aggregates per warp (aggregate.go), and what
// that does to a replay. On hopper (sm.aggregate_atomics) the two uniform adds take one
// pass per warp, each the first lane's one sector; every other atomic keeps a pass per
// same-address round. On fermi, whose toolkits never aggregated, the uniform adds take
// 32 passes. The SASS estimate grows by the aggregation's instructions, 10 for the ATOM
// and 5 for the RED; a trace of SASS is never changed.
func TestAggregatedAtomics(t *testing.T) {
	r, _ := captureSpec(t, capture.Spec{PTX: []byte(aggregatePTX), PTXName: "agg.ptx", Kernel: "agg",
		Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}, SIMT: format.SIMTITS,
		Args: []string{"buf:u32:128", "u32:3"}})
	l := r.Meta().Launches[0]
	hopper := preset(t, "hopper")
	agg := Aggregated(l.Program, l.PTXProducer, hopper)
	var got []string
	for pc, a := range agg {
		if a {
			got = append(got, l.Program.Insts[pc].Opcode)
		}
	}
	if fmt.Sprint(got) != "[atom.global.add.u32 red.global.add.u32]" {
		t.Errorf("aggregated atomics: %v, want the uniform add and the uniform RED only", got)
	}
	if a := Aggregated(l.Program, format.SASSProducer+"sm_90", hopper); a != nil {
		t.Errorf("a SASS trace's atomics are aggregated: %v", a)
	}
	fermi := preset(t, "fermi")
	if a := Aggregated(l.Program, l.PTXProducer, fermi); a != nil {
		t.Errorf("fermi aggregates atomics: %v", a)
	}

	// Global atomic sectors (memory engine): the uniform add and RED 1 each on hopper,
	// 32 each on fermi; the %tid operand 32 passes on one word; the per-lane words one
	// pass of 4 sectors; the float add and the exchange 32 each; the twice-written
	// address two words of one sector, 16 passes of 1.
	atom := "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"
	red := "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"
	for _, c := range []struct {
		arch      string
		atom, red float64
	}{{"hopper", 1 + 32 + 4 + 32 + 32 + 16, 1}, {"fermi", 32 + 32 + 4 + 32 + 32 + 16, 32}} {
		kr := replayOne(t, r, preset(t, c.arch), false)
		if a, d := metric(t, kr, atom), metric(t, kr, red); a != c.atom || d != c.red {
			t.Errorf("%s: %g ATOM and %g RED sectors, want %g and %g", c.arch, a, d, c.atom, c.red)
		}
	}
	// The timing engine: 62 same-word passes fewer at the L2 make the warp finish sooner.
	off := preset(t, "hopper", "sm.aggregate_atomics=false")
	cycles := func(cfg *arch.Config) float64 {
		tr, err := Timing(context.Background(), r, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return metric(t, &tr.Kernels[0], "sm__cycles_elapsed.avg")
	}
	if on, without := cycles(hopper), cycles(off); on >= without {
		t.Errorf("hopper: %g cycles with aggregation, %g without: want fewer with", on, without)
	}
	// The SASS estimate: hopper's count with aggregation, less the same without it.
	inst := "smsp__inst_executed.sum"
	if on, without := metric(t, replayOne(t, r, hopper, false), inst), metric(t, replayOne(t, r, off, false), inst); on-without != 10+5 {
		t.Errorf("hopper SASS estimate %g with aggregation, %g without: want 15 more (ATOM 10, RED 5)", on, without)
	}
}
