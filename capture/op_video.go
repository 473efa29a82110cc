package capture

import (
	"math"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// The video instructions (PTX ISA 8.x, "Video Instructions"). The SIMD ones (vadd2 …
// vmax4, vset2, vset4) take two 16-bit or four 8-bit elements per 32-bit register, each
// picked from the eight bytes (four halves) of a and b by a selector, combine them,
// optionally saturate, then merge into c's elements under a mask or add to c. CUDA's
// libdevice emits vabsdiff4 for __vabsdiffu4 and __vsadu4. The scalar ones (vadd …
// vmax, vshl, vshr, vset) take one byte, half or word of a and of b, combine them in
// full precision, optionally saturate to d's type, then apply a secondary .add, .min
// or .max with c. (The ISA's merge into one field of c, and vshl.sat, are refused: an
// H100 does not compute them as the ISA says, nor by any one rule.) A GPU of sm_50 or later runs them as several SASS instructions; the trace counts
// the one PTX instruction.
var videoFamily = opFamily{name: "video", rules: []opRule{
	{names: []string{"vadd", "vsub", "vabsdiff"}, decode: decodeVideoScalar,
		doc: "u32 s32 for d, a and b (.sat); .add .min .max with c;\nselectors .b0-.b3 .h0 .h1 on a and b (no d.dsel)"},
	{names: []string{"vmin", "vmax"}, decode: decodeVideoScalar,
		doc: "as vadd"},
	{names: []string{"vshl", "vshr"}, decode: decodeVideoScalar,
		doc: "u32 s32 for d and a, b u32; .clamp or .wrap;\nas vadd otherwise (vshr only: .sat)"},
	{names: []string{"vset"}, mods: modCompare, decode: decodeVideoScalar,
		doc: "u32 s32 for a and b; .eq .ne .lt .le .gt .ge; as vadd"},
	{names: []string{"vadd2", "vsub2", "vavrg2"}, decode: decodeVideo,
		doc: "u32 s32 for d, a and b (.sat, or .add); d.mask a.asel b.bsel\n(.h10, .h10, .h32 by default)"},
	{names: []string{"vabsdiff2", "vmin2", "vmax2"}, decode: decodeVideo,
		doc: "as vadd2"},
	{names: []string{"vadd4", "vsub4", "vavrg4"}, decode: decodeVideo,
		doc: "u32 s32 for d, a and b (.sat, or .add); d.mask a.asel b.bsel\n(.b3210, .b3210, .b7654 by default)"},
	{names: []string{"vabsdiff4", "vmin4", "vmax4"}, decode: decodeVideo,
		doc: "as vadd4"},
	{names: []string{"vset2", "vset4"}, mods: modCompare, decode: decodeVideo,
		doc: "u32 s32 for a and b; .eq .ne .lt .le .gt .ge (.add); d.mask\na.asel b.bsel"},
}}

// The video operations (instr.bop).
const (
	vidAdd uint8 = iota
	vidSub
	vidAvrg
	vidAbsdiff
	vidMin
	vidMax
	vidSet
	vidShl
	vidShr
)

var videoOps = map[string]uint8{"vadd": vidAdd, "vsub": vidSub, "vavrg": vidAvrg, "vabsdiff": vidAbsdiff,
	"vmin": vidMin, "vmax": vidMax, "vset": vidSet, "vshl": vidShl, "vshr": vidShr}

// A video instruction's form in instr.imm: a's and b's selectors (element i's source
// element, 3 bits each), the destination mask (bit i: element i is the result's), and
// flags. instr.t is d's type, instr.t2 a's; b's signedness is a flag.
const (
	vidASel    = 0  // bits 0-11
	vidBSel    = 12 // bits 12-23
	vidMask    = 24 // bits 24-27
	vidFour    = 1 << 28
	vidAccum   = 1 << 29 // .add: d = c + the masked elements' sum
	vidBSigned = 1 << 30
)

// decodeVideo decodes vop2/vop4.dtype.atype.btype{.sat|.add} d{.mask}, a{.asel},
// b{.bsel}, c and vset2/vset4.atype.btype.cmp{.add}.
func decodeVideo(r *resolver) error {
	in, m := r.in, &r.m
	n, name := 2, r.base[:len(r.base)-1]
	if strings.HasSuffix(r.base, "4") {
		n = 4
	}
	op := videoOps[name]
	accum := m.take(".add")
	if err := r.videoMods(op, ".sat or .add"); err != nil {
		return err
	}
	if err := r.nops(4); err != nil {
		return err
	}
	if m.sat && accum {
		return r.fail(".sat is not allowed with .add")
	}
	if op == vidSet {
		in.t, in.t2 = tU32, m.types[0]
	} else {
		in.t, in.t2 = m.types[0], m.types[1]
	}
	form := uint32(0)
	if n == 4 {
		form |= vidFour
	}
	if accum {
		form |= vidAccum
	}
	if m.types[len(m.types)-1] == tS32 {
		form |= vidBSigned
	}
	if m.sat {
		in.flags |= fSat
	}
	ops := r.a.ops
	d, mask, err := r.videoSelector(ops[0], n, "mask")
	if err != nil {
		return err
	}
	a, asel, err := r.videoSelector(ops[1], n, "a")
	if err != nil {
		return err
	}
	b, bsel, err := r.videoSelector(ops[2], n, "b")
	if err != nil {
		return err
	}
	in.op, in.bop, in.run, in.lane = opCompute, op, runLanes, laneVideo
	in.imm = form | asel<<vidASel | bsel<<vidBSel | mask<<vidMask
	r.row.Class = format.ClassALU
	if err := r.dstOp(0, d, tU32); err != nil {
		return err
	}
	in.nd = 1
	for i, o := range []operand{a, b, ops[3]} {
		if err := r.srcOp(i, o, tU32); err != nil {
			return err
		}
	}
	in.ns = 3
	return nil
}

// videoMods checks what every video instruction shares: no modifier but the
// opcode's own (takes names them in the error) and its types, .u32 or .s32 for d, a
// and b (vset: a and b, and a comparison, which it stores, and no .sat).
func (r *resolver) videoMods(op uint8, takes string) error {
	m := &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if m.rnd != rndDefault || m.ftz || m.approx || m.hi || m.lo || m.wide || m.vec != 0 || m.space != "" || m.uni || m.sync {
		return r.fail("unsupported modifier on %s: it takes its types, %s (vset: a comparison)", r.base, takes)
	}
	types := 3
	if op == vidSet {
		types = 2
		if m.cmp < 0 || m.cmp > int(cmpGE) {
			return r.fail("%s needs .eq, .ne, .lt, .le, .gt or .ge", r.base)
		}
		r.in.cmp = uint8(m.cmp)
		if m.sat {
			return r.fail(".sat is not allowed with vset")
		}
	}
	if len(m.types) != types {
		return r.fail("%s needs %d types (u32 or s32 each)", r.base, types)
	}
	for _, t := range m.types {
		if t != tU32 && t != tS32 {
			return r.fail("%s takes .u32 or .s32, not .%s", r.base, t)
		}
	}
	return nil
}

// videoSelector splits a register operand's selector (%r1.h10, %r2.b7654) off it and
// returns the operand and the selector as 3-bit element indices (a source) or a mask
// of elements (the destination, which = "mask"). With no selector it returns the
// ISA's default: a's elements of a, b's of b, every element of d.
func (r *resolver) videoSelector(o operand, n int, which string) (operand, uint32, error) {
	sel := ""
	if o.kind == oName {
		if i := strings.IndexByte(o.name, '.'); i > 0 {
			o.name, sel = o.name[:i], o.name[i+1:]
		}
	}
	letter, top, defaults := "h", 3, map[string]string{"a": "h10", "b": "h32"}
	if n == 4 {
		letter, top, defaults = "b", 7, map[string]string{"a": "b3210", "b": "b7654"}
	}
	if sel == "" {
		if which == "mask" {
			return o, 1<<n - 1, nil
		}
		sel = defaults[which]
	}
	bad := func() (operand, uint32, error) {
		if which == "mask" {
			return o, 0, r.fail("bad destination mask .%s: want .%s followed by element numbers below %d in falling order", sel, letter, n)
		}
		return o, 0, r.fail("bad selector .%s on %s: want .%s and %d element numbers from 0 to %d", sel, which, letter, n, top)
	}
	if !strings.HasPrefix(sel, letter) {
		return bad()
	}
	digits := sel[1:]
	if which == "mask" {
		var mask uint32
		last := n
		for _, c := range digits {
			e := int(c - '0')
			if e < 0 || e >= last {
				return bad()
			}
			mask, last = mask|1<<e, e
		}
		if mask == 0 {
			return bad()
		}
		return o, mask, nil
	}
	if len(digits) != n {
		return bad()
	}
	var s uint32
	for i := range n {
		e := int(digits[n-1-i] - '0')
		if e < 0 || e > top {
			return bad()
		}
		s |= uint32(e) << (3 * i)
	}
	return o, s, nil
}

// laneVideo computes one lane of a SIMD video instruction as the PTX ISA's semantics
// do: each selected element of a and b sign- or zero-extended by its operand's type,
// the operation in full precision, .sat clamping to d's element range, then the
// masked elements merged into c's (the rest are c's) or, with .add, added to c.
func laneVideo(in *instr, a, b, c uint64) uint64 {
	n, w := 2, 16
	if in.imm&vidFour != 0 {
		n, w = 4, 8
	}
	tb := tU32
	if in.imm&vidBSigned != 0 {
		tb = tS32
	}
	ab := a&0xffffffff | b<<32
	lo, hi := int64(0), int64(1)<<w-1
	if in.t == tS32 {
		lo, hi = -(1 << (w - 1)), 1<<(w-1)-1
	}
	field := uint32(1)<<w - 1
	out := uint32(0)
	if in.imm&vidAccum != 0 {
		out = uint32(c)
	}
	for i := range n {
		va := part(in.t2, ab, w, int(in.imm>>(vidASel+3*i)&7))
		vb := part(tb, ab, w, int(in.imm>>(vidBSel+3*i)&7))
		t := videoOp(in, va, vb)
		if in.flags&fSat != 0 {
			t = min(max(t, lo), hi)
		}
		shift := w * i
		switch {
		case in.imm>>(vidMask+i)&1 == 0:
			if in.imm&vidAccum == 0 {
				out |= uint32(c) & (field << shift)
			}
		case in.imm&vidAccum != 0:
			out += uint32(t)
		default:
			out |= uint32(t) & field << shift
		}
	}
	return uint64(out)
}

// A scalar video instruction's form in instr.imm: a's and b's fields (vsel*; the
// destination's is always the word), the secondary operation, the shift mode and b's
// signedness. instr.t
// is d's type, instr.t2 a's.
const (
	vsASel     = 0 // bits 0-2
	vsBSel     = 3 // bits 3-5
	vsOp2      = 9 // bits 9-10: vsOp2None … vsOp2Max
	vsWrap     = 1 << 11
	vsBSigned  = 1 << 12
	vsOp2None  = 0
	vsOp2Add   = 1
	vsOp2Min   = 2
	vsOp2Max   = 3
	vselWord   = 7 // no selector: the whole word
	vselHalf0  = 4 // .h0 and .h1 are 4 and 5; .b0-.b3 are 0-3
	vsFieldMsk = 7
)

// vselNames are the scalar selectors.
var vselNames = map[string]uint32{"b0": 0, "b1": 1, "b2": 2, "b3": 3, "h0": vselHalf0, "h1": vselHalf0 + 1}

// decodeVideoScalar decodes vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel},
// b{.bsel}{, c}, vshl/vshr with .clamp or .wrap, and vset.atype.btype.cmp.
func decodeVideoScalar(r *resolver) error {
	in, m := r.in, &r.m
	op := videoOps[r.base]
	op2 := uint32(vsOp2None)
	for i, name := range []string{".add", ".min", ".max"} {
		if m.take(name) {
			if op2 != vsOp2None {
				return r.fail("%s takes one secondary operation (.add, .min or .max)", r.base)
			}
			op2 = uint32(i + 1)
		}
	}
	form := op2 << vsOp2
	if op == vidShl || op == vidShr {
		clamp, wrap := m.take(".clamp"), m.take(".wrap")
		if clamp == wrap {
			return r.fail("%s needs .clamp or .wrap", r.base)
		}
		if wrap {
			form |= vsWrap
		}
	}
	if err := r.videoMods(op, ".sat and .add, .min or .max"); err != nil {
		return err
	}
	if (op == vidShl || op == vidShr) && m.types[2] != tU32 {
		return r.fail("%s takes a .u32 shift (b)", r.base)
	}
	if op == vidSet {
		in.t, in.t2 = tU32, m.types[0]
	} else {
		in.t, in.t2 = m.types[0], m.types[1]
	}
	if m.types[len(m.types)-1] == tS32 {
		form |= vsBSigned
	}
	if m.sat {
		in.flags |= fSat
	}
	ops := r.a.ops
	if len(ops) != 3 && len(ops) != 4 {
		return r.fail("wrong number of operands (%d)", len(ops))
	}
	var sels [3]uint32
	var opnds [3]operand
	for i, which := range []string{"destination", "a", "b"} {
		o, sel, err := r.scalarSelector(ops[i], which)
		if err != nil {
			return err
		}
		opnds[i], sels[i] = o, sel
	}
	switch {
	case sels[0] != vselWord:
		// The ISA merges the result into c's field; an H100 (through ptxas) does not
		// agree with it, nor with itself: it takes the result's bits at the field's
		// place for vsub, the result's low bits for vshr, and saturates a signed
		// byte as if unsigned (traces/hw/h100-2026-11-27-opcases, docs/issue-19.md).
		return r.fail("%s: a destination field is not supported (an H100 does not merge as the PTX ISA says)", r.base)
	case m.sat && op == vidShl:
		return r.fail("vshl.sat is not supported (an H100 does not saturate it as the PTX ISA says)")
	case op2 != vsOp2None && len(ops) != 4:
		return r.fail("%s: a secondary operation needs c", r.base)
	case op2 == vsOp2None && len(ops) != 3:
		return r.fail("%s: c is read only by a secondary operation (.add, .min, .max)", r.base)
	}
	in.op, in.bop, in.run, in.lane = opCompute, op, runLanes, laneVideoScalar
	in.imm = form | sels[1]<<vsASel | sels[2]<<vsBSel
	r.row.Class = format.ClassALU
	if err := r.dstOp(0, opnds[0], tU32); err != nil {
		return err
	}
	in.nd = 1
	srcs := []operand{opnds[1], opnds[2]}
	if len(ops) == 4 {
		srcs = append(srcs, ops[3])
	}
	for i, o := range srcs {
		if err := r.srcOp(i, o, tU32); err != nil {
			return err
		}
	}
	in.ns = uint8(len(srcs))
	return nil
}

// scalarSelector splits a scalar video operand's field (.b0 … .b3, .h0, .h1) off a
// register's name; with none it returns vselWord.
func (r *resolver) scalarSelector(o operand, which string) (operand, uint32, error) {
	if o.kind != oName {
		return o, vselWord, nil
	}
	name, sel, ok := strings.Cut(o.name, ".")
	if !ok {
		return o, vselWord, nil
	}
	v, known := vselNames[sel]
	if !known {
		return o, 0, r.fail("bad selector .%s on %s: want .b0, .b1, .b2, .b3, .h0 or .h1", sel, which)
	}
	o.name = name
	return o, v, nil
}

// vselField returns a selector's width in bits and its element index.
func vselField(sel uint32) (w, i int) {
	switch {
	case sel == vselWord:
		return 32, 0
	case sel >= vselHalf0:
		return 16, int(sel - vselHalf0)
	}
	return 8, int(sel)
}

// laneVideoScalar computes one lane of a scalar video instruction as the PTX ISA's
// semantics do, and an H100 where they differ: a's and b's fields sign- or
// zero-extended by their types, the operation in full precision, .sat clamping to d's
// type, then the secondary operation with c (c extended by d's type).
func laneVideoScalar(in *instr, a, b, c uint64) uint64 {
	tb := tU32
	if in.imm&vsBSigned != 0 {
		tb = tS32
	}
	aw, ai := vselField(in.imm >> vsASel & vsFieldMsk)
	bw, bi := vselField(in.imm >> vsBSel & vsFieldMsk)
	va, vb := part(in.t2, a, aw, ai), part(tb, b, bw, bi)
	t := videoOp(in, va, vb)
	if in.flags&fSat != 0 {
		// A .u32 destination clamps at 0 only: above 2^32 - 1 an H100 keeps the low
		// 32 bits, where the ISA clamps (u32 + u32 overflowing, measured).
		if in.t == tS32 {
			t = min(max(t, math.MinInt32), math.MaxInt32)
		} else {
			t = max(t, 0)
		}
	}
	vc := part(in.t, c, 32, 0)
	switch in.imm >> vsOp2 & 3 {
	case vsOp2Add:
		t += vc
	case vsOp2Min:
		t = min(t, vc)
	case vsOp2Max:
		t = max(t, vc)
	}
	return uint64(uint32(t))
}

// videoOp is a video instruction's operation on two extended elements (or fields), in
// full precision.
func videoOp(in *instr, va, vb int64) int64 {
	switch in.bop {
	case vidAdd:
		return va + vb
	case vidSub:
		return va - vb
	case vidAvrg:
		if va+vb >= 0 {
			return (va + vb + 1) >> 1
		}
		return (va + vb) >> 1
	case vidAbsdiff:
		return max(va-vb, vb-va)
	case vidMin:
		return min(va, vb)
	case vidMax:
		return max(va, vb)
	case vidSet:
		// Both are extended to 64 bits, so one signed comparison serves.
		if compare(in.cmp, tS64, uint64(va), uint64(vb)) {
			return 1
		}
		return 0
	}
	n := vb // vshl, vshr (scalar only)
	if in.imm&vsWrap != 0 {
		n &= 31
	} else {
		n = min(n, 32)
	}
	switch {
	case in.bop == vidShr:
		return va >> n
	case n == 32 && va != 0:
		// Beyond 64 bits for the largest a; the low 32 bits are 0 either way, and any
		// value outside 32 bits clamps and compares the same.
		return va / max(va, -va) << 62
	}
	return va << n
}
