package cudart

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// mathInputs is how many inputs TestPreciseMath adds to CUDA's per function; a run with
// -math-inputs 1000000 takes a minute.
var mathInputs = flag.Int("math-inputs", 3072, "inputs per function that TestPreciseMath adds to the H100's")

// mathRun is CUDA's math library measured on an H100 (scripts/hw/mathfn.sh).
const mathRun = "../traces/hw/h100-2026-11-27-mathfn"

// preciseFn is one function of gtrace_math.h: its kernel in testdata/samples.cu
// (m_NAME), its maximum error in ulps as the CUDA C++ Programming Guide's tables
// ("... Mathematical Standard Library Functions with Maximum ULP Error") give it, and
// its reference value R: for the float functions Go's float64 math (preciseFns), for
// the double ones the exact value (preciseFnsD, bigmath_test.go).
type preciseFn[R any] struct {
	name  string
	bound float64
	ref   func(x, y float64) R
}

// unary is a one-argument reference as preciseFn.ref takes it.
func unary[R any](f func(float64) R) func(x, y float64) R {
	return func(x, _ float64) R { return f(x) }
}

var preciseFns = []preciseFn[float64]{
	{"expf", 2, unary(math.Exp)},
	{"exp2f", 2, unary(math.Exp2)},
	{"exp10f", 2, func(x, _ float64) float64 { return math.Pow(10, x) }},
	{"expm1f", 1, unary(math.Expm1)},
	{"logf", 1, unary(math.Log)},
	{"log2f", 1, unary(math.Log2)},
	{"log10f", 2, unary(math.Log10)},
	{"log1pf", 1, unary(math.Log1p)},
	{"powf", 4, math.Pow},
	{"sinf", 2, unary(math.Sin)},
	{"cosf", 2, unary(math.Cos)},
	{"tanf", 4, unary(math.Tan)},
	{"tanhf", 2, unary(math.Tanh)},
	{"sinhf", 3, unary(math.Sinh)},
	{"coshf", 2, unary(math.Cosh)},
	{"erff", 2, unary(math.Erf)},
	{"atanf", 2, unary(math.Atan)},
	{"atan2f", 3, math.Atan2},
	{"asinf", 2, unary(math.Asin)},
	{"acosf", 2, unary(math.Acos)},
	{"hypotf", 3, normRefF(2, false)},
	{"erfcf", 4, unary(math.Erfc)},
	{"cbrtf", 1, unary(math.Cbrt)},
	{"sinpif", 1, unary(sinPi)},
	{"cospif", 1, unary(cosPi)},
	{"asinhf", 3, unary(math.Asinh)},
	{"acoshf", 4, unary(math.Acosh)},
	{"atanhf", 3, unary(math.Atanh)},
	{"fmodf", 0, math.Mod},
	{"remainderf", 0, math.Remainder},
	{"normcdff", 5, unary(func(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 })},
	{"erfinvf", 2, unary(erfinv64)},
	{"erfcinvf", 4, unary(func(y float64) float64 {
		switch {
		case y == 0 || y == 2:
			return math.Inf(int(1 - y))
		case y > 0 && y < 2:
			return erfcinv64(y)
		}
		return math.NaN()
	})},
	{"normcdfinvf", 5, unary(func(p float64) float64 {
		switch {
		case p == 0 || p == 1:
			return math.Inf(int(2*p - 1))
		case p > 0 && p < 1:
			return -math.Sqrt2 * erfcinv64(2*p)
		}
		return math.NaN()
	})},
	{"rcbrtf", 1, unary(func(x float64) float64 { return 1 / math.Cbrt(x) })},
	{"erfcxf", 4, unary(func(x float64) float64 { return refErfcx(x).float64() })},
	{"lgammaf", 6, unary(lgamma64)},
	{"tgammaf", 5, unary(math.Gamma)},
	{"rhypotf", 2, normRefF(2, true)},
	{"norm3df", 3, normRefF(3, false)},
	{"rnorm3df", 2, normRefF(3, true)},
	{"norm4df", 3, normRefF(4, false)},
	{"rnorm4df", 2, normRefF(4, true)},
	{"normf", 4, normRefF(3, false)},
	{"rnormf", 3, normRefF(3, true)},
	{"cyl_bessel_i0f", 6, unary(func(x float64) float64 { return refBesselI(0)(x).float64() })},
	{"cyl_bessel_i1f", 6, unary(func(x float64) float64 { return refBesselI(1)(x).float64() })},
	{"j0f", 9, unary(func(x float64) float64 { return refBesselJ(0)(x).float64() })},
	{"j1f", 9, unary(func(x float64) float64 { return refBesselJ(1)(x).float64() })},
	{"y0f", 9, unary(func(x float64) float64 { return refBesselY(0)(x).float64() })},
	{"y1f", 9, unary(func(x float64) float64 { return refBesselY(1)(x).float64() })},
	{"jnf", 0, unary(func(x float64) float64 { return refBesselJ(3)(x).float64() })},
	{"ynf", 10, unary(func(x float64) float64 { return refBesselY(3)(x).float64() })},
}

// normRef is a norm's reference on normArgs' n arguments in T (its reciprocal if recip);
// normRefF the same in float64, for the float forms.
func normRef[T float](n int, recip bool) func(x, y float64) exact {
	return func(x, y float64) exact { return refNorm(recip, normArgs[T](n, x, y)...) }
}

func normRefF(n int, recip bool) func(x, y float64) float64 {
	ref := normRef[float32](n, recip)
	return func(x, y float64) float64 { return ref(x, y).float64() }
}

// lgamma64 is Go's lgamma but at -inf, where C's (and CUDA's) is +inf.
func lgamma64(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.Inf(1)
	}
	v, _ := math.Lgamma(x)
	return v
}

// erfinv64 is erfinv(x) in float64 for a float x: Go's below 1/2, erfcinv64 of 1 - |x|
// (exact) above, where Go's has only 1 - |x|'s digits.
func erfinv64(x float64) float64 {
	if ax := math.Abs(x); ax > 0.5 && ax < 1 {
		return math.Copysign(erfcinv64(1-ax), x)
	}
	return math.Erfinv(x)
}

// sinPi and cosPi are sin(pi x) and cos(pi x) in float64 for the float tests: x reduced
// mod 2 exactly first (math.Mod), and the exact zeros where the result is one.
func sinPi(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.NaN()
	}
	r := math.Mod(x, 2)
	if r == math.Trunc(r) {
		return math.Copysign(0, x)
	}
	return math.Sin(math.Pi * r)
}

func cosPi(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.NaN()
	}
	r := math.Mod(math.Abs(x), 2)
	if r == 0.5 || r == 1.5 {
		return 0
	}
	return math.Cos(math.Pi * r)
}

// float is the two types the math library's tests run: float32 and float64.
type float interface{ float32 | float64 }

// bitsOf is the IEEE width of T: 32 or 64.
func bitsOf[T float]() int { return 8 * int(unsafe.Sizeof(T(0))) }

func toBytes[T float](v []T) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func fromBytes[T float](b []byte) []T {
	v := make([]T, len(b)/(bitsOf[T]()/8))
	binary.Read(bytes.NewReader(b), binary.LittleEndian, v)
	return v
}

// gpuValues reads one function's (x, y, CUDA's result) records from the H100 run.
func gpuValues[T float](t *testing.T, name string) (x, y, r []T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mathRun, "values", name+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	v := fromBytes[T](b)
	for i := 0; i+3 <= len(v); i += 3 {
		x, y, r = append(x, v[i]), append(y, v[i+1]), append(r, v[i+2])
	}
	return x, y, r
}

// runKernel captures kernel over n threads (blocks of 256) and returns its result.
func runKernel(t *testing.T, kernel string, n int, args []string, data map[int][]byte) *capture.Result {
	t.Helper()
	k, err := capture.Load(capture.Spec{PTX: samples(t), PTXName: "samples.ptx", Kernel: kernel,
		Grid: format.Dim3{X: uint32((n + 255) / 256), Y: 1, Z: 1}, Block: format.Dim3{X: 256, Y: 1, Z: 1},
		Args: args, Data: data})
	if err != nil {
		t.Fatalf("%s: %v", kernel, err)
	}
	res, err := k.Run(context.Background(), 0, discard{})
	if err != nil {
		t.Fatalf("%s: %v", kernel, err)
	}
	return res
}

// runPreciseRes captures a kernel of the form m_NAME(const T *x, const T *y, T *r, int n)
// over x and y.
func runPreciseRes[T float](t *testing.T, kernel string, x, y []T) *capture.Result {
	t.Helper()
	n := len(x)
	buf := fmt.Sprintf("buf:f%d:%d", bitsOf[T](), n)
	return runKernel(t, kernel, n, []string{buf, buf, buf, fmt.Sprintf("i32:%d", n)}, map[int][]byte{0: toBytes(x), 1: toBytes(y)})
}

// runPrecise captures m_NAME over x and y and returns r and the warp-instructions.
func runPrecise[T float](t *testing.T, kernel string, x, y []T) ([]T, uint64) {
	t.Helper()
	res := runPreciseRes(t, kernel, x, y)
	return fromBytes[T](res.Buffers[2].Final), res.WarpInsts
}

// ulpErr is got's distance from the exact value want in ulps of want's binade in T
// (subnormals' spacing below), or 0 when both are the same NaN, infinity or zero, and
// +Inf when one is not finite and the other differs.
func ulpErr[T float](got T, want float64) float64 {
	w := float64(T(want)) // the correctly rounded result (overflow rounds to Inf)
	g := float64(got)
	switch {
	case math.IsNaN(want) || math.IsNaN(g):
		if math.IsNaN(want) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(w, 0) || math.IsInf(g, 0):
		if w == g {
			return 0
		}
		return math.Inf(1)
	}
	prec, least := 24, -149
	if bitsOf[T]() == 64 {
		prec, least = 53, -1074
	}
	_, e := math.Frexp(want)
	ulp := math.Max(math.Ldexp(1, e-prec), math.Ldexp(1, least))
	return math.Abs(g-want) / ulp
}

// cudaWrong is the H100's results that are not the function's value, which gtrace does
// not copy (the references check gtrace's there): jn(3, ±0) and jnf(3, ±0) are NaN on
// the H100 where J_3(0) = ±0, jnf(3, 1e-30) too (J_3 is 2.1e-92 there, 0 in float), and
// yn(3, -0) is +inf where C's yn(n, ±0) is -inf.
var cudaWrong = map[string]bool{"jn(0, 0)": true, "jn(-0, 0)": true, "jnf(0, 0)": true, "jnf(-0, 0)": true,
	"jnf(1e-30, 0)": true, "yn(-0, 0)": true}

// gpuAgreement compares results with CUDA's on the same inputs: it fails where CUDA
// gives a NaN, an infinity or a signed zero and got differs (call(i) names the call),
// and returns how many results are CUDA's bits and the farthest of the others in ulps.
func gpuAgreement[T float](t *testing.T, call func(i int) string, got, gr []T) (same int, far float64) {
	t.Helper()
	for i, c := range gr {
		cf, gf := float64(c), float64(got[i]) // exact: float64 keeps a float32's bits apart
		if cudaWrong[call(i)] {
			continue
		}
		special := math.IsNaN(cf) || math.IsInf(cf, 0) || c == 0
		if special && !(math.IsNaN(cf) && math.IsNaN(gf)) && math.Float64bits(cf) != math.Float64bits(gf) {
			t.Errorf("%s = %v; CUDA gives %v", call(i), got[i], c)
		}
		if math.Float64bits(cf) == math.Float64bits(gf) || math.IsNaN(cf) && math.IsNaN(gf) {
			same++
		} else if !special {
			far = math.Max(far, ulpErr(got[i], cf))
		}
	}
	return same, far
}

// moreInputs adds n inputs to a function's: half any float (random bits, so every
// binade, subnormals and huge values alike), half uniform over the range of xs.
func moreInputs(rng *rand.Rand, xs []float32, n int) []float32 {
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, v := range xs {
		if !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v)) && math.Abs(float64(v)) < 1e20 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	out := append([]float32(nil), xs...)
	for i := range n {
		if i%2 == 0 {
			out = append(out, math.Float32frombits(rng.Uint32()&0xff7fffff)) // finite
		} else {
			out = append(out, lo+(hi-lo)*rng.Float32())
		}
	}
	return out
}

// unbounded is where the Guide gives a function no error bound: lgammaf's between
// -10.001 and -2.264 (lgamma's between -23.0001 and -2.2637), where its zeros lie and
// lgamma(x) = log(pi / |x sin(pi x)|) - lgamma(-x) cancels. There TestPreciseMath takes
// the error in ulps of 1 where the result is below 1 (an absolute error, as cancellation
// leaves it), and TestPreciseMathDouble in ulps of the terms that cancel.
var unbounded = map[string][2]float64{"lgammaf": {-10.001, -2.264}, "lgamma": {-23.0001, -2.2637}}

// absolute is where the Guide bounds a function's error absolutely instead of in ulps:
// from |x| = from on, by bound (the Bessel functions past 8, where their zeros are
// dense and the result's size says nothing of the error; jn and jnf everywhere; ynf
// from n = 3 and yn from 1.5 n). There the tests measure |got - exact|. Below 1.5 n the
// Guide gives yn no bound; the test holds it to ynf's (ceil(2 + 2.5 n) ulp below n,
// and from n its absolute bound, 5e-12: Y_3's first zero is at 4.53).
var absolute = map[string]struct{ from, bound float64 }{
	"j0f": {8, 2.2e-6}, "j1f": {8, 2.2e-6}, "y0f": {8, 2.2e-6}, "y1f": {8, 2.2e-6},
	"j0": {8, 5e-12}, "j1": {8, 5e-12}, "y0": {8, 5e-12}, "y1": {8, 5e-12},
	"jnf": {0, 2.2e-6}, "ynf": {3, 2.2e-6}, "jn": {0, 5e-12}, "yn": {3, 5e-12},
}

// farErr is the largest absolute error where absolute bounds a function's (from, bound:
// its entry there; on when it has one), and its input's index.
type farErr struct {
	from, bound, worst float64
	at                 int
	on, seen           bool
}

func farFor(name string) farErr {
	ab, ok := absolute[name]
	return farErr{from: ab.from, bound: ab.bound, on: ok}
}

// absErr is |got - want|: 0 where they are equal or both NaN, +Inf where one is NaN or
// an infinity the other is not.
func absErr(got, want float64) float64 {
	switch e := math.Abs(got - want); {
	case got == want || math.IsNaN(got) && math.IsNaN(want):
		return 0
	case math.IsNaN(e):
		return math.Inf(1)
	default:
		return e
	}
}

// track takes got's error from want at x when absolute bounds it there, and says so.
func (f *farErr) track(x, got, want float64, i int) bool {
	if !f.on || !(math.Abs(x) >= f.from) {
		return false
	}
	if e := absErr(got, want); !f.seen || e > f.worst {
		f.worst, f.at = e, i
	}
	f.seen = true
	return true
}

// check fails when the largest absolute error is past the bound.
func (f *farErr) check(t *testing.T, name string, args func(i int) string, got func(i int) float64) {
	t.Helper()
	if f.seen && f.worst > f.bound {
		t.Errorf("%s(%s) = %v, %.3g from the exact value; CUDA's bound is %g absolute there", name, args(f.at), got(f.at), f.worst, f.bound)
	}
}

// summary is the largest errors for the log: in ulps (worst, against bound) and
// absolutely where absolute bounds them.
func (f farErr) summary(worst, bound float64) string {
	ulps := fmt.Sprintf("max %.2f ulp (CUDA's bound %v)", worst, bound)
	switch {
	case !f.seen:
		return ulps
	case f.from == 0:
		return fmt.Sprintf("max %.2g absolute (CUDA's bound %g)", f.worst, f.bound)
	}
	return fmt.Sprintf("%s, %.2g absolute from %v (CUDA's bound %g)", ulps, f.worst, f.from, f.bound)
}

// absErrNearOne is got's distance from want in ulps of want's binade, or of 1's where
// want is below 1.
func absErrNearOne(got float32, want float64) float64 {
	if math.Abs(want) >= 1 || math.IsNaN(want) {
		return ulpErr(got, want)
	}
	return math.Abs(float64(got)-want) / 0x1p-23
}

// floatsOf is a double generator's inputs rounded to float.
func floatsOf(f func(rng *rand.Rand) (x, y []float64)) func(rng *rand.Rand) []float32 {
	return func(rng *rand.Rand) []float32 {
		x, _ := f(rng)
		out := make([]float32, len(x))
		for i, v := range x {
			out[i] = float32(v)
		}
		return out
	}
}

// moreFloats adds inputs where moreInputs' seldom go: j0f and j1f near their zeros as
// j0 and j1 (moreDoubles), erfinvf near +-1 (1 - x to 2^-24,
// where the third fit takes over), erfcinvf near 0 and 2 (every binade down to the
// least subnormal), erfcxf below 1/2, where the fits meet the series, and where it
// overflows, lgammaf near its zeros (1 and 2 to the last float, and between -10 and
// -2.26), tgammaf near 0 (every binade) and from where it underflows to where it
// overflows.
var moreFloats = map[string]func(rng *rand.Rand) []float32{
	"j0f": floatsOf(moreDoubles["j0"]),
	"j1f": floatsOf(moreDoubles["j1"]),
	"y0f": floatsOf(moreDoubles["y0"]),
	"y1f": floatsOf(moreDoubles["y1"]),
	"jnf": floatsOf(moreDoubles["jn"]),
	"ynf": floatsOf(moreDoubles["yn"]),
	"erfinvf": func(rng *rand.Rand) (x []float32) {
		for range 2048 {
			v := 1 - float32(math.Ldexp(rng.Float64(), -rng.IntN(25)))
			x = append(x, v, -v)
		}
		return x
	},
	"erfcxf": func(rng *rand.Rand) (x []float32) {
		for range 512 {
			x = append(x, float32(rng.Float64()-0.5), float32(9.5+1.5*rng.Float64()), float32(-9.36-0.2*rng.Float64()))
		}
		return x
	},
	"lgammaf": func(rng *rand.Rand) (x []float32) {
		for range 512 {
			d := float32(math.Ldexp(rng.Float64(), -rng.IntN(24)))
			x = append(x, 1+d, 1-d/2, 2+2*d, 2-d, float32(-10.001+7.737*rng.Float64()))
		}
		return x
	},
	"tgammaf": func(rng *rand.Rand) (x []float32) {
		for range 512 {
			d := float32(math.Ldexp(1+rng.Float64(), -1-rng.IntN(149)))
			x = append(x, d, -d, float32(-46+82*rng.Float64()))
		}
		return x
	},
	"erfcinvf": func(rng *rand.Rand) (x []float32) {
		for range 2048 {
			v := float32(math.Ldexp(1+rng.Float64(), -1-rng.IntN(149)))
			x = append(x, v, 2-v)
		}
		return x
	},
}

// The precise math library against CUDA's error bounds (in Go's float64 math) on
// CUDA's own inputs and on 3072 more per function, and against CUDA's results on the
// H100: the same NaN, infinity or signed zero wherever CUDA gives one, and how many
// results are CUDA's bits exactly.
func TestPreciseMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 26))
	for _, fn := range slices.Concat(preciseFns, exactFns) {
		t.Run(fn.name, func(t *testing.T) {
			gx, gy, gr := gpuValues[float32](t, fn.name)
			x, y := moreInputs(rng, gx, *mathInputs), moreInputs(rng, gy, *mathInputs)
			if more := moreFloats[fn.name]; more != nil {
				mx := more(rng)
				x, y = append(x, mx...), append(y, make([]float32, len(mx))...)
			}
			got, _ := runPrecise(t, "m_"+fn.name, x, y)
			worst, at := 0.0, 0
			far := farFor(fn.name)
			for i := range x {
				want := fn.ref(float64(x[i]), float64(y[i]))
				if far.track(float64(x[i]), float64(got[i]), want, i) {
					continue
				}
				e := ulpErr(got[i], want)
				if in, ok := unbounded[fn.name]; ok && float64(x[i]) > in[0] && float64(x[i]) < in[1] {
					e = absErrNearOne(got[i], want)
				}
				if e > worst {
					worst, at = e, i
				}
			}
			if worst > fn.bound {
				t.Errorf("%s(%v, %v) = %v, %.2f ulp from %v; CUDA's bound is %v", fn.name, x[at], y[at], got[at],
					worst, fn.ref(float64(x[at]), float64(y[at])), fn.bound)
			}
			far.check(t, fn.name, func(i int) string { return fmt.Sprintf("%v, %v", x[i], y[i]) }, func(i int) float64 { return float64(got[i]) })
			same, off := gpuAgreement(t, func(i int) string { return fmt.Sprintf("%s(%v, %v)", fn.name, gx[i], gy[i]) }, got, gr)
			t.Logf("%-7s %s over %d inputs; CUDA's bits on %d of %d, at most %.0f ulp from CUDA's",
				fn.name, far.summary(worst, fn.bound), len(x), same, len(gr), off)
		})
	}
	t.Run("sincosf", func(t *testing.T) {
		gx, _, _ := gpuValues[float32](t, "sinf")
		x := moreInputs(rng, gx, *mathInputs)
		res := runPreciseRes(t, "m_sincosf", x, make([]float32, len(x)))
		sin, cos := fromBytes[float32](res.Buffers[2].Final), fromBytes[float32](res.Buffers[1].Final)
		for i, v := range x {
			s, c := sin[i], cos[i]
			if es, ec := ulpErr(s, math.Sin(float64(v))), ulpErr(c, math.Cos(float64(v))); es > 2 || ec > 2 {
				t.Errorf("sincosf(%v) = %v, %v: %.2f and %.2f ulp; CUDA's bound is 2", v, s, c, es, ec)
			}
		}
	})
}

// Huge arguments go through Payne-Hanek: sinf and cosf of the largest floats, and of
// the float nearest a multiple of pi/2 below 2^24 that is farthest out, are within 2 ulp.
func TestPreciseMathHugeArguments(t *testing.T) {
	var x []float32
	for e := 17; e <= 127; e++ {
		for _, m := range []float32{1, 1.1, 1.5, 1.9999999} {
			x = append(x, float32(math.Ldexp(float64(m), e)), -float32(math.Ldexp(float64(m), e)))
		}
	}
	x = append(x, math.MaxFloat32, -math.MaxFloat32, 105615, 105616, 16367173, 1.6367173e+16)
	for _, fn := range []struct {
		kernel string
		ref    func(float64) float64
	}{{"m_sinf", math.Sin}, {"m_cosf", math.Cos}, {"m_tanf", math.Tan}} {
		got, _ := runPrecise(t, fn.kernel, x, make([]float32, len(x)))
		for i, v := range x {
			if e := ulpErr(got[i], fn.ref(float64(v))); e > 2 {
				t.Errorf("%s(%v) = %v, %.2f ulp from %v", fn.kernel[2:], v, got[i], e, fn.ref(float64(v)))
			}
		}
	}
}

// bigPi is pi to prec bits, by Machin's formula.
func bigPi(prec uint) *big.Float {
	atanInv := func(n int64) *big.Float { // arctan(1/n) by its series
		sum, term := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), new(big.Float).SetInt64(n))
		n2 := new(big.Float).SetInt64(n * n)
		for k := int64(0); term.MantExp(nil) > -int(prec)-8; k++ {
			q := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(2*k+1))
			if k%2 == 0 {
				sum.Add(sum, q)
			} else {
				sum.Sub(sum, q)
			}
			term.Quo(term, n2)
		}
		return sum
	}
	return new(big.Float).SetPrec(prec).Sub(new(big.Float).Mul(big.NewFloat(16), atanInv(5)), new(big.Float).Mul(big.NewFloat(4), atanInv(239)))
}

// The header's table of 2/pi's bits is 2/pi.
func TestTwoOverPi(t *testing.T) {
	const prec = 1400 // 40 words of 32 bits, and a margin
	frac := new(big.Float).SetPrec(prec).Quo(big.NewFloat(2), bigPi(prec))
	var want []string
	for range 40 {
		frac.Mul(frac, big.NewFloat(1<<32))
		w, _ := frac.Uint64()
		frac.Sub(frac, new(big.Float).SetUint64(w))
		want = append(want, fmt.Sprintf("0x%08xu", w))
	}
	h, _ := include.ReadFile("include/gtrace_math.h")
	m := regexp.MustCompile(`#define GTRACE_2_OVER_PI_WORDS (.*)`).FindSubmatch(h)
	if m == nil || string(m[1]) != strings.Join(want, ", ") {
		t.Errorf("GTRACE_2_OVER_PI_WORDS is %q; want %s", m, strings.Join(want, ", "))
	}
}

// libdeviceCost reads the H100 run's warp-instructions per call: each launch's
// smsp__inst_executed.sum less its type's copy kernel's, over 256 warps.
func libdeviceCost(t *testing.T) map[string]float64 {
	t.Helper()
	launches, inst := ncuLaunches(t, filepath.Join(mathRun, "mathfn.csv"), filepath.Join(mathRun, "mathfn-ncu.csv"))
	cost := map[string]float64{}
	for _, l := range launches { // name, type (f32, f64), ...
		cost[l[0]] = (inst[l[0]] - inst["copy_"+l[1]]) / 256
	}
	return cost
}

// ncuLaunches reads a GPU run's launch list (a CSV with a header line, each launch's
// name first, in launch order: ncu's IDs) and the run under ncu --csv, and returns each
// launch's fields and its smsp__inst_executed.sum by name. The program's own output,
// interleaved with ncu's rows, is skipped.
func ncuLaunches(t *testing.T, list, ncu string) ([][]string, map[string]float64) {
	t.Helper()
	names, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	var launches [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(names)), "\n")[1:] {
		launches = append(launches, strings.Split(line, ","))
	}
	raw, err := os.ReadFile(ncu)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, `"`) {
			rows = append(rows, line)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(rows, "\n"))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v", ncu, err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	inst := map[string]float64{}
	for _, r := range recs[1:] {
		if r[col["Metric Name"]] != "smsp__inst_executed.sum" {
			continue
		}
		id, err1 := strconv.Atoi(r[col["ID"]])
		v, err2 := strconv.ParseFloat(strings.ReplaceAll(r[col["Metric Value"]], ",", ""), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: launch %q: %q is not a number", ncu, r[col["ID"]], r[col["Metric Value"]])
		}
		if id < 0 || id >= len(launches) {
			t.Fatalf("%s has launch %d; %s lists %d", ncu, id, list, len(launches))
		}
		inst[launches[id][0]] = v
	}
	return launches, inst
}

// Warp-instructions per call: gtrace's header against libdevice's SASS on the H100, on
// the same inputs. The header's count is of PTX instructions, one per div.rn or sqrt.rn
// where SASS runs a sequence, and its algorithms are not libdevice's; each must be
// within a factor of 3 of libdevice's, so that a kernel's instruction mix is not
// dominated by a wrong guess.
func TestPreciseMathCost(t *testing.T) {
	lib := libdeviceCost(t)
	var table []string
	check := func(name string, ours float64) {
		want, ok := lib[name]
		if !ok {
			t.Fatalf("the H100 run has no %s", name)
		}
		table = append(table, fmt.Sprintf("%s %.1f/%.1f", name, ours, want))
		if ours > 3*want || ours < want/3 {
			t.Errorf("%s: %.1f warp-instructions per call; libdevice's take %.1f on the H100", name, ours, want)
		}
	}
	f32, f64 := perCall[float32](t, "copy"), perCall[float64](t, "copy_f64")
	for _, fn := range slices.Concat(preciseFns, exactFns) {
		check(fn.name, f32(fn.name))
	}
	for _, fn := range slices.Concat(preciseFnsD, exactFnsD) {
		check(fn.name, f64(fn.name))
	}
	t.Logf("per call, gtrace/libdevice: %s", strings.Join(table, ", "))
}

// perCall returns m_NAME's warp-instructions per call on the H100's inputs for NAME,
// less those of the copy kernel m_COPY on the copy kernel's inputs (run once).
func perCall[T float](t *testing.T, copyKernel string) func(name string) float64 {
	t.Helper()
	cx, cy, _ := gpuValues[T](t, "copy_f"+strconv.Itoa(bitsOf[T]()))
	_, base := runPrecise(t, "m_"+copyKernel, cx, cy)
	return func(name string) float64 {
		x, y, _ := gpuValues[T](t, name)
		_, n := runPrecise(t, "m_"+name, x, y)
		return float64(n-base) / float64(len(cx)/32)
	}
}

// rintf rounds ties to even (cvt.rni), roundf away from zero.
func TestRounding(t *testing.T) {
	x := []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 8388607.5, 0, float32(math.Copysign(0, -1))}
	even, _ := runPrecise(t, "m_rintf", x, x)
	away, _ := runPrecise(t, "m_roundf", x, x)
	for i, v := range x {
		if w := float32(math.RoundToEven(float64(v))); math.Float32bits(even[i]) != math.Float32bits(w) {
			t.Errorf("rintf(%v) = %v; want %v", v, even[i], w)
		}
		if w := float32(math.Round(float64(v))); math.Float32bits(away[i]) != math.Float32bits(w) {
			t.Errorf("roundf(%v) = %v; want %v", v, away[i], w)
		}
	}
}

// __fmul_rn and __fadd_rn (and the double forms) round each step: never merged into
// an fma, as the CUDA Math API promises.
func TestRoundedSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float32, 1024), make([]float32, 1024)
	for i := range x {
		x[i], y[i] = 1+rng.Float32(), 1+rng.Float32()
	}
	got, _ := runPrecise(t, "m_fmul_rn", x, y)
	dgot, _ := runPrecise(t, "m_dmul_rn", x, y)
	fused := 0
	for i := range x {
		a, b := float64(x[i]), float64(y[i])
		want := float32(float64(float32(a*b)) + b) // a*b and its sum are exact in float64
		if got[i] != want {
			t.Errorf("__fadd_rn(__fmul_rn(%v, %v), %v) = %v; want %v", x[i], y[i], y[i], got[i], want)
		}
		if float32(a*b+b) != want {
			fused++
		}
		if dgot[i] != 0 {
			t.Errorf("__dadd_rn(__dmul_rn(A, B), -__dmul_rn(A, B)) = %v for a = %v, b = %v; want 0", dgot[i], x[i], y[i])
		}
		if A, B := a/3, b/7; math.FMA(A, B, -(A*B)) != 0 {
			fused++
		}
	}
	if fused == 0 {
		t.Fatal("no input tells a fused multiply-add from two roundings")
	}
}

// preciseFnsD is the double forms written so far. The Guide measures its bounds from
// the correctly rounded result; TestPreciseMathDouble from the exact value, at most half
// an ulp stricter.
var preciseFnsD = []preciseFn[exact]{
	{"exp", 1, unary(refExp)},
	{"log", 1, unary(refLogBase(nil))},
	{"sin", 2, unary(refSin)},
	{"cos", 2, unary(refCos)},
	{"exp2", 1, unary(refExp2)},
	{"exp10", 1, unary(refExp10)},
	{"expm1", 1, unary(refExpm1)},
	{"log2", 1, unary(refLogBase(bigLn2))},
	{"log10", 1, unary(refLogBase(bigLn10))},
	{"log1p", 1, unary(refLog1p)},
	{"tan", 2, unary(refTan)},
	{"sinh", 2, unary(refSinh)},
	{"cosh", 1, unary(refCosh)},
	{"cbrt", 1, unary(refCbrt)},
	{"hypot", 2, normRef[float64](2, false)},
	{"sinpi", 1, unary(refSinPi)},
	{"cospi", 1, unary(refCosPi)},
	{"asinh", 2, unary(refAsinh)},
	{"acosh", 2, unary(refAcosh)},
	{"atanh", 2, unary(refAtanh)},
	{"fmod", 0, func(x, y float64) exact { return special(math.Mod(x, y)) }},
	{"remainder", 0, func(x, y float64) exact { return special(math.Remainder(x, y)) }},
	{"pow", 2, refPow},
	{"tanh", 2, unary(refTanh)},
	{"atan", 2, unary(refAtan)},
	{"atan2", 2, refAtan2},
	{"asin", 2, unary(refAsin)},
	{"acos", 2, unary(refAcos)},
	{"erf", 2, unary(refErf)},
	{"erfc", 5, unary(refErfc)},
	{"normcdf", 5, unary(refNormcdf)},
	{"rcbrt", 1, unary(refRcbrt)},
	{"erfcx", 4, unary(refErfcx)},
	{"erfinv", 5, unary(refErfinv)},
	{"erfcinv", 6, unary(refErfcinv)},
	{"normcdfinv", 8, unary(refNormcdfinv)},
	{"lgamma", 4, unary(refLgamma)},
	{"tgamma", 10, unary(refTgamma)},
	{"rhypot", 1, normRef[float64](2, true)},
	{"norm3d", 2, normRef[float64](3, false)},
	{"rnorm3d", 1, normRef[float64](3, true)},
	{"norm4d", 2, normRef[float64](4, false)},
	{"rnorm4d", 1, normRef[float64](4, true)},
	{"norm", 3, normRef[float64](3, false)},
	{"rnorm", 2, normRef[float64](3, true)},
	{"cyl_bessel_i0", 6, unary(refBesselI(0))},
	{"cyl_bessel_i1", 6, unary(refBesselI(1))},
	{"j0", 7, unary(refBesselJ(0))},
	{"j1", 7, unary(refBesselJ(1))},
	{"y0", 7, unary(refBesselY(0))},
	{"y1", 7, unary(refBesselY(1))},
	{"jn", 0, unary(refBesselJ(3))},
	{"yn", 10, unary(refBesselY(3))},
}

// moreDoubles adds inputs to randomDoubles' where those miss what a function must get
// right: for pow, results over the whole range from bases of every binade and bases
// near 1 (where y log x is largest against log x, so log's error counts most), negative
// bases to integer powers, and 2^n down to the subnormals; for asin and acos, x near
// ±1 (where sqrt(1 - x^2) cancels) and below 2^-26; for erf and erfc, each of their fits'
// intervals evenly, up to where erf is 1 and erfc's last subnormals; for normcdf, the
// same fits through -x/sqrt(2), down to its last subnormals; for erfcx, its fits and
// the series past them, and up to its overflow below 0; for erfinv, x near ±1; for
// erfcinv and normcdfinv, every binade near 0 and the last doubles below 2 and 1;
// for lgamma and tgamma, nearZeros and the range of tgamma's subnormal results; for
// ldexp and scalbn, results among the subnormals; for the norms, normExtremes; for
// cyl_bessel_i0 and i1, every size up to where they overflow; for j0 and j1,
// nearBesselZeros.
var moreDoubles = map[string]func(rng *rand.Rand) (x, y []float64){
	"asin":          nearOne,
	"acos":          nearOne,
	"erf":           uniform(-6.5, 6.5),
	"erfc":          uniform(-6.5, 27.5),
	"normcdf":       uniform(-39, 9),
	"erfcx":         uniform(-27, 30),
	"erfinv":        nearOne,
	"erfcinv":       nearEnds(2),
	"normcdfinv":    nearEnds(1),
	"lgamma":        nearZeros,
	"ldexp":         subnormalScales,
	"scalbn":        subnormalScales,
	"hypot":         normExtremes,
	"rhypot":        normExtremes,
	"norm3d":        normExtremes,
	"rnorm3d":       normExtremes,
	"norm4d":        normExtremes,
	"rnorm4d":       normExtremes,
	"norm":          normExtremes,
	"rnorm":         normExtremes,
	"cyl_bessel_i0": uniform(-714, 714),
	"cyl_bessel_i1": uniform(-714, 714),
	"j0":            nearBesselZeros(zerosOf("J0")...),
	"j1":            nearBesselZeros(zerosOf("J1")...),
	"y0":            nearBesselZeros(zerosOf("Y0")...),
	"y1":            nearBesselZeros(zerosOf("Y1")...),
	"jn":            nearBesselZeros(),
	"yn":            nearBesselZeros(),
	"tgamma": func(rng *rand.Rand) (x, y []float64) {
		x, y = uniform(-190, 172)(rng)
		for range 1024 {
			d := math.Ldexp(1+rng.Float64(), -1-rng.IntN(1074))
			x, y = append(x, d, -d), append(y, 0, 0)
		}
		return x, y
	},
	"pow": func(rng *rand.Rand) (x, y []float64) {
		add := func(b, t float64) {
			if l := math.Log(math.Abs(b)); l != 0 && !math.IsInf(l, 0) {
				x, y = append(x, b), append(y, t/l)
			}
		}
		for range 2048 {
			b := math.Float64frombits(rng.Uint64()&^(0xfff<<52) | uint64(rng.IntN(0x7ff))<<52)
			add(b, -745+1454*rng.Float64())
			add(1+math.Ldexp(rng.Float64()-0.5, -rng.IntN(50)), -745+1454*rng.Float64())
		}
		for range 1024 {
			x, y = append(x, -0.5-4*rng.Float64()), append(y, float64(rng.IntN(1001)-500))
		}
		for n := -1074; n <= 1023; n += 3 {
			x, y = append(x, 2), append(y, float64(n))
		}
		return x, y
	},
}

// randomDoubles adds to xs 3072 random bit patterns (every binade) and 3072 values
// uniform over xs's range (below 1e300), and for each exponent 30, 37, ..., 1023 one
// value of each sign (huge arguments, for Payne-Hanek).
func randomDoubles(rng *rand.Rand, xs []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		if math.Abs(v) < 1e300 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	x := append([]float64(nil), xs...)
	for i := range 6144 {
		if i%2 == 0 {
			x = append(x, math.Float64frombits(rng.Uint64()&^(0x7ff<<52)|uint64(rng.IntN(0x7ff))<<52))
		} else {
			x = append(x, lo+(hi-lo)*rng.Float64())
		}
	}
	for e := 30; e <= 1023; e += 7 {
		x = append(x, math.Ldexp(1+rng.Float64(), e), -math.Ldexp(1+rng.Float64(), e))
	}
	return x
}

// uniform is 4096 inputs uniform over [lo, hi].
func uniform(lo, hi float64) func(rng *rand.Rand) (x, y []float64) {
	return func(rng *rand.Rand) (x, y []float64) {
		for range 4096 {
			x, y = append(x, lo+(hi-lo)*rng.Float64()), append(y, 0)
		}
		return x, y
	}
}

// nearEnds is y in (0, top) near 0, through every binade to the least subnormal, and
// near top, to its last doubles below.
func nearEnds(top float64) func(rng *rand.Rand) (x, y []float64) {
	return func(rng *rand.Rand) (x, y []float64) {
		for range 2048 {
			v := math.Ldexp(1+rng.Float64(), -2-rng.IntN(1073))
			if rng.IntN(2) == 0 {
				v = top - math.Ldexp(1+rng.Float64(), -2-rng.IntN(52))
			}
			x, y = append(x, v), append(y, 0)
		}
		return x, y
	}
}

// subnormalScales is x 2^n with results among the subnormals and at the least normal
// doubles, where ldexp rounds: x of every significand, n from -1080 to -1010.
func subnormalScales(rng *rand.Rand) (x, y []float64) {
	for range 2048 {
		v := math.Ldexp(1+rng.Float64(), rng.IntN(9)-4)
		if rng.IntN(2) == 0 {
			v = -v
		}
		x, y = append(x, v), append(y, float64(-1080+rng.IntN(71)))
	}
	return x, y
}

// nearBesselZeros is x near each of zs (a Bessel function's zeros below 8, as the header
// has them, where its
// relative error is hardest to keep), from every binade of the distance down to the
// zero's own doubles, either sign; every binade below 1 (where Y_n tends to -inf); and
// uniform over (-8, 8) and (-1000, 1000).
func nearBesselZeros(zs ...float64) func(rng *rand.Rand) (x, y []float64) {
	return func(rng *rand.Rand) (x, y []float64) {
		for range 512 {
			for _, z := range zs {
				v := z + math.Ldexp(rng.Float64()-0.5, -rng.IntN(54))*z
				if rng.IntN(2) == 0 {
					v = -v
				}
				x = append(x, v)
			}
			x = append(x, 16*rng.Float64()-8, 2000*rng.Float64()-1000, math.Ldexp(1+rng.Float64(), -1-rng.IntN(1074)))
		}
		return x, make([]float64, len(x))
	}
}

// normExtremes is the norms' arguments at the ends of the range, where the scaling
// decides: x of the top and bottom binades (subnormals too), y from x's size down to
// far below it, either sign.
func normExtremes(rng *rand.Rand) (x, y []float64) {
	for range 2048 {
		e := 1000 + rng.IntN(24)
		if rng.IntN(2) == 0 {
			e = -1074 + rng.IntN(80)
		}
		v := math.Ldexp(1+rng.Float64(), e)
		w := v * math.Ldexp(1+rng.Float64(), -rng.IntN(60))
		if rng.IntN(2) == 0 {
			v = -v
		}
		x, y = append(x, v), append(y, w)
	}
	return x, y
}

// nearZeros is lgamma's hard inputs: near its zeros 1 and 2 (to their last doubles),
// between -23.0001 and -2.2637 (where its negative zeros lie), below 1/2 in every binade
// of either sign, and uniform over (0, 20), where the fits, the moves and Stirling meet.
func nearZeros(rng *rand.Rand) (x, y []float64) {
	for range 512 {
		d := math.Ldexp(rng.Float64(), -rng.IntN(53))
		s := math.Ldexp(1+rng.Float64(), -2-rng.IntN(1072))
		x = append(x, 1+d, 1-d/2, 2+2*d, 2-d, -23.0001+20.7364*rng.Float64(), s, -s, 20*rng.Float64())
	}
	return x, make([]float64, len(x))
}

// errOfTerms is got's distance from want in ulps of the larger of the two terms whose
// difference is lgamma(x) below 0: lgamma(-x) and log(pi / |x sin(pi x)|) = lgamma(x) +
// lgamma(-x).
func errOfTerms(got float64, want exact, x float64) float64 {
	g, _ := math.Lgamma(-x)
	scale := max(math.Abs(g), math.Abs(want.float64()+g))
	if math.Abs(want.float64()) >= scale || want.b == nil {
		return ulpErrExact(got, want)
	}
	d := bigNew().Sub(bf(got), want.b)
	v, _ := d.Abs(d).Float64()
	return v / (math.Nextafter(math.Abs(scale), math.Inf(1)) - math.Abs(scale))
}

func nearOne(rng *rand.Rand) (x, y []float64) {
	for range 2048 {
		v := 1 - math.Ldexp(rng.Float64(), -rng.IntN(54))
		if rng.IntN(4) == 0 {
			v = math.Ldexp(rng.Float64(), -26-rng.IntN(1000))
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		x, y = append(x, v), append(y, 0)
	}
	return x, y
}

// The double forms against CUDA's bounds, measured from the exact value, on CUDA's
// inputs and randomDoubles'; against the H100: the same NaN, infinity and signed zero
// wherever CUDA returns one.
func TestPreciseMathDouble(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 64))
	for _, fn := range slices.Concat(preciseFnsD, exactFnsD) {
		t.Run(fn.name, func(t *testing.T) {
			gx, gy, gr := gpuValues[float64](t, fn.name)
			x, y := randomDoubles(rng, gx), randomDoubles(rng, gy)
			if more := moreDoubles[fn.name]; more != nil {
				mx, my := more(rng)
				x, y = append(x, mx...), append(y, my...)
			}
			got, _ := runPrecise(t, "m_"+fn.name, x, y)
			worst, at := 0.0, 0
			far := farFor(fn.name)
			for i := range x {
				want := fn.ref(x[i], y[i])
				if far.track(x[i], got[i], want.float64(), i) {
					continue
				}
				e := ulpErrExact(got[i], want)
				if in, ok := unbounded[fn.name]; ok && x[i] > in[0] && x[i] < in[1] {
					e = errOfTerms(got[i], want, x[i])
				}
				if e > worst {
					worst, at = e, i
				}
			}
			if worst > fn.bound {
				t.Errorf("%s(%v, %v) = %v, %.2f ulp from %v; CUDA's bound is %v", fn.name, x[at], y[at], got[at], worst,
					fn.ref(x[at], y[at]).float64(), fn.bound)
			}
			far.check(t, fn.name, func(i int) string { return fmt.Sprintf("%v, %v", x[i], y[i]) }, func(i int) float64 { return got[i] })
			same, off := gpuAgreement(t, func(i int) string { return fmt.Sprintf("%s(%v, %v)", fn.name, gx[i], gy[i]) }, got, gr)
			t.Logf("%-5s %s over %d inputs; CUDA's bits on %d of %d, at most %.0f ulp from CUDA's",
				fn.name, far.summary(worst, fn.bound), len(x), same, len(gr), off)
		})
	}
}

// jn and yn of other orders than the H100 run's 3: n from -4 to 128, x over every
// binade below 1 and uniform up to 50 (and to 1000 for n up to 7, where the references
// take Hankel's expansion), within CUDA's absolute bounds where it gives them (jn
// everywhere, yn past 1.5 n) and, below n, within ynf's bound of ceil(2 + 2.5 n) ulp
// (CUDA gives yn none there, and jn only its absolute one).
func TestBesselOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 70))
	var x, y []float64
	for _, n := range []int{-4, -3, 0, 1, 2, 4, 5, 7, 10, 20, 50, 128} {
		top := 50.0
		if n <= 7 {
			top = 1000
		}
		for range 128 {
			x = append(x, math.Ldexp(1+rng.Float64(), -1-rng.IntN(1074)), top*rng.Float64(), 50*rng.Float64(), -50*rng.Float64())
			y = append(y, float64(n), float64(n), float64(n), float64(n))
		}
	}
	for _, fn := range []struct {
		name string
		ref  func(n int) func(float64) exact
	}{{"jn", refBesselJ}, {"yn", refBesselY}} {
		got, _ := runPrecise(t, "m_"+fn.name+"_n", x, y)
		worstAbs, worstUlp := 0.0, 0.0
		for i := range x {
			n := int(y[i])
			m := max(n, -n)
			want := fn.ref(m)(x[i])
			if n < 0 && m%2 == 1 && want.b != nil {
				want.b.Neg(want.b)
			}
			w := want.float64()
			if fn.name == "jn" || math.Abs(x[i]) > 1.5*float64(m) {
				e := absErr(got[i], w)
				if !(e <= 5e-12) {
					t.Errorf("%s(%d, %v) = %v; want %v (CUDA's bound 5e-12 absolute)", fn.name, n, x[i], got[i], w)
				}
				worstAbs = max(worstAbs, e)
			}
			if math.Abs(x[i]) < float64(m) {
				e := ulpErrExact(got[i], want)
				if bound := math.Ceil(2 + 2.5*float64(m)); !(e <= bound) {
					t.Errorf("%s(%d, %v) = %v, %.2f ulp from %v; want ynf's bound, %v", fn.name, n, x[i], got[i], e, w, bound)
				}
				worstUlp = max(worstUlp, e)
			}
		}
		t.Logf("%s: max %.2g absolute, %.2f ulp below n, over %d inputs", fn.name, worstAbs, worstUlp, len(x))
	}
}

// norm, rnorm, normf and rnormf over arrays of any length (the H100 run's hold three):
// none, one, an infinity among NaNs, a NaN alone, and 2 to 1000 values of sizes 2^-100
// to 2^100, each within CUDA's bound.
func TestNormArrays(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := [][]float64{{}, {-3}, {math.NaN(), math.Inf(-1), 1}, {math.NaN(), 2}}
	for _, n := range []int{2, 17, 1000} {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Ldexp(rng.Float64()-0.5, rng.IntN(200)-100)
		}
		cases = append(cases, v)
	}
	for _, v := range cases {
		f, fv := make([]float32, len(v)), make([]float64, len(v))
		for i := range v {
			f[i] = float32(v[i])
			fv[i] = float64(f[i])
		}
		n := max(len(v), 1) // a buffer of one value for no values, which the kernel never reads
		res := runKernel(t, "m_norms", 1, []string{fmt.Sprintf("buf:f64:%d", n), fmt.Sprintf("buf:f32:%d", n), "buf:f64:4",
			fmt.Sprintf("i32:%d", len(v))}, map[int][]byte{0: toBytes(append(v, make([]float64, n-len(v))...)),
			1: toBytes(append(f, make([]float32, n-len(f))...))})
		r := fromBytes[float64](res.Buffers[2].Final)
		for i, c := range []struct {
			name  string
			bound float64
			err   float64
		}{
			{"norm", 3, ulpErrExact(r[0], refNorm(false, v...))},
			{"rnorm", 2, ulpErrExact(r[1], refNorm(true, v...))},
			{"normf", 4, ulpErr(float32(r[2]), refNorm(false, fv...).float64())},
			{"rnormf", 3, ulpErr(float32(r[3]), refNorm(true, fv...).float64())},
		} {
			if c.err > c.bound {
				t.Errorf("%s of %d values = %v, %.2f ulp from the exact value; CUDA's bound is %v", c.name, len(v), r[i], c.err, c.bound)
			}
		}
	}
}

// exp(float) and friends are the float functions (C++'s overloads), bit for bit; a
// double form not written yet is a compile error naming it.
func TestMathOverloads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float32, 1024), make([]float32, 1024)
	for i := range x {
		x[i], y[i] = 0.01+4*rng.Float32(), 4*rng.Float32()-2
	}
	got, _ := runPrecise(t, "m_overloads", x, y)
	want, _ := runPrecise(t, "m_overloads_f", x, y)
	for i := range x {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("overloads(%v, %v) = %v; the f functions give %v", x[i], y[i], got[i], want[i])
		}
	}
	// Every name with a float overload has its double form: each one's double call
	// returns a double, which it would not if it took the float overload on a narrowed
	// argument.
	h, err := include.ReadFile("include/gtrace_math.h")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	names := regexp.MustCompile(`(?m)^GTRACE_F([12])\((\w+)\)$`).FindAllStringSubmatch(string(h), -1)
	if len(names) < 40 {
		t.Fatalf("the header has %d float overloads; want the 40 or more it declares", len(names))
	}
	for _, m := range names {
		args := "p[0]"
		if m[1] == "2" {
			args = "p[0], p[1]"
		}
		fmt.Fprintf(&src, "__global__ void k_%s(double *p) { static_assert(sizeof(%s(%s)) == 8, \"%s(double) is not double\"); }\n",
			m[2], m[2], args, m[2])
	}
	src.WriteString("__global__ void k_expf(double *p) { static_assert(sizeof(expf(p[0])) == 8, \"expf(double) is not double\"); }\n")
	cu := filepath.Join(t.TempDir(), "overloads.cu")
	os.WriteFile(cu, []byte(src.String()), 0o644)
	_, err = compile(t, cu)
	// The last line is the control: expf has no double form, so exactly its assertion fails.
	if err == nil || strings.Count(err.Error(), "error: static_assert failed") != 1 || !strings.Contains(err.Error(), "expf(double) is not double") {
		t.Errorf("compiling each overload's double call: %v; want only the control expf(double) to fail", err)
	}
}

// No math function reads memory of its own but sin, cos and tan's table of 2/pi (in
// float and double, for Payne-Hanek past Cody-Waite's range), which the Bessel
// functions share (they reduce x by pi/2 as sin and cos do): libdevice's functions read
// none but that table (its Bessel functions aside, which read coefficient tables too:
// LDG.E.64.CONSTANT in the H100 run's mathfn-sass.txt), so a kernel's load counters are
// the kernel's. A constant table (ld.global.nc, ld.const) or a local array (ld.local) in
// any other m_NAME fails.
func TestPreciseMathReadsNoMemory(t *testing.T) {
	ptx := string(samples(t))
	tables := regexp.MustCompile(`(?m)^\s+ld\.(global\.nc|const|local)\b`)
	trig := map[string]bool{"sinf": true, "cosf": true, "tanf": true, "sin": true, "cos": true, "tan": true,
		"j0f": true, "j1f": true, "j0": true, "j1": true, "y0f": true, "y1f": true, "y0": true, "y1": true,
		"jnf": true, "ynf": true, "jn": true, "yn": true}
	var names []string
	for _, fn := range preciseFns {
		names = append(names, fn.name)
	}
	for _, fn := range preciseFnsD {
		names = append(names, fn.name)
	}
	for _, name := range names {
		i := strings.Index(ptx, ".entry m_"+name+"(")
		if i < 0 {
			t.Fatalf("samples.ptx has no m_%s", name)
		}
		body := ptx[i+1:]
		if j := strings.Index(body, ".entry "); j >= 0 {
			body = body[:j]
		}
		n := len(tables.FindAllString(body, -1))
		if trig[name] != (n > 0) {
			t.Errorf("m_%s reads %d values from tables or local memory; want them %v", name, n, map[bool]string{true: "from 2/pi's table", false: "from none"}[trig[name]])
		}
	}
}
