package replay

import (
	"fmt"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestIntKind: each integer PTX instruction's SASS class (replay/timing_int.go).
func TestIntKind(t *testing.T) {
	for _, c := range []struct {
		op    string
		class format.Class
		want  intKind
	}{
		{"mad.lo.u32", format.ClassALU, intMul}, {"mul.lo.s32", format.ClassALU, intMul}, {"mul.wide.u32", format.ClassALU, intMul},
		{"mul.hi.u32", format.ClassALU, intMulHi}, {"mad.hi.s32", format.ClassALU, intMulHi}, {"mul24.hi.u32", format.ClassALU, intMulHi},
		{"xor.b32", format.ClassALU, intLogic}, {"setp.lt.u32", format.ClassALU, intLogic}, {"selp.f32", format.ClassALU, intLogic},
		{"shr.u32", format.ClassALU, intLogic}, {"and.pred", format.ClassALU, intLogic}, {"min.s32", format.ClassALU, intLogic},
		{"add.u32", format.ClassALU, intFlex}, {"add.s64", format.ClassALU, intFlex}, {"mov.u32", format.ClassALU, intFlex},
		{"mov.f32", format.ClassALU, intFlex}, {"shl.b32", format.ClassALU, intFlex}, {"sub.s32", format.ClassALU, intFlex},
		{"setp.lt.f32", format.ClassALU, intNone}, {"add.f32", format.ClassFP32, intNone}, {"cvt.rn.f32.u32", format.ClassConv, intNone},
		{"div.u32", format.ClassALU, intNone}, {"ld.global.u32", format.ClassMem, intNone},
	} {
		if got := intKindOf(&format.Inst{Opcode: c.op, Class: c.class}); got != c.want {
			t.Errorf("%s: kind %d, want %d", c.op, got, c.want)
		}
	}
}

// TestPipeBalance: on hopper the block scheduler puts an integer add on whichever pipe
// is free and less loaded, so eight independent add-xor pairs (the integer probe's
// chain_iadd at eight chains) share the FP32 and integer pipes: the xors on the
// integer pipe, some adds on each. With every add on the integer pipe they would wait
// for it; the H100 issues the pair at one instruction per cycle per scheduler.
func TestPipeBalance(t *testing.T) {
	cfg := preset(t, "hopper")
	var prog []format.Inst
	for k := range 8 {
		x := uint16(k)
		prog = append(prog, format.Inst{Opcode: "add.u32", Class: format.ClassALU, RegsRead: []uint16{x, 20}, RegsWritten: []uint16{x},
			PTX: fmt.Sprintf("add.u32 %%r%d, %%r%d, %%r20;", x, x)})
	}
	for k := range 8 {
		x := uint16(k)
		prog = append(prog, format.Inst{Opcode: "xor.b32", Class: format.ClassALU, RegsRead: []uint16{x, 21}, RegsWritten: []uint16{x},
			PTX: fmt.Sprintf("xor.b32 %%r%d, %%r%d, %%r21;", x, x)})
	}
	prog = append(prog, format.Inst{Opcode: "bra.uni", Class: format.ClassControl, PTX: "bra.uni L;"})
	insts := make([]timedInst, len(prog))
	for pc := range prog {
		prog[pc].PC = uint32(pc)
		in := &prog[pc]
		k := classify(in)
		p, _, why := opClass(in, k, cfg.Latency)
		ik := intKindOf(in)
		lat := int64(1)
		if ik != intNone {
			lat = intLatency(in, ik, cfg.Latency)
			var slots, alt int
			p, slots, alt = intPipes(ik, 1, false, cfg.SM)
			insts[pc] = timedInst{kind: k, pipe: p, slots: slots, intN: slots, alt: alt, lat: lat, why: why, rd: in.RegsRead, wr: in.RegsWritten}
			continue
		}
		insts[pc] = timedInst{kind: k, pipe: p, slots: 1, lat: lat, why: why}
	}
	e := &timer{insts: insts, lat: cfg.Latency}
	o := newOrderer(prog, insts, e.planLatency, 255)
	ns := cfg.SM.Schedulers
	o.balancePipes(cfg.SM.FP32Lanes/ns, cfg.SM.INT32Lanes/ns)
	o.run(0)
	onALU, onINT := 0, 0
	for pc := range 8 {
		switch insts[pc].pipe {
		case pALU:
			onALU++
			if insts[pc].slots != cfg.SM.FP32Lanes/cfg.SM.INT32Lanes {
				t.Errorf("add at pc %d on the FP32 pipe for %d slots, want its half's %d", pc, insts[pc].slots, cfg.SM.FP32Lanes/cfg.SM.INT32Lanes)
			}
		case pINT:
			onINT++
		}
	}
	for pc := 8; pc < 16; pc++ {
		if insts[pc].pipe != pINT {
			t.Errorf("xor at pc %d on pipe %d, want the integer pipe", pc, insts[pc].pipe)
		}
	}
	if onALU == 0 || onINT == 0 || onALU+onINT != 8 {
		t.Errorf("adds: %d on the FP32 pipe, %d on the integer pipe; want both used", onALU, onINT)
	}
}
