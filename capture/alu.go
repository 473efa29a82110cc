package capture

import (
	"math"
	"math/bits"
)

// alu evaluates one lane of a lanewise arithmetic instruction. Values are held in
// uint64 slots: integers of n bits in the low n bits (zero above), f32 as its bits in
// the low 32, f64 as its bits. The result is returned in the same canonical form.
func alu(in *instr, a, b, c uint64) uint64 {
	t := in.t
	switch in.op {
	case opAdd:
		switch t {
		case tF32:
			return f32r(in, ftz32(in, f32(a))+ftz32(in, f32(b)))
		case tF64:
			return f64r(f64(a) + f64(b))
		}
		if in.flags&fSat != 0 { // add.sat.s32
			r := int64(int32(a)) + int64(int32(b))
			return uint64(uint32(int32(clampI(r, math.MinInt32, math.MaxInt32))))
		}
		return (a + b) & t.mask()
	case opSub:
		switch t {
		case tF32:
			return f32r(in, ftz32(in, f32(a))-ftz32(in, f32(b)))
		case tF64:
			return f64r(f64(a) - f64(b))
		}
		if in.flags&fSat != 0 {
			r := int64(int32(a)) - int64(int32(b))
			return uint64(uint32(int32(clampI(r, math.MinInt32, math.MaxInt32))))
		}
		return (a - b) & t.mask()
	case opMulF:
		if t == tF32 {
			return f32r(in, ftz32(in, f32(a))*ftz32(in, f32(b)))
		}
		return f64r(f64(a) * f64(b))
	case opMulLo:
		return (a * b) & t.mask()
	case opMulHi:
		return mulHi(t, a, b)
	case opMulWide:
		return t.ext(a) * t.ext(b) // the 2n-bit product fits in 64 bits for n <= 32
	case opMadLo:
		return (a*b + c) & t.mask()
	case opMadHi:
		return (mulHi(t, a, b) + c) & t.mask()
	case opMadWide:
		return t.ext(a)*t.ext(b) + c
	case opMul24Lo, opMul24Hi, opMad24Lo:
		x, y := ext24(t, a), ext24(t, b)
		p := uint64(x * y)
		if in.op == opMul24Hi {
			return (p >> 16) & 0xffffffff
		}
		if in.op == opMad24Lo {
			return (p + c) & 0xffffffff
		}
		return p & 0xffffffff
	case opFma:
		if t == tF32 {
			r := FMA32(ftz32(in, f32(a)), ftz32(in, f32(b)), ftz32(in, f32(c)))
			return f32r(in, r)
		}
		return f64r(math.FMA(f64(a), f64(b), f64(c)))
	case opDiv:
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
	case opRem:
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
	case opAbs:
		switch t {
		case tF32:
			return a & 0x7fffffff
		case tF64:
			return a &^ (1 << 63)
		}
		x := int64(t.ext(a))
		if x < 0 {
			x = -x
		}
		return uint64(x) & t.mask()
	case opNeg:
		switch t {
		case tF32:
			return a ^ 0x80000000
		case tF64:
			return a ^ (1 << 63)
		}
		return -a & t.mask()
	case opMin, opMax:
		return minMax(in, a, b)
	case opAnd:
		return a & b
	case opOr:
		return a | b
	case opXor:
		return a ^ b
	case opNot:
		return ^a & t.mask()
	case opCnot:
		if a&t.mask() == 0 {
			return 1
		}
		return 0
	case opShl:
		if uint32(b) >= uint32(t.bits()) {
			return 0
		}
		return (a << uint32(b)) & t.mask()
	case opShr:
		n := uint32(b)
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
	case opPopc:
		return uint64(bits.OnesCount64(a & t.mask()))
	case opClz:
		return uint64(bits.LeadingZeros64(a&t.mask()) - (64 - int(t.bits())))
	case opBfind:
		// The most significant bit that differs from the sign (signed types: of the
		// complement of a negative value), 0xffffffff when there is none.
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
	case opBrev:
		return bits.Reverse64(a) >> (64 - t.bits())
	case opBfe:
		return bfe(t, a, uint8(b), uint8(c))
	case opBfi:
		// bfi d, a, b, pos, len: insert a's low len bits into b at pos. c holds pos,
		// the second-pass operand (in.s[3]) len is folded into imm by decode when constant.
		return bfi(t, a, b, uint8(c), uint8(in.imm))
	case opPrmt:
		return prmt(uint32(a), uint32(b), uint32(c))
	case opSlct:
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
	case opSet:
		r := compare(in.cmp, in.t2, a, b)
		if in.flags&fCmpBool != 0 {
			r = boolOp(in.bop, r, c != 0)
		}
		if t == tF32 {
			if r {
				return uint64(math.Float32bits(1))
			}
			return 0
		}
		if r {
			return t.mask()
		}
		return 0
	case opRcp:
		if t == tF32 {
			return f32r(in, float32(1/float64(ftz32(in, f32(a)))))
		}
		return f64r(1 / f64(a))
	case opSqrt:
		if t == tF32 {
			return f32r(in, float32(math.Sqrt(float64(ftz32(in, f32(a))))))
		}
		return f64r(math.Sqrt(f64(a)))
	case opRsqrt:
		if t == tF32 {
			return f32r(in, float32(1/math.Sqrt(float64(ftz32(in, f32(a))))))
		}
		return f64r(1 / math.Sqrt(f64(a)))
	case opSin:
		return f32r(in, float32(math.Sin(float64(ftz32(in, f32(a))))))
	case opCos:
		return f32r(in, float32(math.Cos(float64(ftz32(in, f32(a))))))
	case opEx2:
		return f32r(in, float32(math.Exp2(float64(ftz32(in, f32(a))))))
	case opLg2:
		return f32r(in, float32(math.Log2(float64(ftz32(in, f32(a))))))
	case opTanh:
		return f32r(in, float32(math.Tanh(float64(f32(a)))))
	case opLop3:
		return uint64(lop3(uint32(a), uint32(b), uint32(c), uint8(in.imm)))
	case opShfL, opShfR:
		n := uint32(c)
		if in.flags&fClampShf != 0 {
			if n > 32 {
				n = 32
			}
		} else {
			n &= 31
		}
		v := uint64(uint32(b))<<32 | uint64(uint32(a))
		if in.op == opShfL {
			return (v << n >> 32) & 0xffffffff
		}
		return (v >> n) & 0xffffffff
	case opCopysign:
		if t == tF32 {
			return a&0x80000000 | b&0x7fffffff
		}
		return a&(1<<63) | b&^(1<<63)
	}
	return 0
}

func f32(v uint64) float32  { return math.Float32frombits(uint32(v)) }
func f64(v uint64) float64  { return math.Float64frombits(v) }
func f64r(f float64) uint64 { return math.Float64bits(f) }

// f32r returns f's bits, flushing a subnormal result to zero under .ftz and clamping
// to [0, 1] under .sat.
func f32r(in *instr, f float32) uint64 {
	if in.flags&(fFTZ|fSat) != 0 {
		if in.flags&fFTZ != 0 {
			f = ftz(f)
		}
		if in.flags&fSat != 0 {
			f = sat32(f)
		}
	}
	return uint64(math.Float32bits(f))
}

func ftz32(in *instr, f float32) float32 {
	if in.flags&fFTZ != 0 {
		return ftz(f)
	}
	return f
}

func ftz(f float32) float32 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return f
}

func sat32(f float32) float32 {
	switch {
	case f != f:
		return 0
	case f < 0:
		return 0
	case f > 1:
		return 1
	}
	return f
}

func clampI(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
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

func minMax(in *instr, a, b uint64) uint64 {
	isMax := in.op == opMax
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
	}
	if in.t.signed() {
		x, y := int64(in.t.ext(a)), int64(in.t.ext(b))
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

// compare evaluates a setp/set comparison of two values of type t.
func compare(cmp uint8, t vtype, a, b uint64) bool {
	if t.float() {
		var x, y float64
		if t == tF32 {
			x, y = float64(f32(a)), float64(f32(b))
		} else {
			x, y = f64(a), f64(b)
		}
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
		return floatToInt(f, to)
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

// floatToInt saturates to the destination range; NaN becomes 0 (PTX cvt semantics).
func floatToInt(f float64, to vtype) uint64 {
	if f != f {
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
