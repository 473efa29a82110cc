package cudart

import (
	"math"
	"math/big"
	"testing"
)

// The exact functions of gtrace_math.h (CUDA's bound 0: frexp, ldexp, scalbn, ilogb,
// logb, modf, nextafter, fdim, nearbyint, lrint, lround, llrint, llround, remquo, and
// fdividef, which is x/y): C99's value, which Go's math gives but where noted, and the
// H100's where C99 leaves the case open (ilogb of NaN, cvt's saturation and NaN). A
// name ending in _e, _i or _q is the function's second result (frexp's exponent, modf's
// integral part, remquo's quotient bits), as scripts/hw/mathfn.cu runs it.
var exactFns = []preciseFn[float64]{
	{"frexpf", 0, unary(frexpFrac)},
	{"frexpf_e", 0, unary(frexpExp)},
	{"ldexpf", 0, ldexpfRef},
	{"scalbnf", 0, ldexpfRef},
	{"ilogbf", 0, unary(func(x float64) float64 { return float64(float32(ilogbRef(x))) })},
	{"logbf", 0, unary(math.Logb)},
	{"modff", 0, unary(modfFrac)},
	{"modff_i", 0, unary(math.Trunc)},
	{"nextafterf", 0, func(x, y float64) float64 { return float64(math.Nextafter32(float32(x), float32(y))) }},
	{"fdimf", 0, func(x, y float64) float64 { return float64(float32(fdimRef(x, y))) }},
	{"nearbyintf", 0, unary(math.RoundToEven)},
	{"lrintf", 0, unary(toFloat(lrintRef))},
	{"lroundf", 0, unary(toFloat(lroundRef))},
	{"llrintf", 0, unary(toFloat(lrintRef))},
	{"llroundf", 0, unary(toFloat(lroundRef))},
	{"remquof", 0, math.Remainder},
	{"remquof_q", 0, remquoBits},
	{"fdividef", 0, func(x, y float64) float64 { return float64(float32(x / y)) }},
}

// exactFnsD are the double forms, each result exact (ldexp's rounded once from the exact
// product).
var exactFnsD = []preciseFn[exact]{
	{"frexp", 0, exactRef(unary(frexpFrac))},
	{"frexp_e", 0, exactRef(unary(frexpExp))},
	{"ldexp", 0, exactRef(ldexpRef)},
	{"scalbn", 0, exactRef(ldexpRef)},
	{"ilogb", 0, exactRef(unary(func(x float64) float64 { return float64(ilogbRef(x)) }))},
	{"logb", 0, exactRef(unary(math.Logb))},
	{"modf", 0, exactRef(unary(modfFrac))},
	{"modf_i", 0, exactRef(unary(math.Trunc))},
	{"nextafter", 0, exactRef(math.Nextafter)},
	{"fdim", 0, exactRef(fdimRef)},
	{"nearbyint", 0, exactRef(unary(math.RoundToEven))},
	{"lrint", 0, exactRef(unary(lrintRef))},
	{"lround", 0, exactRef(unary(lroundRef))},
	{"llrint", 0, exactRef(unary(lrintRef))},
	{"llround", 0, exactRef(unary(lroundRef))},
	{"remquo", 0, exactRef(math.Remainder)},
	{"remquo_q", 0, exactRef(remquoBits)},
}

func exactRef(f func(x, y float64) float64) func(x, y float64) exact {
	return func(x, y float64) exact { return special(f(x, y)) }
}

func frexpFrac(x float64) float64 {
	f, _ := math.Frexp(x)
	return f
}

// frexpExp is frexp's exponent: 0 for 0, the infinities and NaN (Go's too).
func frexpExp(x float64) float64 {
	_, e := math.Frexp(x)
	return float64(e)
}

// ldexpRef is x 2^n for n = (int)y, cvt.rzi.s32 of the double y (saturated, NaN the
// least int, as the H100 converts), rounded once.
func ldexpRef(x, y float64) float64 { return scaleRef(x, cvtInt(y, 32, math.MinInt32)) }

// ldexpfRef is ldexpf's: (int)y from a float, whose NaN converts to 0.
func ldexpfRef(x, y float64) float64 { return float64(float32(scaleRef(x, cvtInt(y, 32, 0)))) }

// scaleRef is x 2^n rounded once to a double (n clamped to +-2200, past which the result
// is 0 or infinite anyway).
func scaleRef(x float64, n int64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, _ := new(big.Float).SetMantExp(big.NewFloat(x), int(max(-2200, min(2200, n)))).Float64()
	return v
}

// ilogbRef is C99's ilogb with CUDA's special values: INT_MIN for 0 and NaN (Go's
// Ilogb gives NaN INT_MAX), INT_MAX for the infinities.
func ilogbRef(x float64) int32 {
	switch {
	case x == 0 || math.IsNaN(x):
		return math.MinInt32
	case math.IsInf(x, 0):
		return math.MaxInt32
	}
	return int32(math.Ilogb(x))
}

// modfFrac is C99's modf fraction: x less its integral part, with x's sign, 0 of x's sign
// for an infinity (Go's Modf gives NaN).
func modfFrac(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.Copysign(0, x)
	}
	_, f := math.Modf(x)
	return f
}

// fdimRef is C99's fdim: x - y where x > y, else +0 (Go's Dim gives NaN for two equal
// infinities).
func fdimRef(x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x > y:
		return x - y
	}
	return 0
}

// cvtInt is an integer-valued v converted to bits bits by cvt: saturated, NaN to nan.
func cvtInt(v float64, bits uint, nan int64) int64 {
	lim := math.Ldexp(1, int(bits)-1)
	switch {
	case math.IsNaN(v):
		return nan
	case v >= lim:
		return int64(lim) - 1
	case v < -lim:
		return -int64(lim)
	}
	return int64(math.Trunc(v))
}

// lrintRef and lroundRef are lrint and lround as a double: cvt to a 64-bit integer (NaN
// gives the least one, as the H100's does) of x rounded to even or away from zero.
func lrintRef(x float64) float64  { return float64(cvtInt(math.RoundToEven(x), 64, math.MinInt64)) }
func lroundRef(x float64) float64 { return float64(cvtInt(math.Round(x), 64, math.MinInt64)) }

// toFloat is f's result as the float kernel stores it.
func toFloat(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 { return float64(float32(f(x))) }
}

// remquoBits is remquo's quotient: the last three bits of the nearest integer to x/y
// (ties to even, from the exact quotient), with x/y's sign; 0 where the remainder is NaN.
func remquoBits(x, y float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || y == 0 || math.IsInf(y, 0) {
		return 0
	}
	q := new(big.Rat).Quo(new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y))
	q.Abs(q)
	n := new(big.Int).Quo(q.Num(), q.Denom()) // floor of |x/y|
	frac := new(big.Rat).Sub(q, new(big.Rat).SetInt(n))
	if c := frac.Cmp(big.NewRat(1, 2)); c > 0 || c == 0 && n.Bit(0) == 1 {
		n.Add(n, big.NewInt(1))
	}
	b := float64(new(big.Int).And(n, big.NewInt(7)).Int64())
	if (x < 0) != (y < 0) {
		b = -b
	}
	return b
}

// isnan, isinf, isfinite and signbit and CUDA's __isnanf family, on each kind of float
// and each as float and as double; nanf and nan are CUDA's NaN (0x7fffffff and
// 0x7fffffffffffffff, as the H100's NaN results are).
func TestMathClassify(t *testing.T) {
	x := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1e-45, -1e-45, math.MaxFloat32, -math.MaxFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xffc00001)}
	got, _ := runPrecise(t, "m_classify", x, x)
	for i, v := range x {
		f := float64(v)
		want := 0
		for k, b := range []bool{math.IsNaN(f), math.IsInf(f, 0), !math.IsNaN(f) && !math.IsInf(f, 0), math.Signbit(f)} {
			if b {
				want |= 0x1111 << k // float, __..f, double, __..d
			}
		}
		if int(got[i]) != want {
			t.Errorf("classify(%v) = %#x; want %#x", v, int(got[i]), want)
		}
	}
	nf, _ := runPrecise(t, "m_nanf", x, x)
	nd, _ := runPrecise(t, "m_nan", []float64{math.NaN()}, []float64{0})
	if b := math.Float32bits(nf[10]); b != 0x7fffffff {
		t.Errorf("nanf(\"\") = %#x; want 0x7fffffff", b)
	}
	if b := math.Float64bits(nd[0]); b != 0x7fffffffffffffff {
		t.Errorf("nan(\"\") = %#x; want 0x7fffffffffffffff", b)
	}
}
