package capture

import "github.com/gtrace/gtrace/format"

// Data movement and conversion: mov, cvta, cvt (PTX ISA 8.x, "Data Movement and
// Conversion Instructions").
var moveFamily = opFamily{name: "data movement and conversion", rules: []opRule{
	{names: []string{"mov"}, decode: decodeMov,
		doc: "b16-b64 u s f32 f64 pred; pack {a,b}→d and unpack d→{a,b}"},
	{names: []string{"cvta"}, decode: decodeCvta,
		doc: ".global .shared .local .const, and .to.*; 64-bit"},
	{names: []string{"cvt"}, decode: decodeCvt,
		doc: "every int/float pair; .rn .rz .rm .rp; .rni .rzi .rmi .rpi;\n.sat .ftz (float→int saturates, NaN→0)"},
}}

func decodeMov(r *resolver) error {
	in, a := r.in, r.a
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(2); err != nil {
		return err
	}
	t, err := r.needType()
	if err != nil {
		return err
	}
	in.t = t
	switch {
	case t == tPred:
		in.op, in.bop = opPredLogic, bopMov
		return r.predLogic(1)
	case a.ops[0].kind == oVec:
		in.op = opMovUnpack
		n := len(a.ops[0].elems)
		if n != 2 && n != 4 || t.size()%n != 0 {
			return r.fail("bad unpack")
		}
		in.t2 = sizeType(t.size() / n)
		for i, e := range a.ops[0].elems {
			if err := r.dstOp(i, e, in.t2); err != nil {
				return err
			}
		}
		in.nd = uint8(n)
		return r.src(0, 1, t)
	case a.ops[1].kind == oVec:
		in.op = opMovPack
		n := len(a.ops[1].elems)
		if n != 2 && n != 4 || t.size()%n != 0 {
			return r.fail("bad pack")
		}
		in.t2 = sizeType(t.size() / n)
		for i, e := range a.ops[1].elems {
			if err := r.srcOp(i, e, in.t2); err != nil {
				return err
			}
		}
		in.ns = uint8(n)
		return r.dst(0, 0, t)
	}
	in.op = opMov
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	return r.src(0, 1, t)
}

func decodeCvta(r *resolver) error {
	in, m := r.in, &r.m
	if err := r.unknownMods(".to"); err != nil {
		return err
	}
	if err := r.nops(2); err != nil {
		return err
	}
	t, err := r.needType()
	if err != nil {
		return err
	}
	if t.size() != 8 {
		return r.fail("only 64-bit cvta is supported")
	}
	in.op, in.t = opCvta, t
	in.space = spaceOf(m.space)
	if in.space == msNone || in.space == msParamK {
		return r.fail("cvta needs .global, .shared, .local or .const")
	}
	if len(m.other) == 1 { // cvta.to.SPACE: generic → space
		in.bop = 1
	}
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	return r.src(0, 1, t)
}

func decodeCvt(r *resolver) error {
	in, m := r.in, &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(2); err != nil {
		return err
	}
	if len(m.types) != 2 || m.types[0] == tPred || m.types[1] == tPred {
		return r.fail("cvt needs a destination and a source type")
	}
	in.op, in.t, in.t2 = opCvt, m.types[0], m.types[1]
	if m.rndInt {
		if in.t.float() && in.t2.float() {
			in.flags |= fRoundInt
		} else if !in.t2.float() {
			return r.fail("integer rounding needs a float source")
		}
	}
	if in.t2.float() && !in.t.float() && !m.rndInt {
		return r.fail("float-to-integer cvt needs .rni, .rzi, .rmi or .rpi")
	}
	r.row.Class = format.ClassConv
	if err := r.dst(0, 0, in.t); err != nil {
		return err
	}
	return r.src(0, 1, in.t2)
}
