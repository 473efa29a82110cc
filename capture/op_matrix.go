package capture

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/gtrace/gtrace/format"
)

// Warp-level matrix instructions (PTX ISA 8.x, "Warp Level Matrix Multiply-Accumulate
// Instructions": ldmatrix, mma).
var matrixFamily = opFamily{name: "warp-level matrix", rules: []opRule{
	{names: []string{"ldmatrix"}, decode: decodeLdmatrix,
		doc: ".sync.aligned.m8n8 .x1 .x2 .x4, .trans; .shared{::cta} or generic; .b16"},
	{names: []string{"mma"}, decode: decodeMma, halfOwn: true,
		doc: ".sync.aligned .row.col: .m16n8k16 .m16n8k8 .f16 into .f32 or .f16, .bf16\ninto .f32; .m16n8k8 .tf32 into .f32; .m16n8k32 .m16n8k16 .s8 .u8 into .s32\n(.satfinite); .m8n8k4 .f64; summed as an H100's tensor cores do (op_mma.go)"},
}}

// decodeLdmatrix decodes ldmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16 d, [a]: the warp
// loads num 8x8 matrices of 16-bit elements from shared memory, row r of matrix i from
// the 16 bytes at lane 8i+r's address; lane l receives, of each matrix i, the two
// elements of row l/4 at columns 2(l%4) and 2(l%4)+1 in d[i] (the first in the low
// half), or with .trans those of column l/4 at rows 2(l%4) and 2(l%4)+1. in.vec is num,
// in.bop 1 for .trans.
func decodeLdmatrix(r *resolver) error {
	in, a, m := r.in, r.a, &r.m
	if !m.sync {
		return r.fail("ldmatrix needs .sync.aligned")
	}
	if !m.take(".m8n8") {
		return r.fail("ldmatrix takes .m8n8 (the .m16n16 and .m8n16 shapes are not modelled)")
	}
	num := 0
	for i, x := range []string{".x1", ".x2", ".x4"} {
		if m.take(x) {
			num = 1 << i
		}
	}
	if num == 0 {
		return r.fail("ldmatrix needs .x1, .x2 or .x4")
	}
	if m.take(".trans") {
		in.bop = 1
	}
	sp := spaceOf(m.space)
	switch {
	case m.take(".shared::cta"):
		sp = msShared
	case m.space == "":
		sp = msGeneric
	case sp != msShared:
		return r.fail("ldmatrix reads .shared, not %s", m.space)
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	if len(m.types) != 1 || m.types[0] != tB16 {
		return r.fail("ldmatrix takes .b16 (.b8 and the packed 4- and 6-bit forms are not modelled)")
	}
	if err := r.nops(2); err != nil {
		return err
	}
	d := a.ops[0]
	elems := []operand{d}
	if d.kind == oVec {
		elems = d.elems
	}
	if len(elems) != num {
		return r.fail("ldmatrix .x%d writes {…} %d registers", num, num)
	}
	for i, e := range elems {
		if e.kind == oSink {
			return r.fail("ldmatrix writes registers, not _")
		}
		if err := r.dstOp(i, e, tB32); err != nil {
			return err
		}
	}
	in.nd = uint8(num)
	sp, err := r.address(a.ops[1], sp)
	if err != nil {
		return err
	}
	in.op, in.space, in.vec, in.width = opLdmatrix, sp, uint8(num), 16
	r.row.Class, r.row.MemOp, r.row.Space, r.row.Width = format.ClassMem, format.MemLoad, formatSpace[sp], 16
	return nil
}

// ldmatrix executes decodeLdmatrix's load for the lanes in exec, which must be every
// lane of the warp that has not exited (PTX ISA: .aligned, all threads of the warp).
// The trace records lane l at the address of lane l%(8*num), the lane whose row it
// stands for: the lanes whose addresses .x1 and .x2 ignore add no bank traffic.
func (w *warpState) ldmatrix(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if want := w.valid &^ w.exited; exec != want {
		return w.fault(FaultUnsupported, pc, bits.TrailingZeros32(want&^exec|exec&^want), 0, "",
			fmt.Sprintf("ldmatrix executed by lanes %#08x of the warp's %#08x: it needs the whole warp (.sync.aligned)", exec, want))
	}
	num := 8 * int(in.vec)
	if need := uint32(1<<num - 1); exec&need != need {
		return w.fault(FaultUnsupported, pc, bits.TrailingZeros32(need&^exec), 0, "",
			fmt.Sprintf("ldmatrix .x%d needs lanes 0-%d for its row addresses; the warp has %#08x", in.vec, num-1, exec))
	}
	var rows [32][]byte
	for l := range num {
		addr := w.laneAddr(in, l)
		if in.space == msGeneric && addr-SharedWindow >= windowSize {
			return w.fault(FaultUnsupported, pc, l, addr, "", fmt.Sprintf("ldmatrix address %#x is not in shared memory", addr))
		}
		b, rec, err := w.access(in, pc, l, in.space, addr, 16, false)
		if err != nil {
			return err
		}
		rows[l], w.lanes[l] = b, rec
	}
	elem := func(i, row, col int) uint32 { // matrix i's 16-bit element
		return uint32(binary.LittleEndian.Uint16(rows[8*i+row][2*col:]))
	}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if l >= num {
			w.lanes[l] = w.lanes[l%num]
		}
		for i := range int(in.vec) {
			var v uint32
			if in.bop == 1 {
				v = elem(i, 2*(l%4), l/4) | elem(i, 2*(l%4)+1, l/4)<<16
			} else {
				v = binary.LittleEndian.Uint32(rows[8*i+l/4][4*(l%4):])
			}
			w.regs[int(in.d[i])*32+l] = uint64(v)
		}
	}
	w.appendMem(pc, exec, path, fl)
	return nil
}
