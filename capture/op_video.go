package capture

import (
	"strings"

	"github.com/gtrace/gtrace/format"
)

// The SIMD video instructions (PTX ISA 8.x, "Video Instructions": vadd2 … vmax4,
// vset2, vset4): two 16-bit or four 8-bit elements per 32-bit register, each picked
// from the eight bytes (four halves) of a and b by a selector, combined, optionally
// saturated, then merged into c's elements under a mask or added to c. CUDA's
// libdevice emits vabsdiff4 for __vabsdiffu4 and __vsadu4. A GPU of sm_50 or later
// runs them as several SASS instructions; the trace counts the one PTX instruction.
var videoFamily = opFamily{name: "video (SIMD)", rules: []opRule{
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
)

var videoOps = map[string]uint8{"vadd": vidAdd, "vsub": vidSub, "vavrg": vidAvrg, "vabsdiff": vidAbsdiff,
	"vmin": vidMin, "vmax": vidMax, "vset": vidSet}

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
	if err := r.unknownMods(); err != nil {
		return err
	}
	if m.rnd != rndDefault || m.ftz || m.approx || m.hi || m.lo || m.wide || m.vec != 0 || m.space != "" || m.uni || m.sync {
		return r.fail("unsupported modifier on %s: it takes its types, .sat or .add (vset: a comparison)", r.base)
	}
	if err := r.nops(4); err != nil {
		return err
	}
	types := 3
	if op == vidSet {
		types = 2
		if m.cmp < 0 || m.cmp > int(cmpGE) {
			return r.fail("%s needs .eq, .ne, .lt, .le, .gt or .ge", r.base)
		}
		in.cmp = uint8(m.cmp)
	}
	if len(m.types) != types {
		return r.fail("%s needs %d types (u32 or s32 each)", r.base, types)
	}
	for _, t := range m.types {
		if t != tU32 && t != tS32 {
			return r.fail("%s takes .u32 or .s32, not .%s", r.base, t)
		}
	}
	if m.sat && accum {
		return r.fail(".sat is not allowed with .add")
	}
	if m.sat && op == vidSet {
		return r.fail(".sat is not allowed with vset")
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
		var t int64
		switch in.bop {
		case vidAdd:
			t = va + vb
		case vidSub:
			t = va - vb
		case vidAvrg:
			t = (va + vb) >> 1
			if va+vb >= 0 {
				t = (va + vb + 1) >> 1
			}
		case vidAbsdiff:
			t = max(va-vb, vb-va)
		case vidMin:
			t = min(va, vb)
		case vidMax:
			t = max(va, vb)
		case vidSet:
			// Both elements are extended to 64 bits, so one signed comparison serves.
			if compare(in.cmp, tS64, uint64(va), uint64(vb)) {
				t = 1
			}
		}
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
