package capture

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Data movement and conversion: mov, cvta, cvt (PTX ISA 8.x, "Data Movement and
// Conversion Instructions").
var moveFamily = opFamily{name: "data movement and conversion", rules: []opRule{
	{names: []string{"mov"}, decode: decodeMov,
		doc: "b16-b64 u s f32 f64 pred; pack {a,b}→d and unpack d→{a,b};\n%clock %clock_hi %clock64: the warp's instruction count"},
	{names: []string{"cvta"}, decode: decodeCvta,
		doc: ".global .shared .local .const, and .to.*; 64-bit"},
	{names: []string{"isspacep"}, decode: decodeIsspacep,
		doc: ".global .shared (::cta ::cluster) .local .const; 64-bit"},
	{names: []string{"cvt"}, decode: decodeCvt,
		doc: "every int/float pair; .rn .rz .rm .rp; .rni .rzi .rmi .rpi;\n.sat .ftz (float→int saturates; NaN→0 from f32/f16 to ≤32 bits,\nelse the sign bit, as an H100 gives it)"},
}}

func decodeMov(r *resolver) error {
	in, a := r.in, r.a
	t, err := r.typed(nil, 2)
	if err != nil {
		return err
	}
	in.t = t
	switch {
	case t == tPred:
		in.op, in.bop, in.run = opCompute, bopMov, runPredLogic
		in.flags |= fSinkOK
		return r.predLogic(1)
	case a.ops[0].kind == oVec:
		in.op, in.run = opCompute, runMovUnpack
		in.flags |= fSinkOK
		n, err := r.movParts(0, t, "unpack", r.dstOp)
		if err != nil {
			return err
		}
		in.nd = uint8(n)
		return r.src(0, 1, t)
	case a.ops[1].kind == oVec:
		in.op, in.run = opCompute, runMovPack
		n, err := r.movParts(1, t, "pack", r.srcOp)
		if err != nil {
			return err
		}
		in.ns = uint8(n)
		return r.dst(0, 0, t)
	}
	if o := a.ops[1]; o.kind == oName && strings.HasPrefix(o.name, "%clock") {
		return r.clock(o.name, t)
	}
	in.op, in.run = opCompute, runMov
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	return r.src(0, 1, t)
}

// The clock registers a mov may read, indexed by what runClock gives of the count
// (in.imm): 0 the low 32 bits, 1 the high 32 bits, 2 all 64.
var clockRegs = [...]clockReg{{"%clock", 4}, {"%clock_hi", 4}, {"%clock64", 8}}

type clockReg struct {
	name string
	size int // bytes
}

// clock decodes mov d, %clock (or %clock_hi, %clock64). A GPU's clock counts the SM's
// cycles, which only a timing model knows: capture gives the warp's count of executed
// instructions instead (this mov included), the same for any worker count and rising
// as a clock does, so code that times a section or waits for a number of cycles runs
// on; Kernel.ClockNote says so.
func (r *resolver) clock(name string, t vtype) error {
	part := slices.IndexFunc(clockRegs[:], func(c clockReg) bool { return c.name == name })
	if part < 0 || t.size() != clockRegs[part].size || t.float() || t.half() {
		return r.fail("special register %s is not supported as .%s", name, t)
	}
	r.in.op, r.in.run, r.in.imm = opCompute, runClock, uint32(part)
	if r.k.clockPC < 0 {
		r.k.clockPC = int32(r.row.PC)
	}
	return r.dst(0, 0, t)
}

// ClockNote is "" for a kernel that reads no clock register, and otherwise says where
// it reads one and what capture gives there, for the user who would take it for cycles.
func (k *Kernel) ClockNote() string {
	if k.clockPC < 0 {
		return ""
	}
	at := fmt.Sprintf("pc %d", k.clockPC)
	if src := k.sourceAt(int(k.clockPC)); src != "" {
		at = src + " (" + at + ")"
	}
	return fmt.Sprintf("kernel %s reads %s at %s: gtrace gives the warp's count of executed instructions there, not cycles (gtrace replay --engine timing models time)", k.launch.Kernel, clockRegs[k.prog[k.clockPC].imm].name, at)
}

// runClock writes the warp's instruction count (see clock).
func runClock(w *warpState, in *instr, exec, _ uint32) {
	v := w.ninst
	switch in.imm {
	case 0:
		v &= 0xffffffff
	case 1:
		v >>= 32
	}
	d := w.slot(in.d[0])
	for m := exec; m != 0; m &= m - 1 {
		d[bits.TrailingZeros32(m)] = v
	}
}

// movParts checks mov's vector operand k ({a, b} or {a, b, c, d}, splitting a t into
// equal parts), sets in.t2 to the parts' type, resolves each part with each (dstOp or
// srcOp) and returns how many there are.
func (r *resolver) movParts(k int, t vtype, what string, each func(int, operand, vtype) error) (int, error) {
	elems := r.a.ops[k].elems
	n := len(elems)
	if n != 2 && n != 4 || t.size()%n != 0 {
		return 0, r.fail("bad %s", what)
	}
	r.in.t2 = sizeType(t.size() / n)
	for i, e := range elems {
		if err := each(i, e, r.in.t2); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func decodeCvta(r *resolver) error {
	in, m := r.in, &r.m
	t, err := r.typed([]string{".to"}, 2)
	if err != nil {
		return err
	}
	if t.size() != 8 {
		return r.fail("only 64-bit cvta is supported")
	}
	in.op, in.t, in.run = opCompute, t, runCvta
	in.space = spaceOf(m.space)
	if in.space == msNone || in.space == msParamK {
		return r.fail("cvta needs .global, .shared, .local or .const")
	}
	if len(m.other) == 1 { // cvta.to.SPACE: generic → space
		in.bop = 1
	}
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	return r.src(0, 1, t)
}

// decodeIsspacep: isspacep.space p, a is true where the generic address a lies in
// the space's window (mem.go); global is what no other window holds. A cluster is
// one CTA in capture, so .shared::cluster is the CTA's shared memory. Kernel
// parameters have no generic address here, so .param is refused.
func decodeIsspacep(r *resolver) error {
	in, m := r.in, &r.m
	if err := r.nops(2); err != nil {
		return err
	}
	sp := m.space
	if len(m.other) == 1 && (m.other[0] == ".shared::cta" || m.other[0] == ".shared::cluster") {
		sp, m.other = ".shared", nil
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	in.space = spaceOf(sp)
	if in.space == msNone || in.space == msParamK {
		return r.fail("isspacep needs .global, .shared, .local or .const")
	}
	in.op, in.t, in.run = opCompute, tU64, runIsspacep
	in.flags |= fSinkOK
	r.row.Class = format.ClassALU
	if err := r.predDst(0, r.a.ops[0]); err != nil {
		return err
	}
	return r.src(0, 1, tU64)
}

func decodeCvt(r *resolver) error {
	in, m := r.in, &r.m
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(2); err != nil {
		return err
	}
	if len(m.types) != 2 || m.types[0] == tPred || m.types[1] == tPred {
		return r.fail("cvt needs a destination and a source type")
	}
	in.op, in.t, in.t2, in.run = opCompute, m.types[0], m.types[1], runCvt
	if m.rndInt {
		if in.t.float() && in.t2.float() {
			in.flags |= fRoundInt
		} else if !in.t2.float() {
			return r.fail("integer rounding needs a float source")
		}
	}
	if in.t2.float() && !in.t.float() && !m.rndInt {
		return r.fail("float-to-integer cvt needs .rni, .rzi, .rmi or .rpi")
	}
	r.row.Class = format.ClassConv
	if err := r.dst(0, 0, in.t); err != nil {
		return err
	}
	return r.src(0, 1, in.t2)
}

// Execution.

func runMov(w *warpState, in *instr, exec, _ uint32) {
	d, a := w.slot(in.d[0]), w.slot(in.s[0])
	if exec == 0xffffffff {
		*d = *a
	} else {
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			d[l] = a[l]
		}
	}
}

// runMovPack: mov.b64 d, {a, b}, lowest element first.
func runMovPack(w *warpState, in *instr, exec, _ uint32) {
	d := w.slot(in.d[0])
	sh := uint(in.t2.bits())
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		var v uint64
		for i := int(in.ns) - 1; i >= 0; i-- {
			v = v<<sh | w.regs[int(in.s[i])*32+l]&in.t2.mask()
		}
		d[l] = v
	}
}

// runMovUnpack: mov.b64 {a, b}, s; a sink element is skipped.
func runMovUnpack(w *warpState, in *instr, exec, _ uint32) {
	a := w.slot(in.s[0])
	sh := uint(in.t2.bits())
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		v := a[l]
		for i := 0; i < int(in.nd); i++ {
			if in.d[i] >= 0 {
				w.regs[int(in.d[i])*32+l] = v & in.t2.mask()
			}
			v >>= sh
		}
	}
}

// runCvta adds the window base of the instruction's space to a space address, or
// takes it off a generic one (cvta.to).
func runCvta(w *warpState, in *instr, exec, _ uint32) {
	d, a := w.slot(in.d[0]), w.slot(in.s[0])
	var win uint64
	switch in.space {
	case msShared:
		win = SharedWindow
	case msLocal:
		win = LocalWindow
	case msConst:
		win = ConstWindow
	}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if in.bop == 1 { // to space
			d[l] = a[l] - win
		} else {
			d[l] = a[l] + win
		}
	}
}

func runIsspacep(w *warpState, in *instr, exec, _ uint32) {
	a := w.slot(in.s[0])
	var r uint32
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if genericSpace(a[l]) == in.space {
			r |= 1 << l
		}
	}
	if in.d[0] >= 0 {
		w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | r
	}
}

// genericSpace is the space whose window holds the generic address a (mem.go).
func genericSpace(a uint64) mspace {
	switch format.SpaceOfGeneric(a) {
	case format.SpaceShared:
		return msShared
	case format.SpaceLocal:
		return msLocal
	case format.SpaceConst:
		return msConst
	}
	return msGlobal
}

func runCvt(w *warpState, in *instr, exec, _ uint32) {
	d, a := w.slot(in.d[0]), w.slot(in.s[0])
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = convert(in, a[l])
	}
}

// convert implements cvt: the value v of type from, converted to type to with the
// instruction's rounding and saturation.
func convert(in *instr, v uint64) uint64 {
	to, from := in.t, in.t2
	switch {
	case from.float() && to.float():
		var f float64
		if from == tF32 {
			f = float64(ftz32(in, f32(v)))
		} else {
			f = f64(v)
		}
		if in.flags&fRoundInt != 0 {
			f = roundInt(f, in.rnd)
		}
		if to == tF32 {
			var r float32
			if from == tF64 && in.rnd != rndN && in.rnd != rndDefault && in.flags&fRoundInt == 0 {
				r = roundF32(f, in.rnd)
			} else {
				r = float32(f)
			}
			return f32r(in, r)
		}
		if in.flags&fSat != 0 {
			f = float64(sat32(float32(f)))
			if f > 0 && f < 1 {
				f = f64(v)
			}
		}
		return f64r(f)
	case from.float():
		var f float64
		if from == tF32 {
			f = float64(ftz32(in, f32(v)))
		} else {
			f = f64(v)
		}
		f = roundInt(f, in.rnd)
		return floatToInt(f, to, from)
	case to.float():
		var f float64
		var exact bool
		if from.signed() {
			x := int64(from.ext(v))
			f = float64(x)
			exact = int64(f) == x && x != math.MaxInt64
		} else {
			x := from.ext(v)
			f = float64(x)
			exact = x < 1<<53
		}
		if to == tF32 {
			if in.rnd == rndN || in.rnd == rndDefault || (exact && float64(float32(f)) == f) {
				if exact {
					return f32r(in, float32(f))
				}
			}
			return f32r(in, intToF32(from, v, in.rnd))
		}
		if !exact && in.rnd != rndN && in.rnd != rndDefault {
			return f64r(intToF64Dir(from, v, in.rnd))
		}
		return f64r(f)
	}
	// integer to integer: sign- or zero-extend from the source, then saturate or wrap.
	x := from.ext(v)
	if in.flags&fSat != 0 {
		return satInt(x, from, to)
	}
	return x & to.mask()
}

func roundInt(f float64, rnd uint8) float64 {
	switch rnd {
	case rndN:
		return math.RoundToEven(f)
	case rndM:
		return math.Floor(f)
	case rndP:
		return math.Ceil(f)
	}
	return math.Trunc(f)
}

// floatToInt saturates to the destination range. NaN becomes 0 from f32 (or a half
// type) to 32 bits or fewer, as the PTX ISA says, but the destination's sign bit alone
// (for an unsigned type too) from f64 or to 64 bits, as an H100 gives it
// (TestOpCasesOnGPU's cvt cases; 8-bit destinations follow the 16-bit ones unmeasured).
func floatToInt(f float64, to, from vtype) uint64 {
	if f != f {
		if from == tF64 || to.bits() == 64 {
			return 1 << (to.bits() - 1)
		}
		return 0
	}
	n := to.bits()
	if to.signed() {
		lo, hi := -math.Ldexp(1, int(n-1)), math.Ldexp(1, int(n-1))
		if f <= lo {
			return uint64(int64(-1)<<(n-1)) & to.mask()
		}
		if f >= hi {
			return (uint64(1)<<(n-1) - 1)
		}
		return uint64(int64(f)) & to.mask()
	}
	if f <= 0 {
		return 0
	}
	if f >= math.Ldexp(1, int(n)) {
		return to.mask()
	}
	if n == 64 && f >= math.Ldexp(1, 63) {
		return uint64(f-math.Ldexp(1, 63)) + 1<<63
	}
	return uint64(f)
}

func satInt(x uint64, from, to vtype) uint64 {
	n := to.bits()
	if from.signed() {
		v := int64(x)
		if to.signed() {
			lo, hi := int64(-1)<<(n-1), int64(1)<<(n-1)-1
			if n == 64 {
				return x
			}
			return uint64(clampI(v, lo, hi)) & to.mask()
		}
		if v < 0 {
			return 0
		}
		if n < 64 && uint64(v) > to.mask() {
			return to.mask()
		}
		return uint64(v)
	}
	if to.signed() {
		hi := uint64(1)<<(n-1) - 1
		if x > hi {
			return hi
		}
		return x
	}
	if x > to.mask() {
		return to.mask()
	}
	return x
}

// roundF32 rounds f to float32 in direction rnd (z, m, p).
func roundF32(f float64, rnd uint8) float32 {
	r := float32(f)
	if float64(r) == f || f != f {
		return r
	}
	switch rnd {
	case rndZ:
		if math.Abs(float64(r)) > math.Abs(f) {
			r = math.Nextafter32(r, 0)
		}
	case rndM:
		if float64(r) > f {
			r = math.Nextafter32(r, float32(math.Inf(-1)))
		}
	case rndP:
		if float64(r) < f {
			r = math.Nextafter32(r, float32(math.Inf(1)))
		}
	}
	return r
}

func intToF32(from vtype, v uint64, rnd uint8) float32 {
	// Exact via float64 when the integer fits in 53 bits; otherwise split.
	var f float64
	if from.signed() {
		f = float64(int64(from.ext(v)))
	} else {
		f = float64(from.ext(v))
	}
	if rnd == rndN || rnd == rndDefault {
		return int64ToF32RN(from, v)
	}
	return roundF32(f, rnd)
}

// int64ToF32RN converts with a single rounding (Go's conversion of an integer to
// float32 rounds once, to nearest even).
func int64ToF32RN(from vtype, v uint64) float32 {
	if from.signed() {
		return float32(int64(from.ext(v)))
	}
	return float32(from.ext(v))
}

func intToF64Dir(from vtype, v uint64, rnd uint8) float64 {
	var r float64
	var neg bool
	var mag uint64
	if from.signed() {
		x := int64(from.ext(v))
		r = float64(x)
		neg = x < 0
		if neg {
			mag = uint64(-x)
		} else {
			mag = uint64(x)
		}
	} else {
		mag = from.ext(v)
		r = float64(mag)
	}
	// Compare |r| with mag exactly.
	rm := math.Abs(r)
	var cmp int // sign of (rm - mag)
	if rm >= math.Ldexp(1, 64) {
		cmp = 1
	} else {
		u := uint64(rm)
		switch {
		case u > mag:
			cmp = 1
		case u < mag:
			cmp = -1
		}
	}
	if cmp == 0 {
		return r
	}
	up := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	down := func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
	over := (cmp > 0) != neg // r is above the exact value
	switch rnd {
	case rndZ:
		if cmp > 0 {
			if neg {
				return up(r)
			}
			return down(r)
		}
	case rndM:
		if over {
			return down(r)
		}
	case rndP:
		if !over {
			return up(r)
		}
	}
	return r
}
