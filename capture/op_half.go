package capture

import (
	"math"
	"math/bits"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Half precision (PTX ISA 8.x, "Half Precision Floating-Point Instructions", and cvt,
// setp, min, max, ex2 and tanh on .f16 .bf16 .f16x2 .bf16x2). A .f16 or .bf16 is held
// in the low 16 bits of its slot; an .f16x2 or .bf16x2 in the low 32, element 0 in bits
// 0-15. Every result is computed exactly in float64 (a sum with its rounding error
// beside it, TwoSum) and rounded once to the format in the instruction's mode, as the
// ISA specifies; a NaN result is the canonical 0x7fff. The H100 gives the same bits on
// every input of scripts/hw/half.py (TestHalfOnGPU), but for the .approx forms, its
// SFU's approximations, where capture is within one ulp.
var halfFamily = opFamily{name: "half precision", halfTypes: true, rules: []opRule{
	{names: []string{"add", "sub", "mul"}, decode: decodeHalfArith,
		doc: "f16 bf16 f16x2 bf16x2 (.rn .ftz .sat)"},
	{names: []string{"fma"}, decode: decodeHalfArith,
		doc: "f16 bf16 f16x2 bf16x2 .rn (.ftz .sat .relu)"},
	{names: []string{"neg", "abs"}, decode: decodeHalfArith,
		doc: "f16 bf16 f16x2 bf16x2 (.ftz; a NaN gives the canonical NaN)"},
	{names: []string{"min", "max"}, decode: decodeHalfArith,
		doc: "f16 bf16 f16x2 bf16x2 (.ftz; a NaN operand is ignored; .NaN,\n.xorsign.abs, .relu)"},
	{names: []string{"ex2", "tanh"}, decode: decodeHalfArith,
		doc: "f16 bf16 f16x2 bf16x2 .approx (.ftz; the value rounded to f32,\nthen toward zero: within an ulp of the H100's)"},
	{names: []string{"setp"}, mods: modCompare, decode: decodeHalfSetp,
		doc: "f16 bf16 (.ftz), every comparison; f16x2 bf16x2: p|q are the\nlow and the high halves' results; .and/.or/.xor with a predicate"},
	{names: []string{"atom", "red"}, decode: decodeHalfAtomic,
		doc: ".add.noftz: f16 bf16 f16x2 bf16x2 (.global .shared generic;\nrounded to nearest, subnormals kept)"},
	{names: []string{"cvt"}, decode: decodeHalfCvt,
		doc: "f16 bf16 to and from f32 f64, integers and each other: .rn .rz\n.rm .rp, .rni .rzi .rmi .rpi, .relu, .satfinite; f16x2 bf16x2\nfrom two f32 (cvt.rn.f16x2.f32 d, a, b puts a in the high half)"},
}}

// Half modifiers, in instr.bop (no other use in these rules).
const (
	halfRelu      uint8 = 1 << iota // .relu: a negative result is +0, a NaN the canonical NaN
	halfSatFinite                   // .satfinite: an infinite result is the largest finite of its sign
)

// halfNaN is the canonical NaN of .f16 and .bf16: every NaN a half instruction writes
// on the H100 (traces/hw/h100-2026-11-26-half).
const halfNaN = 0x7fff

// halfFmt is a 16-bit binary floating-point format: IEEE binary16 or bfloat16.
type halfFmt struct {
	frac uint // fraction bits (the significand less its hidden bit)
	emax int  // exponent of the largest normal; the bias
}

var (
	f16Fmt  = halfFmt{frac: 10, emax: 15}
	bf16Fmt = halfFmt{frac: 7, emax: 127}
)

func fmtOf(t vtype) *halfFmt {
	if t == tBF16 || t == tBF16x2 {
		return &bf16Fmt
	}
	return &f16Fmt
}

func (t vtype) packed() bool { return t == tF16x2 || t == tBF16x2 }

func (f *halfFmt) emin() int               { return 1 - f.emax }
func (f *halfFmt) expMask() uint16         { return 0x7fff &^ (1<<f.frac - 1) }
func (f *halfFmt) isNaN(h uint16) bool     { return h&f.expMask() == f.expMask() && h&(1<<f.frac-1) != 0 }
func (f *halfFmt) subnormal(h uint16) bool { return h&f.expMask() == 0 && h&0x7fff != 0 }
func (f *halfFmt) one() uint16             { return uint16(f.emax) << f.frac }

// value is h's value, exactly.
func (f *halfFmt) value(h uint16) float64 {
	frac := uint64(h) & (1<<f.frac - 1)
	e := int(h&0x7fff) >> f.frac
	var x float64
	switch {
	case h&f.expMask() == f.expMask() && frac != 0:
		return math.NaN()
	case h&f.expMask() == f.expMask():
		x = math.Inf(1)
	case e == 0:
		x = math.Ldexp(float64(frac), f.emin()-int(f.frac))
	default:
		x = math.Ldexp(float64(frac|1<<f.frac), e-f.emax-int(f.frac))
	}
	if h&0x8000 != 0 {
		x = -x
	}
	return x
}

// round is the format's value nearest the exact x+lo in the mode rnd (rndDefault is
// .rn, to nearest even), lo being at most half an ulp of x: a TwoSum's error term, or
// the remainder of an integer too wide for float64. Subnormal results are kept;
// overflow gives an infinity or the largest finite, as the mode says.
func (f *halfFmt) round(x, lo float64, rnd uint8) uint16 {
	if x != x {
		return halfNaN
	}
	var sign uint16
	if math.Signbit(x) {
		sign, x, lo = 0x8000, -x, -lo
	}
	if math.IsInf(x, 1) {
		return sign | f.expMask()
	}
	if x == 0 {
		return sign
	}
	q := math.Ldexp(1, max(math.Ilogb(x), f.emin())-int(f.frac)) // the quantum at x
	n := math.Floor(x / q)
	rem := x/q - n // the exact value is (n + rem + lo/q) quanta
	inexact := rem != 0 || lo != 0
	if rem == 0 && lo < 0 { // just below the grid point x
		n, rem = n-1, 1
	}
	up := false
	switch rnd {
	case rndZ:
	case rndP:
		up = inexact && sign == 0
	case rndM:
		up = inexact && sign != 0
	default:
		up = rem > 0.5 || rem == 0.5 && (lo > 0 || lo == 0 && math.Mod(n, 2) == 1)
	}
	if up {
		n++
	}
	m := n * q
	maxH := f.expMask() - 1
	if m > f.value(maxH) {
		if rnd == rndZ || rnd == rndP && sign != 0 || rnd == rndM && sign == 0 {
			return sign | maxH
		}
		return sign | f.expMask()
	}
	if m == 0 {
		return sign
	}
	e := math.Ilogb(m)
	if e < f.emin() {
		return sign | uint16(m/math.Ldexp(1, f.emin()-int(f.frac)))
	}
	return sign | uint16(e+f.emax)<<f.frac | uint16(m/math.Ldexp(1, e-int(f.frac)))&(1<<f.frac-1)
}

// twoSum returns a+b rounded and its exact error (Knuth's TwoSum).
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// arg is operand h's value, a subnormal flushed to a zero of its sign under .ftz.
func (f *halfFmt) arg(in *instr, h uint16) float64 {
	return f.value(f.ftz(in, h))
}

func (f *halfFmt) ftz(in *instr, h uint16) uint16 {
	if in.flags&fFTZ != 0 && f.subnormal(h) {
		return h & 0x8000
	}
	return h
}

// result rounds x+lo in the instruction's mode and applies .ftz, .sat and .relu.
// Under .ftz a result below the smallest normal before rounding is a zero of its sign
// (the H100 flushes 0x07ff * 0.5, which rounds up to the smallest normal).
func (f *halfFmt) result(in *instr, x, lo float64) uint16 {
	if in.flags&fFTZ != 0 && f.tiny(x, lo) {
		x, lo = math.Copysign(0, x), 0
	}
	h := f.round(x, lo, in.rnd)
	if in.flags&fSat != 0 {
		switch {
		case f.isNaN(h) || h&0x8000 != 0:
			h = 0
		case h > f.one():
			h = f.one()
		}
	}
	return f.relu(in, h)
}

// tiny: the exact x+lo is nonzero and below the smallest normal in magnitude.
func (f *halfFmt) tiny(x, lo float64) bool {
	m := math.Ldexp(1, f.emin())
	ax := math.Abs(x)
	return x != 0 && (ax < m || ax == m && (lo < 0) != (x < 0) && lo != 0)
}

func (f *halfFmt) relu(in *instr, h uint16) uint16 {
	if in.bop&halfRelu != 0 && h&0x8000 != 0 {
		if f.isNaN(h) {
			return halfNaN
		}
		return 0
	}
	return h
}

func decodeHalfArith(r *resolver) error {
	in, m, base := r.in, &r.m, r.base
	minMax := base == "min" || base == "max"
	if (base == "fma" || minMax) && m.take(".relu") {
		in.bop |= halfRelu
	}
	if minMax && m.take(".NaN") {
		in.flags |= fNaN
	}
	if xorsign, abs := minMax && m.take(".xorsign"), minMax && m.take(".abs"); xorsign || abs {
		if !strings.Contains(r.a.opcode, ".xorsign.abs") {
			return r.fail(".xorsign and .abs on %s go together, as .xorsign.abs", base)
		}
		in.flags |= fXorSign
	}
	approx := base == "ex2" || base == "tanh"
	if approx != m.approx {
		if approx {
			return r.fail("%s on a half type needs .approx", base)
		}
		return r.fail("%s takes no .approx", base)
	}
	if m.rnd != rndDefault && m.rnd != rndN {
		return r.fail("%s on a half type rounds to nearest only (.rn)", base)
	}
	lane, nsrc, class := halfLanes[base], 2, format.ClassFP32
	switch base {
	case "fma":
		nsrc = 3
	case "neg", "abs":
		nsrc = 1
	case "ex2", "tanh":
		nsrc, class = 1, format.ClassSFU
	}
	return r.lanewise(lane, nsrc, class)
}

// halfLanes are the lane functions of decodeHalfArith's opcodes.
var halfLanes = map[string]laneFunc{
	"add": laneHalfAdd, "sub": laneHalf(halfSub), "mul": laneHalf(halfMul),
	"fma": laneHalf(halfFma), "neg": laneHalf(halfNeg), "abs": laneHalf(halfAbs),
	"min": laneHalf(halfMin), "max": laneHalf(halfMax),
	"ex2": laneHalf(halfEx2), "tanh": laneHalf(halfTanh),
}

// A halfOp computes one element of a half instruction.
type halfOp func(in *instr, f *halfFmt, a, b, c uint16) uint16

// laneHalf applies op to a lane's element, or to both elements of an x2.
func laneHalf(op halfOp) laneFunc {
	return func(in *instr, a, b, c uint64) uint64 {
		f := fmtOf(in.t)
		d := uint64(op(in, f, uint16(a), uint16(b), uint16(c)))
		if in.t.packed() {
			d |= uint64(op(in, f, uint16(a>>16), uint16(b>>16), uint16(c>>16))) << 16
		}
		return d
	}
}

func halfAdd(in *instr, f *halfFmt, a, b, _ uint16) uint16 {
	x, lo := twoSum(f.arg(in, a), f.arg(in, b))
	return f.result(in, x, lo)
}

func halfSub(in *instr, f *halfFmt, a, b, _ uint16) uint16 {
	x, lo := twoSum(f.arg(in, a), -f.arg(in, b))
	return f.result(in, x, lo)
}

// halfMul: the product of two 11-bit (or 8-bit) significands is exact in float64.
func halfMul(in *instr, f *halfFmt, a, b, _ uint16) uint16 {
	return f.result(in, f.arg(in, a)*f.arg(in, b), 0)
}

func halfFma(in *instr, f *halfFmt, a, b, c uint16) uint16 {
	x, lo := twoSum(f.arg(in, a)*f.arg(in, b), f.arg(in, c))
	return f.result(in, x, lo)
}

func halfNeg(in *instr, f *halfFmt, a, _, _ uint16) uint16 {
	if f.isNaN(a) {
		return halfNaN
	}
	return f.ftz(in, a) ^ 0x8000
}

func halfAbs(in *instr, f *halfFmt, a, _, _ uint16) uint16 {
	if f.isNaN(a) {
		return halfNaN
	}
	return f.ftz(in, a) &^ 0x8000
}

func halfMin(in *instr, f *halfFmt, a, b, _ uint16) uint16 { return halfMinMax(in, f, a, b, false) }
func halfMax(in *instr, f *halfFmt, a, b, _ uint16) uint16 { return halfMinMax(in, f, a, b, true) }

// halfMinMax: a NaN operand is ignored unless .NaN (two NaNs give the canonical NaN);
// -0 is below +0; .xorsign.abs compares magnitudes and gives the result the xor of
// the operands' signs unless it is a NaN.
func halfMinMax(in *instr, f *halfFmt, a, b uint16, isMax bool) uint16 {
	a, b = f.ftz(in, a), f.ftz(in, b)
	sign := (a ^ b) & 0x8000
	if in.flags&fXorSign != 0 {
		a, b = a&^0x8000, b&^0x8000
	}
	an, bn := f.isNaN(a), f.isNaN(b)
	var r uint16
	switch {
	case an && bn, (an || bn) && in.flags&fNaN != 0:
		return halfNaN
	case an:
		r = b
	case bn:
		r = a
	default:
		x, y := f.value(a), f.value(b)
		less := x < y || x == y && a&0x8000 != 0 // -0 below +0
		if less != isMax {
			r = a
		} else {
			r = b
		}
	}
	if in.flags&fXorSign != 0 {
		r |= sign
	}
	return f.relu(in, r)
}

// halfEx2 and halfTanh: the value rounded to f32, then toward zero to the format
// (overflow still gives an infinity), which is the nearest rule to the H100's
// .approx results: rounded to nearest, a third of them would be an ulp above.
func halfEx2(in *instr, f *halfFmt, a, _, _ uint16) uint16 {
	return f.approx(in, math.Exp2(f.arg(in, a)))
}

func halfTanh(in *instr, f *halfFmt, a, _, _ uint16) uint16 {
	return f.approx(in, math.Tanh(f.arg(in, a)))
}

func (f *halfFmt) approx(in *instr, x float64) uint16 {
	h := f.round(float64(float32(x)), 0, rndZ)
	if h&0x7fff == f.expMask()-1 && math.Abs(x) > f.value(f.expMask()-1) {
		h = h&0x8000 | f.expMask()
	}
	return f.ftz(in, h)
}

// decodeHalfSetp: an x2 writes a pair p|q, the low and the high halves' results; a
// scalar writes one predicate (the GPU's JIT refuses p|q on .f16).
func decodeHalfSetp(r *resolver) error {
	return r.setp(runHalfSetp, func(t vtype, pair bool) error {
		switch {
		case t.packed() && !pair:
			return r.fail("setp.%s writes a pair p|q: p the low halves' result, q the high halves'", t)
		case !t.packed() && pair:
			return r.fail("setp.%s writes one predicate (p|q is for .f16x2 and .bf16x2)", t)
		}
		return nil
	})
}

// runHalfSetp: p is the comparison of the low (or only) elements, q of the high ones.
func runHalfSetp(w *warpState, in *instr, exec, _ uint32) {
	a, b := w.slot(in.s[0]), w.slot(in.s[1])
	f := fmtOf(in.t)
	var p, q uint32
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if compareFloat(in.cmp, f.arg(in, uint16(a[l])), f.arg(in, uint16(b[l]))) {
			p |= 1 << l
		}
		if in.t.packed() && compareFloat(in.cmp, f.arg(in, uint16(a[l]>>16)), f.arg(in, uint16(b[l]>>16))) {
			q |= 1 << l
		}
	}
	w.setpResult(in, exec, p, q) // a scalar has no q: p|q is refused on it
}

func decodeHalfCvt(r *resolver) error {
	in, m := r.in, &r.m
	if m.take(".relu") {
		in.bop |= halfRelu
	}
	if m.take(".satfinite") {
		in.bop |= halfSatFinite
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	if len(m.types) != 2 || m.types[0] == tPred || m.types[1] == tPred {
		return r.fail("cvt needs a destination and a source type")
	}
	to, from := m.types[0], m.types[1]
	switch {
	case from.packed():
		return r.fail("cvt takes no .%s source; unpack it with mov.b32 {lo, hi}", from)
	case in.bop != 0 && !to.half():
		return r.fail(".relu and .satfinite need a .f16 or .bf16 destination")
	case to.packed() && from != tF32:
		return r.fail("cvt to .%s takes two .f32 sources", to)
	case m.rndInt && !(from.float() || from.half()):
		return r.fail("integer rounding needs a float source")
	case !m.rndInt && !(to.float() || to.half()):
		return r.fail("float-to-integer cvt needs .rni, .rzi, .rmi or .rpi")
	}
	if m.rndInt && (to.float() || to.half()) {
		in.flags |= fRoundInt
	}
	nsrc := 1
	if to.packed() {
		nsrc = 2
	}
	if err := r.nops(nsrc + 1); err != nil {
		return err
	}
	in.op, in.t, in.t2, in.run, in.lane = opCompute, to, from, runLanes, laneHalfCvt
	r.row.Class = format.ClassConv
	if err := r.dst(0, 0, to); err != nil {
		return err
	}
	for i := 0; i < nsrc; i++ {
		if err := r.src(i, i+1, from); err != nil {
			return err
		}
	}
	return nil
}

// laneHalfCvt converts to a half type (an x2 from two sources, a in the high half),
// or from one to a wider float or an integer. From .f16 a NaN becomes the canonical
// f32 NaN and an f64 NaN with its payload kept and the quiet bit set; .bf16 widens
// to f32 bit for bit (all measured on the H100).
func laneHalfCvt(in *instr, a, b, _ uint64) uint64 {
	switch {
	case in.t.packed():
		return uint64(toHalf(in, b)) | uint64(toHalf(in, a))<<16
	case in.t.half():
		return uint64(toHalf(in, a))
	}
	f, h := fmtOf(in.t2), uint16(a)
	x := f.value(h)
	if in.flags&fRoundInt != 0 {
		x = roundInt(x, in.rnd)
	}
	switch {
	case in.t == tF32 && in.t2 == tBF16 && in.flags&fRoundInt == 0:
		return f32r(in, math.Float32frombits(uint32(h)<<16))
	case in.t == tF32 && x != x:
		return canonicalNaN32
	case in.t == tF32:
		return f32r(in, float32(x))
	case in.t == tF64 && x != x:
		return uint64(h&0x8000)<<48 | 0x7ff8<<48 | uint64(h&(1<<f.frac-1))<<(52-f.frac)
	case in.t == tF64:
		return f64r(x)
	}
	return floatToInt(roundInt(x, in.rnd), in.t, in.t2)
}

// toHalf converts cvt's source value v (of type in.t2) to the destination's format.
func toHalf(in *instr, v uint64) uint16 {
	f := fmtOf(in.t)
	x, lo := cvtSource(in, v)
	rnd := in.rnd
	if in.flags&fRoundInt != 0 {
		x, rnd = roundInt(x, in.rnd), rndN
	}
	h := f.round(x, lo, rnd)
	if x != x && in.t2 == tF64 {
		// From f64 a NaN becomes the format's default quiet NaN (0x7e00, 0x7fc0), not
		// the canonical one (measured).
		h = f.expMask() | 1<<(f.frac-1)
	}
	if in.bop&halfSatFinite != 0 && h&0x7fff == f.expMask() {
		h = h&0x8000 | (f.expMask() - 1)
	}
	return f.relu(in, h)
}

// cvtSource is cvt's source value v as x+lo: exact for every float, and for an
// integer wider than float64's 53 bits the rounding error as lo.
func cvtSource(in *instr, v uint64) (x, lo float64) {
	t := in.t2
	switch {
	case t.half():
		return fmtOf(t).value(uint16(v)), 0
	case t == tF32:
		return float64(ftz32(in, f32(v))), 0
	case t == tF64:
		return f64(v), 0
	case t.signed():
		n := int64(t.ext(v))
		x = float64(n)
		if x >= 1<<63 { // n is near the largest int64; x - n is small
			return x, -float64(math.MaxInt64-n) - 1
		}
		return x, float64(n - int64(x))
	}
	u := t.ext(v)
	x = float64(u)
	if x >= 1<<64 {
		return x, -float64(^u + 1)
	}
	return x, float64(int64(u - uint64(x)))
}

// decodeHalfAtomic: atom and red .add.noftz on a half type (PTX ISA 8.x: .noftz is
// required, and add is the one operation); the rest is decodeAtomic's.
func decodeHalfAtomic(r *resolver) error {
	m := &r.m
	t, _ := m.halfType()
	if !m.take(".noftz") || len(m.other) != 1 || m.other[0] != ".add" {
		return r.fail("%s on .%s is .add.noftz only", r.base, t)
	}
	return decodeAtomic(r)
}

// halfAtomAdd is an atomic add's new value for a half type t: .rn, no flush to zero
// (an instruction of type t with no modifier, one per type so that none is allocated
// per lane).
func halfAtomAdd(t vtype, old, x uint64) uint64 { return laneHalfAdd(&halfPlain[t], old, x, 0) }

var (
	laneHalfAdd = laneHalf(halfAdd)
	halfPlain   = [...]instr{tF16: {t: tF16}, tBF16: {t: tBF16}, tF16x2: {t: tF16x2}, tBF16x2: {t: tBF16x2}}
)
