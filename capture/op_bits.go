package capture

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Logic, shifts and bit manipulation (PTX ISA 8.x, "Logic and Shift Instructions" and
// the bit instructions of "Integer Arithmetic Instructions", and prmt).
var bitsFamily = opFamily{name: "logic, shifts and bits", rules: []opRule{
	{names: []string{"and", "or", "xor", "not"}, decode: decodeLogic,
		doc: "b16-b64, and pred"},
	{names: []string{"cnot"}, decode: decodeCnot,
		doc: "b16-b64"},
	{names: []string{"shl", "shr"}, decode: decodeShift,
		doc: "b/u/s 16-64 (shr.s arithmetic; counts ≥ width clamp)"},
	{names: []string{"popc", "clz"}, decode: decodeCount,
		doc: "b32 b64 (writes a .u32)"},
	{names: []string{"brev"}, decode: decodeBrev,
		doc: "b32 b64"},
	{names: []string{"bfind"}, decode: decodeBfind,
		doc: "u32 s32 u64 s64, .shiftamt (writes a .u32; 0xffffffff: no bit)"},
	{names: []string{"bfe"}, decode: decodeBfe,
		doc: "u32 s32 u64 s64 (position and length .u32)"},
	{names: []string{"bfi"}, decode: decodeBfi,
		doc: "b32 b64, immediate length"},
	{names: []string{"prmt"}, decode: decodePrmt,
		doc: "b32, the default mode"},
	{names: []string{"lop3"}, decode: decodeLop3,
		doc: "b32, immediate LUT"},
	{names: []string{"shf"}, decode: decodeShf,
		doc: "b32 .l .r, .wrap .clamp"},
}}

func decodeLogic(r *resolver) error {
	in, m, base := r.in, &r.m, r.base
	if len(m.types) == 1 && m.types[0] == tPred {
		in.op, in.t = opPredLogic, tPred
		in.bop = map[string]uint8{"and": bopAnd, "or": bopOr, "xor": bopXor, "not": bopNot}[base]
		if base == "not" {
			if err := r.nops(2); err != nil {
				return err
			}
			return r.predLogic(1)
		}
		if err := r.nops(3); err != nil {
			return err
		}
		return r.predLogic(2)
	}
	op := map[string]opcode{"and": opAnd, "or": opOr, "xor": opXor, "not": opNot}[base]
	n := 2
	if base == "not" {
		n = 1
	}
	return r.lanewise(op, n, format.ClassALU)
}

func decodeCnot(r *resolver) error {
	return r.lanewise(opCnot, 1, format.ClassALU)
}

func decodeShift(r *resolver) error {
	op := opShl
	if r.base == "shr" {
		op = opShr
	}
	return r.lanewise(op, 2, format.ClassALU)
}

func decodeCount(r *resolver) error {
	op := opPopc
	if r.base == "clz" {
		op = opClz
	}
	return r.lanewise(op, 1, format.ClassALU)
}

func decodeBrev(r *resolver) error {
	return r.lanewise(opBrev, 1, format.ClassALU)
}

func decodeBfind(r *resolver) error {
	// PTX ISA 8.x, "Integer Arithmetic Instructions: bfind": the position of the
	// most significant non-sign bit of a .u32/.s32/.u64/.s64, written as a .u32;
	// .shiftamt gives the left shift that brings it to bit 31 (63) instead. nvcc
	// makes __ffs from it (brev, then bfind.shiftamt).
	m := &r.m
	n := len(m.other)
	m.other = slices.DeleteFunc(m.other, func(o string) bool { return o == ".shiftamt" })
	if len(m.other) < n {
		r.in.flags |= fShiftAmt
	}
	if len(m.types) == 1 && !slices.Contains([]vtype{tU32, tS32, tU64, tS64}, m.types[0]) {
		return r.fail("bfind takes .u32, .s32, .u64 or .s64")
	}
	return r.lanewise(opBfind, 1, format.ClassALU)
}

func decodeBfe(r *resolver) error {
	return r.lanewise(opBfe, 3, format.ClassALU)
}

// decodeBfi: bfi.b32 d, a, b, pos, len.
func decodeBfi(r *resolver) error {
	in, a := r.in, r.a
	if err := r.nops(5); err != nil {
		return err
	}
	t, err := r.needType()
	if err != nil {
		return err
	}
	in.op, in.t = opBfi, t
	if a.ops[4].kind != oImm {
		return r.fail("bfi with a register length is not supported")
	}
	ln, err := literal(a.ops[4].imm.text, a.ops[4].ineg, tU32)
	if err != nil {
		return r.fail("bad length")
	}
	in.imm = uint32(ln)
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		st := t
		if i == 2 {
			st = tU32
		}
		if err := r.src(i, i+1, st); err != nil {
			return err
		}
	}
	return nil
}

func decodePrmt(r *resolver) error {
	if len(r.m.other) > 0 {
		return r.fail("prmt modes (%s) are not supported", strings.Join(r.m.other, ""))
	}
	return r.lanewise(opPrmt, 3, format.ClassALU)
}

func decodeLop3(r *resolver) error {
	a := r.a
	if err := r.nops(5); err != nil {
		return err
	}
	if a.ops[4].kind != oImm {
		return r.fail("lop3 needs an immediate LUT")
	}
	lut, err := literal(a.ops[4].imm.text, false, tU32)
	if err != nil {
		return r.fail("bad LUT")
	}
	r.in.imm = uint32(lut)
	a2 := *a
	a2.ops = a.ops[:4]
	r.a = &a2 // lanewise reads d, a, b, c without the LUT
	return r.lanewise(opLop3, 3, format.ClassALU)
}

func decodeShf(r *resolver) error {
	var op opcode
	for _, o := range r.m.other {
		switch o {
		case ".l":
			op = opShfL
		case ".r":
			op = opShfR
		case ".clamp":
			r.in.flags |= fClampShf
		case ".wrap":
		default:
			return r.fail("unsupported modifier %s", o)
		}
	}
	if op == 0 {
		return r.fail("shf needs .l or .r")
	}
	r.m.other = nil
	return r.lanewise(op, 3, format.ClassALU)
}
