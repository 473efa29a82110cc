package capture

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// mods is an opcode's modifiers, sorted into kinds.
type mods struct {
	types    []vtype
	space    string
	cache    format.CacheOp
	vec      int
	rnd      uint8
	rndInt   bool
	ftz, sat bool
	approx   bool
	cmp      int
	bop      uint8
	hi, lo   bool
	wide     bool
	uni      bool
	volatile bool
	nc       bool
	sync     bool
	other    []string
}

var cmpNames = map[string]uint8{
	".eq": cmpEQ, ".ne": cmpNE, ".lt": cmpLT, ".le": cmpLE, ".gt": cmpGT, ".ge": cmpGE,
	".lo": cmpLO, ".ls": cmpLS, ".hi": cmpHI, ".hs": cmpHS,
	".equ": cmpEQU, ".neu": cmpNEU, ".ltu": cmpLTU, ".leu": cmpLEU, ".gtu": cmpGTU, ".geu": cmpGEU,
	".num": cmpNUM, ".nan": cmpNAN,
}

var cacheNames = map[string]format.CacheOp{
	".ca": format.CacheCA, ".cg": format.CacheCG, ".cs": format.CacheCS, ".lu": format.CacheLU,
	".cv": format.CacheCV, ".wb": format.CacheWB, ".wt": format.CacheWT,
}

func parseMods(base string, parts []string) mods {
	m := mods{cmp: -1}
	for _, p := range parts {
		p = "." + p
		if t, ok := vtypeNames[p]; ok {
			m.types = append(m.types, t)
			continue
		}
		if c, ok := cmpNames[p]; ok && (base == "setp" || base == "set") {
			m.cmp = int(c)
			continue
		}
		if c, ok := cacheNames[p]; ok && (base == "ld" || base == "st" || base == "ldu") {
			m.cache = c
			continue
		}
		switch p {
		case ".global", ".shared", ".local", ".const", ".param":
			m.space = p
		case ".v2", ".v4":
			m.vec = int(p[2] - '0')
		case ".rn":
			m.rnd = rndN
		case ".rz":
			m.rnd = rndZ
		case ".rm":
			m.rnd = rndM
		case ".rp":
			m.rnd = rndP
		case ".rni", ".rzi", ".rmi", ".rpi":
			m.rndInt = true
			m.rnd = map[string]uint8{".rni": rndN, ".rzi": rndZ, ".rmi": rndM, ".rpi": rndP}[p]
		case ".ftz":
			m.ftz = true
		case ".sat":
			m.sat = true
		case ".approx", ".full":
			m.approx = true
		case ".hi":
			m.hi = true
		case ".lo":
			m.lo = true
		case ".wide":
			m.wide = true
		case ".uni":
			if base == "vote" { // vote.uni is a mode; bra/call/ret.uni a promise
				m.other = append(m.other, p)
			} else {
				m.uni = true
			}
		case ".volatile":
			m.volatile = true
		case ".nc":
			m.nc = true
		case ".sync":
			m.sync = true
		case ".aligned", ".relaxed", ".acquire", ".release", ".acq_rel", ".weak", ".sc", ".mmio",
			".cta", ".gpu", ".sys", ".cluster", ".L1::evict_last", ".L1::evict_first", ".L1::no_allocate",
			".L2::64B", ".L2::128B", ".L2::256B", ".L2::cache_hint":
			// memory-ordering semantics and scopes: capture is sequentially consistent
		case ".and", ".or", ".xor":
			if base == "setp" || base == "set" {
				m.bop = map[string]uint8{".and": bopAnd, ".or": bopOr, ".xor": bopXor}[p]
			} else {
				m.other = append(m.other, p)
			}
		default:
			m.other = append(m.other, p)
		}
	}
	return m
}

func (m *mods) typ(n int) vtype {
	if len(m.types) > n {
		return m.types[n]
	}
	return tNone
}

// decodeInst turns one instruction into its compact form and its program-table row.
func (k *Kernel) decodeInst(sc *scope, a *instAST, in *instr, row *format.Inst) error {
	err := k.decodeOp(sc, a, in, row)
	base, rest, _ := strings.Cut(a.opcode, ".")
	if err == errUnknownOp {
		return k.errAt(a.pos, "%s: unsupported instruction %s", a.text, base)
	}
	// An instruction on a type capture does not model is refused by the type's name,
	// whatever the opcode's own decoding made of it.
	for _, p := range strings.Split(rest, ".") {
		if unsupportedTypes["."+p] {
			return k.errAt(a.pos, "%s: unsupported type .%s on %s", a.text, p, base)
		}
	}
	return err
}

// errUnknownOp is decodeOp's answer for an opcode it has no case for.
var errUnknownOp = errors.New("capture: unknown opcode")

func (k *Kernel) decodeOp(sc *scope, a *instAST, in *instr, row *format.Inst) error {
	fail := func(format string, args ...any) error {
		return k.errAt(a.pos, "%s: %s", a.text, fmt.Sprintf(format, args...))
	}
	in.guard, in.dp, in.base = -1, -1, -1
	for i := range in.d {
		in.d[i], in.s[i] = -1, -1
	}
	if a.guard != "" {
		s, ok := sc.lookup(a.guard)
		if !ok || s.kind != symPred {
			return fail("guard %s is not a predicate register", a.guard)
		}
		in.guard, in.gneg = s.slot, a.gneg
	}
	parts := strings.Split(a.opcode, ".")
	base := parts[0]
	m := parseMods(base, parts[1:])
	if (base == "atom" || base == "red") && m.vec != 0 {
		return fail("unsupported modifier .v%d on %s (vector atomics)", m.vec, base)
	}
	row.Opcode = a.opcode
	row.Class = format.ClassALU

	r := &resolver{k: k, sc: sc, a: a, in: in, row: row}
	unknownMods := func(allowed ...string) error {
		for _, o := range m.other {
			ok := false
			for _, x := range allowed {
				if o == x {
					ok = true
				}
			}
			if !ok {
				return fail("unsupported modifier %s on %s", o, base)
			}
		}
		return nil
	}
	nops := func(n ...int) error {
		for _, x := range n {
			if len(a.ops) == x {
				return nil
			}
		}
		return fail("wrong number of operands (%d)", len(a.ops))
	}
	needType := func() (vtype, error) {
		if len(m.types) != 1 {
			return tNone, fail("want exactly one type modifier")
		}
		return m.types[0], nil
	}
	in.rnd = m.rnd
	if m.ftz {
		in.flags |= fFTZ
	}
	if m.sat {
		in.flags |= fSat
	}
	if m.approx {
		in.flags |= fApprox
	}

	// Simple lanewise ops: d, a[, b[, c]].
	lanewise := func(op opcode, nsrc int, class format.Class) error {
		if err := unknownMods(); err != nil {
			return err
		}
		if err := nops(nsrc + 1); err != nil {
			return err
		}
		t, err := needType()
		if err != nil {
			return err
		}
		if t == tPred {
			return fail("predicate type not allowed here")
		}
		in.op, in.t = op, t
		dt := t
		if op == opPopc || op == opClz || op == opBfind {
			dt = tU32 // a count or a bit position: .u32 whatever the source width (PTX ISA, popc, clz, bfind)
		}
		if err := r.dst(0, 0, dt); err != nil {
			return err
		}
		for i := 0; i < nsrc; i++ {
			st := t
			if (op == opShl || op == opShr) && i == 1 {
				st = tU32
			}
			if (op == opBfe) && i > 0 {
				st = tU32
			}
			if err := r.src(i, i+1, st); err != nil {
				return err
			}
		}
		row.Class = class
		if t == tF64 && class == format.ClassFP32 {
			row.Class = format.ClassFP64
		}
		return nil
	}
	fclass := func() format.Class {
		if len(m.types) == 1 && m.types[0].float() {
			if m.types[0] == tF64 {
				return format.ClassFP64
			}
			return format.ClassFP32
		}
		return format.ClassALU
	}

	switch base {
	case "mov":
		if err := unknownMods(); err != nil {
			return err
		}
		if err := nops(2); err != nil {
			return err
		}
		t, err := needType()
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
				return fail("bad unpack")
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
				return fail("bad pack")
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
	case "ld", "ldu", "st":
		return r.ldst(base, m)
	case "cvta":
		if err := unknownMods(".to"); err != nil {
			return err
		}
		if err := nops(2); err != nil {
			return err
		}
		t, err := needType()
		if err != nil {
			return err
		}
		if t.size() != 8 {
			return fail("only 64-bit cvta is supported")
		}
		in.op, in.t = opCvta, t
		in.space = spaceOf(m.space)
		if in.space == msNone || in.space == msParamK {
			return fail("cvta needs .global, .shared, .local or .const")
		}
		if len(m.other) == 1 { // cvta.to.SPACE: generic → space
			in.bop = 1
		}
		if err := r.dst(0, 0, t); err != nil {
			return err
		}
		return r.src(0, 1, t)
	case "cvt":
		if err := unknownMods(); err != nil {
			return err
		}
		if err := nops(2); err != nil {
			return err
		}
		if len(m.types) != 2 || m.types[0] == tPred || m.types[1] == tPred {
			return fail("cvt needs a destination and a source type")
		}
		in.op, in.t, in.t2 = opCvt, m.types[0], m.types[1]
		if m.rndInt {
			if in.t.float() && in.t2.float() {
				in.flags |= fRoundInt
			} else if !in.t2.float() {
				return fail("integer rounding needs a float source")
			}
		}
		if in.t2.float() && !in.t.float() && !m.rndInt {
			return fail("float-to-integer cvt needs .rni, .rzi, .rmi or .rpi")
		}
		row.Class = format.ClassConv
		if err := r.dst(0, 0, in.t); err != nil {
			return err
		}
		return r.src(0, 1, in.t2)
	case "setp":
		if err := unknownMods(); err != nil {
			return err
		}
		if err := nops(3, 4); err != nil {
			return err
		}
		t, err := needType()
		if err != nil || m.cmp < 0 {
			return fail("setp needs a comparison and a type")
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
				return fail("a fourth operand needs .and, .or or .xor")
			}
			in.flags |= fCmpBool
			return r.predSrc(2, a.ops[3])
		}
		if m.bop != bopNone {
			return fail(".and/.or/.xor needs a predicate operand")
		}
		return nil
	case "set":
		if err := unknownMods(); err != nil {
			return err
		}
		if len(m.types) != 2 || m.cmp < 0 {
			return fail("set needs a comparison, a destination type and a source type")
		}
		if err := nops(3, 4); err != nil {
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
	case "selp":
		if err := unknownMods(); err != nil {
			return err
		}
		if err := nops(4); err != nil {
			return err
		}
		t, err := needType()
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
		return r.predSrc(2, a.ops[3])
	case "slct":
		if err := unknownMods(); err != nil {
			return err
		}
		if len(m.types) != 2 || (m.types[1] != tS32 && m.types[1] != tF32) {
			return fail("slct needs a destination type and .s32 or .f32")
		}
		if err := nops(4); err != nil {
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
	case "and", "or", "xor", "not":
		if len(m.types) == 1 && m.types[0] == tPred {
			in.op, in.t = opPredLogic, tPred
			in.bop = map[string]uint8{"and": bopAnd, "or": bopOr, "xor": bopXor, "not": bopNot}[base]
			if base == "not" {
				if err := nops(2); err != nil {
					return err
				}
				return r.predLogic(1)
			}
			if err := nops(3); err != nil {
				return err
			}
			return r.predLogic(2)
		}
		op := map[string]opcode{"and": opAnd, "or": opOr, "xor": opXor, "not": opNot}[base]
		n := 2
		if base == "not" {
			n = 1
		}
		return lanewise(op, n, format.ClassALU)
	case "cnot":
		return lanewise(opCnot, 1, format.ClassALU)
	case "add", "sub":
		if err := unknownMods("cc"); err != nil {
			return err
		}
		if len(m.other) > 0 {
			return fail("carry arithmetic (.cc) is not supported")
		}
		op := opAdd
		if base == "sub" {
			op = opSub
		}
		return lanewise(op, 2, fclass())
	case "mul":
		t, err := needType()
		if err != nil {
			return err
		}
		if t.float() {
			return lanewise(opMulF, 2, fclass())
		}
		switch {
		case m.wide:
			if t.size() != 4 && t.size() != 2 {
				return fail("mul.wide needs a 16- or 32-bit type")
			}
			return lanewise(opMulWide, 2, format.ClassALU)
		case m.hi:
			return lanewise(opMulHi, 2, format.ClassALU)
		case m.lo:
			return lanewise(opMulLo, 2, format.ClassALU)
		}
		return fail("integer mul needs .lo, .hi or .wide")
	case "mad", "fma":
		t, err := needType()
		if err != nil {
			return err
		}
		if t.float() {
			return lanewise(opFma, 3, fclass())
		}
		if base == "fma" {
			return fail("fma needs a float type")
		}
		switch {
		case m.wide:
			if err := lanewise(opMadWide, 3, format.ClassALU); err != nil {
				return err
			}
			in.t = t
			return r.src(2, 3, sizeTypeSigned(t.size()*2, t.signed()))
		case m.hi:
			return lanewise(opMadHi, 3, format.ClassALU)
		case m.lo:
			return lanewise(opMadLo, 3, format.ClassALU)
		}
		return fail("integer mad needs .lo, .hi or .wide")
	case "mul24", "mad24":
		t, err := needType()
		if err != nil {
			return err
		}
		if t != tU32 && t != tS32 {
			return fail("%s needs .u32 or .s32", base)
		}
		switch {
		case base == "mul24" && m.hi:
			return lanewise(opMul24Hi, 2, format.ClassALU)
		case base == "mul24":
			return lanewise(opMul24Lo, 2, format.ClassALU)
		case m.lo:
			return lanewise(opMad24Lo, 3, format.ClassALU)
		}
		return fail("%s variant not supported", a.opcode)
	case "div":
		c := fclass()
		if c == format.ClassALU {
			c = format.ClassSFU
		}
		return lanewise(opDiv, 2, c)
	case "rem":
		return lanewise(opRem, 2, format.ClassALU)
	case "abs":
		return lanewise(opAbs, 1, fclass())
	case "neg":
		return lanewise(opNeg, 1, fclass())
	case "min", "max":
		// PTX ISA 8.x, "Floating Point Instructions: min/max": .NaN (sm_80) and
		// .xorsign.abs (sm_86) exist for .f32 only among the types capture emulates.
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
				if !strings.Contains(a.opcode, ".xorsign.abs") {
					return fail(".abs on %s needs .xorsign before it", base)
				}
			default:
				rest = append(rest, o)
			}
		}
		if in.flags&fXorSign != 0 && !strings.Contains(a.opcode, ".xorsign.abs") {
			return fail(".xorsign on %s needs .abs after it", base)
		}
		if in.flags&(fNaN|fXorSign) != 0 && (len(m.types) != 1 || m.types[0] != tF32) {
			return fail(".NaN and .xorsign.abs are supported on .f32 only")
		}
		m.other = rest
		return lanewise(op, 2, fclass())
	case "shl":
		return lanewise(opShl, 2, format.ClassALU)
	case "shr":
		return lanewise(opShr, 2, format.ClassALU)
	case "popc", "clz":
		op := opPopc
		if base == "clz" {
			op = opClz
		}
		return lanewise(op, 1, format.ClassALU)
	case "brev":
		return lanewise(opBrev, 1, format.ClassALU)
	case "bfind":
		// PTX ISA 8.x, "Integer Arithmetic Instructions: bfind": the position of the
		// most significant non-sign bit of a .u32/.s32/.u64/.s64, written as a .u32;
		// .shiftamt gives the left shift that brings it to bit 31 (63) instead. nvcc
		// makes __ffs from it (brev, then bfind.shiftamt).
		n := len(m.other)
		m.other = slices.DeleteFunc(m.other, func(o string) bool { return o == ".shiftamt" })
		if len(m.other) < n {
			in.flags |= fShiftAmt
		}
		if len(m.types) == 1 && !slices.Contains([]vtype{tU32, tS32, tU64, tS64}, m.types[0]) {
			return fail("bfind takes .u32, .s32, .u64 or .s64")
		}
		return lanewise(opBfind, 1, format.ClassALU)
	case "bfe":
		return lanewise(opBfe, 3, format.ClassALU)
	case "bfi":
		// bfi.b32 d, a, b, pos, len
		if err := nops(5); err != nil {
			return err
		}
		t, err := needType()
		if err != nil {
			return err
		}
		in.op, in.t = opBfi, t
		if a.ops[4].kind != oImm {
			return fail("bfi with a register length is not supported")
		}
		ln, err := literal(a.ops[4].imm.text, a.ops[4].ineg, tU32)
		if err != nil {
			return fail("bad length")
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
	case "prmt":
		if len(m.other) > 0 {
			return fail("prmt modes (%s) are not supported", strings.Join(m.other, ""))
		}
		return lanewise(opPrmt, 3, format.ClassALU)
	case "lop3":
		if err := nops(5); err != nil {
			return err
		}
		if a.ops[4].kind != oImm {
			return fail("lop3 needs an immediate LUT")
		}
		lut, err := literal(a.ops[4].imm.text, false, tU32)
		if err != nil {
			return fail("bad LUT")
		}
		in.imm = uint32(lut)
		a2 := *a
		a2.ops = a.ops[:4]
		a, r.a = &a2, &a2 // lanewise reads a: d, a, b, c without the LUT
		return lanewise(opLop3, 3, format.ClassALU)
	case "shf":
		var op opcode
		for _, o := range m.other {
			switch o {
			case ".l":
				op = opShfL
			case ".r":
				op = opShfR
			case ".clamp":
				in.flags |= fClampShf
			case ".wrap":
			default:
				return fail("unsupported modifier %s", o)
			}
		}
		if op == 0 {
			return fail("shf needs .l or .r")
		}
		m.other = nil
		return lanewise(op, 3, format.ClassALU)
	case "copysign":
		return lanewise(opCopysign, 2, fclass())
	case "rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh":
		op := map[string]opcode{"rcp": opRcp, "sqrt": opSqrt, "rsqrt": opRsqrt, "sin": opSin, "cos": opCos, "ex2": opEx2, "lg2": opLg2, "tanh": opTanh}[base]
		if err := lanewise(op, 1, format.ClassSFU); err != nil {
			return err
		}
		if in.t != tF32 && in.t != tF64 {
			return fail("%s needs .f32 or .f64", base)
		}
		if in.t == tF64 && op != opRcp && op != opSqrt && op != opRsqrt {
			return fail("%s.f64 is not supported", base)
		}
		return nil
	case "bra":
		if err := unknownMods(); err != nil {
			return err
		}
		if err := nops(1); err != nil {
			return err
		}
		in.op = opBra
		row.Class = format.ClassControl
		if m.uni {
			in.flags |= fUni
		}
		s, ok := sc.lookup(a.ops[0].name)
		if a.ops[0].kind != oName || !ok || s.kind != symLabel {
			return fail("branch target %s is not a label of this function", a.ops[0].name)
		}
		in.target = int32(s.addr)
		row.Target = uint32(s.addr) + 1
		return nil
	case "call":
		return r.call(m)
	case "ret":
		if err := unknownMods(); err != nil {
			return err
		}
		in.op = opRet
		row.Class = format.ClassControl
		if sc.fi == r.k.funcs[0] {
			in.op = opExit
		}
		return nops(0)
	case "exit":
		in.op = opExit
		row.Class = format.ClassControl
		return nops(0)
	case "trap", "brkpt":
		in.op = opTrap
		row.Class = format.ClassControl
		return nops(0)
	case "bar", "barrier":
		row.Class = format.ClassSync
		if len(m.other) == 1 && m.other[0] == ".warp" && m.sync {
			in.op = opBarWarp
			if err := nops(1); err != nil {
				return err
			}
			return r.src(0, 0, tU32)
		}
		if err := unknownMods(".cta"); err != nil {
			return err
		}
		if !m.sync && !(base == "barrier" && len(parts) == 1) && !(base == "bar" && len(parts) == 1) {
			return fail("only bar.sync / barrier.sync are supported")
		}
		in.op = opBar
		if err := nops(1, 2); err != nil {
			return err
		}
		if err := r.src(0, 0, tU32); err != nil {
			return err
		}
		if len(a.ops) == 2 {
			in.flags |= fHasDPred // reuse: thread count present
			return r.src(1, 1, tU32)
		}
		return nil
	case "membar", "fence":
		in.op = opNop
		row.Class = format.ClassSync
		if len(m.other) > 0 && !(len(m.other) == 1 && m.other[0] == ".gl") {
			if base == "fence" && strings.HasPrefix(m.other[0], ".proxy") {
				return nil
			}
			return fail("unsupported modifier %s", m.other[0])
		}
		return nops(0)
	case "prefetch", "prefetchu", "nanosleep", "pmevent":
		in.op = opNop
		row.Class = format.ClassOther
		return nil
	case "atom", "red":
		return r.atomic(base, m)
	case "shfl":
		return r.shfl(m)
	case "vote":
		return r.vote(m)
	case "activemask":
		if err := nops(1); err != nil {
			return err
		}
		in.op, in.t = opActivemask, tB32
		row.Class = format.ClassWarp
		return r.dst(0, 0, tB32)
	case "tex":
		return r.tex(m)
	}
	return errUnknownOp
}

func sizeType(n int) vtype {
	switch n {
	case 1:
		return tB8
	case 2:
		return tB16
	case 4:
		return tB32
	case 8:
		return tB64
	}
	return tNone
}

func sizeTypeSigned(n int, signed bool) vtype {
	if signed {
		switch n {
		case 4:
			return tS32
		case 8:
			return tS64
		}
	}
	switch n {
	case 4:
		return tU32
	case 8:
		return tU64
	}
	return tNone
}

func spaceOf(s string) mspace {
	switch s {
	case ".global":
		return msGlobal
	case ".shared":
		return msShared
	case ".local":
		return msLocal
	case ".const":
		return msConst
	case ".param":
		return msParamK
	case "":
		return msGeneric
	}
	return msNone
}

var formatSpace = [...]format.Space{
	msNone: format.SpaceNone, msGlobal: format.SpaceGlobal, msShared: format.SpaceShared,
	msLocal: format.SpaceLocal, msConst: format.SpaceConst, msParamK: format.SpaceParam,
	msParamF: format.SpaceParam, msGeneric: format.SpaceGeneric, msTex: format.SpaceTexture,
}

// resolver turns operands into slots and fills the program-table row's registers.
type resolver struct {
	k   *Kernel
	sc  *scope
	a   *instAST
	in  *instr
	row *format.Inst
}

func (r *resolver) fail(format string, args ...any) error {
	return r.k.errAt(r.a.pos, "%s: %s", r.a.text, fmt.Sprintf(format, args...))
}

const predIDBit = format.PredReg

func (r *resolver) read(slot int32)  { r.row.RegsRead = appendID(r.row.RegsRead, uint16(slot)) }
func (r *resolver) write(slot int32) { r.row.RegsWritten = appendID(r.row.RegsWritten, uint16(slot)) }

func appendID(l []uint16, id uint16) []uint16 {
	for _, x := range l {
		if x == id {
			return l
		}
	}
	return append(l, id)
}

// dst resolves operand i as destination register d[di].
func (r *resolver) dst(di, i int, t vtype) error {
	if i >= len(r.a.ops) {
		return r.fail("missing operand")
	}
	if err := r.dstOp(di, r.a.ops[i], t); err != nil {
		return err
	}
	if int(r.in.nd) < di+1 {
		r.in.nd = uint8(di + 1)
	}
	return nil
}

func (r *resolver) dstOp(di int, o operand, t vtype) error {
	if o.kind == oSink {
		r.in.d[di] = -1
		return nil
	}
	if o.kind != oName || o.neg {
		return r.fail("destination must be a register")
	}
	s, ok := r.sc.lookup(o.name)
	if !ok {
		return r.fail("undefined register %s", o.name)
	}
	if s.kind != symReg {
		return r.fail("destination %s is not a data register", o.name)
	}
	if s.typ.size() < t.size() && t != tPred {
		return r.fail("register %s (.%s) is narrower than .%s", o.name, s.typ, t)
	}
	r.in.d[di] = s.slot
	r.write(s.slot)
	return nil
}

func (r *resolver) src(si, i int, t vtype) error {
	if i >= len(r.a.ops) {
		return r.fail("missing operand")
	}
	if err := r.srcOp(si, r.a.ops[i], t); err != nil {
		return err
	}
	if int(r.in.ns) < si+1 {
		r.in.ns = uint8(si + 1)
	}
	return nil
}

func (r *resolver) srcOp(si int, o operand, t vtype) error {
	slot, err := r.value(o, t)
	if err != nil {
		return err
	}
	r.in.s[si] = slot
	return nil
}

// value resolves a source operand to a slot: a register, a special register, an
// immediate or the address of a variable.
func (r *resolver) value(o operand, t vtype) (int32, error) {
	switch o.kind {
	case oImm:
		v, err := literal(o.imm.text, o.ineg, t)
		if err != nil {
			return 0, r.fail("bad literal %s", o.imm.text)
		}
		return r.k.imm(v & maskFor(t)), nil
	case oName:
		if o.neg {
			return 0, r.fail("negation is only allowed on predicates")
		}
		if sp, ok := specialNames[o.name]; ok {
			return int32(sp), nil
		}
		if o.name == "WARP_SZ" { // nvcc's predefined warp-size constant
			return r.k.imm(32), nil
		}
		if strings.HasPrefix(o.name, "%") && !strings.Contains(o.name[1:], "%") {
			if _, ok := r.sc.lookup(o.name); !ok {
				if o.name == "%dynamic_smem_size" {
					return r.k.imm(uint64(r.k.spec.DynShared)), nil
				}
				if strings.Contains(o.name, "clock") || strings.HasPrefix(o.name, "%envreg") || strings.HasPrefix(o.name, "%pm") || strings.HasPrefix(o.name, "%globaltimer") {
					return 0, r.fail("special register %s is not supported (its value depends on timing)", o.name)
				}
				for _, p := range []string{"%total_smem_size", "%aggr_smem_size", "%reserved_smem_offset", "%cluster", "%ncluster", "%is_explicit_cluster", "%current_graph_exec"} {
					if strings.HasPrefix(o.name, p) {
						return 0, r.fail("special register %s is not supported", o.name)
					}
				}
			}
		}
		s, ok := r.sc.lookup(o.name)
		if !ok {
			return 0, r.fail("undefined name %s", o.name)
		}
		switch s.kind {
		case symReg:
			r.read(s.slot)
			if o.off != 0 {
				return 0, r.fail("register%+d is not an operand", o.off)
			}
			return s.slot, nil
		case symVar:
			if s.space == msParamF {
				return 0, r.fail("the address of a .func parameter is not supported")
			}
			return r.k.imm(uint64(s.addr + o.off)), nil
		case symPred:
			return 0, r.fail("predicate %s used as a value", o.name)
		}
		return 0, r.fail("%s is not a value", o.name)
	}
	return 0, r.fail("unsupported operand")
}

func maskFor(t vtype) uint64 {
	if t == tNone || t == tPred {
		return ^uint64(0)
	}
	return t.mask()
}

func (r *resolver) predDst(di int, o operand) error {
	if o.kind == oSink {
		r.in.d[di] = -1
		r.in.nd = uint8(di + 1)
		return nil
	}
	s, ok := r.sc.lookup(o.name)
	if o.kind != oName || !ok || s.kind != symPred {
		return r.fail("%s is not a predicate register", o.name)
	}
	r.in.d[di] = s.slot
	r.in.nd = uint8(di + 1)
	r.write(s.slot | predIDBit)
	return nil
}

func (r *resolver) predDstP(o operand) error {
	if o.kind == oSink {
		return nil
	}
	s, ok := r.sc.lookup(o.name)
	if o.kind != oName || !ok || s.kind != symPred {
		return r.fail("%s is not a predicate register", o.name)
	}
	r.in.dp = s.slot
	r.in.flags |= fHasDPred
	r.write(s.slot | predIDBit)
	return nil
}

func (r *resolver) predSrc(si int, o operand) error {
	if o.kind == oImm { // constant predicate: mov.pred %p, 0 (nvcc)
		v, err := literal(o.imm.text, o.ineg, tU32)
		if err != nil {
			return r.fail("bad predicate constant %s", o.imm.text)
		}
		r.in.s[si] = r.k.constPred(v != 0)
		if int(r.in.ns) < si+1 {
			r.in.ns = uint8(si + 1)
		}
		return nil
	}
	s, ok := r.sc.lookup(o.name)
	if o.kind != oName || !ok || s.kind != symPred {
		return r.fail("%s is not a predicate register", o.name)
	}
	r.in.s[si] = s.slot
	if o.neg {
		r.in.sneg |= 1 << si
	}
	if int(r.in.ns) < si+1 {
		r.in.ns = uint8(si + 1)
	}
	r.read(s.slot | predIDBit)
	return nil
}

// predLogic: and/or/xor/not/mov on predicates: d, a[, b].
func (r *resolver) predLogic(nsrc int) error {
	if err := r.predDst(0, r.a.ops[0]); err != nil {
		return err
	}
	for i := 0; i < nsrc; i++ {
		if err := r.predSrc(i, r.a.ops[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// address resolves [base+off] for an access in space sp (msGeneric when unqualified).
func (r *resolver) address(o operand, sp mspace) (mspace, error) {
	if o.kind != oAddr {
		return sp, r.fail("expected an address operand")
	}
	r.in.off = o.off
	if o.name == "" {
		return sp, nil
	}
	s, ok := r.sc.lookup(o.name)
	if !ok {
		return sp, r.fail("undefined name %s", o.name)
	}
	switch s.kind {
	case symReg:
		if s.typ.size() != 8 && s.typ.size() != 4 {
			return sp, r.fail("address register %s must be 32 or 64 bits", o.name)
		}
		r.in.base = s.slot
		r.read(s.slot)
		if sp == msParamK && r.sc.fi != r.k.funcs[0] {
			return sp, r.fail("ld.param through a register inside a .func is not supported")
		}
		return sp, nil
	case symVar:
		r.in.off += s.addr
		switch {
		case sp == msGeneric:
			// [sym] in a generic access: the variable's generic address.
			switch s.space {
			case msShared:
				r.in.off += int64(SharedWindow)
			case msLocal:
				r.in.off += int64(LocalWindow)
			case msConst:
				r.in.off += int64(ConstWindow)
			case msGlobal:
			default:
				return sp, r.fail("%s cannot be accessed through a generic address", o.name)
			}
			return sp, nil
		case sp == msParamK && s.space == msParamF:
			return msParamF, nil
		case sp != s.space:
			return sp, r.fail("%s is not in the %s state space", o.name, spaceName(sp))
		}
		return sp, nil
	}
	return sp, r.fail("%s is not an address", o.name)
}

func spaceName(s mspace) string {
	return formatSpace[s].String()
}

func (r *resolver) ldst(base string, m mods) error {
	in, a := r.in, r.a
	if len(m.other) > 0 {
		return r.fail("unsupported modifier %s", m.other[0])
	}
	if len(a.ops) != 2 {
		return r.fail("wrong number of operands")
	}
	if len(m.types) != 1 || m.types[0] == tPred {
		return r.fail("want one data type")
	}
	t := m.types[0]
	sp := spaceOf(m.space)
	if sp == msNone {
		return r.fail("unsupported state space %s", m.space)
	}
	vec := 1
	if m.vec > 0 {
		vec = m.vec
	}
	in.t, in.vec, in.width = t, uint8(vec), uint8(vec*t.size())
	r.row.Class = format.ClassMem
	r.row.Width = in.width
	r.row.CacheOp = m.cache
	if m.nc {
		if sp != msGlobal {
			return r.fail(".nc needs .global")
		}
		r.row.CacheOp = format.CacheNC
		in.flags |= fNC
	}
	if m.volatile {
		r.row.CacheOp = format.CacheVolatile
		in.flags |= fVolatile
	}
	ai, di := 1, 0
	if base == "st" {
		in.op, ai, di = opSt, 0, 1
		r.row.MemOp = format.MemStore
	} else {
		in.op = opLd
		r.row.MemOp = format.MemLoad
	}
	sp, err := r.address(a.ops[ai], sp)
	if err != nil {
		return err
	}
	in.space = sp
	r.row.Space = formatSpace[sp]
	data := a.ops[di]
	elems := []operand{data}
	if vec > 1 {
		if data.kind != oVec || len(data.elems) != vec {
			return r.fail("want a {…} vector of %d registers", vec)
		}
		elems = data.elems
	} else if data.kind == oVec {
		return r.fail("vector operand without .v2/.v4")
	}
	for i, e := range elems {
		if base == "st" {
			if err := r.srcOp(i, e, t); err != nil {
				return err
			}
			in.ns = uint8(i + 1)
		} else {
			if err := r.dstOp(i, e, t); err != nil {
				return err
			}
			in.nd = uint8(i + 1)
		}
	}
	// A load of a sub-word type extends to the destination register's width.
	if base != "st" {
		in.t2 = t
		if e := elems[0]; e.kind == oName {
			if s, ok := r.sc.lookup(e.name); ok && s.kind == symReg {
				in.t2 = s.typ
			}
		}
	}
	return nil
}

func (r *resolver) atomic(base string, m mods) error {
	in, a := r.in, r.a
	ops := map[string]uint8{".add": atomAdd, ".min": atomMin, ".max": atomMax, ".exch": atomExch, ".cas": atomCAS,
		".and": atomAnd, ".or": atomOr, ".xor": atomXor, ".inc": atomInc, ".dec": atomDec}
	found := false
	for _, o := range m.other {
		v, ok := ops[o]
		if !ok || found {
			return r.fail("unsupported modifier %s", o)
		}
		in.bop, found = v, true
	}
	if !found {
		return r.fail("%s needs an operation", base)
	}
	if len(m.types) != 1 {
		return r.fail("want one type")
	}
	t := m.types[0]
	if t.size() != 4 && t.size() != 8 || t == tPred {
		return r.fail("only 32- and 64-bit atomics are supported")
	}
	if t.float() && in.bop != atomAdd && in.bop != atomExch && in.bop != atomMin && in.bop != atomMax {
		return r.fail("float %s is not supported", base)
	}
	if (in.bop == atomInc || in.bop == atomDec) && t != tU32 {
		return r.fail("inc/dec need .u32")
	}
	sp := spaceOf(m.space)
	if sp != msGlobal && sp != msShared && sp != msGeneric {
		return r.fail("atomics need .global, .shared or a generic address")
	}
	in.t, in.width, in.vec = t, uint8(t.size()), 1
	r.row.Class, r.row.Width = format.ClassMem, in.width
	nsrc := 1
	if in.bop == atomCAS {
		nsrc = 2
	}
	first := 0
	if base == "atom" {
		in.op = opAtom
		r.row.MemOp = format.MemAtomic
		if err := r.dst(0, 0, t); err != nil {
			return err
		}
		first = 1
	} else {
		in.op = opRed
		r.row.MemOp = format.MemReduce
	}
	if len(a.ops) != first+1+nsrc {
		return r.fail("wrong number of operands")
	}
	sp, err := r.address(a.ops[first], sp)
	if err != nil {
		return err
	}
	in.space = sp
	r.row.Space = formatSpace[sp]
	for i := 0; i < nsrc; i++ {
		if err := r.src(i, first+1+i, t); err != nil {
			return err
		}
	}
	return nil
}

func (r *resolver) shfl(m mods) error {
	in, a := r.in, r.a
	modes := map[string]uint8{".up": shflUp, ".down": shflDown, ".bfly": shflBfly, ".idx": shflIdx}
	if len(m.other) != 1 {
		return r.fail("shfl needs one of .up .down .bfly .idx")
	}
	mode, ok := modes[m.other[0]]
	if !ok {
		return r.fail("unsupported shfl mode %s", m.other[0])
	}
	if len(m.types) != 1 || m.types[0].size() != 4 {
		return r.fail("shfl needs .b32")
	}
	in.op, in.bop, in.t = opShfl, mode, tB32
	r.row.Class = format.ClassWarp
	want := 4
	if m.sync {
		want = 5
	}
	if len(a.ops) != want {
		return r.fail("wrong number of operands")
	}
	d := a.ops[0]
	if d.kind == oPair {
		if err := r.dstOp(0, d.elems[0], tB32); err != nil {
			return err
		}
		if err := r.predDstP(d.elems[1]); err != nil {
			return err
		}
	} else if err := r.dstOp(0, d, tB32); err != nil {
		return err
	}
	in.nd = 1
	for i := 1; i < want; i++ {
		if err := r.src(i-1, i, tB32); err != nil {
			return err
		}
	}
	if !m.sync {
		in.s[3] = r.k.imm(0xffffffff)
		in.ns = 4
	}
	return nil
}

func (r *resolver) vote(m mods) error {
	in, a := r.in, r.a
	modes := map[string]uint8{".all": voteAll, ".any": voteAny, ".uni": voteUni, ".ballot": voteBallot}
	if len(m.other) != 1 {
		return r.fail("vote needs one of .all .any .uni .ballot")
	}
	mode, ok := modes[m.other[0]]
	if !ok {
		return r.fail("unsupported vote mode %s", m.other[0])
	}
	in.op, in.bop = opVote, mode
	r.row.Class = format.ClassWarp
	want := 2
	if m.sync {
		want = 3
	}
	if len(a.ops) != want {
		return r.fail("wrong number of operands")
	}
	if mode == voteBallot {
		if err := r.dst(0, 0, tB32); err != nil {
			return err
		}
	} else if err := r.predDst(0, a.ops[0]); err != nil {
		return err
	}
	if err := r.predSrc(0, a.ops[1]); err != nil {
		return err
	}
	if m.sync {
		if err := r.src(1, 2, tB32); err != nil {
			return err
		}
	} else {
		in.s[1] = r.k.imm(0xffffffff)
		in.ns = 2
	}
	return nil
}

func (r *resolver) tex(m mods) error {
	in, a := r.in, r.a
	if len(m.other) != 1 || m.other[0] != ".2d" {
		return r.fail("only tex.2d is supported")
	}
	if m.vec != 4 || len(m.types) != 2 {
		return r.fail("want tex.2d.v4.DTYPE.CTYPE")
	}
	dt, ct := m.types[0], m.types[1]
	if dt != tF32 && dt != tS32 && dt != tU32 {
		return r.fail("texture result type must be .f32, .s32 or .u32")
	}
	if ct != tF32 && ct != tS32 {
		return r.fail("texture coordinates must be .f32 or .s32")
	}
	in.op, in.t, in.t2, in.vec, in.space = opTex, dt, ct, 4, msTex
	in.width = 4
	r.row.Class, r.row.MemOp, r.row.Space, r.row.Width = format.ClassMem, format.MemTex, format.SpaceTexture, 4
	if len(a.ops) != 2 || a.ops[0].kind != oVec || len(a.ops[0].elems) != 4 {
		return r.fail("want {d0, d1, d2, d3}, [tex, {x, y}]")
	}
	for i, e := range a.ops[0].elems {
		if err := r.dstOp(i, e, dt); err != nil {
			return err
		}
	}
	in.nd = 4
	ad := a.ops[1]
	if ad.kind != oAddr || ad.name == "" || len(ad.elems) != 1 || ad.elems[0].kind != oVec || len(ad.elems[0].elems) != 2 || ad.off != 0 {
		return r.fail("want [tex, {x, y}]")
	}
	s, ok := r.sc.lookup(ad.name)
	if !ok || s.kind != symReg || s.typ.size() != 8 {
		return r.fail("texture operand %s must be a 64-bit register holding a texture object", ad.name)
	}
	r.read(s.slot)
	in.base = s.slot
	for i, e := range ad.elems[0].elems {
		if err := r.srcOp(i, e, ct); err != nil {
			return err
		}
	}
	in.ns = 2
	return nil
}

func (r *resolver) call(m mods) error {
	in, a := r.in, r.a
	if len(m.other) > 0 {
		return r.fail("unsupported modifier %s", m.other[0])
	}
	in.op = opCall
	r.row.Class = format.ClassControl
	if m.uni {
		in.flags |= fUni
	}
	ops := a.ops
	var retOps, argOps []operand
	if len(ops) > 0 && ops[0].kind == oParen {
		retOps = ops[0].elems
		ops = ops[1:]
	}
	if len(ops) == 0 || ops[0].kind != oName {
		return r.fail("call needs a function name")
	}
	name := ops[0].name
	ops = ops[1:]
	if len(ops) > 0 {
		if ops[0].kind != oParen {
			return r.fail("indirect calls and call prototypes are not supported")
		}
		argOps = ops[0].elems
		ops = ops[1:]
	}
	if len(ops) > 0 {
		return r.fail("indirect calls and call prototypes are not supported")
	}
	fidx := -1
	for i, fi := range r.k.funcs {
		if fi.f.name == name {
			fidx = i
		}
	}
	if fidx < 0 {
		return r.fail("call to unknown function %s", name)
	}
	callee := r.k.funcs[fidx]
	in.target = int32(fidx)
	if len(argOps) != len(callee.f.params) || len(retOps) != len(callee.f.rets) {
		return r.fail("call to %s passes %d arguments and %d results; it takes %d and %d", name, len(argOps), len(retOps), len(callee.f.params), len(callee.f.rets))
	}
	// Callee parameters may be laid out after this function is decoded: resolve the
	// copies once every function is decoded (see bindArgs).
	for i, o := range argOps {
		s, ok := r.sc.lookup(o.name)
		if o.kind != oName || !ok || s.kind != symVar || s.space != msParamF {
			return r.fail("call argument %s must be a .param variable", o.name)
		}
		in.copies = append(in.copies, paramCopy{from: int32(s.addr), to: int32(-1 - i), size: int32(s.size)})
	}
	for i, o := range retOps {
		s, ok := r.sc.lookup(o.name)
		if o.kind != oName || !ok || s.kind != symVar || s.space != msParamF {
			return r.fail("call result %s must be a .param variable", o.name)
		}
		in.rcopies = append(in.rcopies, paramCopy{from: int32(-1 - i), to: int32(s.addr), size: int32(s.size)})
	}
	return nil
}
