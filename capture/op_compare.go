package capture

import (
	"math"
	"math/bits"
)

// Comparison and selection (PTX ISA 8.x, "Comparison and Selection Instructions":
// setp, set, selp, slct).
var compareFamily = opFamily{name: "comparison and selection", rules: []opRule{
	{names: []string{"setp"}, mods: modCompare, decode: decodeSetp,
		doc: "every comparison (eq ne lt le gt ge lo ls hi hs equ neu\nltu leu gtu geu num nan), .and/.or/.xor with a predicate,\np|q destinations"},
	{names: []string{"set"}, mods: modCompare, decode: decodeSet,
		doc: "every comparison, a destination and a source type,\n.and/.or/.xor with a predicate"},
	{names: []string{"testp"}, decode: decodeTestp,
		doc: ".finite .infinite .number .notanumber .normal .subnormal;\nf32 f64 (zeros are normal)"},
	{names: []string{"selp"}, decode: decodeSelp,
		doc: "one type: d = c ? a : b"},
	{names: []string{"slct"}, decode: decodeSlct,
		doc: "a destination type and an .s32 or .f32 selector"},
}}

func decodeSetp(r *resolver) error { return r.setp(runSetp, nil) }

// setp decodes setp's operands, whatever its type: the comparison, a destination p or
// p|q, the sources a and b, and an optional predicate combined by .and/.or/.xor; run
// executes it, and checkDst (when not nil) vets the destination's shape for the type.
func (r *resolver) setp(run runFunc, checkDst func(t vtype, pair bool) error) error {
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
	in.op, in.t, in.t2, in.cmp, in.bop, in.run = opCompute, t, t, uint8(m.cmp), m.bop, run
	in.flags |= fSinkOK
	d := a.ops[0]
	if checkDst != nil {
		if err := checkDst(t, d.kind == oPair); err != nil {
			return err
		}
	}
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
	in.op, in.t, in.t2, in.cmp, in.bop, in.run = opCompute, m.types[0], m.types[1], uint8(m.cmp), m.bop, runSet
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
	t, err := r.typed(nil, 4)
	if err != nil {
		return err
	}
	in.op, in.t, in.run = opCompute, t, runSelp
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
	in.op, in.t, in.t2, in.run, in.lane = opCompute, m.types[0], m.types[1], runLanes, laneSlct
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

// Execution.

func runSetp(w *warpState, in *instr, exec, _ uint32) {
	a, b := w.slot(in.s[0]), w.slot(in.s[1])
	r, ok := setpFast(in, a, b)
	if ok {
		r &= exec
	} else {
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if compare(in.cmp, in.t, a[l], b[l]) {
				r |= 1 << l
			}
		}
	}
	w.setpResult(in, exec, r, exec&^r)
}

// setpResult writes a setp's results over the executing lanes: p to its destination
// and q to the second one of p|q, each first combined with the instruction's predicate
// operand under .and/.or/.xor.
func (w *warpState) setpResult(in *instr, exec, p, q uint32) {
	if in.flags&fCmpBool != 0 {
		c := w.preds[in.s[2]]
		if in.sneg&4 != 0 {
			c = ^c
		}
		p, q = predOp(in.bop, p, c)&exec, predOp(in.bop, q, c)&exec
	}
	if in.d[0] >= 0 {
		w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | p
	}
	if in.dp >= 0 {
		w.preds[in.dp] = w.preds[in.dp]&^exec | q
	}
}

// testp's properties (in.bop).
var testpOps = map[string]uint8{".finite": testpFinite, ".infinite": testpInfinite, ".number": testpNumber,
	".notanumber": testpNaN, ".normal": testpNormal, ".subnormal": testpSubnormal}

const (
	testpFinite uint8 = iota
	testpInfinite
	testpNumber
	testpNaN
	testpNormal
	testpSubnormal
)

func decodeTestp(r *resolver) error {
	in := r.in
	op, t, err := r.modeAndType(testpOps, ".finite .infinite .number .notanumber .normal .subnormal", 2)
	if err != nil {
		return err
	}
	if t != tF32 && t != tF64 {
		return r.fail("testp takes .f32 or .f64")
	}
	in.op, in.t, in.bop, in.run = opCompute, t, op, runTestp
	in.flags |= fSinkOK
	r.row.Class = r.fclass()
	if err := r.predDst(0, r.a.ops[0]); err != nil {
		return err
	}
	return r.src(0, 1, t)
}

func runTestp(w *warpState, in *instr, exec, _ uint32) {
	a := w.slot(in.s[0])
	var r uint32
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if testp(in.bop, in.t, a[l]) {
			r |= 1 << l
		}
	}
	if in.d[0] >= 0 {
		w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | r
	}
}

// testp tests one property of v (PTX ISA 8.x, testp: as a special case, zeros are
// normal numbers).
func testp(op uint8, t vtype, v uint64) bool {
	exp, frac := v>>23&0xff, v&(1<<23-1)
	top := uint64(0xff)
	if t == tF64 {
		exp, frac, top = v>>52&0x7ff, v&(1<<52-1), 0x7ff
	}
	switch op {
	case testpFinite:
		return exp != top
	case testpInfinite:
		return exp == top && frac == 0
	case testpNumber:
		return exp != top || frac == 0
	case testpNaN:
		return exp == top && frac != 0
	case testpNormal:
		return exp != top && (exp != 0 || frac == 0)
	}
	return exp == 0 && frac != 0 // subnormal
}

func runSelp(w *warpState, in *instr, exec, _ uint32) {
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	p := w.preds[in.s[2]]
	if in.sneg&4 != 0 {
		p = ^p
	}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if p>>l&1 != 0 {
			d[l] = a[l]
		} else {
			d[l] = b[l]
		}
	}
}

// runPredLogic: and/or/xor/not/mov on predicates.
func runPredLogic(w *warpState, in *instr, exec, _ uint32) {
	a := w.preds[in.s[0]]
	if in.sneg&1 != 0 {
		a = ^a
	}
	var r uint32
	switch in.bop {
	case bopMov:
		r = a
	case bopNot:
		r = ^a
	default:
		b := w.preds[in.s[1]]
		if in.sneg&2 != 0 {
			b = ^b
		}
		r = predOp(in.bop, a, b)
	}
	w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | r&exec
}

func runSet(w *warpState, in *instr, exec, _ uint32) {
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	var p uint32
	if in.flags&fCmpBool != 0 {
		p = w.preds[in.s[2]]
		if in.sneg&4 != 0 {
			p = ^p
		}
	}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = laneSet(in, a[l], b[l], uint64(p>>l&1))
	}
}

// laneSet is set's value: 1.0f or all ones where the comparison (combined with the
// predicate in c under .and/.or/.xor) holds, 0 where not.
func laneSet(in *instr, a, b, c uint64) uint64 {
	r := compare(in.cmp, in.t2, a, b)
	if in.flags&fCmpBool != 0 {
		r = boolOp(in.bop, r, c != 0)
	}
	if in.t == tF32 {
		if r {
			return uint64(math.Float32bits(1))
		}
		return 0
	}
	if r {
		return in.t.mask()
	}
	return 0
}

// laneSlct is a if c >= 0 (c of type t2), else b.
func laneSlct(in *instr, a, b, c uint64) uint64 {
	var neg bool
	if in.t2 == tF32 {
		neg = f32(c) < 0
	} else {
		neg = int32(c) < 0
	}
	if neg {
		return b
	}
	return a
}

func predOp(op uint8, a, b uint32) uint32 {
	switch op {
	case bopAnd:
		return a & b
	case bopOr:
		return a | b
	case bopXor:
		return a ^ b
	}
	return a
}

// compare evaluates a setp/set comparison of two values of type t.
func compare(cmp uint8, t vtype, a, b uint64) bool {
	if t.float() {
		if t == tF32 {
			return compareFloat(cmp, float64(f32(a)), float64(f32(b)))
		}
		return compareFloat(cmp, f64(a), f64(b))
	}
	if t.signed() {
		x, y := int64(t.ext(a)), int64(t.ext(b))
		switch cmp {
		case cmpEQ:
			return x == y
		case cmpNE:
			return x != y
		case cmpLT:
			return x < y
		case cmpLE:
			return x <= y
		case cmpGT:
			return x > y
		case cmpGE:
			return x >= y
		}
	}
	x, y := a&t.mask(), b&t.mask()
	switch cmp {
	case cmpEQ:
		return x == y
	case cmpNE:
		return x != y
	case cmpLT, cmpLO:
		return x < y
	case cmpLE, cmpLS:
		return x <= y
	case cmpGT, cmpHI:
		return x > y
	case cmpGE, cmpHS:
		return x >= y
	}
	return false
}

// compareFloat evaluates a float comparison; the u forms are true on a NaN.
func compareFloat(cmp uint8, x, y float64) bool {
	nan := x != x || y != y
	switch cmp {
	case cmpEQ:
		return !nan && x == y
	case cmpNE:
		return !nan && x != y
	case cmpLT:
		return !nan && x < y
	case cmpLE:
		return !nan && x <= y
	case cmpGT:
		return !nan && x > y
	case cmpGE:
		return !nan && x >= y
	case cmpEQU:
		return nan || x == y
	case cmpNEU:
		return nan || x != y
	case cmpLTU:
		return nan || x < y
	case cmpLEU:
		return nan || x <= y
	case cmpGTU:
		return nan || x > y
	case cmpGEU:
		return nan || x >= y
	case cmpNUM:
		return !nan
	case cmpNAN:
		return nan
	}
	return false
}

func boolOp(op uint8, a, b bool) bool {
	switch op {
	case bopAnd:
		return a && b
	case bopOr:
		return a || b
	case bopXor:
		return a != b
	}
	return a
}

// setpFast compares all 32 lanes for the common integer types (comparisons have no
// side effects, so inactive lanes are computed and masked off by the caller).
func setpFast(in *instr, a, b *[32]uint64) (uint32, bool) {
	switch in.t {
	case tS32:
		return cmpLanes[int32](in.cmp, a, b)
	case tU32, tB32:
		return cmpLanes[uint32](in.cmp, a, b)
	case tS64:
		return cmpLanes[int64](in.cmp, a, b)
	case tU64, tB64:
		return cmpLanes[uint64](in.cmp, a, b)
	}
	return 0, false
}

func cmpLanes[T int32 | uint32 | int64 | uint64](cmp uint8, a, b *[32]uint64) (uint32, bool) {
	var r uint32
	switch cmp {
	case cmpEQ:
		for l := 0; l < 32; l++ {
			if T(a[l]) == T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpNE:
		for l := 0; l < 32; l++ {
			if T(a[l]) != T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpLT, cmpLO:
		for l := 0; l < 32; l++ {
			if T(a[l]) < T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpLE, cmpLS:
		for l := 0; l < 32; l++ {
			if T(a[l]) <= T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpGT, cmpHI:
		for l := 0; l < 32; l++ {
			if T(a[l]) > T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpGE, cmpHS:
		for l := 0; l < 32; l++ {
			if T(a[l]) >= T(b[l]) {
				r |= 1 << l
			}
		}
	default:
		return 0, false
	}
	return r, true
}
