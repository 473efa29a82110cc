package capture

// Comparison and selection (PTX ISA 8.x, "Comparison and Selection Instructions":
// setp, set, selp, slct).
var compareFamily = opFamily{name: "comparison and selection", rules: []opRule{
	{names: []string{"setp"}, mods: modCompare, decode: decodeSetp,
		doc: "every comparison (eq ne lt le gt ge lo ls hi hs equ neu\nltu leu gtu geu num nan), .and/.or/.xor with a predicate,\np|q destinations"},
	{names: []string{"set"}, mods: modCompare, decode: decodeSet,
		doc: "every comparison, a destination and a source type,\n.and/.or/.xor with a predicate"},
	{names: []string{"selp"}, decode: decodeSelp,
		doc: "one type: d = c ? a : b"},
	{names: []string{"slct"}, decode: decodeSlct,
		doc: "a destination type and an .s32 or .f32 selector"},
}}

func decodeSetp(r *resolver) error {
	in, a, m := r.in, r.a, &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(3, 4); err != nil {
		return err
	}
	t, err := r.needType()
	if err != nil || m.cmp < 0 {
		return r.fail("setp needs a comparison and a type")
	}
	in.op, in.t, in.t2, in.cmp, in.bop = opSetp, t, t, uint8(m.cmp), m.bop
	d := a.ops[0]
	if d.kind == oPair {
		if err := r.predDst(0, d.elems[0]); err != nil {
			return err
		}
		if err := r.predDstP(d.elems[1]); err != nil {
			return err
		}
	} else if err := r.predDst(0, d); err != nil {
		return err
	}
	if err := r.src(0, 1, t); err != nil {
		return err
	}
	if err := r.src(1, 2, t); err != nil {
		return err
	}
	if len(a.ops) == 4 {
		if m.bop == bopNone {
			return r.fail("a fourth operand needs .and, .or or .xor")
		}
		in.flags |= fCmpBool
		return r.predSrc(2, a.ops[3])
	}
	if m.bop != bopNone {
		return r.fail(".and/.or/.xor needs a predicate operand")
	}
	return nil
}

func decodeSet(r *resolver) error {
	in, a, m := r.in, r.a, &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if len(m.types) != 2 || m.cmp < 0 {
		return r.fail("set needs a comparison, a destination type and a source type")
	}
	if err := r.nops(3, 4); err != nil {
		return err
	}
	in.op, in.t, in.t2, in.cmp, in.bop = opSet, m.types[0], m.types[1], uint8(m.cmp), m.bop
	if err := r.dst(0, 0, in.t); err != nil {
		return err
	}
	if err := r.src(0, 1, in.t2); err != nil {
		return err
	}
	if err := r.src(1, 2, in.t2); err != nil {
		return err
	}
	if len(a.ops) == 4 {
		in.flags |= fCmpBool
		return r.predSrc(2, a.ops[3])
	}
	return nil
}

func decodeSelp(r *resolver) error {
	in := r.in
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(4); err != nil {
		return err
	}
	t, err := r.needType()
	if err != nil {
		return err
	}
	in.op, in.t = opSelp, t
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	if err := r.src(0, 1, t); err != nil {
		return err
	}
	if err := r.src(1, 2, t); err != nil {
		return err
	}
	return r.predSrc(2, r.a.ops[3])
}

func decodeSlct(r *resolver) error {
	in, m := r.in, &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if len(m.types) != 2 || (m.types[1] != tS32 && m.types[1] != tF32) {
		return r.fail("slct needs a destination type and .s32 or .f32")
	}
	if err := r.nops(4); err != nil {
		return err
	}
	in.op, in.t, in.t2 = opSlct, m.types[0], m.types[1]
	if err := r.dst(0, 0, in.t); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		st := in.t
		if i == 2 {
			st = in.t2
		}
		if err := r.src(i, i+1, st); err != nil {
			return err
		}
	}
	return nil
}
