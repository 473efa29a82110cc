package capture

import (
	"math/bits"
	"slices"

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
		doc: "b32 b64 (position and length .u32)"},
	{names: []string{"szext"}, decode: decodeSzext,
		doc: "u32 s32, .clamp .wrap"},
	{names: []string{"bmsk"}, decode: decodeBmsk,
		doc: "b32, .clamp .wrap"},
	{names: []string{"fns"}, decode: decodeFns,
		doc: "b32 (offset .s32)"},
	{names: []string{"prmt"}, decode: decodePrmt,
		doc: "b32: the default mode, .f4e .b4e .rc8 .ecl .ecr .rc16"},
	{names: []string{"lop3"}, decode: decodeLop3,
		doc: "b32, immediate LUT"},
	{names: []string{"shf"}, decode: decodeShf,
		doc: "b32 .l .r, .wrap .clamp"},
}}

// logicOps is what and, or, xor and not are on predicates and on values.
var logicOps = map[string]struct {
	bop  uint8
	lane laneFunc
}{"and": {bopAnd, laneAnd}, "or": {bopOr, laneOr}, "xor": {bopXor, laneXor}, "not": {bopNot, laneNot}}

func decodeLogic(r *resolver) error {
	in, op := r.in, logicOps[r.base]
	nsrc := 2
	if r.base == "not" {
		nsrc = 1
	}
	if len(r.m.types) == 1 && r.m.types[0] == tPred {
		in.op, in.t, in.run, in.bop = opCompute, tPred, runPredLogic, op.bop
		in.flags |= fSinkOK
		if err := r.nops(nsrc + 1); err != nil {
			return err
		}
		return r.predLogic(nsrc)
	}
	if err := r.lanewise(op.lane, nsrc, format.ClassALU); err != nil {
		return err
	}
	if r.base == "and" {
		in.run = runAnd
	}
	return nil
}

func decodeCnot(r *resolver) error {
	return r.lanewise(laneCnot, 1, format.ClassALU)
}

func decodeShift(r *resolver) error {
	lane := laneShl
	if r.base == "shr" {
		lane = laneShr
	}
	// The count is a .u32 whatever the shifted type (PTX ISA, shl, shr).
	if err := r.lanewiseU32(lane, 2, format.ClassALU, false, 1); err != nil {
		return err
	}
	switch in := r.in; {
	case r.base == "shl" && in.t.size() == 4:
		in.run = runShl32
	case r.base == "shr" && in.t == tU32:
		in.run = runShrU32
	}
	return nil
}

func decodeCount(r *resolver) error {
	lane := lanePopc
	if r.base == "clz" {
		lane = laneClz
	}
	return r.lanewiseU32(lane, 1, format.ClassALU, true, 1)
}

func decodeBrev(r *resolver) error {
	return r.lanewise(laneBrev, 1, format.ClassALU)
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
	return r.lanewiseU32(laneBfind, 1, format.ClassALU, true, 1)
}

func decodeBfe(r *resolver) error {
	return r.lanewiseU32(laneBfe, 3, format.ClassALU, false, 1) // position and length are .u32
}

// decodeBfi: bfi.b32 d, a, b, pos, len (position and length .u32, PTX ISA 8.x).
func decodeBfi(r *resolver) error {
	t, err := r.typed(nil, 5)
	if err != nil {
		return err
	}
	if t != tB32 && t != tB64 {
		return r.fail("bfi takes .b32 or .b64")
	}
	r.in.op, r.in.t, r.in.run, r.in.lane = opCompute, t, runBfi, nil
	r.row.Class = format.ClassALU
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		st := t
		if i >= 2 {
			st = tU32
		}
		if err := r.src(i, i+1, st); err != nil {
			return err
		}
	}
	return nil
}

// clampMode reads szext's and bmsk's one mode, .clamp or .wrap, into fClamp.
func (r *resolver) clampMode() error {
	m := &r.m
	if len(m.other) != 1 || (m.other[0] != ".clamp" && m.other[0] != ".wrap") {
		return r.fail("%s needs .clamp or .wrap", r.base)
	}
	if m.other[0] == ".clamp" {
		r.in.flags |= fClamp
	}
	m.other = nil
	return nil
}

func decodeSzext(r *resolver) error {
	if err := r.clampMode(); err != nil {
		return err
	}
	if len(r.m.types) == 1 && r.m.types[0] != tU32 && r.m.types[0] != tS32 {
		return r.fail("szext takes .u32 or .s32")
	}
	return r.lanewiseU32(laneSzext, 2, format.ClassALU, false, 1)
}

func decodeBmsk(r *resolver) error {
	if err := r.clampMode(); err != nil {
		return err
	}
	if len(r.m.types) == 1 && r.m.types[0] != tB32 {
		return r.fail("bmsk takes .b32")
	}
	return r.lanewiseU32(laneBmsk, 2, format.ClassALU, false, 0)
}

func decodeFns(r *resolver) error {
	if len(r.m.types) == 1 && r.m.types[0] != tB32 {
		return r.fail("fns takes .b32")
	}
	return r.lanewise(laneFns, 3, format.ClassALU)
}

// prmtModes are prmt's modes other than the default (PTX ISA 8.x, prmt).
var prmtModes = map[string]uint8{".f4e": prmtF4E, ".b4e": prmtB4E, ".rc8": prmtRC8, ".ecl": prmtECL, ".ecr": prmtECR, ".rc16": prmtRC16}

func decodePrmt(r *resolver) error {
	if len(r.m.other) > 0 {
		mode, err := r.mode(prmtModes, ".f4e .b4e .rc8 .ecl .ecr .rc16")
		if err != nil {
			return err
		}
		r.in.bop = mode
		r.m.other = nil
	}
	return r.lanewise(lanePrmt, 3, format.ClassALU)
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
	return r.lanewise(laneLop3, 3, format.ClassALU)
}

func decodeShf(r *resolver) error {
	var lane laneFunc
	for _, o := range r.m.other {
		switch o {
		case ".l":
			lane = laneShfL
		case ".r":
			lane = laneShfR
		case ".clamp":
			r.in.flags |= fClamp
		case ".wrap":
		default:
			return r.fail("unsupported modifier %s", o)
		}
	}
	if lane == nil {
		return r.fail("shf needs .l or .r")
	}
	r.m.other = nil
	return r.lanewise(lane, 3, format.ClassALU)
}

// Execution: one lane function per opcode (alu.go's runLanes calls it), and loops over
// a full warp for the commonest forms.

func laneAnd(_ *instr, a, b, _ uint64) uint64  { return a & b }
func laneOr(_ *instr, a, b, _ uint64) uint64   { return a | b }
func laneXor(_ *instr, a, b, _ uint64) uint64  { return a ^ b }
func laneNot(in *instr, a, _, _ uint64) uint64 { return ^a & in.t.mask() }

func laneCnot(in *instr, a, _, _ uint64) uint64 {
	if a&in.t.mask() == 0 {
		return 1
	}
	return 0
}

func laneShl(in *instr, a, b, _ uint64) uint64 {
	if uint32(b) >= uint32(in.t.bits()) {
		return 0
	}
	return (a << uint32(b)) & in.t.mask()
}

func laneShr(in *instr, a, b, _ uint64) uint64 {
	t, n := in.t, uint32(b)
	if t.signed() {
		if n >= uint32(t.bits()) {
			n = uint32(t.bits()) - 1
		}
		return uint64(int64(t.ext(a))>>n) & t.mask()
	}
	if n >= uint32(t.bits()) {
		return 0
	}
	return a >> n
}

func lanePopc(in *instr, a, _, _ uint64) uint64 {
	return uint64(bits.OnesCount64(a & in.t.mask()))
}

func laneClz(in *instr, a, _, _ uint64) uint64 {
	return uint64(bits.LeadingZeros64(a&in.t.mask()) - (64 - int(in.t.bits())))
}

// laneBfind is the most significant bit that differs from the sign (signed types: of
// the complement of a negative value), 0xffffffff when there is none.
func laneBfind(in *instr, a, _, _ uint64) uint64 {
	t := in.t
	msb := t.bits() - 1
	x := a & t.mask()
	if t.signed() && x>>msb&1 != 0 {
		x = ^x & t.mask()
	}
	if x == 0 {
		return 0xffffffff
	}
	pos := uint64(63 - bits.LeadingZeros64(x))
	if in.flags&fShiftAmt != 0 {
		pos = uint64(msb) - pos
	}
	return pos
}

func laneBrev(in *instr, a, _, _ uint64) uint64 {
	return bits.Reverse64(a) >> (64 - in.t.bits())
}

func laneBfe(in *instr, a, b, c uint64) uint64 { return bfe(in.t, a, uint8(b), uint8(c)) }

// runBfi: bfi d, a, b, pos, len inserts a's low len bits into b at pos. Position and
// length are taken modulo 256 (their low 8 bits, as the PTX ISA's semantics say).
func runBfi(w *warpState, in *instr, exec, _ uint32) {
	d := w.slot(in.d[0])
	a, b, pos, ln := w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2]), w.slot(in.s[3])
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = bfi(in.t, a[l], b[l], uint8(pos[l]), uint8(ln[l]))
	}
}

// laneSzext sign- (.s32) or zero-extends (.u32) a's low b bits; b is taken modulo 32
// (.wrap) or clamped to 32 (.clamp), and 0 bits give 0 (PTX ISA 8.x, szext).
func laneSzext(in *instr, a, b, _ uint64) uint64 {
	n := uint32(b)
	switch {
	case in.flags&fClamp != 0 && n >= 32:
		return a & 0xffffffff
	case n&31 == 0:
		return 0
	}
	n &= 31
	v := uint32(a) << (32 - n)
	if in.t.signed() {
		return uint64(uint32(int32(v) >> (32 - n)))
	}
	return uint64(v >> (32 - n))
}

// laneBmsk is the mask of b bits from bit a (PTX ISA 8.x, bmsk): both taken modulo
// 32 under .wrap; under .clamp a position of 32 or more gives 0 and a width of 32 or
// more reaches the top bit. Bits past bit 31 are dropped.
func laneBmsk(in *instr, a, b, _ uint64) uint64 {
	pos, width := uint32(a), uint32(b)
	if in.flags&fClamp != 0 {
		if pos >= 32 {
			return 0
		}
		if width >= 32 {
			return uint64(^uint32(0) << pos)
		}
	}
	pos, width = pos&31, width&31
	if pos+width >= 32 {
		return uint64(^uint32(0) << pos)
	}
	return uint64(^uint32(0) << pos &^ (^uint32(0) << (pos + width)))
}

// laneFns finds the n-th set bit of mask a counting from bit b, upwards for n > 0
// and downwards for n < 0 (n = 0: bit b itself), 0xffffffff if there is none (PTX
// ISA 8.x, fns). A base above 31 is undefined in the ISA; here it finds nothing.
func laneFns(_ *instr, a, b, c uint64) uint64 {
	mask, base, n := uint32(a), int32(uint32(b)), int32(uint32(c))
	if base < 0 || base > 31 {
		return 0xffffffff
	}
	if n == 0 {
		if mask>>base&1 != 0 {
			return uint64(base)
		}
		return 0xffffffff
	}
	step, count := int32(1), n
	if n < 0 {
		step, count = -1, -n
	}
	for pos := base; pos >= 0 && pos < 32; pos += step {
		if mask>>pos&1 != 0 {
			if count--; count == 0 {
				return uint64(pos)
			}
		}
	}
	return 0xffffffff
}

// prmt modes (in.bop; 0 is the default, selector form).
const (
	prmtIdx uint8 = iota
	prmtF4E
	prmtB4E
	prmtRC8
	prmtECL
	prmtECR
	prmtRC16
)

func lanePrmt(in *instr, a, b, c uint64) uint64 {
	if in.bop == prmtIdx {
		return prmt(uint32(a), uint32(b), uint32(c))
	}
	return prmtMode(in.bop, uint32(a), uint32(b), uint32(c))
}

func laneLop3(in *instr, a, b, c uint64) uint64 {
	return uint64(lop3(uint32(a), uint32(b), uint32(c), uint8(in.imm)))
}

// shfFunnel is the 64-bit funnel b:a and shf's shift count (clamped to 32 or taken
// modulo 32).
func shfFunnel(in *instr, a, b, c uint64) (uint64, uint32) {
	n := uint32(c)
	if in.flags&fClamp != 0 {
		if n > 32 {
			n = 32
		}
	} else {
		n &= 31
	}
	return uint64(uint32(b))<<32 | uint64(uint32(a)), n
}

func laneShfL(in *instr, a, b, c uint64) uint64 {
	v, n := shfFunnel(in, a, b, c)
	return (v << n >> 32) & 0xffffffff
}

func laneShfR(in *instr, a, b, c uint64) uint64 {
	v, n := shfFunnel(in, a, b, c)
	return (v >> n) & 0xffffffff
}

func runAnd(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = a[l] & b[l]
	}
}

func runShl32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		if uint32(b[l]) < 32 {
			d[l] = uint64(uint32(a[l]) << uint32(b[l]))
		} else {
			d[l] = 0
		}
	}
}

func runShrU32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		if uint32(b[l]) < 32 {
			d[l] = uint64(uint32(a[l]) >> uint32(b[l]))
		} else {
			d[l] = 0
		}
	}
}

func bfe(t vtype, a uint64, pos, ln uint8) uint64 {
	n := uint8(t.bits())
	if ln == 0 {
		return 0
	}
	var sbit uint64
	if t.signed() {
		msb := int(pos) + int(ln) - 1
		if msb >= int(n) {
			msb = int(n) - 1
		}
		if pos >= n {
			sbit = a >> (n - 1) & 1
		} else {
			sbit = a >> uint(msb) & 1
		}
	}
	var r uint64
	for i := uint8(0); i < n; i++ {
		var bit uint64
		if i < ln && int(pos)+int(i) < int(n) {
			bit = a >> (pos + i) & 1
		} else {
			bit = sbit
		}
		r |= bit << i
	}
	return r & t.mask()
}

func bfi(t vtype, a, b uint64, pos, ln uint8) uint64 {
	n := uint8(t.bits())
	r := b
	for i := uint8(0); i < ln && int(pos)+int(i) < int(n); i++ {
		r = r&^(1<<(pos+i)) | (a>>i&1)<<(pos+i)
	}
	return r & t.mask()
}

func prmt(a, b, c uint32) uint64 {
	x := uint64(b)<<32 | uint64(a)
	var r uint32
	for i := 0; i < 4; i++ {
		sel := c >> (4 * i) & 0xf
		byt := uint32(x >> ((sel & 7) * 8) & 0xff)
		if sel&8 != 0 { // sign-replicate
			if byt&0x80 != 0 {
				byt = 0xff
			} else {
				byt = 0
			}
		}
		r |= byt << (8 * i)
	}
	return uint64(r)
}

// prmtMode is prmt under one of its modes: byte i of the result is byte sel(i) of
// {b, a}, where sel follows from the mode and the low two bits of c (PTX ISA 8.x, prmt's
// table of modes).
func prmtMode(mode uint8, a, b, c uint32) uint64 {
	x := uint64(b)<<32 | uint64(a)
	s := c & 3
	var r uint32
	for i := uint32(0); i < 4; i++ {
		var sel uint32
		switch mode {
		case prmtF4E:
			sel = (s + i) & 7
		case prmtB4E:
			sel = (s - i) & 7
		case prmtRC8:
			sel = s
		case prmtECL:
			sel = max(i, s)
		case prmtECR:
			sel = min(i, s)
		case prmtRC16:
			sel = (s&1)*2 + i&1
		}
		r |= uint32(x>>(8*sel)&0xff) << (8 * i)
	}
	return uint64(r)
}

func lop3(a, b, c uint32, lut uint8) uint32 {
	var r uint32
	for i := 0; i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		ma, mb, mc := a, b, c
		if i&4 == 0 {
			ma = ^a
		}
		if i&2 == 0 {
			mb = ^b
		}
		if i&1 == 0 {
			mc = ^c
		}
		r |= ma & mb & mc
	}
	return r
}
