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

// modKinds are the modifiers an opcode's rule reads as its own; any other opcode
// keeps them in mods.other, where its rule refuses them by name.
type modKinds uint8

const (
	modCompare modKinds = 1 << iota // .eq … .nan, and .and/.or/.xor combining a predicate (setp, set)
	modCache                        // .ca .cg .cs .lu .cv .wb .wt (ld, ldu, st)
	modUniMode                      // .uni is the opcode's mode (vote), not a promise (bra.uni)
)

func parseMods(kinds modKinds, parts []string) mods {
	m := mods{cmp: -1}
	for _, p := range parts {
		p = "." + p
		if t, ok := vtypeNames[p]; ok {
			m.types = append(m.types, t)
			continue
		}
		if c, ok := cmpNames[p]; ok && kinds&modCompare != 0 {
			m.cmp = int(c)
			continue
		}
		if c, ok := cacheNames[p]; ok && kinds&modCache != 0 {
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
			if kinds&modUniMode != 0 {
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
			if kinds&modCompare != 0 {
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

// halfType is the first half-precision type among the modifiers.
func (m *mods) halfType() (vtype, bool) {
	for _, t := range m.types {
		if t.half() {
			return t, true
		}
	}
	return tNone, false
}

// take removes the modifier o from those no kind claimed and says whether it was there.
func (m *mods) take(o string) bool {
	i := slices.Index(m.other, o)
	if i >= 0 {
		m.other = slices.Delete(m.other, i, i+1)
	}
	return i >= 0
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
		if only, ok := unsupportedTypes["."+p]; ok && !slices.Contains(only, base) {
			return k.errAt(a.pos, "%s: unsupported type .%s on %s", a.text, p, base)
		}
	}
	return err
}

// errUnknownOp is decodeOp's answer for an opcode no rule names.
var errUnknownOp = errors.New("capture: unknown opcode")

// decodeOp resolves the guard and the modifiers every opcode shares, then hands the
// instruction to its opcode's rule (opcodes.go).
func (k *Kernel) decodeOp(sc *scope, a *instAST, in *instr, row *format.Inst) error {
	r := &resolver{k: k, sc: sc, a: a, in: in, row: row}
	in.guard, in.dp, in.base = -1, -1, -1
	in.amask = ^uint64(0)
	for i := range in.d {
		in.d[i], in.s[i] = -1, -1
	}
	if a.guard != "" {
		s, ok := sc.lookup(a.guard)
		if !ok || s.kind != symPred {
			return r.fail("guard %s is not a predicate register", a.guard)
		}
		in.guard, in.gneg = s.slot, a.gneg
	}
	r.parts = strings.Split(a.opcode, ".")
	r.base = r.parts[0]
	rule := opRules[r.base]
	if rule == nil {
		return errUnknownOp
	}
	r.m = parseMods(rule.mods, r.parts[1:])
	if t, ok := r.m.halfType(); ok && !rule.halfOwn {
		if rule = halfRules[r.base]; rule == nil {
			return r.fail("unsupported type .%s on %s", t, r.base)
		}
		r.m = parseMods(rule.mods, r.parts[1:])
	}
	row.Opcode = a.opcode
	row.Class = format.ClassALU
	in.rnd = r.m.rnd
	if r.m.ftz {
		in.flags |= fFTZ
	}
	if r.m.sat {
		in.flags |= fSat
	}
	if r.m.approx {
		in.flags |= fApprox
	}
	return rule.decode(r)
}

// unknownMods refuses any modifier no kind claimed, but those allowed.
func (r *resolver) unknownMods(allowed ...string) error {
	for _, o := range r.m.other {
		if !slices.Contains(allowed, o) {
			return r.fail("unsupported modifier %s on %s", o, r.base)
		}
	}
	return nil
}

// nops refuses an operand count other than those given.
func (r *resolver) nops(n ...int) error {
	if slices.Contains(n, len(r.a.ops)) {
		return nil
	}
	return r.fail("wrong number of operands (%d)", len(r.a.ops))
}

// typed checks the common form of an instruction: no modifier but those allowed, one
// of the operand counts n, and exactly one type modifier, which it returns.
func (r *resolver) typed(allowed []string, n ...int) (vtype, error) {
	if err := r.unknownMods(allowed...); err != nil {
		return tNone, err
	}
	if err := r.nops(n...); err != nil {
		return tNone, err
	}
	return r.needType()
}

// needType is the instruction's one type modifier.
func (r *resolver) needType() (vtype, error) {
	if len(r.m.types) != 1 {
		return tNone, r.fail("want exactly one type modifier")
	}
	return r.m.types[0], nil
}

// lanewise decodes the simple lanewise form d, a[, b[, c]], every operand of the
// instruction's one type, executed one lane at a time through lane (runLanes; the
// decoder may then pick a loop over a full warp).
func (r *resolver) lanewise(lane laneFunc, nsrc int, class format.Class) error {
	return r.lanewiseU32(lane, nsrc, class, false, nsrc)
}

// lanewiseU32 is lanewise with some operands .u32 whatever the instruction's type: the
// destination if dstU32 (a count or a bit position: popc, clz, bfind), and the sources
// from u32From on (a shift count; bfe's position and length) (PTX ISA 8.x).
func (r *resolver) lanewiseU32(lane laneFunc, nsrc int, class format.Class, dstU32 bool, u32From int) error {
	t, err := r.typed(nil, nsrc+1)
	if err != nil {
		return err
	}
	if t == tPred {
		return r.fail("predicate type not allowed here")
	}
	r.in.op, r.in.t, r.in.run, r.in.lane = opCompute, t, runLanes, lane
	dt := t
	if dstU32 {
		dt = tU32
	}
	if err := r.dst(0, 0, dt); err != nil {
		return err
	}
	for i := 0; i < nsrc; i++ {
		st := t
		if i >= u32From {
			st = tU32
		}
		if err := r.src(i, i+1, st); err != nil {
			return err
		}
	}
	r.row.Class = class
	if t == tF64 && class == format.ClassFP32 {
		r.row.Class = format.ClassFP64
	}
	return nil
}

// fclass is the pipe of an opcode that takes integers and floats alike.
func (r *resolver) fclass() format.Class {
	if len(r.m.types) == 1 && r.m.types[0].float() {
		if r.m.types[0] == tF64 {
			return format.ClassFP64
		}
		return format.ClassFP32
	}
	return format.ClassALU
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

	parts []string // the opcode split at its dots: the base name, then the modifiers
	base  string   // parts[0]
	m     mods     // parts[1:] sorted into kinds
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
		if t.half() && !isIntLiteral(o.imm.text) {
			return 0, r.fail("a float literal (%s) as a .%s operand is not supported: give the value's bits as an integer (0x3c00 is 1.0 in .f16)", o.imm.text, t)
		}
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
				if strings.HasPrefix(o.name, "%clock") {
					return 0, r.fail("special register %s is read only by mov (mov.u64 %%rd1, %s)", o.name, o.name)
				}
				if strings.HasPrefix(o.name, "%envreg") || strings.HasPrefix(o.name, "%pm") || strings.HasPrefix(o.name, "%globaltimer") {
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
		case symTexRef:
			// The reference's handle (mov.u64 %rd, TEXREF; clang's tex1Dfetch).
			if t.size() != 8 || o.off != 0 {
				return 0, r.fail("texture reference %s is a 64-bit handle; read it as one (mov.u64 %%rd1, %s)", o.name, o.name)
			}
			return r.k.imm(texRefHandles + uint64(r.k.texRef(o.name))), nil
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
		if s.typ.size() == 4 {
			r.in.amask = 1<<32 - 1
		}
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
