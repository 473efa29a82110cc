package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestBlockOrder: the block scheduler's issue order for short PTX blocks, as offsets
// from the block's first instruction. Latencies: fma 18, shared 50, global loads 600.
func TestBlockOrder(t *testing.T) {
	ld := func(r uint16) format.Inst {
		return format.Inst{Class: format.ClassMem, Space: format.SpaceGlobal, MemOp: format.MemLoad, Width: 4,
			RegsRead: []uint16{100}, RegsWritten: []uint16{r}, PTX: fmt.Sprintf("ld.global.f32 %%f%d, [%%rd100];", r)}
	}
	lds := func(r uint16) format.Inst {
		return format.Inst{Class: format.ClassMem, Space: format.SpaceShared, MemOp: format.MemLoad, Width: 4,
			RegsRead: []uint16{101}, RegsWritten: []uint16{r}, PTX: fmt.Sprintf("ld.shared.f32 %%f%d, [%%rd101];", r)}
	}
	sts := func(r uint16) format.Inst {
		return format.Inst{Class: format.ClassMem, Space: format.SpaceShared, MemOp: format.MemStore, Width: 4,
			RegsRead: []uint16{101, r}, PTX: fmt.Sprintf("st.shared.f32 [%%rd101], %%f%d;", r)}
	}
	stg := func(r uint16) format.Inst {
		return format.Inst{Class: format.ClassMem, Space: format.SpaceGlobal, MemOp: format.MemStore, Width: 4,
			RegsRead: []uint16{100, r}, PTX: fmt.Sprintf("st.global.f32 [%%rd100], %%f%d;", r)}
	}
	fma := func(d, a, b uint16) format.Inst {
		return format.Inst{Class: format.ClassFP32, RegsRead: []uint16{a, b}, RegsWritten: []uint16{d},
			PTX: fmt.Sprintf("fma.rn.f32 %%f%d, %%f%d, %%f%d, %%f%d;", d, a, b, d)}
	}
	bra := format.Inst{Class: format.ClassControl, PTX: "bra.uni LBB0_1;"}
	for _, tc := range []struct {
		name string
		prog []format.Inst
		regs int
		want string
	}{
		// bank_sums' tile load: the second global load goes ahead of the first
		// shared store, which waits for its data anyway.
		{"loads hoisted", []format.Inst{ld(1), sts(1), ld(2), sts(2), bra}, 255, "0 2 1 3 4"},
		// A global load may not pass a global store (they may alias), so the store,
		// on the load's path, goes first; then the load passes the shared one.
		{"memory order", []format.Inst{stg(1), lds(3), ld(2), fma(4, 2, 3), bra}, 255, "0 2 1 3 4"},
		// Matmul's inner loop: each shared load beside its fma. With registers to
		// spare every load goes first; the fma chain (through register 9) follows.
		{"shared loads batched", []format.Inst{lds(1), fma(9, 1, 1), lds(2), fma(9, 2, 2), lds(3), fma(9, 3, 3), bra}, 255, "0 2 4 1 3 5 6"},
		// With no register to spare (the trace order's own peak) it keeps the trace
		// order.
		{"register limit", []format.Inst{lds(1), fma(9, 1, 1), lds(2), fma(9, 2, 2), lds(3), fma(9, 3, 3), bra}, 0, "0 1 2 3 4 5 6"},
	} {
		insts := make([]timedInst, len(tc.prog))
		for pc := range tc.prog {
			tc.prog[pc].PC = uint32(pc)
			in := &tc.prog[pc]
			k := classify(in)
			p, lat, why := opClass(in, k, preset(t, "fermi").Latency)
			insts[pc] = timedInst{kind: k, pipe: p, lat: lat, why: why, rd: in.RegsRead, wr: in.RegsWritten, memOp: in.MemOp}
		}
		e := &timer{insts: insts, lat: preset(t, "fermi").Latency}
		o := newOrderer(tc.prog, insts, e.planLatency, tc.regs)
		r := o.run(0)
		got := make([]string, r.n)
		for i := range got {
			got[i] = fmt.Sprint(i)
		}
		if r.order != nil {
			for i, off := range r.order {
				got[i] = fmt.Sprint(off)
			}
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: order %s, want %s", tc.name, s, tc.want)
		}
	}
}

// TestClassifyBarriers: a CTA barrier is one in PTX (capture) and in SASS (a trace
// imported from Accel-Sim); an arrive-only barrier and a memory fence are not.
func TestClassifyBarriers(t *testing.T) {
	for _, c := range []struct {
		op   string
		want bool
	}{
		{"bar.sync", true}, {"barrier.sync.aligned", true}, {"bar.red.popc.u32", true},
		{"BAR.SYNC.DEFER_BLOCKING", true}, {"BAR.SYNC", true}, {"BAR.RED.POPC", true},
		{"BAR.ARV", false}, {"MEMBAR.SC.GPU", false}, {"membar.cta", false},
	} {
		in := format.Inst{Opcode: c.op, Class: format.ClassSync}
		if got := classify(&in) == ikBarrier; got != c.want {
			t.Errorf("%s: barrier %v, want %v", c.op, got, c.want)
		}
	}
}

// TestDivergentWarpKeepsBlockOrder: a warp that diverges only at its end (one lane
// stores the result, as reductions and the streams probe's spin kernel do) issues its
// blocks before the split in the scheduler's order, as a warp that never diverges
// does. The block holds two independent chains, 16 dependent FMAs and then 16
// dependent integer adds: in trace order the adds wait for the FMAs' 64 cycles, in
// the scheduler's they overlap them. Until the ITS order took the block schedule, the
// divergent warp kept trace order throughout and took about 60 cycles more.
func TestDivergentWarpKeepsBlockOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .pred %p<4>;
.reg .b32 %r<40>;
.reg .f32 %f<40>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
cvt.rn.f32.u32 %f1, %r1;
mov.u32 %r2, %r1;
bra.uni BODY;
BODY:
`)
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&b, "fma.rn.f32 %%f%d, %%f%d, 0f3F7FBE77, 0f38D1B717;\n", i+1, i)
	}
	for i := 2; i <= 17; i++ {
		fmt.Fprintf(&b, "add.s32 %%r%d, %%r%d, %d;\n", i+1, i, i)
	}
	head := b.String()
	const store = "cvt.rzi.s32.f32 %r30, %f17;\nadd.s32 %r31, %r30, %r18;\nst.global.u32 [%rd2], %r31;\n"
	converged := head + "bra.uni END;\nEND:\n" + store + "ret;\n}\n"
	diverged := head + "setp.ne.u32 %p1, %r1, 0;\n@%p1 bra END;\n" + store + "END:\nret;\n}\n"
	cycles := func(src, a string) float64 {
		return metric(t, timeOne(t, captureWarp(t, src, "buf:u32:1"), a), "sm__cycles_active.avg")
	}
	for _, a := range []string{"ampere", "hopper"} {
		sms := float64(preset(t, a).SM.Count)
		conv, div := cycles(converged, a)*sms, cycles(diverged, a)*sms
		// The divergent form has one more setp and branch; the FMAs' chain of 64
		// cycles is what trace order would add.
		if div > conv+20 {
			t.Errorf("%s: %g cycles with one lane storing, %g with all: want at most 20 more", a, div, conv)
		}
		t.Logf("%s: %g cycles converged, %g with the tail divergent", a, conv, div)
	}
}

// TestPipesFixedBeforeRuns: on an arch that keeps the FP32 and integer pipes apart, an
// add's pipe is chosen once, before any warp runs (orderer.fixPipes), so scheduling the
// runs warps bring later, from any entry and in any order, changes no choice. Before
// stop 117 each run's schedule overwrote the choice (the last run through a pc won),
// which made results depend on when warps reached their runs. The program: a prologue
// of adds falling into a loop body of FMAs and adds that branches back to its label.
func TestPipesFixedBeforeRuns(t *testing.T) {
	var prog []format.Inst
	var insts []timedInst
	add := func(d, a uint16) {
		prog = append(prog, format.Inst{Class: format.ClassALU, RegsRead: []uint16{a}, RegsWritten: []uint16{d},
			PTX: fmt.Sprintf("add.s32 %%r%d, %%r%d, 1;", d, a)})
		insts = append(insts, timedInst{pipe: pINT, slots: 1, intN: 1, alt: 2, lat: 4})
	}
	fma := func(d uint16) {
		prog = append(prog, format.Inst{Class: format.ClassFP32, RegsRead: []uint16{d}, RegsWritten: []uint16{d},
			PTX: fmt.Sprintf("fma.rn.f32 %%f%d, %%f%d, %%f%d, %%f%d;", d, d, d, d)})
		insts = append(insts, timedInst{pipe: pALU, slots: 1, lat: 4})
	}
	for r := range uint16(6) {
		add(r+1, r) // the prologue: a chain of adds
	}
	label := len(prog)
	for r := range uint16(8) {
		fma(40 + r%3)
		add(20+r, 20+r) // independent adds beside the FMAs
	}
	prog = append(prog, format.Inst{Class: format.ClassControl, PTX: "bra.uni L;", Target: uint32(label) + 1})
	insts = append(insts, timedInst{pipe: numPipes, lat: 1})
	for pc := range prog {
		prog[pc].PC = uint32(pc)
	}
	e := &timer{insts: insts, lat: preset(t, "hopper").Latency}
	o := newOrderer(prog, insts, e.planLatency, 255)
	o.balancePipes(32, 16)
	chosen := func() []pipe {
		ps := make([]pipe, len(insts))
		for pc := range insts {
			ps[pc] = insts[pc].pipe
		}
		return ps
	}
	want := chosen()
	if !slices.Contains(want[label:], pALU) || !slices.Contains(want[label:], pINT) {
		t.Fatalf("the loop body's adds all went to one pipe (%v): the test needs both", want[label:])
	}
	for _, entries := range [][]int{{label, 0}, {0, label}, {3, label + 5, 1}} {
		clear(o.runs)
		for _, pc := range entries {
			o.run(uint32(pc))
		}
		if got := chosen(); !slices.Equal(got, want) {
			t.Errorf("runs scheduled from %v: pipes %v, want %v as fixed", entries, got, want)
		}
	}
}
