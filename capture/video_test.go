package capture

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
)

// TestVideoSIMD checks the SIMD video instructions (vadd2 … vmax4, vset2, vset4) with
// .sat, .add, destination masks and source selectors against Go references read
// from the PTX ISA's semantics, which TestOpCasesOnGPU checks on an H100.
func TestVideoSIMD(t *testing.T) { runOpCases(t, videoCases()) }

// videoForm is one SIMD video instruction as a reference computes it.
type videoForm struct {
	op         string // add sub avrg absdiff min max, or a comparison (vset)
	n          int    // elements: 2 or 4
	dS, aS, bS bool   // d, a and b signed
	sat, add   bool
	mask       uint32 // destination elements (bit i: element i)
	asel, bsel []int  // each element's source among a's and b's 2n elements
	text       string // the PTX
}

// videoRef is the PTX ISA's pseudo-code for the SIMD video instructions, written out
// element by element.
func videoRef(f videoForm, a, b, c uint32) uint32 {
	w := 32 / f.n
	all := uint64(a) | uint64(b)<<32
	elem := func(i int, signed bool) int64 {
		v := int64(all >> (w * i) & (1<<w - 1))
		if signed && v >= 1<<(w-1) {
			v -= 1 << w
		}
		return v
	}
	d := uint32(0)
	if f.add {
		d = c
	}
	for i := range f.n {
		x, y := elem(f.asel[i], f.aS), elem(f.bsel[i], f.bS)
		var r int64
		switch f.op {
		case "add":
			r = x + y
		case "sub":
			r = x - y
		case "avrg":
			s := x + y
			if s >= 0 {
				r = (s + 1) >> 1
			} else {
				r = s >> 1
			}
		case "absdiff":
			r = x - y
			if r < 0 {
				r = -r
			}
		case "min":
			r = min(x, y)
		case "max":
			r = max(x, y)
		default:
			r = int64(b2u(map[string]bool{"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[f.op]))
		}
		if f.sat {
			lo, hi := int64(0), int64(1)<<w-1
			if f.dS {
				lo, hi = -1<<(w-1), 1<<(w-1)-1
			}
			r = min(max(r, lo), hi)
		}
		field := uint32(1)<<w - 1
		switch {
		case f.mask>>i&1 == 0 && !f.add:
			d |= c & (field << (w * i))
		case f.mask>>i&1 == 0:
		case f.add:
			d += uint32(r)
		default:
			d |= (uint32(r) & field) << (w * i)
		}
	}
	return d
}

// videoInst builds one instruction's text and reference form. spec is the opcode's
// modifiers after the name and n ("u32.u32.u32.sat", "u32.s32.lt.add"); sel gives the
// destination mask and the two selectors ("" each for the default).
func videoInst(name string, n int, spec, dsel, asel, bsel string) videoForm {
	f := videoForm{op: name, n: n, mask: 1<<n - 1}
	mods := strings.Split(spec, ".")
	types := mods
	if name == "set" {
		f.op, types = mods[2], mods[:2]
		types = append([]string{"u32"}, types...)
	}
	f.dS, f.aS, f.bS = types[0] == "s32", types[1] == "s32", types[2] == "s32"
	f.sat, f.add = strings.Contains(spec, ".sat"), strings.HasSuffix(spec, ".add")
	digits := func(s string) []int {
		var e []int
		for i := len(s) - 1; i >= 1; i-- {
			e = append(e, int(s[i]-'0'))
		}
		return e
	}
	def := map[int][2]string{2: {"h10", "h32"}, 4: {"b3210", "b7654"}}[n]
	f.asel, f.bsel = digits(def[0]), digits(def[1])
	suffix := func(s string) string {
		if s == "" {
			return ""
		}
		return "." + s
	}
	if asel != "" {
		f.asel = digits(asel)
	}
	if bsel != "" {
		f.bsel = digits(bsel)
	}
	if dsel != "" {
		f.mask = 0
		for _, e := range digits(dsel) {
			f.mask |= 1 << e
		}
	}
	f.text = fmt.Sprintf("v%s%d.%s %%r4%s, %%r1%s, %%r2%s, %%r3;", name, n, spec, suffix(dsel), suffix(asel), suffix(bsel))
	return f
}

// videoPair is the opCase of two video instructions, f writing %r4 and g %r5, each
// checked against ref.
func videoPair[F any](name string, f, g F, text func(F) string, ref func(F, uint32, uint32, uint32) uint32) opCase {
	return opCase{name: name, body: text(f) + "\n" + strings.Replace(text(g), "%r4", "%r5", 1),
		ref: lane64(func(a, b, c uint64) (uint64, uint64) {
			return uint64(ref(f, uint32(a), uint32(b), uint32(c))), uint64(ref(g, uint32(a), uint32(b), uint32(c)))
		})}
}

func videoCases() []opCase {
	pair := func(name string, f, g videoForm) opCase {
		return videoPair(name, f, g, func(f videoForm) string { return f.text }, videoRef)
	}
	return []opCase{
		// the forms CUDA's libdevice emits (__vsadu4, __vabsdiffu4)
		pair("vabsdiff4.u32", videoInst("absdiff", 4, "u32.u32.u32.add", "", "", ""), videoInst("absdiff", 4, "u32.u32.u32", "", "", "")),
		pair("vabsdiff2.s32", videoInst("absdiff", 2, "s32.s32.s32.add", "", "", ""), videoInst("absdiff", 2, "u32.s32.s32.sat", "", "", "")),
		pair("vadd2.sat", videoInst("add", 2, "s32.s32.s32.sat", "", "", ""), videoInst("add", 2, "u32.u32.u32.sat", "", "", "")),
		pair("vadd4.mixed", videoInst("add", 4, "s32.u32.s32.sat", "", "", ""), videoInst("add", 4, "u32.s32.u32", "", "", "")),
		pair("vsub4", videoInst("sub", 4, "s32.s32.s32.sat", "", "", ""), videoInst("sub", 4, "u32.u32.u32", "", "", "")),
		pair("vsub2.add", videoInst("sub", 2, "s32.s32.s32.add", "", "", ""), videoInst("sub", 2, "u32.u32.u32.sat", "", "", "")),
		pair("vavrg2", videoInst("avrg", 2, "s32.s32.s32", "", "", ""), videoInst("avrg", 2, "u32.u32.u32", "", "", "")),
		pair("vavrg4", videoInst("avrg", 4, "s32.s32.s32", "", "", ""), videoInst("avrg", 4, "u32.u32.u32.add", "", "", "")),
		pair("vmin.vmax", videoInst("min", 4, "s32.s32.s32", "", "", ""), videoInst("max", 2, "u32.u32.u32", "", "", "")),
		pair("vmax4.vmin2", videoInst("max", 4, "u32.s32.u32.sat", "", "", ""), videoInst("min", 2, "s32.u32.s32.add", "", "", "")),
		pair("vset4", videoInst("set", 4, "u32.u32.lt", "", "", ""), videoInst("set", 4, "s32.s32.ge.add", "", "", "")),
		pair("vset2", videoInst("set", 2, "s32.u32.ne", "", "", ""), videoInst("set", 2, "u32.s32.eq.add", "", "", "")),
		// masks: the other elements are c's; with .add, only the masked elements add
		pair("video.mask", videoInst("add", 4, "u32.u32.u32", "b20", "", ""), videoInst("set", 4, "u32.u32.gt", "b31", "", "")),
		pair("video.mask.add", videoInst("absdiff", 4, "u32.u32.u32.add", "b321", "", ""), videoInst("max", 2, "s32.s32.s32", "h1", "", "")),
		// selectors: any element of a or b for either source
		pair("video.sel4", videoInst("sub", 4, "s32.s32.s32", "", "b0123", "b4567"), videoInst("absdiff", 4, "u32.u32.u32.add", "", "b7531", "b0246")),
		pair("video.sel2", videoInst("add", 2, "u32.u32.u32", "h0", "h23", "h01"), videoInst("set", 2, "s32.s32.le", "", "h30", "h11")),
	}
}

// TestVideoScalar checks the scalar video instructions (vadd … vmax, vshl, vshr, vset)
// with fields, .sat, secondary operations and merges against Go references read from
// the PTX ISA's semantics, which TestOpCasesOnGPU checks on an H100.
func TestVideoScalar(t *testing.T) { runOpCases(t, scalarVideoCases()) }

// scalarVideo is one scalar video instruction as a reference computes it.
type scalarVideo struct {
	op         string // add sub absdiff min max shl shr, or a comparison (vset)
	dS, aS, bS bool   // d, a and b signed
	sat, wrap  bool
	op2        string // "", add, min or max
	asel, bsel string // "" (the word) or b0 … b3, h0, h1
	text       string
}

// field reads sel's field of v (the word for "") as its type does.
func field(v uint32, sel string, signed bool) int64 {
	w, i := 32, 0
	if sel != "" {
		w, i = map[byte]int{'b': 8, 'h': 16}[sel[0]], int(sel[1]-'0')
	}
	x := uint64(v) >> (w * i) & (1<<w - 1)
	if signed && x >= 1<<(w-1) {
		return int64(x) - 1<<w
	}
	return int64(x)
}

// scalarVideoRef is the PTX ISA's pseudo-code for the scalar video instructions.
func scalarVideoRef(f scalarVideo, a, b, c uint32) uint32 {
	x, y := field(a, f.asel, f.aS), field(b, f.bsel, f.bS)
	var r *big.Int
	switch f.op {
	case "add":
		r = big.NewInt(x + y)
	case "sub":
		r = big.NewInt(x - y)
	case "absdiff":
		r = big.NewInt(max(x-y, y-x))
	case "min":
		r = big.NewInt(min(x, y))
	case "max":
		r = big.NewInt(max(x, y))
	case "shl", "shr":
		if f.wrap {
			y &= 31
		} else if y > 32 {
			y = 32
		}
		r = new(big.Int).Lsh(big.NewInt(x), uint(y))
		if f.op == "shr" {
			r = big.NewInt(x >> y)
		}
	default:
		r = big.NewInt(int64(b2u(map[string]bool{"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[f.op])))
	}
	if f.sat {
		// d's type's range; a .u32 d clamps at 0 only, its low 32 bits above (an H100)
		lo, hi := big.NewInt(-1<<31), big.NewInt(1<<31-1)
		if !f.dS {
			lo, hi = big.NewInt(0), nil
		}
		if r.Cmp(lo) < 0 {
			r = lo
		}
		if hi != nil && r.Cmp(hi) > 0 {
			r = hi
		}
	}
	vc := big.NewInt(field(c, "", f.dS))
	switch f.op2 {
	case "add":
		r.Add(r, vc)
	case "min":
		if vc.Cmp(r) < 0 {
			r = vc
		}
	case "max":
		if vc.Cmp(r) > 0 {
			r = vc
		}
	}
	return uint32(new(big.Int).And(r, big.NewInt(0xffffffff)).Uint64()) // two's complement's low word
}

// scalarInst builds one scalar video instruction: spec is the modifiers after the
// name ("s32.u32.s32.sat.max", "u32.s32.lt", "u32.s32.u32.wrap"); the selectors are ""
// or a field name. It reads c when a secondary operation does.
func scalarInst(name, spec, asel, bsel string) scalarVideo {
	f := scalarVideo{op: name, asel: asel, bsel: bsel}
	mods := strings.Split(spec, ".")
	types := mods[:3]
	if name == "set" {
		f.op, types = mods[2], append([]string{"u32"}, mods[:2]...)
	}
	f.dS, f.aS, f.bS = types[0] == "s32", types[1] == "s32", types[2] == "s32"
	f.sat, f.wrap = slices.Contains(mods, "sat"), slices.Contains(mods, "wrap")
	for _, o := range []string{"add", "min", "max"} { // no type, mode or comparison has these names
		if slices.Contains(mods, o) {
			f.op2 = o
		}
	}
	suffix := func(s string) string {
		if s == "" {
			return ""
		}
		return "." + s
	}
	c := ""
	if f.op2 != "" {
		c = ", %r3"
	}
	f.text = fmt.Sprintf("v%s.%s %%r4, %%r1%s, %%r2%s%s;", name, spec, suffix(asel), suffix(bsel), c)
	return f
}

func scalarVideoCases() []opCase {
	pair := func(name string, f, g scalarVideo) opCase {
		return videoPair(name, f, g, func(f scalarVideo) string { return f.text }, scalarVideoRef)
	}
	return []opCase{
		// words: full precision, then .sat to d's type
		pair("vadd", scalarInst("add", "s32.s32.s32.sat", "", ""), scalarInst("add", "u32.u32.u32.sat", "", "")),
		pair("vsub.mixed", scalarInst("sub", "s32.u32.s32.sat", "", ""), scalarInst("sub", "u32.s32.u32.sat", "", "")),
		pair("vabsdiff", scalarInst("absdiff", "u32.s32.s32", "", ""), scalarInst("absdiff", "s32.u32.u32.sat", "", "")),
		pair("vmin.vmax.word", scalarInst("min", "s32.s32.u32", "", ""), scalarInst("max", "u32.s32.s32", "", "")),
		// a .u32 d's .sat above 2^32 - 1, with signed operands
		pair("vadd.u32.sat", scalarInst("add", "u32.s32.u32.sat", "", ""), scalarInst("sub", "u32.u32.s32.sat", "", "")),
		// fields of a and b
		pair("vadd.fields", scalarInst("add", "s32.s32.u32", "b1", "h1"), scalarInst("sub", "u32.u32.s32.sat", "b3", "b0")),
		pair("vmax.fields", scalarInst("max", "s32.s32.s32", "h0", "b2"), scalarInst("absdiff", "u32.s32.s32", "h1", "h0")),
		// secondary operations with c
		pair("vadd.op2", scalarInst("add", "s32.s32.s32.sat.add", "b0", "b1"), scalarInst("absdiff", "u32.u32.u32.min", "", "")),
		pair("vsub.op2", scalarInst("sub", "s32.s32.s32.max", "h0", "h1"), scalarInst("min", "u32.u32.u32.sat.add", "", "")),
		pair("vmax.op2", scalarInst("max", "u32.u32.u32.sat.max", "b2", "h1"), scalarInst("add", "s32.u32.u32.sat.min", "", "")),
		// shifts: .clamp at 32, .wrap modulo 32, a signed shifts right arithmetically
		pair("vshl", scalarInst("shl", "u32.u32.u32.clamp", "", ""), scalarInst("shl", "s32.s32.u32.wrap", "", "")),
		pair("vshr", scalarInst("shr", "s32.s32.u32.clamp", "", ""), scalarInst("shr", "u32.u32.u32.wrap", "", "")),
		pair("vshl.fields", scalarInst("shl", "u32.u32.u32.clamp", "b1", "b0"), scalarInst("shr", "s32.s32.u32.wrap.add", "h1", "b0")),
		pair("vshl.op2", scalarInst("shl", "u32.s32.u32.wrap.add", "b2", "b0"), scalarInst("shr", "s32.s32.u32.sat.clamp.max", "h0", "b1")),
		// comparisons
		pair("vset", scalarInst("set", "u32.u32.lt", "", ""), scalarInst("set", "s32.s32.ge", "", "")),
		pair("vset.fields", scalarInst("set", "s32.u32.ne.add", "b0", "h0"), scalarInst("set", "u32.s32.le.max", "h1", "b3")),
	}
}

// TestVideoErrors: malformed video instructions are errors that name the fault.
func TestVideoErrors(t *testing.T) {
	checkRefusals(t, map[string]string{
		"vadd2.u32.u32 %r4, %r1, %r2, %r3;":                 "needs 3 types",
		"vadd2.u32.u32.u16 %r4, %r1, %r2, %r3;":             "takes .u32 or .s32",
		"vadd4.u32.u32.u32.sat.add %r4, %r1, %r2, %r3;":     ".sat is not allowed with .add",
		"vset2.u32.u32 %r4, %r1, %r2, %r3;":                 "needs .eq, .ne",
		"vset4.u32.u32.lo %r4, %r1, %r2, %r3;":              "needs .eq, .ne",
		"vset4.u32.u32.lt.sat %r4, %r1, %r2, %r3;":          ".sat is not allowed with vset",
		"vadd2.u32.u32.u32 %r4, %r1, %r2;":                  "wrong number of operands",
		"vadd2.u32.u32.u32 %r4, %r1.h4, %r2, %r3;":          "bad selector .h4 on a",
		"vadd2.u32.u32.u32 %r4, %r1.h40, %r2, %r3;":         "bad selector .h40 on a",
		"vadd4.u32.u32.u32 %r4, %r1, %r2.b765, %r3;":        "bad selector .b765 on b",
		"vadd4.u32.u32.u32 %r4, %r1, %r2.h76, %r3;":         "bad selector .h76 on b",
		"vadd4.u32.u32.u32 %r4.b4, %r1, %r2, %r3;":          "bad destination mask .b4",
		"vadd4.u32.u32.u32 %r4.b01, %r1, %r2, %r3;":         "bad destination mask .b01",
		"vadd2.u32.u32.u32.rn %r4, %r1, %r2, %r3;":          "unsupported modifier on vadd2",
		"vadd2.u32.u32.u32.add.foo %r4, %r1, %r2, %r3;":     "unsupported modifier .foo",
		"vadd2.u32.u32.u32 %r4, %r1, %r2, %r3.h10;":         "undefined name %r3.h10",
		"vmax2.s32.s32.s32 %r4.h10, %r1.h10, %r2.h32, %q1;": "undefined name %q1",
		"vadd.u32.u32 %r4, %r1, %r2;":                       "needs 3 types",
		"vadd.u32.u32.u32 %r4, %r1.b4, %r2;":                "bad selector .b4 on a",
		"vadd.u32.u32.u32 %r4, %r1, %r2.h2;":                "bad selector .h2 on b",
		"vadd.u32.u32.u32 %r4.b01, %r1, %r2, %r3;":          "bad selector .b01 on destination",
		"vadd.u32.u32.u32.add.min %r4, %r1, %r2, %r3;":      "one secondary operation",
		"vadd.u32.u32.u32 %r4.b1, %r1, %r2, %r3;":           "a destination field is not supported",
		"vshl.s32.s32.u32.sat.clamp %r4, %r1, %r2;":         "vshl.sat is not supported",
		"vadd.u32.u32.u32.add %r4, %r1, %r2;":               "needs c",
		"vadd.u32.u32.u32 %r4, %r1, %r2, %r3;":              "c is read only by",
		"vshl.u32.u32.u32 %r4, %r1, %r2;":                   "needs .clamp or .wrap",
		"vshr.u32.u32.u32.clamp.wrap %r4, %r1, %r2;":        "needs .clamp or .wrap",
		"vshl.u32.u32.s32.clamp %r4, %r1, %r2;":             "takes a .u32 shift",
		"vset.u32.u32.u32.lt %r4, %r1, %r2;":                "needs 2 types",
		"vset.u32.u32.lt.sat %r4, %r1, %r2;":                ".sat is not allowed with vset",
		"vmin.u32.u32.u32.rn %r4, %r1, %r2;":                "unsupported modifier on vmin",
		"vmax.u32.u32.u32 %r4, %r1, %r2, %r3, %r5;":         "wrong number of operands",
	})
}
