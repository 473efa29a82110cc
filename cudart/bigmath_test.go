package cudart

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// The double functions' references, exact to 200 bits (math/big), so that an error is
// measured from the exact value as CUDA's bounds are. Go's float64 math is not enough
// here: math.Log on amd64 is wrong on subnormals (log(1.1560562456566313e-308) =
// -708.67, not -709.05), math.Sin keeps 64 bits of the reduced fraction past 2^29 (70
// ulp off at 2.68e29), math.Log2 and math.Log10 multiply a rounded log by a rounded
// constant, and math.Sinh and math.Hypot round more than once.

const bigPrec = 200

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

func bigNew() *big.Float { return new(big.Float).SetPrec(bigPrec) }

// exact is a function's value: b, or v where the special cases decide it (NaN, an
// infinity, a signed zero, or a result past the range) and b is nil.
type exact struct {
	v float64
	b *big.Float
}

func special(v float64) exact  { return exact{v: v} }
func value(b *big.Float) exact { return exact{b: b} }
func (e exact) float64() float64 { // the float64 nearest
	if e.b == nil {
		return e.v
	}
	v, _ := e.b.Float64()
	return v
}

// ulpErrExact is got's distance from the exact value e in ulps of e's binade (the
// subnormals' spacing below), as ulpErr measures it from a float64.
func ulpErrExact(got float64, e exact) float64 {
	w := e.float64()
	if e.b == nil || math.IsInf(w, 0) || math.IsInf(got, 0) || math.IsNaN(got) {
		return ulpErr(got, w)
	}
	ulp := bf(1)
	if e.b.Sign() != 0 {
		ulp.SetMantExp(ulp, max(e.b.MantExp(nil)-53, -1074))
	} else {
		ulp.SetMantExp(ulp, -1074)
	}
	d := bigNew().Sub(bf(got), e.b)
	v, _ := d.Abs(d).Quo(d, ulp).Float64()
	return v
}

// bigSeries sums term(0) + term(1) + ... until a term is below 2^-bigPrec of the sum.
func bigSeries(term func(k int) *big.Float) *big.Float {
	sum := bigNew()
	for k := 0; ; k++ {
		t := term(k)
		sum.Add(sum, t)
		if t.Sign() == 0 || sum.Sign() != 0 && t.MantExp(nil) < sum.MantExp(nil)-bigPrec-4 {
			return sum
		}
	}
}

// bigAtanh2 is 2 atanh(s) = log((1+s)/(1-s)) for |s| <= 1/3: 2 (s + s^3/3 + s^5/5 + ...).
func bigAtanh2(s *big.Float) *big.Float {
	s2, pow := bigNew().Mul(s, s), bigNew().Set(s)
	return bigSeries(func(k int) *big.Float {
		t := bigNew().Quo(pow, bf(float64(2*k+1)))
		pow.Mul(pow, s2)
		return t.Mul(t, bf(2))
	})
}

var bigLn2 = sync.OnceValue(func() *big.Float { return bigAtanh2(bigNew().Quo(bf(1), bf(3))) })
var bigLn10 = sync.OnceValue(func() *big.Float { return bigLog(bf(10)) })

// bigLog is log(x) for x > 0: x = 2^e m with m in [sqrt(1/2), sqrt(2)), so log(1) is 0.
func bigLog(x *big.Float) *big.Float {
	m := bigNew()
	e := x.MantExp(m) // m in [1/2, 1)
	if m.Cmp(bf(math.Sqrt2/2)) < 0 {
		m.Mul(m, bf(2))
		e--
	}
	s := bigNew().Quo(bigNew().Sub(m, bf(1)), bigNew().Add(m, bf(1)))
	return bigNew().Add(bigAtanh2(s), bigNew().Mul(bf(float64(e)), bigLn2()))
}

// bigExpm1Series is e^x - 1 = x + x^2/2! + ... for |x| < 1.
func bigExpm1Series(x *big.Float) *big.Float {
	t := bigNew().Set(x)
	return bigSeries(func(k int) *big.Float {
		cur := bigNew().Set(t)
		t.Mul(t, x).Quo(t, bf(float64(k+2)))
		return cur
	})
}

// bigExp is e^x for |x| < 2^20: x = k ln2 + r, |r| <= ln2/2, e^r by its series.
func bigExp(x *big.Float) *big.Float {
	q, _ := bigNew().Quo(x, bigLn2()).Float64()
	k := math.Round(q)
	r := bigNew().Sub(x, bigNew().Mul(bf(k), bigLn2()))
	e := bigExpm1Series(r)
	e.Add(e, bf(1))
	return e.SetMantExp(e, int(k))
}

// bigSinCos is sin(r) and cos(r) for |r| <= pi/4, by their series.
func bigSinCos(r *big.Float) (sin, cos *big.Float) {
	r2, t := bigNew().Mul(r, r), bigNew().Set(r)
	sin = bigSeries(func(k int) *big.Float { // r - r^3/3! + ...
		cur := bigNew().Set(t)
		t.Mul(t, r2).Quo(t, bf(float64((2*k+2)*(2*k+3)))).Neg(t)
		return cur
	})
	t = bf(1)
	cos = bigSeries(func(k int) *big.Float { // 1 - r^2/2! + ...
		cur := bigNew().Set(t)
		t.Mul(t, r2).Quo(t, bf(float64((2*k+1)*(2*k+2)))).Neg(t)
		return cur
	})
	return sin, cos
}

var pi1400 = sync.OnceValue(func() *big.Float { return bigPi(1400) })

// reducePio2 is x = n pi/2 + r with |r| <= pi/4, in 1400-bit arithmetic (enough for any
// double): n mod 4 and r.
func reducePio2(x float64) (int64, *big.Float) { return reducePio2Big(new(big.Float).SetFloat64(x)) }

// reducePio2Big is reducePio2 for an x of up to 200 bits.
func reducePio2Big(xb *big.Float) (int64, *big.Float) {
	x := new(big.Float).SetPrec(1400).Set(xb)
	half := new(big.Float).SetPrec(1400).Quo(pi1400(), big.NewFloat(2))
	q := new(big.Float).SetPrec(1400).Quo(x, half)
	n, _ := new(big.Float).SetPrec(1400).Add(q, big.NewFloat(0.5)).Int(nil) // floor(q + 1/2)
	if q.Sign() < 0 && new(big.Float).SetInt(n).Cmp(new(big.Float).Add(q, big.NewFloat(0.5))) > 0 {
		n.Sub(n, big.NewInt(1))
	}
	r := new(big.Float).SetPrec(1400).Sub(x, new(big.Float).Mul(new(big.Float).SetInt(n), half))
	return new(big.Int).And(n, big.NewInt(3)).Int64(), bigNew().Set(r)
}

// outside gives a function's value where it is decided before any arithmetic: NaN for
// NaN, and lo, hi beyond -limit and limit; ok is false inside.
func outside(x, limit, lo, hi float64) (exact, bool) {
	switch {
	case math.IsNaN(x):
		return special(x), true
	case x > limit:
		return special(hi), true
	case x < -limit:
		return special(lo), true
	}
	return exact{}, false
}

func refExp(x float64) exact {
	if v, ok := outside(x, 800, 0, math.Inf(1)); ok {
		return v
	}
	return value(bigExp(bf(x)))
}

func refExp2(x float64) exact {
	if v, ok := outside(x, 1100, 0, math.Inf(1)); ok {
		return v
	}
	return value(bigExp(bigNew().Mul(bf(x), bigLn2())))
}

func refExp10(x float64) exact {
	if v, ok := outside(x, 400, 0, math.Inf(1)); ok {
		return v
	}
	return value(bigExp(bigNew().Mul(bf(x), bigLn10())))
}

func refExpm1(x float64) exact {
	if v, ok := outside(x, 800, -1, math.Inf(1)); ok {
		return v
	}
	if x == 0 {
		return special(x)
	}
	if math.Abs(x) < 1 {
		return value(bigExpm1Series(bf(x)))
	}
	return value(bigNew().Sub(bigExp(bf(x)), bf(1)))
}

// logLike gives the special values of a function with log's domain: NaN for NaN and
// below 0, -inf at either zero, atInf at +inf; ok is false elsewhere.
func logLike(x, atInf float64) (exact, bool) {
	switch {
	case math.IsNaN(x) || x < 0:
		return special(math.NaN()), true
	case x == 0:
		return special(math.Inf(-1)), true
	case math.IsInf(x, 1):
		return special(atInf), true
	}
	return exact{}, false
}

// refLogBase is log(x) / div() (div nil: log), with C's special values.
func refLogBase(div func() *big.Float) func(float64) exact {
	return func(x float64) exact {
		if v, ok := logLike(x, x); ok {
			return v
		}
		l := bigLog(bf(x))
		if div != nil {
			l.Quo(l, div())
		}
		return value(l)
	}
}

func refLog1p(x float64) exact {
	switch {
	case math.IsNaN(x) || x < -1:
		return special(math.NaN())
	case x == -1:
		return special(math.Inf(-1))
	case math.IsInf(x, 1) || x == 0:
		return special(x)
	case math.Abs(x) < 0x1p-30: // x - x^2/2 + x^3/3 - ..., where 1+x would need many bits
		b, pow := bf(x), bf(x)
		return value(bigSeries(func(k int) *big.Float {
			t := bigNew().Quo(pow, bf(float64(k+1)))
			pow.Mul(pow, b).Neg(pow)
			return t
		}))
	}
	return value(bigLog(bigNew().Add(bf(1), bf(x))))
}

// refSin, refCos and refTan: x reduced by pi/2, then the series of r.
func refSin(x float64) exact { return refTrig(x, 0) }
func refCos(x float64) exact { return refTrig(x, 1) }
func refTan(x float64) exact { return refTrig(x, 2) }

func refTrig(x float64, fn int) exact {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return special(math.NaN())
	}
	if x == 0 && fn != 1 {
		return special(x)
	}
	n, r := reducePio2(x)
	s, c := bigSinCos(r)
	if fn == 2 {
		if n&1 == 1 {
			return value(c.Quo(c, s).Neg(c))
		}
		return value(s.Quo(s, c))
	}
	return value(quadrant(s, c, int(n)+fn)) // cos(x) = sin(x + pi/2)
}

// quadrant is sin(r + q pi/2) from sin(r) and cos(r): s, c, -s, -c for q mod 4 = 0..3.
func quadrant(s, c *big.Float, q int) *big.Float {
	v := s
	if q&1 == 1 {
		v = c
	}
	if q&2 != 0 {
		v.Neg(v)
	}
	return v
}

// refSinh and refCosh: by the series below 1 (where e^x - e^-x cancels), by e^x above.
func refSinh(x float64) exact {
	if v, ok := outside(x, 800, math.Inf(-1), math.Inf(1)); ok {
		return v
	}
	if x == 0 {
		return special(x)
	}
	b := bf(x)
	if math.Abs(x) < 1 {
		b2, t := bigNew().Mul(b, b), bigNew().Set(b)
		return value(bigSeries(func(k int) *big.Float {
			cur := bigNew().Set(t)
			t.Mul(t, b2).Quo(t, bf(float64((2*k+2)*(2*k+3))))
			return cur
		}))
	}
	e := bigExp(b)
	return value(e.Sub(e, bigNew().Quo(bf(1), e)).Quo(e, bf(2)))
}

func refCosh(x float64) exact {
	if v, ok := outside(x, 800, math.Inf(1), math.Inf(1)); ok {
		return v
	}
	e := bigExp(bf(x))
	return value(e.Add(e, bigNew().Quo(bf(1), e)).Quo(e, bf(2)))
}

// refCbrt: Go's math.Cbrt, then two Newton steps in 200 bits (53 -> 106 -> 200).
func refCbrt(x float64) exact {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return special(x)
	}
	b, y := bf(x), bf(math.Cbrt(x))
	for range 2 {
		y2 := bigNew().Mul(y, y)
		d := bigNew().Sub(bigNew().Mul(y2, y), b)
		y.Sub(y, d.Quo(d, y2.Mul(y2, bf(3))))
	}
	return value(y)
}

// refNorm is sqrt(v[0]^2 + ... ), or its reciprocal: +inf (0) if a value is infinite,
// even with a NaN, NaN if one is a NaN, +inf for the reciprocal of 0.
func refNorm(recip bool, v ...float64) exact {
	s := bigNew()
	nan := false
	for _, x := range v {
		switch {
		case math.IsInf(x, 0) && recip:
			return special(0)
		case math.IsInf(x, 0):
			return special(math.Inf(1))
		case math.IsNaN(x):
			nan = true
		default:
			s.Add(s, bigNew().Mul(bf(x), bf(x)))
		}
	}
	switch {
	case nan:
		return special(math.NaN())
	case recip && s.Sign() == 0:
		return special(math.Inf(1))
	case recip:
		return value(s.Quo(bf(1), s.Sqrt(s)))
	}
	return value(s.Sqrt(s))
}

// normArgs are the norms' arguments as scripts/hw/mathfn.cu makes them from x and y,
// each rounded to T: x, y, x - y and, for the four-argument forms, x + y.
func normArgs[T float](n int, x, y float64) []float64 {
	return []float64{x, y, float64(T(x) - T(y)), float64(T(x) + T(y))}[:n]
}

// refSinPi and refCosPi: x = n/2 + s exactly in float64 (math.Mod is exact), |s| <= 1/4,
// then the series of pi s; the zeros are exact (sinpi keeps x's sign, cospi's are +0).
func refSinPi(x float64) exact { return refTrigPi(x, 0) }
func refCosPi(x float64) exact { return refTrigPi(x, 1) }

func refTrigPi(x float64, fn int) exact {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return special(math.NaN())
	}
	r := math.Mod(math.Abs(x), 2)
	n := math.Round(2 * r)
	sr := r - n/2
	q := (int(n) + fn) & 3
	if sr == 0 && q&1 == 0 {
		if fn == 0 {
			return special(math.Copysign(0, x))
		}
		return special(0)
	}
	s, c := bigSinCos(bigNew().Mul(bf(sr), bigNew().Set(pi1400())))
	v := quadrant(s, c, q)
	if fn == 0 && x < 0 {
		v.Neg(v)
	}
	return value(v)
}

// refAsinh: asinh(x) = atanh(x / sqrt(1 + x^2)), by the atanh series while that is below
// 1/3 (no cancellation for small x), else log(|x| + sqrt(x^2 + 1)).
func refAsinh(x float64) exact {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return special(x)
	}
	b := bf(math.Abs(x))
	root := bigNew().Add(bigNew().Mul(b, b), bf(1))
	root.Sqrt(root)
	var v *big.Float
	if s := bigNew().Quo(b, root); s.Cmp(bigNew().Quo(bf(1), bf(3))) <= 0 {
		v = bigAtanh2(s)
		v.Quo(v, bf(2))
	} else {
		v = bigLog(root.Add(root, b))
	}
	if x < 0 {
		v.Neg(v)
	}
	return value(v)
}

func refAcosh(x float64) exact {
	switch {
	case math.IsNaN(x) || x < 1:
		return special(math.NaN())
	case x == 1:
		return special(0)
	case math.IsInf(x, 1):
		return special(x)
	}
	b := bf(x)
	root := bigNew().Sub(bigNew().Mul(b, b), bf(1))
	root.Sqrt(root)
	return value(bigLog(root.Add(root, b)))
}

func refAtanh(x float64) exact {
	switch {
	case math.IsNaN(x) || math.Abs(x) > 1:
		return special(math.NaN())
	case math.Abs(x) == 1:
		return special(math.Inf(int(x)))
	case x == 0:
		return special(x)
	}
	if math.Abs(x) <= 1.0/3 {
		v := bigAtanh2(bf(x))
		return value(v.Quo(v, bf(2)))
	}
	v := bigLog(bigNew().Quo(bigNew().Add(bf(1), bf(x)), bigNew().Sub(bf(1), bf(x))))
	return value(v.Quo(v, bf(2)))
}

// refPow: C99's special cases as math.Pow gives them (Annex F.9.4.4), otherwise
// e^(y log|x|) with the sign of a negative x to an odd power.
func refPow(x, y float64) exact {
	ax := math.Abs(x)
	if x == 0 || y == 0 || ax == 1 || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) ||
		x < 0 && math.Trunc(y) != y {
		return special(math.Pow(x, y))
	}
	neg := x < 0 && math.Abs(y) < 1<<53 && math.Mod(y, 2) != 0
	sign := func(v float64) float64 {
		if neg {
			return -v
		}
		return v
	}
	t := bigLog(bf(ax))
	t.Mul(t, bf(y))
	switch {
	case t.Cmp(bf(710)) > 0:
		return special(sign(math.Inf(1)))
	case t.Cmp(bf(-746)) < 0:
		return special(sign(0))
	}
	v := bigExp(t)
	if neg {
		v.Neg(v)
	}
	return value(v)
}

// refTanh: e/(e+2) with e = e^2x - 1 by its series below 1/2 (where e^2x - 1 cancels),
// (e^2x - 1)/(e^2x + 1) above.
func refTanh(x float64) exact {
	if v, ok := outside(x, 40, -1, 1); ok {
		return v
	}
	if x == 0 {
		return special(x)
	}
	if math.Abs(x) < 0.5 {
		e := bigExpm1Series(bf(2 * x))
		return value(bigNew().Quo(e, bigNew().Add(e, bf(2))))
	}
	e := bigExp(bf(2 * x))
	return value(bigNew().Quo(bigNew().Sub(e, bf(1)), e.Add(e, bf(1))))
}

// bigPiOver2 is pi/2 to 200 bits, from the pi computed for the reductions.
func bigPiOver2() *big.Float { return bigNew().Quo(pi1400(), bf(2)) }

// bigAtan is atan(x): beyond 1 as pi/2 less atan(1/x); below, halved three times
// (atan x = 2 atan(x / (1 + sqrt(1 + x^2)))) to |x| <= tan(pi/32), then its series.
func bigAtan(x *big.Float) *big.Float {
	if a := bigNew().Abs(x); a.Cmp(bf(1)) > 0 {
		v := bigAtan(bigNew().Quo(bf(1), a))
		v.Sub(bigPiOver2(), v)
		if x.Sign() < 0 {
			v.Neg(v)
		}
		return v
	}
	for range 3 {
		s := bigNew().Mul(x, x)
		s.Add(s, bf(1)).Sqrt(s).Add(s, bf(1))
		x = bigNew().Quo(x, s)
	}
	x2, pow := bigNew().Mul(x, x), bigNew().Set(x)
	v := bigSeries(func(k int) *big.Float {
		t := bigNew().Quo(pow, bf(float64(2*k+1)))
		pow.Mul(pow, x2).Neg(pow)
		return t
	})
	return v.Mul(v, bf(8))
}

func refAtan(x float64) exact {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return special(math.Atan(x))
	}
	return value(bigAtan(bf(x)))
}

// refAtan2: C99's special cases as math.Atan2 gives them (Annex F.9.1.4), otherwise
// atan(|y/x|), from pi for a negative x, with y's sign.
func refAtan2(y, x float64) exact {
	if x == 0 || y == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return special(math.Atan2(y, x))
	}
	v := bigAtan(bigNew().Quo(bf(math.Abs(y)), bf(math.Abs(x))))
	if x < 0 {
		v.Sub(pi1400(), v)
	}
	if y < 0 {
		v.Neg(v)
	}
	return value(v)
}

// refAsin is atan(x / sqrt(1 - x^2)); refAcos pi/2 less it.
func refAsin(x float64) exact {
	switch {
	case math.IsNaN(x) || math.Abs(x) > 1:
		return special(math.NaN())
	case x == 0:
		return special(x)
	case math.Abs(x) == 1:
		v := bigPiOver2()
		return value(v.Mul(v, bf(x)))
	}
	b := bf(x)
	s := bigNew().Sub(bf(1), bigNew().Mul(b, b))
	return value(bigAtan(b.Quo(b, s.Sqrt(s))))
}

func refAcos(x float64) exact {
	switch {
	case math.IsNaN(x) || math.Abs(x) > 1:
		return special(math.NaN())
	case x == 1:
		return special(0)
	}
	v := bigPiOver2()
	if a := refAsin(x); a.b != nil { // asin(±0) is ±0, a special value
		v.Sub(v, a.b)
	}
	return value(v)
}

var bigSqrtPi = sync.OnceValue(func() *big.Float { return bigNew().Sqrt(bigNew().Set(pi1400())) })

// bigErfcx is erfc(x) e^(x^2) for x >= 0, and erf(x) too where it is computed (below 6,
// else nil). Below 6: erf's series of positive terms, 2/sqrt(pi) e^(-x^2) (x + 2x^3/3 +
// 4x^5/15 + ...), and 1 - erf, which loses at most 56 of the 200 bits there. From 6 on:
// Laplace's continued fraction, erfc(x) e^(x^2) sqrt(pi) = 1/(x + (1/2)/(x + 1/(x +
// (3/2)/(x + ...)))), from depth 256 (at x = 6 it agrees with depth 20000 to 2^-200 from
// depth 128 on).
func bigErfcx(x *big.Float) (erfcx, erf *big.Float) {
	x2 := bigNew().Mul(x, x)
	if xf, _ := x.Float64(); xf >= 6 {
		f := bigNew().Set(x)
		for n := 256; n >= 1; n-- {
			f.Add(x, bigNew().Quo(bf(float64(n)/2), f))
		}
		return f.Quo(bf(1), f).Quo(f, bigSqrtPi()), nil
	}
	t := bigNew().Set(x)
	erf = bigSeries(func(k int) *big.Float {
		cur := bigNew().Set(t)
		t.Mul(t, x2).Mul(t, bf(2)).Quo(t, bf(float64(2*k+3)))
		return cur
	})
	ex := bigExp(x2)
	erf.Quo(erf, ex).Mul(erf, bf(2)).Quo(erf, bigSqrtPi())
	erfcx = bigNew().Sub(bf(1), erf)
	return erfcx.Mul(erfcx, ex), erf
}

// refErf: the series below 6, 1 - erfc above; past 30, 1 - erfc is 1 to far more than
// a double holds.
func refErf(x float64) exact {
	if v, ok := outside(x, 30, -1, 1); ok {
		return v
	}
	if x == 0 {
		return special(x)
	}
	ax := bf(math.Abs(x))
	erfcx, erf := bigErfcx(ax)
	if erf == nil {
		erf = bigNew().Sub(bf(1), erfcx.Mul(erfcx, bigExp(bigNew().Neg(bigNew().Mul(ax, ax)))))
	}
	if x < 0 {
		erf.Neg(erf)
	}
	return value(erf)
}

// bigErfc is erfcx e^(-t^2), and 2 - erfc(-t) below 0.
func bigErfc(t *big.Float) *big.Float {
	at := bigNew().Abs(t)
	erfcx, _ := bigErfcx(at)
	v := erfcx.Mul(erfcx, bigExp(bigNew().Neg(bigNew().Mul(at, at))))
	if t.Sign() < 0 {
		v.Sub(bf(2), v)
	}
	return v
}

// refErfc: bigErfc; past 30 it is below 2^-1300.
func refErfc(x float64) exact {
	if v, ok := outside(x, 30, 2, 0); ok {
		return v
	}
	return value(bigErfc(bf(x)))
}

// refNormcdf: erfc(t)/2 with t = -x/sqrt(2) exact to 200 bits; past 45 it is 0 or 1 to
// far more than a double holds.
func refNormcdf(x float64) exact {
	if v, ok := outside(x, 45, 0, 1); ok {
		return v
	}
	v := bigErfc(bigNew().Quo(bf(-x), bigNew().Sqrt(bf(2))))
	return value(v.Quo(v, bf(2)))
}

// refErfcx: erfc(x) e^(x^2), and 2 e^(x^2) - erfcx(-x) below 0 (above the double's
// largest below -26.65).
func refErfcx(x float64) exact {
	switch {
	case math.IsNaN(x):
		return special(x)
	case math.IsInf(x, 1):
		return special(0)
	case x < -27:
		return special(math.Inf(1))
	}
	ax := bf(math.Abs(x))
	v, _ := bigErfcx(ax)
	if x < 0 {
		e := bigExp(bigNew().Mul(ax, ax))
		v = e.Mul(e, bf(2)).Sub(e, v)
	}
	return value(v)
}

// refRcbrt: 1 / cbrt(x).
func refRcbrt(x float64) exact {
	switch {
	case math.IsNaN(x):
		return special(x)
	case x == 0:
		return special(math.Copysign(math.Inf(1), x))
	case math.IsInf(x, 0):
		return special(math.Copysign(0, x))
	}
	c := refCbrt(x)
	return value(bigNew().Quo(bf(1), c.b))
}

// bigErfcinv is erfcinv(y) for y in (0, 1], to 200 bits: Newton's method on
// log erfc(v) = log y, whose slope -2/(sqrt(pi) erfcx(v)) is nearly -2v, so that it
// converges from a rough start (sqrt(-log y)) even where y is past float64's range.
func bigErfcinv(y *big.Float) *big.Float {
	if y.Cmp(bf(1)) == 0 {
		return bigNew()
	}
	ly := bigLog(y)
	v := bigNew().Sqrt(bigNew().Neg(ly))
	if yf, _ := y.Float64(); yf > 1e-300 {
		v = bf(erfcinv64(yf))
	}
	for range 60 {
		ex, _ := bigErfcx(v)
		f := bigLog(ex)
		f.Sub(f, bigNew().Mul(v, v)).Sub(f, ly) // log erfc(v) - log y
		step := f.Mul(f, ex).Mul(f, bigSqrtPi()).Quo(f, bf(2))
		v.Add(v, step)
		if step.Sign() == 0 || step.MantExp(nil)-v.MantExp(nil) < -bigPrec/2 { // the next would be below 2^-200
			break
		}
	}
	return v
}

// refErfinv: erfcinv of 1 - |x| (exact at 200 bits), and below 2^-30 the series'
// first two terms, sqrt(pi)/2 (x + pi x^3/12) (the next is under 2^-120 of the sum).
func refErfinv(x float64) exact {
	ax := math.Abs(x)
	switch {
	case !(ax < 1):
		if ax == 1 {
			return special(math.Copysign(math.Inf(1), x))
		}
		return special(math.NaN())
	case x == 0:
		return special(x)
	}
	var v *big.Float
	if b := bf(ax); ax < 0x1p-30 {
		v = bigNew().Mul(b, b)
		v.Mul(v, pi1400()).Quo(v, bf(12)).Add(v, bf(1)).Mul(v, b).Mul(v, bigSqrtPi()).Quo(v, bf(2))
	} else {
		v = bigErfcinv(bigNew().Sub(bf(1), b))
	}
	if x < 0 {
		v.Neg(v)
	}
	return value(v)
}

// refErfcinv: bigErfcinv, and -erfcinv(2 - y) above 1 (2 - y exact at 200 bits).
func refErfcinv(y float64) exact {
	switch {
	case y == 0:
		return special(math.Inf(1))
	case y == 2:
		return special(math.Inf(-1))
	case y == 1:
		return special(0)
	case !(y > 0 && y < 2):
		return special(math.NaN())
	}
	if y > 1 {
		v := bigErfcinv(bigNew().Sub(bf(2), bf(y)))
		return value(v.Neg(v))
	}
	return value(bigErfcinv(bf(y)))
}

// refNormcdfinv: -sqrt(2) erfcinv(2p).
func refNormcdfinv(p float64) exact {
	switch {
	case p == 0:
		return special(math.Inf(-1))
	case p == 1:
		return special(math.Inf(1))
	case p == 0.5:
		return special(0)
	case !(p > 0 && p < 1):
		return special(math.NaN())
	}
	v := refErfcinv(2 * p).b
	return value(v.Mul(v, bigNew().Sqrt(bf(2))).Neg(v))
}

// bigStirling is Stirling's coefficients B_2k / (2k (2k - 1)) for k = 1..60, from the
// Bernoulli numbers (Akiyama-Tanigawa, in exact rationals).
var bigStirling = sync.OnceValue(func() []*big.Float {
	const n = 120
	a := make([]*big.Rat, n+1)
	var out []*big.Float
	for m := 0; m <= n; m++ {
		a[m] = big.NewRat(1, int64(m+1))
		for j := m; j >= 1; j-- {
			d := new(big.Rat).Sub(a[j-1], a[j])
			a[j-1] = d.Mul(d, big.NewRat(int64(j), 1))
		}
		if m >= 2 && m%2 == 0 { // a[0] is B_m
			c := new(big.Rat).Quo(a[0], big.NewRat(int64(m*(m-1)), 1))
			out = append(out, bigNew().SetRat(c))
		}
	}
	return out
})

var bigHalfLog2Pi = sync.OnceValue(func() *big.Float {
	v := bigLog(bigNew().Mul(bf(2), pi1400()))
	return v.Quo(v, bf(2))
})

// bigLgamma is ln Gamma(x) for x > 0: x moved up to X >= 40 by Gamma(x + 1) = x Gamma(x),
// then Stirling's series (Abramowitz and Stegun 6.1.40), whose terms fall below 2^-210 of
// the sum well before they grow again (the least is about e^(-2 pi X)).
func bigLgamma(x *big.Float) *big.Float {
	X, prod := bigNew().Set(x), bf(1)
	for X.Cmp(bf(40)) < 0 {
		prod.Mul(prod, X)
		X.Add(X, bf(1))
	}
	s := bigNew().Mul(bigNew().Sub(X, bf(0.5)), bigLog(X))
	s.Sub(s, X).Add(s, bigHalfLog2Pi())
	inv := bigNew().Quo(bf(1), X)
	bigStirlingAdd(s, bigNew().Set(inv), bigNew().Mul(inv, inv), 1, func(int) float64 { return 1 })
	return s.Sub(s, bigLog(prod))
}

// bigStirlingAdd adds sign (c_1 w(0) p + c_2 w(1) p inv2 + c_3 w(2) p inv2^2 + ...) to s,
// c_k Stirling's coefficients and inv2 = 1/X^2, until a term falls below 2^-(bigPrec+10)
// of s. It uses p up.
func bigStirlingAdd(s, p, inv2 *big.Float, sign float64, w func(k int) float64) {
	for k, c := range bigStirling() {
		t := bigNew().Mul(c, bf(sign*w(k)))
		t.Mul(t, p)
		s.Add(s, t)
		if t.Sign() == 0 || t.MantExp(nil) < s.MantExp(nil)-bigPrec-10 {
			return
		}
		p.Mul(p, inv2)
	}
	panic("Stirling's series did not converge")
}

// bigLgammaNeg is ln |Gamma(x)| for x < 0 not an integer: log(pi / |x sin(pi x)|) -
// lgamma(-x), and the sign of sin(pi x), which is Gamma(x)'s.
func bigLgammaNeg(x float64) (*big.Float, int) {
	s := refSinPi(x).b
	d := bigNew().Abs(bigNew().Mul(s, bf(x)))
	v := bigLog(bigNew().Quo(pi1400(), d))
	return v.Sub(v, bigLgamma(bf(-x))), s.Sign()
}

// refLgamma: +inf at the poles (0, -0, the negative integers) and at both infinities.
func refLgamma(x float64) exact {
	switch {
	case math.IsNaN(x):
		return special(x)
	case math.IsInf(x, 0) || x <= 0 && x == math.Trunc(x):
		return special(math.Inf(1))
	case x == 1 || x == 2:
		return special(0)
	case x > 0:
		return value(bigLgamma(bf(x)))
	}
	v, _ := bigLgammaNeg(x)
	return value(v)
}

// refTgamma: Gamma(x) = e^lgamma(x), with sin(pi x)'s sign below 0; 1/x's infinity at
// +-0, NaN at the negative integers and -inf, and 0 of Gamma's sign below -200.
func refTgamma(x float64) exact {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1) || x < 0 && x == math.Trunc(x):
		return special(math.NaN())
	case x == 0:
		return special(1 / x)
	case x > 180:
		return special(math.Inf(1))
	case x > 0:
		return value(bigExp(bigLgamma(bf(x))))
	}
	v, sign := bigLgammaNeg(x)
	if x < -200 {
		return special(math.Copysign(0, float64(sign)))
	}
	e := bigExp(v)
	if sign < 0 {
		e.Neg(e)
	}
	return value(e)
}

// bigEulerGamma is Euler's constant, -digamma(1): digamma(40) by its asymptotic series
// (log X - 1/(2X) - sum B_2k / (2k X^2k)) less the harmonic number H_39.
var bigEulerGamma = sync.OnceValue(func() *big.Float {
	X := bf(40)
	psi := bigLog(X)
	psi.Sub(psi, bigNew().Quo(bf(0.5), X))
	inv2 := bigNew().Quo(bf(1), bigNew().Mul(X, X))
	bigStirlingAdd(psi, bigNew().Set(inv2), inv2, -1, func(k int) float64 { return float64(2*k + 1) })
	for j := 1; j < 40; j++ {
		psi.Sub(psi, bigNew().Quo(bf(1), bf(float64(j))))
	}
	return psi.Neg(psi)
})

// bigBesselI is the modified Bessel function I_n(x), n = 0 or 1, by its series of
// positive terms: (x/2)^n sum (x^2/4)^k / (k! (k+n)!).
func bigBesselI(n int, x *big.Float) *big.Float {
	q := bigNew().Mul(x, x)
	q.Quo(q, bf(4))
	t := bf(1)
	if n == 1 {
		t.Quo(x, bf(2))
	}
	return bigSeries(func(k int) *big.Float {
		cur := bigNew().Set(t)
		t.Mul(t, q).Quo(t, bf(float64((k+1)*(k+1+n))))
		return cur
	})
}

// refBesselI is cyl_bessel_i0 (n = 0) and cyl_bessel_i1 (n = 1): I0 even, I1 odd (its
// zeros keep x's sign), +-inf past 720 (where both overflow: I0(713.99) does).
func refBesselI(n int) func(x float64) exact {
	return func(x float64) exact {
		sign := 1.0 // I0's sign; I1's is x's
		if n == 1 {
			sign = x
		}
		switch {
		case math.IsNaN(x):
			return special(x)
		case math.Abs(x) > 720:
			return special(math.Copysign(math.Inf(1), sign))
		case x == 0:
			return special(sign) // I0(0) = 1, I1(+-0) = +-0
		}
		return value(bigBesselI(n, bf(x)))
	}
}

// bigBesselJY is the Bessel functions of the first and second kind J_n(x) and Y_n(x)
// for x > 0: below 50 by their series (Abramowitz and Stegun 9.1.10 and 9.1.11; the
// alternating terms cancel by at most 2^70 there), from 50 by Hankel's asymptotic
// expansion (bigHankel), whose least term is below e^-100 there.
func bigBesselJY(n int, x *big.Float) (j, y *big.Float) {
	if x.Cmp(bf(50)) >= 0 {
		if n > 7 {
			panic(fmt.Sprintf("bigBesselJY: no reference for n = %d past x = 50", n))
		}
		p, q := bigHankel(n, x)
		return bigBesselFar(n, x, p, q)
	}
	half := bigNew().Quo(x, bf(2))
	q := bigNew().Mul(half, half)
	hn := bf(1) // (x/2)^n
	for range n {
		hn.Mul(hn, half)
	}
	fact := func(m int) *big.Float {
		v := bf(1)
		for i := 2; i <= m; i++ {
			v.Mul(v, bf(float64(i)))
		}
		return v
	}
	// J_n = (x/2)^n sum t_k, t_k = (-q)^k / (k! (n+k)!), and beside it the sum of
	// (psi(k+1) + psi(n+k+1)) t_k, with psi(m+1) = H_m - gamma; both until the terms are
	// below 2^-bigPrec of the largest (the cancellation sets the precision).
	t := bigNew().Quo(bf(1), fact(n))
	hk, hnk := bf(0), bf(0) // H_k, H_(n+k)
	for i := 1; i <= n; i++ {
		hnk.Add(hnk, bigNew().Quo(bf(1), bf(float64(i))))
	}
	g2 := bigNew().Mul(bigEulerGamma(), bf(2))
	j = bigNew()
	psi, top := bigNew(), t.MantExp(nil)
	for k := 0; t.Sign() != 0 && (k < 4 || t.MantExp(nil) > top-bigPrec-8); k++ {
		if k > 0 {
			hk.Add(hk, bigNew().Quo(bf(1), bf(float64(k))))
			hnk.Add(hnk, bigNew().Quo(bf(1), bf(float64(n+k))))
		}
		j.Add(j, t)
		w := bigNew().Add(hk, hnk)
		psi.Add(psi, w.Sub(w, g2).Mul(w, t))
		top = max(top, t.MantExp(nil))
		t.Mul(t, q).Quo(t, bf(float64((k+1)*(n+k+1)))).Neg(t)
	}
	j.Mul(j, hn)
	pi := bigNew().Set(pi1400())
	y = bigNew().Mul(bigLog(half), j)
	y.Mul(y, bf(2))
	y.Sub(y, bigNew().Mul(psi, hn))
	if n > 0 { // -(x/2)^-n sum_(k<n) (n-k-1)!/k! q^k, each term from the last
		s, term := bigNew(), fact(n-1)
		for k := range n {
			s.Add(s, term)
			if k+1 < n {
				term.Mul(term, q).Quo(term, bf(float64((k+1)*(n-k-1))))
			}
		}
		y.Sub(y, s.Quo(s, hn))
	}
	return j, y.Quo(y, pi)
}

// bigHankel is Hankel's P_n(x) and Q_n(x) (Abramowitz and Stegun 9.2.9, 9.2.10), summed
// until the terms stop falling past k = n: a_0 = 1, a_k = a_(k-1) (4n^2 - (2k-1)^2) /
// (8k), P = sum (-1)^k a_2k / x^2k, Q = sum (-1)^k a_(2k+1) / x^(2k+1). Its least term
// is below e^-100 for n <= 7 from x = 50 on; bigBesselJY takes no larger n there.
func bigHankel(n int, x *big.Float) (p, q *big.Float) {
	p, q = bf(1), bigNew()
	a, last := bf(1), bf(math.Inf(1))
	for k := 1; ; k++ {
		a.Mul(a, bf(float64(4*n*n-(2*k-1)*(2*k-1)))).Quo(a, bigNew().Mul(bf(float64(8*k)), x))
		m := bigNew().Abs(a)
		if m.Sign() == 0 || m.MantExp(nil) < -bigPrec-8 || 2*k-1 > 2*n && m.Cmp(last) >= 0 {
			return p, q
		}
		last = m
		term := bigNew().Set(a)
		if (k/2)%2 == 1 {
			term.Neg(term)
		}
		if k%2 == 0 {
			p.Add(p, term)
		} else {
			q.Add(q, term)
		}
	}
}

// bigBesselFar is J_n and Y_n from P and Q: sqrt(2/(pi x)) (P cos chi - Q sin chi) and
// (P sin chi + Q cos chi), chi = x - (n/2 + 1/4) pi.
func bigBesselFar(n int, x, p, q *big.Float) (j, y *big.Float) {
	c, s := bigCosSinChi(n, x)
	amp := bigNew().Quo(bf(2), bigNew().Mul(bigNew().Set(pi1400()), x))
	amp.Sqrt(amp)
	j = bigNew().Sub(bigNew().Mul(p, c), bigNew().Mul(q, s))
	y = bigNew().Add(bigNew().Mul(p, s), bigNew().Mul(q, c))
	return j.Mul(j, amp), y.Mul(y, amp)
}

// bigCosSinChi is cos and sin of chi = x - (n/2 + 1/4) pi, x reduced by pi/2 in 1400
// bits.
func bigCosSinChi(n int, x *big.Float) (c, s *big.Float) {
	m, r := reducePio2Big(x)
	sr, cr := bigSinCos(r)
	sx := quadrant(bigNew().Set(sr), bigNew().Set(cr), int(m))
	cx := quadrant(sr, cr, int(m)+1)
	h := bigNew().Sqrt(bf(0.5)) // x - pi/4: (cos x + sin x)/sqrt 2, (sin x - cos x)/sqrt 2
	ct := bigNew().Add(cx, sx)
	st := bigNew().Sub(sx, cx)
	ct.Mul(ct, h)
	st.Mul(st, h)
	k := (4 - n%4) % 4 // less n pi/2: sin(t + k pi/2) and cos(t + k pi/2)
	return quadrant(bigNew().Set(st), bigNew().Set(ct), k+1), quadrant(st, ct, k)
}

// refBesselJ is jn(n, x): J_n even for even n, odd for odd n; 1 or 0 at 0 (J_n's zero
// keeps x's sign for odd n), 0 at the infinities.
func refBesselJ(n int) func(x float64) exact {
	return func(x float64) exact {
		sign := 1.0
		if n%2 == 1 {
			sign = x
		}
		switch {
		case math.IsNaN(x):
			return special(x)
		case math.IsInf(x, 0):
			return special(math.Copysign(0, sign))
		case x == 0:
			if n == 0 {
				return special(1)
			}
			return special(x)
		}
		j, _ := bigBesselJY(n, bf(math.Abs(x)))
		if math.Signbit(sign) {
			j.Neg(j)
		}
		return value(j)
	}
}

// bigBesselPQ is Hankel's P_n(x) and Q_n(x) for x > 0: below 50 from the series' J_n and
// Y_n, sqrt(pi x / 2) (J cos chi + Y sin chi) and (Y cos chi - J sin chi).
func bigBesselPQ(n int, x *big.Float) (p, q *big.Float) {
	if x.Cmp(bf(50)) >= 0 {
		return bigHankel(n, x)
	}
	j, y := bigBesselJY(n, x)
	c, s := bigCosSinChi(n, x)
	amp := bigNew().Mul(bigNew().Set(pi1400()), x)
	amp.Quo(amp, bf(2)).Sqrt(amp)
	p = bigNew().Add(bigNew().Mul(j, c), bigNew().Mul(y, s))
	q = bigNew().Sub(bigNew().Mul(y, c), bigNew().Mul(j, s))
	return p.Mul(p, amp), q.Mul(q, amp)
}

// bigBesselZero is the zero of J_n (second false) or Y_n (true) nearest guess, by
// Newton's method with F_n' = -F_1 (n = 0) or F_(n-1) - n F_n / x.
func bigBesselZero(n int, second bool, guess float64) *big.Float {
	f := func(m int, x *big.Float) *big.Float {
		j, y := bigBesselJY(m, x)
		if second {
			return y
		}
		return j
	}
	x := bf(guess)
	for range 12 {
		v := f(n, x)
		var d *big.Float
		if n == 0 {
			d = f(1, x)
			d.Neg(d)
		} else {
			d = bigNew().Quo(bigNew().Mul(bf(float64(n)), v), x)
			d.Sub(f(n-1, x), d)
		}
		x.Sub(x, v.Quo(v, d))
	}
	return x
}

// refBesselY is yn(n, x): NaN below 0, -inf at 0 (either sign), 0 at +inf.
func refBesselY(n int) func(x float64) exact {
	return func(x float64) exact {
		if v, ok := logLike(x, 0); ok {
			return v
		}
		_, y := bigBesselJY(n, bf(x))
		return value(y)
	}
}
