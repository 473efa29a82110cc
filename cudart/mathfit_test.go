package cudart

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The precise math of include/gtrace_math.h evaluates a few functions with polynomials
// whose coefficients come from here: interpolation at the Chebyshev nodes of the
// interval (near-minimax; Trefethen, Approximation Theory and Approximation Practice,
// ch. 16), solved by one Gauss-Jordan (chebyshevSolve): at float64's precision and
// rounded to float32 for the float fits, at 200 bits from bigmath_test.go's references
// and rounded to float64 for the double ones (mathFitsD). TestMathFits
// recomputes each and fails when the header's block differs, printing the block to
// paste.

// mathFit is one polynomial P(z - C) for z in [A, B] approximating G(z), with N+1
// coefficients (C centres the variable, so that the coefficients do not cancel).
type mathFit struct {
	Name    string
	G       func(z float64) float64
	A, B, C float64
	N       int
}

// series evaluates a power series in z (for the small-z end of the cube fits, where
// the formula cancels).
func series(z float64, c ...float64) float64 {
	v, p := 0.0, 1.0
	for _, k := range c {
		v += k * p
		p *= z
	}
	return v
}

var mathFits = []mathFit{
	// log(1+z) = z + z^2 P(z) for z in [sqrt(1/2)-1, sqrt(2)-1], the range of logf's
	// split; degree 9 is the least within 0.9 ulp of logf at float's own roundings.
	{"log1p", func(z float64) float64 {
		if math.Abs(z) < 1e-3 {
			return series(z, -1.0/2, 1.0/3, -1.0/4, 1.0/5, -1.0/6)
		}
		return (math.Log1p(z) - z) / (z * z)
	}, math.Sqrt(0.5) - 1, math.Sqrt2 - 1, 0, 9},
	// atan(t) = t + t^3 P(t^2) for t in [0, 1]; degree 9 keeps atanf within 1.10 ulp (8:
	// 1.41), atan2f within 1.46 (8: 1.53).
	{"atan", func(z float64) float64 {
		if z < 1e-3 {
			return series(z, -1.0/3, 1.0/5, -1.0/7, 1.0/9, -1.0/11)
		}
		t := math.Sqrt(z)
		return (math.Atan(t) - t) / (t * z)
	}, 0, 1, 0, 9},
	// tanh(t) = t + t^3 P(t^2) for t in [0, 0.6], tanhf's near part.
	{"tanh", func(z float64) float64 {
		if z < 1e-3 {
			return series(z, -1.0/3, 2.0/15, -17.0/315, 62.0/2835)
		}
		t := math.Sqrt(z)
		return (math.Tanh(t) - t) / (t * z)
	}, 0, 0.36, 0, 5},
	// asin(t) = t + t^3 P(t^2) for t in [0, 1/2].
	{"asin", func(z float64) float64 {
		if z < 1e-3 {
			return series(z, 1.0/6, 3.0/40, 15.0/336, 105.0/3456)
		}
		t := math.Sqrt(z)
		return (math.Asin(t) - t) / (t * z)
	}, 0, 0.25, 0, 6},
	// sin(pi r) = r (pi + z P(z)) and cos(pi r) = 1 - pi^2 z / 2 + z^2 Q(z), z = r^2, for
	// |r| <= 1/4: sinpif's and cospif's, in float (they were Taylor series in double). A
	// degree more in either leaves the largest error where it is (0.97 and 0.94 ulp with
	// Q's constant term in the fit: its rounding, 0.24 ulp, is what cospif now splits off).
	{"sinpi", func(z float64) float64 {
		if z < 1e-4 {
			return series(z, -math.Pow(math.Pi, 3)/6, math.Pow(math.Pi, 5)/120, -math.Pow(math.Pi, 7)/5040)
		}
		r := math.Sqrt(z)
		return (math.Sin(math.Pi*r)/r - math.Pi) / z
	}, 0, 1.0 / 16, 0, 4},
	{"cospi", func(z float64) float64 {
		if z < 1e-3 {
			return series(z, math.Pow(math.Pi, 4)/24, -math.Pow(math.Pi, 6)/720, math.Pow(math.Pi, 8)/40320, -math.Pow(math.Pi, 10)/3628800)
		}
		return (math.Cos(math.Pi*math.Sqrt(z)) - 1 + math.Pi*math.Pi/2*z) / (z * z)
	}, 0, 1.0 / 16, 0, 4},
	// erf(t) = t + t P(t^2) for t in [0, 1].
	{"erf", func(z float64) float64 {
		if z < 1e-6 {
			return 2/math.Sqrt(math.Pi)*(1-z/3) - 1
		}
		t := math.Sqrt(z)
		return math.Erf(t)/t - 1
	}, 0, 1, 0, 6},
	// erfc(x) = exp(P(x)) for x in [1, 3.92] (erf is 1 in float beyond; erff holds x at 4,
	// where the fit continued is still below half an ulp of 1).
	{"logerfc", func(x float64) float64 { return math.Log(math.Erfc(x)) }, 1, 3.92, 0, 8},
	// (1 + 2x) e^(x^2) erfc(x) = 1 + (q + 1) P(q) with q = (x - 2)/(x + 2), for x in [0,
	// inf): with q + 1 a factor (the sum is 1 at q = -1) Horner's steps near there do
	// not cancel, and the core of erfcf is within 1.6 ulp (degree 11: 1.4; a fit of the
	// sum itself, 3.3 near x = 0).
	{"erfcq", func(q float64) float64 {
		x := 2 * (1 + q) / (1 - q)
		v, _ := erfcx(big.NewFloat(x).SetPrec(bigPrec)).Float64()
		return ((1+2*x)*v - 1) / (q + 1)
	}, -1, 1, 0, 10},
	// erfinv(x) = x (1 + P(z)) with v = -log2(1 - x^2) (the SFU's lg2, so that w = v ln2
	// is never rounded), z = 3/2 - v for w in [0, 5] and z = sqrt(v) - C beyond, to
	// erfcinvf's least subnormal; each degree the least within about an ulp of the
	// result at float's own roundings.
	{"erfinvw1", func(u float64) float64 { return erfinvW(-u * math.Ln2) }, -5 / math.Ln2, 0, -1.5, 9},
	{"erfinvw2", erfinvSqrtV, math.Sqrt(5 / math.Ln2), 4 / math.Sqrt(math.Ln2), 4, 9},
	{"erfinvw3", erfinvSqrtV, 4 / math.Sqrt(math.Ln2), 10.13 / math.Sqrt(math.Ln2), 8, 11},
}

// erfinvW is erfinv(x)/x - 1 for x = sqrt(1 - e^-w): Go's erfinv below x = 1/2,
// erfcinv64 of 1 - x = e^-w / (1 + x) above, where 1 - x itself would cancel.
func erfinvW(w float64) float64 {
	if w < 1e-10 {
		return math.Sqrt(math.Pi)/2*(1+math.Pi/12*w) - 1
	}
	x := math.Sqrt(-math.Expm1(-w))
	if x > 0.5 {
		return erfcinv64(math.Exp(-w)/(1+x))/x - 1
	}
	return math.Erfinv(x)/x - 1
}

// erfinvSqrtV is erfinvW at w = r^2 ln2, for the float fits in r = sqrt(-log2 t).
func erfinvSqrtV(r float64) float64 { return erfinvW(r * r * math.Ln2) }

// erfcinv64 is erfcinv(y) for y in (0, 2) to float64's precision: the root of
// erfc(v) = y by bisection (erfc falls monotonically, and math.Erfc keeps its relative
// precision deep in the tail, where erfinv(1 - y) has lost every digit of y).
func erfcinv64(y float64) float64 {
	if y > 1 {
		return -erfcinv64(2 - y)
	}
	lo, hi := 0.0, 30.0
	for range 200 {
		if m := (lo + hi) / 2; math.Erfc(m) > y {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// mathFitD is a double fit: P(z - C) for z in [A, B] approximating G(z), exact to 200
// bits, with N+1 coefficients.
type mathFitD struct {
	Name    string
	G       func(z *big.Float) *big.Float
	A, B, C float64
	N       int
}

// erfcx is erfc(x) e^(x^2).
func erfcx(x *big.Float) *big.Float {
	v, _ := bigErfcx(x)
	return v
}

// xErfcx is x erfc(x) e^(x^2) for x = 1/t (t > 0): near 1/sqrt(pi) and flat as t goes
// to 0, so that t's rounding and z = t - C's cost little (erfc(x) e^(x^2) itself is
// about t/sqrt(pi), as sensitive to t's rounding as t).
func xErfcx(t *big.Float) *big.Float {
	x := bigNew().Quo(bf(1), t)
	return bigNew().Mul(erfcx(x), x)
}

// The degrees are the least at which the fit, rounded and evaluated by Horner in double,
// is within about 1.5 * 2^-53 of G (relative; for erf, of 1 + G) on 400 points of its
// interval: one degree less misses by 2.5 to 130 times that.
var mathFitsD = []mathFitD{
	// erf(t) = t + t P(t^2) for t in [0, 1].
	{"erf_d", func(z *big.Float) *big.Float {
		t := bigNew().Sqrt(z)
		_, erf := bigErfcx(t)
		return erf.Quo(erf, t).Sub(erf, bf(1))
	}, 0, 1, 0, 12},
	// erfc(x) = e^(-x^2) P(x - 7/8) for x in [1/2, 5/4].
	{"erfcx1_d", erfcx, 0.5, 1.25, 0.875, 14},
	// erfc(x) = e^(-x^2) P(x - 13/8) for x in [5/4, 2].
	{"erfcx2_d", erfcx, 1.25, 2, 1.625, 13},
	// erfc(x) = e^(-x^2) P(1/x - 3/8) / x for x in [2, 4].
	{"erfcx3_d", xErfcx, 0.25, 0.5, 0.375, 14},
	// erfc(x) = e^(-x^2) P(1/x - 0.14) / x for x in [4, 27.3] (erfc is 0 in double beyond).
	{"erfcx4_d", xErfcx, 1 / 27.3, 0.25, 0.14, 14},
	// erfinv(x) = x (1 + P(z)) with w = -log(1 - x^2), z = 2 - w for w in [0, 4] and
	// z = sqrt(w) - C beyond, to erfcinv's least subnormal; each degree the least past
	// which one more gains nothing, or within 2^-53 of 1 + Q.
	{"erfinvw1_d", func(u *big.Float) *big.Float { return bigErfinvW(bigNew().Neg(u)) }, -4, 0, -2, 18},
	{"erfinvw2_d", bigErfinvSqrtW, 2, 4, 3, 23},
	{"erfinvw3_d", bigErfinvSqrtW, 4, 6.1, 5, 18},
	{"erfinvw4_d", bigErfinvSqrtW, 6.1, 12, 9, 18},
	{"erfinvw5_d", bigErfinvSqrtW, 12, 27.3, 20, 20},
	// lgamma(x) = (x - 1)(x - 2) P(x - 2) for x in [1, 3], to 2^-35 relative (a
	// thousandth of a float's rounding: lgammaf and tgammaf take it), from Go's lgamma;
	// one degree less misses by 4 times that.
	{"lgamma13_d", func(z *big.Float) *big.Float {
		x, _ := z.Float64()
		switch x {
		case 1:
			return bf(eulerGamma) // the slopes at the zeros: -gamma at 1, 1 - gamma at 2
		case 2:
			return bf(1 - eulerGamma)
		}
		v, _ := math.Lgamma(x)
		return bf(v / ((x - 1) * (x - 2)))
	}, 1, 3, 2, 16},
	// lgamma(1 + z) = z (-gamma + z P(z)) and lgamma(2 + z) = z (1 - gamma + z P(z)) for z
	// in [-1/2, 1/2] (lgamma and tgamma; gamma, Euler's constant, in two parts in the
	// header); past these degrees the coefficients' rounding to double is all that is left.
	{"lgamma1_d", lgammaOver(1, bigNew().Neg(bigEulerGamma())), -0.5, 0.5, 0, 27},
	{"lgamma2_d", lgammaOver(2, bigNew().Sub(bf(1), bigEulerGamma())), -0.5, 0.5, 0, 19},
	// cyl_bessel_i0 and i1 for |x| <= 8: I0(x) = P0(z) and I1(x) = x/2 P1(z) with z =
	// x^2/4, P0 = sum z^k/k!^2, P1 = sum z^k/(k!(k+1)!) (positive terms); past 8, In(x)
	// = e^x Qn(1/x) / sqrt(x), Qn(t) = In(1/t) e^(-1/t) / sqrt(t), which tends to
	// 1/sqrt(2 pi) as t goes to 0.
	{"besseli0s_d", besselISmall(0), 0, 16, 0, 15},
	{"besseli1s_d", besselISmall(1), 0, 16, 0, 15},
	{"besseli0l_d", besselILarge(0), 0, 0.125, 0.0625, 22},
	{"besseli1l_d", besselILarge(1), 0, 0.125, 0.0625, 22},
	// j0 and j1 for |x| < 8: J_n(x) = (x - z1)(x - z2)... P(x - C) over each interval's
	// zeros (the zero at 0 of J1 too), the zeros in two parts in the header, so that the
	// relative error holds next to them; from 8, Hankel's P_n = P(u) and x Q_n = Q(u) in
	// u = 1/x^2 (A&S 9.2.5), 1 and -1/8 (n = 0) or 3/8 (n = 1) at u = 0.
	{"besselj0a_d", besselNear(0, false, besselZ(0, false, 2.4)), 0, 4, 2, 17},
	{"besselj0b_d", besselNear(0, false, besselZ(0, false, 5.5)), 4, 8, 6, 17},
	{"besselj1a_d", besselNear(1, false, bf(0), besselZ(1, false, 3.83)), 0, 5.4, 2.7, 17},
	{"besselj1b_d", besselNear(1, false, besselZ(1, false, 7.0)), 5.4, 8, 6.7, 14},
	{"besselp0_d", besselFarFit(0, false), 0, 1.0 / 64, 1.0 / 128, 10},
	{"besselq0_d", besselFarFit(0, true), 0, 1.0 / 64, 1.0 / 128, 11},
	{"besselp1_d", besselFarFit(1, false), 0, 1.0 / 64, 1.0 / 128, 10},
	{"besselq1_d", besselFarFit(1, true), 0, 1.0 / 64, 1.0 / 128, 11},
	// y0 and y1 below 8: the same fits about each zero, from 0.75 (Y0) and 1.25 (Y1) on;
	// below, Y_n = 2/pi log(x) J_n(x) + R_n with J0 = J(z), J1 = x J(z), R0 = R(z) and
	// R1 = R(z)/x, fits in z = x^2 (R0 and x R1 are even and whole: A&S 9.1.13).
	{"bessely0a_d", besselNear(0, true, besselZ(0, true, 0.89)), 0.75, 2.4, 1.5, 27},
	{"bessely0b_d", besselNear(0, true, besselZ(0, true, 3.96)), 2.4, 5.5, 4, 21},
	{"bessely0c_d", besselNear(0, true, besselZ(0, true, 7.09)), 5.5, 8, 6.75, 14},
	{"bessely1a_d", besselNear(1, true, besselZ(1, true, 2.2)), 1.25, 3.8, 2.5, 26},
	{"bessely1b_d", besselNear(1, true, besselZ(1, true, 5.43)), 3.8, 8, 5.9, 21},
	{"besselj0z_d", besselSmallJ(0), 0, 0.5625, 0.28, 7},
	{"besselr0z_d", besselLogRest(0), 0, 0.5625, 0.28, 8},
	{"besselj1z_d", besselSmallJ(1), 0, 1.5625, 0.78, 8},
	{"besselr1z_d", besselLogRest(1), 0, 1.5625, 0.78, 8},
}

// besselZ is the zero of J_n (second false) or Y_n nearest guess.
func besselZ(n int, second bool, guess float64) *big.Float { return bigBesselZero(n, second, guess) }

// besselNear is J_n(x) (second false) or Y_n(x) over the product of x - z for its zeros z.
func besselNear(n int, second bool, zeros ...*big.Float) func(x *big.Float) *big.Float {
	return func(x *big.Float) *big.Float {
		j, y := bigBesselJY(n, x)
		if second {
			j = y
		}
		for _, z := range zeros {
			j.Quo(j, bigNew().Sub(x, z))
		}
		return j
	}
}

// besselFarFit is Hankel's P_n(x) (q false) or x Q_n(x) (q true) for u = 1/x^2.
func besselFarFit(n int, q bool) func(u *big.Float) *big.Float {
	return func(u *big.Float) *big.Float {
		x := bigNew().Quo(bf(1), bigNew().Sqrt(u))
		p, qq := bigBesselPQ(n, x)
		if q {
			return qq.Mul(qq, x)
		}
		return p
	}
}

// besselISmall is In(2 sqrt(z)) / sqrt(z)^n: the series of I0 and I1 in z = x^2/4.
func besselISmall(n int) func(z *big.Float) *big.Float {
	return func(z *big.Float) *big.Float {
		r := bigNew().Sqrt(z)
		v := bigBesselI(n, bigNew().Mul(r, bf(2)))
		if n == 1 {
			v.Quo(v, r)
		}
		return v
	}
}

// besselILarge is In(1/t) e^(-1/t) / sqrt(t).
func besselILarge(n int) func(t *big.Float) *big.Float {
	return func(t *big.Float) *big.Float {
		x := bigNew().Quo(bf(1), t)
		v := bigBesselI(n, x)
		v.Mul(v, bigExp(bigNew().Neg(x)))
		return v.Quo(v, bigNew().Sqrt(t))
	}
}

// lgammaOver is (lgamma(a + z) / z - c) / z, c the slope at the zero a (Chebyshev's
// nodes of an even count never fall on z = 0).
func lgammaOver(a float64, c *big.Float) func(z *big.Float) *big.Float {
	return func(z *big.Float) *big.Float {
		v := bigLgamma(bigNew().Add(z, bf(a)))
		v.Quo(v, z).Sub(v, c)
		return v.Quo(v, z)
	}
}

const eulerGamma = 0.57721566490153286

// bigErfinvW is erfinv(x)/x - 1 for x = sqrt(1 - e^-w), from erfcinv of 1 - x =
// e^-w / (1 + x); at w = 0 its limit sqrt(pi)/2 - 1.
func bigErfinvW(w *big.Float) *big.Float {
	if w.Sign() == 0 {
		v := bigNew().Quo(bigSqrtPi(), bf(2))
		return v.Sub(v, bf(1))
	}
	e := bigExp(bigNew().Neg(w))
	x := bigNew().Sqrt(bigNew().Sub(bf(1), e))
	v := bigErfcinv(bigNew().Quo(e, bigNew().Add(bf(1), x)))
	return v.Quo(v, x).Sub(v, bf(1))
}

func bigErfinvSqrtW(r *big.Float) *big.Float { return bigErfinvW(bigNew().Mul(r, r)) }

// chebyshevSolve interpolates g at the N+1 Chebyshev nodes of [A, B] and returns P's
// coefficients in u = (z - C)/h (within [-1, 1]), constant first, and h. Every step
// is rounded to prec bits: at 53 each is float64's own rounding, so the float fits
// come out as a float64 solve gives them.
func chebyshevSolve(A, B, C float64, N int, prec uint, g func(z *big.Float) *big.Float) ([]*big.Float, float64) {
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	m := N + 1
	h := math.Max(math.Abs(A-C), math.Abs(B-C))
	a := make([][]*big.Float, m)
	for i := range a {
		z := (A+B)/2 + (B-A)/2*math.Cos(math.Pi*(float64(i)+0.5)/float64(m))
		d := num().Sub(num().SetFloat64(z), num().SetFloat64(C))
		row := make([]*big.Float, m+1)
		for k, p := 0, num().SetInt64(1); k < m; k, p = k+1, num().Quo(num().Mul(p, d), num().SetFloat64(h)) {
			row[k] = p
		}
		row[m] = num().Set(g(num().SetFloat64(z)))
		a[i] = row
	}
	for c := range m { // Gauss-Jordan with partial pivoting
		piv := c
		for r := c + 1; r < m; r++ {
			if num().Abs(a[r][c]).Cmp(num().Abs(a[piv][c])) > 0 {
				piv = r
			}
		}
		a[c], a[piv] = a[piv], a[c]
		for r := range m {
			if r != c {
				k := num().Quo(a[r][c], a[c][c])
				for j := c; j <= m; j++ {
					a[r][j] = num().Sub(a[r][j], num().Mul(k, a[c][j]))
				}
			}
		}
	}
	x := make([]*big.Float, m)
	for k := range x {
		x[k] = num().Quo(a[k][m], a[k][k])
	}
	return x, h
}

// coefficients solves in float64 and rounds to float32, P's coefficients in z - C.
func (f mathFit) coefficients() []string {
	x, h := chebyshevSolve(f.A, f.B, f.C, f.N, 53, func(z *big.Float) *big.Float {
		v, _ := z.Float64()
		return big.NewFloat(f.G(v))
	})
	out := make([]string, len(x))
	for k := range x {
		v, _ := x[k].Float64()
		out[k] = cnum(strconv.FormatFloat(float64(float32(v/math.Pow(h, float64(k)))), 'g', 9, 32)) + "f"
	}
	return out
}

// coefficients solves in math/big and rounds to float64, P's coefficients in z - C.
func (f mathFitD) coefficients() []string {
	x, h := chebyshevSolve(f.A, f.B, f.C, f.N, bigPrec, f.G)
	out := make([]string, len(x))
	hk := bf(1)
	for k := range x {
		v, _ := x[k].Quo(x[k], hk).Float64()
		out[k] = cnum(strconv.FormatFloat(v, 'g', 17, 64))
		hk.Mul(hk, bf(h))
	}
	return out
}

func (f mathFit) block() string  { return hornerBlock(f.Name, "float", "fmaf", f.coefficients()) }
func (f mathFitD) block() string { return hornerBlock(f.Name, "double", "fma", f.coefficients()) }

// hornerBlock is the Horner evaluation of a fit as the header writes it.
func hornerBlock(name, typ, fma string, c []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\t// fit %s: cudart/mathfit_test.go\n", name)
	fmt.Fprintf(&b, "\t%s p = %s;\n", typ, c[len(c)-1])
	for k := len(c) - 2; k >= 0; k-- {
		fmt.Fprintf(&b, "\tp = %s(p, z, %s);\n", fma, c[k])
	}
	return b.String()
}

// cnum makes a formatted number a floating literal: 2 becomes 2.0.
func cnum(s string) string {
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

var fitBlock = regexp.MustCompile(`(?m)^\t*// fit (\w+): .*\n(?:\t*(?:float |double )?p = .*\n)+`)

func TestMathFits(t *testing.T) {
	h, err := include.ReadFile("include/gtrace_math.h")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, m := range fitBlock.FindAllStringSubmatch(string(h), -1) {
		found[m[1]] = regexp.MustCompile(`(?m)^\t+`).ReplaceAllString(m[0], "\t") // any indent
	}
	want := map[string]string{}
	for _, f := range mathFits {
		want[f.Name] = f.block()
	}
	for _, f := range mathFitsD {
		want[f.Name] = f.block()
	}
	for name, block := range want {
		if got := found[name]; got != block {
			t.Errorf("include/gtrace_math.h's fit %s is\n%s\nwant\n%s", name, got, block)
		}
		delete(found, name)
	}
	for name := range found {
		t.Errorf("include/gtrace_math.h has a fit %s that mathFits does not make", name)
	}
}

// besselZero is one of the header's zeros of a Bessel function (fn "J0", "Y1", ...) in
// two parts: zh, the nearest double, and zl, the nearest to the rest.
type besselZero struct {
	fn     string
	zh, zl float64
}

// headerBesselZeros is the header's zeros, in its order.
var headerBesselZeros = sync.OnceValue(func() []besselZero {
	h, err := include.ReadFile("include/gtrace_math.h")
	if err != nil {
		panic(err)
	}
	var zs []besselZero
	for _, m := range regexp.MustCompile(`zh = (\S+), zl = (\S+); // ([JY]\d)'s zero`).FindAllStringSubmatch(string(h), -1) {
		zh, _ := strconv.ParseFloat(m[1], 64)
		zl, _ := strconv.ParseFloat(m[2], 64)
		zs = append(zs, besselZero{m[3], zh, zl})
	}
	return zs
})

// zerosOf is the high parts of fn's zeros in the header.
func zerosOf(fn string) (zs []float64) {
	for _, z := range headerBesselZeros() {
		if z.fn == fn {
			zs = append(zs, z.zh)
		}
	}
	return zs
}

// The header's zeros of the Bessel functions are the zeros.
func TestBesselZeros(t *testing.T) {
	if len(headerBesselZeros()) == 0 {
		t.Fatal("include/gtrace_math.h has no Bessel zeros")
	}
	for _, z := range headerBesselZeros() {
		n := int(z.fn[1] - '0')
		w := bigBesselZero(n, z.fn[0] == 'Y', z.zh)
		wh, _ := w.Float64()
		wl, _ := bigNew().Sub(w, bf(wh)).Float64()
		if z.zh != wh || z.zl != wl {
			t.Errorf("%s's zero is %v, %v in the header; want %v, %v", z.fn, z.zh, z.zl, wh, wl)
		}
	}
}

// besselLogRest is Y_n(x) - 2/pi log(x) J_n(x), times x for n = 1, in z = x^2.
func besselLogRest(n int) func(z *big.Float) *big.Float {
	return func(z *big.Float) *big.Float {
		x := bigNew().Sqrt(z)
		j, y := bigBesselJY(n, x)
		l := bigLog(x)
		l.Mul(l, j).Mul(l, bf(2)).Quo(l, bigNew().Set(pi1400()))
		y.Sub(y, l)
		if n == 1 {
			y.Mul(y, x)
		}
		return y
	}
}

// besselSmallJ is J_n(x) / x^n in z = x^2.
func besselSmallJ(n int) func(z *big.Float) *big.Float {
	return func(z *big.Float) *big.Float {
		x := bigNew().Sqrt(z)
		j, _ := bigBesselJY(n, x)
		if n == 1 {
			j.Quo(j, x)
		}
		return j
	}
}
