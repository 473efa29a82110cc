package capture

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Integer and floating-point arithmetic (PTX ISA 8.x, "Integer Arithmetic
// Instructions" and "Floating-Point Instructions"): one rule per opcode, whatever its
// type; the type picks the pipe (fclass).
var arithFamily = opFamily{name: "arithmetic", rules: []opRule{
	{names: []string{"add", "sub"}, decode: decodeAddSub,
		doc: "int (.sat on s32; .cc: see addc), f32 f64 (.rn .ftz .sat)"},
	{names: []string{"mul"}, decode: decodeMul,
		doc: ".lo .hi .wide (int), f32 f64 (.rn .ftz .sat)"},
	{names: []string{"mad", "fma"}, decode: decodeMad,
		doc: ".lo .hi .wide (int; .cc: see madc), f32 f64 (.rn .ftz .sat;\nmad.f = fma)"},
	{names: []string{"sad"}, decode: decodeSad,
		doc: "int: d = c + |a - b|"},
	{names: []string{"dp4a", "dp2a"}, decode: decodeDot,
		doc: "dp4a, dp2a .lo .hi: .u32/.s32 for a and for b"},
	{names: []string{"mul24", "mad24"}, decode: decodeMul24,
		doc: "mul24 .lo .hi, mad24 .lo (u32 s32)"},
	{names: []string{"div"}, decode: decodeDiv,
		doc: "int (÷0 gives all ones), f32 f64 (.rn .approx .full)"},
	{names: []string{"rem"}, decode: decodeRem,
		doc: "int (÷0 gives a)"},
	{names: []string{"abs", "neg"}, decode: decodeAbsNeg,
		doc: "int, f32 f64 (.ftz)"},
	{names: []string{"min", "max"}, decode: decodeMinMax,
		doc: "int, f32 f64 (.ftz; a NaN operand is ignored); .f32 also\n.NaN, giving the canonical NaN, and .xorsign.abs; .s32 .relu"},
	{names: []string{"copysign"}, decode: decodeCopysign,
		doc: "f32 f64"},
	{names: []string{"rcp", "sqrt", "rsqrt"}, decode: decodeSFU,
		doc: "f32 f64 (.rn .approx .ftz)"},
	{names: []string{"sin", "cos", "ex2", "lg2", "tanh"}, decode: decodeSFU,
		doc: "f32 .approx (evaluated in float64, rounded to f32)"},
}}

func decodeAddSub(r *resolver) error {
	if slices.Contains(r.m.other, ".cc") {
		return decodeCarry(r)
	}
	op, lane := r.base, laneAdd // add or sub
	if op == "sub" {
		lane = laneSub
	}
	if err := r.lanewise(lane, 2, r.fclass()); err != nil {
		return err
	}
	switch in := r.in; {
	case op == "add" && (in.t == tS32 || in.t == tU32 || in.t == tB32) && in.flags&fSat == 0:
		in.run = runAddU32
	case op == "add" && in.t.size() == 8 && !in.t.float():
		in.run = runAdd64
	case op == "add" && in.t == tF32 && in.flags&(fFTZ|fSat) == 0:
		in.run = runAddF32
	case op == "sub" && (in.t == tS32 || in.t == tU32) && in.flags&fSat == 0:
		in.run = runSubU32
	}
	return nil
}

func decodeMul(r *resolver) error {
	m := &r.m
	t, err := r.needType()
	if err != nil {
		return err
	}
	in := r.in
	switch {
	case t.float():
		err = r.lanewise(laneMulF, 2, r.fclass())
		if in.t == tF32 && in.flags&(fFTZ|fSat) == 0 {
			in.run = runMulF32
		}
	case m.wide:
		if t.size() != 4 && t.size() != 2 {
			return r.fail("mul.wide needs a 16- or 32-bit type")
		}
		err = r.lanewise(laneMulWide, 2, format.ClassALU)
		switch in.t {
		case tU32:
			in.run = runMulWideU32
		case tS32:
			in.run = runMulWideS32
		}
	case m.hi:
		err = r.lanewise(laneMulHi, 2, format.ClassALU)
	case m.lo:
		err = r.lanewise(laneMulLo, 2, format.ClassALU)
		if in.t.size() == 4 {
			in.run = runMulLo32
		}
	default:
		return r.fail("integer mul needs .lo, .hi or .wide")
	}
	return err
}

func decodeMad(r *resolver) error {
	m := &r.m
	t, err := r.needType()
	if err != nil {
		return err
	}
	in := r.in
	if slices.Contains(m.other, ".cc") && !t.float() {
		return decodeCarry(r)
	}
	if t.float() {
		if err := r.lanewise(laneFma, 3, r.fclass()); err != nil {
			return err
		}
		if in.t == tF32 && in.flags&(fFTZ|fSat) == 0 {
			in.run = runFmaF32
		}
		return nil
	}
	if r.base == "fma" {
		return r.fail("fma needs a float type")
	}
	switch {
	case m.wide:
		if err := r.lanewise(laneMadWide, 3, format.ClassALU); err != nil {
			return err
		}
		in.t = t
		return r.src(2, 3, sizeTypeSigned(t.size()*2, t.signed()))
	case m.hi:
		return r.lanewise(laneMadHi, 3, format.ClassALU)
	case m.lo:
		if err := r.lanewise(laneMadLo, 3, format.ClassALU); err != nil {
			return err
		}
		if in.t.size() == 4 {
			in.run = runMadLo32
		}
		return nil
	}
	return r.fail("integer mad needs .lo, .hi or .wide")
}

func decodeMul24(r *resolver) error {
	t, err := r.needType()
	if err != nil {
		return err
	}
	if t != tU32 && t != tS32 {
		return r.fail("%s needs .u32 or .s32", r.base)
	}
	switch {
	case r.base == "mul24" && r.m.hi:
		return r.lanewise(laneMul24Hi, 2, format.ClassALU)
	case r.base == "mul24":
		return r.lanewise(laneMul24Lo, 2, format.ClassALU)
	case r.m.lo:
		return r.lanewise(laneMad24Lo, 3, format.ClassALU)
	}
	return r.fail("%s variant not supported", r.a.opcode)
}

func decodeDiv(r *resolver) error {
	c := r.fclass()
	if c == format.ClassALU {
		c = format.ClassSFU
	}
	return r.lanewise(laneDiv, 2, c)
}

func decodeRem(r *resolver) error {
	return r.lanewise(laneRem, 2, format.ClassALU)
}

func decodeAbsNeg(r *resolver) error {
	if r.base == "abs" {
		return r.lanewise(laneAbs, 1, r.fclass())
	}
	if err := r.lanewise(laneNeg, 1, r.fclass()); err != nil {
		return err
	}
	if r.in.t == tF32 {
		r.in.run = runNegF32
	}
	return nil
}

func decodeMinMax(r *resolver) error {
	// PTX ISA 8.x, "Floating Point Instructions: min/max": .NaN (sm_80) and
	// .xorsign.abs (sm_86) exist for .f32 only among the types capture emulates.
	in, m, base := r.in, &r.m, r.base
	lane, rest := laneMin, m.other[:0:0]
	if base == "max" {
		lane = laneMax
	}
	for _, o := range m.other {
		switch o {
		case ".NaN":
			in.flags |= fNaN
		case ".relu":
			lane = laneMinRelu
			if base == "max" {
				lane = laneMaxRelu
			}
			if len(m.types) != 1 || m.types[0] != tS32 && m.types[0] != tS16x2 {
				return r.fail(".relu on %s takes .s32 or .s16x2", base)
			}
		case ".xorsign":
			in.flags |= fXorSign
		case ".abs":
			if !strings.Contains(r.a.opcode, ".xorsign.abs") {
				return r.fail(".abs on %s needs .xorsign before it", base)
			}
		default:
			rest = append(rest, o)
		}
	}
	if in.flags&fXorSign != 0 && !strings.Contains(r.a.opcode, ".xorsign.abs") {
		return r.fail(".xorsign on %s needs .abs after it", base)
	}
	if in.flags&(fNaN|fXorSign) != 0 && (len(m.types) != 1 || m.types[0] != tF32) {
		return r.fail(".NaN and .xorsign.abs are supported on .f32 only")
	}
	m.other = rest
	return r.lanewise(lane, 2, r.fclass())
}

func decodeSad(r *resolver) error {
	if len(r.m.types) == 1 && r.m.types[0].float() {
		return r.fail("sad takes an integer type")
	}
	return r.lanewise(laneSad, 3, format.ClassALU)
}

// decodeDot decodes dp4a.atype.btype d, a, b, c and dp2a.mode.atype.btype: in.t is
// a's type and in.t2 b's (.u32 or .s32 each); d and c are .s32 when either is signed.
func decodeDot(r *resolver) error {
	in, m := r.in, &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(4); err != nil {
		return err
	}
	if len(m.types) != 2 {
		return r.fail("%s needs two types, a's and b's", r.base)
	}
	for _, t := range m.types {
		if t != tU32 && t != tS32 {
			return r.fail("%s takes .u32 or .s32 for a and b", r.base)
		}
	}
	in.op, in.t, in.t2, in.run, in.lane = opCompute, m.types[0], m.types[1], runLanes, laneDp4a
	if r.base == "dp2a" {
		if m.hi == m.lo {
			return r.fail("dp2a needs .lo or .hi")
		}
		in.lane = laneDp2aLo
		if m.hi {
			in.lane = laneDp2aHi
		}
	} else if m.hi || m.lo {
		return r.fail("dp4a takes no .lo or .hi")
	}
	r.row.Class = format.ClassALU
	dt := tU32
	if in.t.signed() || in.t2.signed() {
		dt = tS32
	}
	if err := r.dst(0, 0, dt); err != nil {
		return err
	}
	for i, t := range []vtype{in.t, in.t2, dt} {
		if err := r.src(i, i+1, t); err != nil {
			return err
		}
	}
	return nil
}

func decodeCopysign(r *resolver) error {
	return r.lanewise(laneCopysign, 2, r.fclass())
}

// sfuLanes are the special-function unit's one-operand opcodes.
var sfuLanes = map[string]laneFunc{"rcp": laneRcp, "sqrt": laneSqrt, "rsqrt": laneRsqrt, "sin": laneSin, "cos": laneCos, "ex2": laneEx2, "lg2": laneLg2, "tanh": laneTanh}

func decodeSFU(r *resolver) error {
	if err := r.lanewise(sfuLanes[r.base], 1, format.ClassSFU); err != nil {
		return err
	}
	if r.in.t != tF32 && r.in.t != tF64 {
		return r.fail("%s needs .f32 or .f64", r.base)
	}
	if r.in.t == tF64 && r.base != "rcp" && r.base != "sqrt" && r.base != "rsqrt" {
		return r.fail("%s.f64 is not supported", r.base)
	}
	return nil
}

// Execution: one lane function per opcode (alu.go's runLanes calls it), and loops over
// a full warp for the commonest forms.

func laneAdd(in *instr, a, b, _ uint64) uint64 {
	switch in.t {
	case tF32:
		return f32r(in, ftz32(in, f32(a))+ftz32(in, f32(b)))
	case tF64:
		return f64r(f64(a) + f64(b))
	}
	if in.flags&fSat != 0 { // add.sat.s32
		r := int64(int32(a)) + int64(int32(b))
		return uint64(uint32(int32(clampI(r, math.MinInt32, math.MaxInt32))))
	}
	return (a + b) & in.t.mask()
}

func laneSub(in *instr, a, b, _ uint64) uint64 {
	switch in.t {
	case tF32:
		return f32r(in, ftz32(in, f32(a))-ftz32(in, f32(b)))
	case tF64:
		return f64r(f64(a) - f64(b))
	}
	if in.flags&fSat != 0 {
		r := int64(int32(a)) - int64(int32(b))
		return uint64(uint32(int32(clampI(r, math.MinInt32, math.MaxInt32))))
	}
	return (a - b) & in.t.mask()
}

func laneMulF(in *instr, a, b, _ uint64) uint64 {
	if in.t == tF32 {
		return f32r(in, ftz32(in, f32(a))*ftz32(in, f32(b)))
	}
	return f64r(f64(a) * f64(b))
}

func laneMulLo(in *instr, a, b, _ uint64) uint64 { return (a * b) & in.t.mask() }
func laneMulHi(in *instr, a, b, _ uint64) uint64 { return mulHi(in.t, a, b) }

// laneMulWide: the 2n-bit product fits in 64 bits for n <= 32.
func laneMulWide(in *instr, a, b, _ uint64) uint64 { return in.t.ext(a) * in.t.ext(b) }
func laneMadLo(in *instr, a, b, c uint64) uint64   { return (a*b + c) & in.t.mask() }
func laneMadHi(in *instr, a, b, c uint64) uint64   { return (mulHi(in.t, a, b) + c) & in.t.mask() }
func laneMadWide(in *instr, a, b, c uint64) uint64 { return in.t.ext(a)*in.t.ext(b) + c }

// laneMinRelu and laneMaxRelu: min and max on .s32, negative results clamped to 0.
func laneMinRelu(in *instr, a, b, c uint64) uint64 { return relu(in.t, laneMin(in, a, b, c)) }
func laneMaxRelu(in *instr, a, b, c uint64) uint64 { return relu(in.t, laneMax(in, a, b, c)) }

// relu clears a negative .s32, or each negative element of an .s16x2.
func relu(t vtype, v uint64) uint64 {
	if t == tS16x2 {
		for sh := uint(0); sh < 32; sh += 16 {
			if int16(v>>sh) < 0 {
				v &^= 0xffff << sh
			}
		}
		return v
	}
	if int32(v) < 0 {
		return 0
	}
	return v
}

// laneSad is c + |a - b|, the difference taken in the type's signedness.
func laneSad(in *instr, a, b, c uint64) uint64 {
	x, y := in.t.ext(a), in.t.ext(b)
	var diff uint64
	if in.t.signed() && int64(x) < int64(y) || !in.t.signed() && x < y {
		diff = y - x
	} else {
		diff = x - y
	}
	return (c + diff) & in.t.mask()
}

// laneDp4a is c plus the four products of a's and b's bytes, each byte signed or
// not as its operand's type says (PTX ISA 8.x, dp4a).
func laneDp4a(in *instr, a, b, c uint64) uint64 {
	sum := uint32(c)
	for i := 0; i < 4; i++ {
		sum += uint32(part(in.t, a, 8, i) * part(in.t2, b, 8, i))
	}
	return uint64(sum)
}

// laneDp2aLo and laneDp2aHi are c plus the two products of a's 16-bit halves with
// bytes 0-1 (.lo) or 2-3 (.hi) of b (PTX ISA 8.x, dp2a).
func laneDp2aLo(in *instr, a, b, c uint64) uint64 { return dp2a(in, a, b, c, 0) }
func laneDp2aHi(in *instr, a, b, c uint64) uint64 { return dp2a(in, a, b, c, 2) }

func dp2a(in *instr, a, b, c uint64, first int) uint64 {
	sum := uint32(c)
	for i := 0; i < 2; i++ {
		sum += uint32(part(in.t, a, 16, i) * part(in.t2, b, 8, first+i))
	}
	return uint64(sum)
}

// part is the i-th field of n bits of v, sign-extended when t is signed.
func part(t vtype, v uint64, n, i int) int64 {
	x := v >> (n * i) & (1<<n - 1)
	if t.signed() && x>>(n-1) != 0 {
		return int64(x) - 1<<n
	}
	return int64(x)
}

func laneMul24Lo(in *instr, a, b, _ uint64) uint64 {
	return uint64(ext24(in.t, a)*ext24(in.t, b)) & 0xffffffff
}

func laneMul24Hi(in *instr, a, b, _ uint64) uint64 {
	return (uint64(ext24(in.t, a)*ext24(in.t, b)) >> 16) & 0xffffffff
}

func laneMad24Lo(in *instr, a, b, c uint64) uint64 {
	return (uint64(ext24(in.t, a)*ext24(in.t, b)) + c) & 0xffffffff
}

func laneFma(in *instr, a, b, c uint64) uint64 {
	if in.t == tF32 {
		r := FMA32(ftz32(in, f32(a)), ftz32(in, f32(b)), ftz32(in, f32(c)))
		return f32r(in, r)
	}
	return f64r(math.FMA(f64(a), f64(b), f64(c)))
}

func laneDiv(in *instr, a, b, _ uint64) uint64 {
	t := in.t
	switch t {
	case tF32:
		return f32r(in, ftz32(in, f32(a))/ftz32(in, f32(b)))
	case tF64:
		return f64r(f64(a) / f64(b))
	}
	if t.signed() {
		x, y := int64(t.ext(a)), int64(t.ext(b))
		if y == 0 {
			return t.mask() // all ones, as the hardware returns
		}
		if y == -1 {
			return uint64(-x) & t.mask()
		}
		return uint64(x/y) & t.mask()
	}
	if b == 0 {
		return t.mask()
	}
	return (a / b) & t.mask()
}

func laneRem(in *instr, a, b, _ uint64) uint64 {
	t := in.t
	if t.signed() {
		x, y := int64(t.ext(a)), int64(t.ext(b))
		if y == 0 {
			return a
		}
		if y == -1 {
			return 0
		}
		return uint64(x%y) & t.mask()
	}
	if b == 0 {
		return a
	}
	return a % b
}

func laneAbs(in *instr, a, _, _ uint64) uint64 {
	switch in.t {
	case tF32:
		return a & 0x7fffffff
	case tF64:
		return a &^ (1 << 63)
	}
	x := int64(in.t.ext(a))
	if x < 0 {
		x = -x
	}
	return uint64(x) & in.t.mask()
}

func laneNeg(in *instr, a, _, _ uint64) uint64 {
	switch in.t {
	case tF32:
		return a ^ 0x80000000
	case tF64:
		return a ^ (1 << 63)
	}
	return -a & in.t.mask()
}

func laneMin(in *instr, a, b, _ uint64) uint64 { return minMax(in, a, b, false) }
func laneMax(in *instr, a, b, _ uint64) uint64 { return minMax(in, a, b, true) }

func laneCopysign(in *instr, a, b, _ uint64) uint64 {
	if in.t == tF32 {
		return a&0x80000000 | b&0x7fffffff
	}
	return a&(1<<63) | b&^(1<<63)
}

func laneRcp(in *instr, a, _, _ uint64) uint64 {
	if in.t == tF32 {
		return f32r(in, float32(1/float64(ftz32(in, f32(a)))))
	}
	return f64r(1 / f64(a))
}

func laneSqrt(in *instr, a, _, _ uint64) uint64 {
	if in.t == tF32 {
		return f32r(in, float32(math.Sqrt(float64(ftz32(in, f32(a))))))
	}
	return f64r(math.Sqrt(f64(a)))
}

func laneRsqrt(in *instr, a, _, _ uint64) uint64 {
	if in.t == tF32 {
		return f32r(in, float32(1/math.Sqrt(float64(ftz32(in, f32(a))))))
	}
	return f64r(1 / math.Sqrt(f64(a)))
}

func laneSin(in *instr, a, _, _ uint64) uint64 {
	return f32r(in, float32(math.Sin(float64(ftz32(in, f32(a))))))
}

func laneCos(in *instr, a, _, _ uint64) uint64 {
	return f32r(in, float32(math.Cos(float64(ftz32(in, f32(a))))))
}

func laneEx2(in *instr, a, _, _ uint64) uint64 {
	return f32r(in, float32(math.Exp2(float64(ftz32(in, f32(a))))))
}

func laneLg2(in *instr, a, _, _ uint64) uint64 {
	return f32r(in, float32(math.Log2(float64(ftz32(in, f32(a))))))
}

func laneTanh(in *instr, a, _, _ uint64) uint64 {
	return f32r(in, float32(math.Tanh(float64(f32(a)))))
}

func runAddU32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(uint32(a[l] + b[l]))
	}
}

func runAdd64(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = a[l] + b[l]
	}
}

func runAddF32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(math.Float32bits(math.Float32frombits(uint32(a[l])) + math.Float32frombits(uint32(b[l]))))
	}
}

func runSubU32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(uint32(a[l] - b[l]))
	}
}

func runMulF32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(math.Float32bits(math.Float32frombits(uint32(a[l])) * math.Float32frombits(uint32(b[l]))))
	}
}

func runFmaF32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b, c := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	for l := 0; l < 32; l++ {
		x, y, z := math.Float32frombits(uint32(a[l])), math.Float32frombits(uint32(b[l])), math.Float32frombits(uint32(c[l]))
		d[l] = uint64(math.Float32bits(FMA32(x, y, z)))
	}
}

func runNegF32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a := w.slot(in.d[0]), w.slot(in.s[0])
	for l := 0; l < 32; l++ {
		d[l] = a[l] ^ 0x80000000
	}
}

func runMulWideU32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
	}
}

func runMulWideS32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
	}
}

func runMadLo32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b, c := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	for l := 0; l < 32; l++ {
		d[l] = uint64(uint32(a[l]*b[l] + c[l]))
	}
}

func runMulLo32(w *warpState, in *instr, exec, active uint32) {
	if exec != fullWarp {
		runLanes(w, in, exec, active)
		return
	}
	d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	for l := 0; l < 32; l++ {
		d[l] = uint64(uint32(a[l] * b[l]))
	}
}

func mulHi(t vtype, a, b uint64) uint64 {
	switch t.size() {
	case 8:
		if t.signed() {
			hi, _ := bits.Mul64(a, b)
			// signed correction: hi(a*b) for two's complement operands
			if int64(a) < 0 {
				hi -= b
			}
			if int64(b) < 0 {
				hi -= a
			}
			return hi
		}
		hi, _ := bits.Mul64(a, b)
		return hi
	default:
		n := t.bits()
		if t.signed() {
			return uint64(int64(t.ext(a))*int64(t.ext(b))>>n) & t.mask()
		}
		return (t.ext(a) * t.ext(b) >> n) & t.mask()
	}
}

func ext24(t vtype, v uint64) int64 {
	if t.signed() {
		return int64(int32(uint32(v)<<8) >> 8)
	}
	return int64(v & 0xffffff)
}

// canonicalNaN32 is the NaN PTX arithmetic produces: "the canonical NaN ... 0x7fffffff"
// (PTX ISA, "Floating Point Instructions"), what min/max.NaN returns for a NaN input.
const canonicalNaN32 = 0x7fffffff

// minMax is min (isMax false) or max of two values of type in.t, under the
// instruction's .ftz, .NaN and .xorsign.abs; atomics use it too.
func minMax(in *instr, a, b uint64, isMax bool) uint64 {
	switch in.t {
	case tF32:
		x, y := ftz32(in, f32(a)), ftz32(in, f32(b))
		if in.flags&fNaN != 0 && (x != x || y != y) {
			return canonicalNaN32
		}
		sign := false
		if in.flags&fXorSign != 0 {
			sign = math.Signbit(float64(x)) != math.Signbit(float64(y))
			x, y = float32(math.Abs(float64(x))), float32(math.Abs(float64(y)))
		}
		var r float32
		switch {
		case x != x:
			r = y
		case y != y:
			r = x
		case isMax:
			r = max(x, y)
		default:
			r = min(x, y)
		}
		if sign && r == r {
			// The xor of the signs applies to the result unless it is a NaN.
			r = -r
		}
		return f32r(in, r)
	case tF64:
		x, y := f64(a), f64(b)
		switch {
		case x != x:
			return b
		case y != y:
			return a
		case isMax:
			return f64r(math.Max(x, y))
		}
		return f64r(math.Min(x, y))
	case tS16x2, tU16x2:
		// Each 16-bit element on its own (PTX ISA 8.x, integer min/max, sm_90).
		et := tU16
		if in.t == tS16x2 {
			et = tS16
		}
		lo := minMaxInt(et, a&0xffff, b&0xffff, isMax)
		hi := minMaxInt(et, a>>16&0xffff, b>>16&0xffff, isMax)
		return lo | hi<<16
	}
	return minMaxInt(in.t, a, b, isMax)
}

// minMaxInt is the smaller or larger of two integers of type t.
func minMaxInt(t vtype, a, b uint64, isMax bool) uint64 {
	if t.signed() {
		x, y := int64(t.ext(a)), int64(t.ext(b))
		if (x > y) == isMax {
			return a
		}
		return b
	}
	if (a > b) == isMax {
		return a
	}
	return b
}
