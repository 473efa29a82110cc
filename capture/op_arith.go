package capture

import (
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Integer and floating-point arithmetic (PTX ISA 8.x, "Integer Arithmetic
// Instructions" and "Floating-Point Instructions"): one rule per opcode, whatever its
// type; the type picks the pipe (fclass).
var arithFamily = opFamily{name: "arithmetic", rules: []opRule{
	{names: []string{"add", "sub"}, decode: decodeAddSub,
		doc: "int (.sat on s32), f32 f64 (.rn .ftz .sat); no .cc carry"},
	{names: []string{"mul"}, decode: decodeMul,
		doc: ".lo .hi .wide (int), f32 f64 (.rn .ftz .sat)"},
	{names: []string{"mad", "fma"}, decode: decodeMad,
		doc: ".lo .hi .wide (int), f32 f64 (.rn .ftz .sat; mad.f = fma)"},
	{names: []string{"mul24", "mad24"}, decode: decodeMul24,
		doc: "mul24 .lo .hi, mad24 .lo (u32 s32)"},
	{names: []string{"div"}, decode: decodeDiv,
		doc: "int (÷0 gives all ones), f32 f64 (.rn .approx .full)"},
	{names: []string{"rem"}, decode: decodeRem,
		doc: "int (÷0 gives a)"},
	{names: []string{"abs", "neg"}, decode: decodeAbsNeg,
		doc: "int, f32 f64 (.ftz)"},
	{names: []string{"min", "max"}, decode: decodeMinMax,
		doc: "int, f32 f64 (.ftz; a NaN operand is ignored); .f32 also\n.NaN, giving the canonical NaN, and .xorsign.abs"},
	{names: []string{"copysign"}, decode: decodeCopysign,
		doc: "f32 f64"},
	{names: []string{"rcp", "sqrt", "rsqrt"}, decode: decodeSFU,
		doc: "f32 f64 (.rn .approx .ftz)"},
	{names: []string{"sin", "cos", "ex2", "lg2", "tanh"}, decode: decodeSFU,
		doc: "f32 .approx (evaluated in float64, rounded to f32)"},
}}

func decodeAddSub(r *resolver) error {
	if err := r.unknownMods("cc"); err != nil {
		return err
	}
	if len(r.m.other) > 0 {
		return r.fail("carry arithmetic (.cc) is not supported")
	}
	op := opAdd
	if r.base == "sub" {
		op = opSub
	}
	return r.lanewise(op, 2, r.fclass())
}

func decodeMul(r *resolver) error {
	m := &r.m
	t, err := r.needType()
	if err != nil {
		return err
	}
	if t.float() {
		return r.lanewise(opMulF, 2, r.fclass())
	}
	switch {
	case m.wide:
		if t.size() != 4 && t.size() != 2 {
			return r.fail("mul.wide needs a 16- or 32-bit type")
		}
		return r.lanewise(opMulWide, 2, format.ClassALU)
	case m.hi:
		return r.lanewise(opMulHi, 2, format.ClassALU)
	case m.lo:
		return r.lanewise(opMulLo, 2, format.ClassALU)
	}
	return r.fail("integer mul needs .lo, .hi or .wide")
}

func decodeMad(r *resolver) error {
	m := &r.m
	t, err := r.needType()
	if err != nil {
		return err
	}
	if t.float() {
		return r.lanewise(opFma, 3, r.fclass())
	}
	if r.base == "fma" {
		return r.fail("fma needs a float type")
	}
	switch {
	case m.wide:
		if err := r.lanewise(opMadWide, 3, format.ClassALU); err != nil {
			return err
		}
		r.in.t = t
		return r.src(2, 3, sizeTypeSigned(t.size()*2, t.signed()))
	case m.hi:
		return r.lanewise(opMadHi, 3, format.ClassALU)
	case m.lo:
		return r.lanewise(opMadLo, 3, format.ClassALU)
	}
	return r.fail("integer mad needs .lo, .hi or .wide")
}

func decodeMul24(r *resolver) error {
	t, err := r.needType()
	if err != nil {
		return err
	}
	if t != tU32 && t != tS32 {
		return r.fail("%s needs .u32 or .s32", r.base)
	}
	switch {
	case r.base == "mul24" && r.m.hi:
		return r.lanewise(opMul24Hi, 2, format.ClassALU)
	case r.base == "mul24":
		return r.lanewise(opMul24Lo, 2, format.ClassALU)
	case r.m.lo:
		return r.lanewise(opMad24Lo, 3, format.ClassALU)
	}
	return r.fail("%s variant not supported", r.a.opcode)
}

func decodeDiv(r *resolver) error {
	c := r.fclass()
	if c == format.ClassALU {
		c = format.ClassSFU
	}
	return r.lanewise(opDiv, 2, c)
}

func decodeRem(r *resolver) error {
	return r.lanewise(opRem, 2, format.ClassALU)
}

func decodeAbsNeg(r *resolver) error {
	op := opAbs
	if r.base == "neg" {
		op = opNeg
	}
	return r.lanewise(op, 1, r.fclass())
}

func decodeMinMax(r *resolver) error {
	// PTX ISA 8.x, "Floating Point Instructions: min/max": .NaN (sm_80) and
	// .xorsign.abs (sm_86) exist for .f32 only among the types capture emulates.
	in, m, base := r.in, &r.m, r.base
	op, rest := opMin, m.other[:0:0]
	if base == "max" {
		op = opMax
	}
	for _, o := range m.other {
		switch o {
		case ".NaN":
			in.flags |= fNaN
		case ".xorsign":
			in.flags |= fXorSign
		case ".abs":
			if !strings.Contains(r.a.opcode, ".xorsign.abs") {
				return r.fail(".abs on %s needs .xorsign before it", base)
			}
		default:
			rest = append(rest, o)
		}
	}
	if in.flags&fXorSign != 0 && !strings.Contains(r.a.opcode, ".xorsign.abs") {
		return r.fail(".xorsign on %s needs .abs after it", base)
	}
	if in.flags&(fNaN|fXorSign) != 0 && (len(m.types) != 1 || m.types[0] != tF32) {
		return r.fail(".NaN and .xorsign.abs are supported on .f32 only")
	}
	m.other = rest
	return r.lanewise(op, 2, r.fclass())
}

func decodeCopysign(r *resolver) error {
	return r.lanewise(opCopysign, 2, r.fclass())
}

// sfuOps are the special-function unit's one-operand opcodes.
var sfuOps = map[string]opcode{"rcp": opRcp, "sqrt": opSqrt, "rsqrt": opRsqrt, "sin": opSin, "cos": opCos, "ex2": opEx2, "lg2": opLg2, "tanh": opTanh}

func decodeSFU(r *resolver) error {
	op := sfuOps[r.base]
	if err := r.lanewise(op, 1, format.ClassSFU); err != nil {
		return err
	}
	if r.in.t != tF32 && r.in.t != tF64 {
		return r.fail("%s needs .f32 or .f64", r.base)
	}
	if r.in.t == tF64 && op != opRcp && op != opSqrt && op != opRsqrt {
		return r.fail("%s.f64 is not supported", r.base)
	}
	return nil
}
