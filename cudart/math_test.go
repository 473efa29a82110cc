package cudart

import (
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
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// mathInputs is how many inputs TestPreciseMath adds to CUDA's per function; a run with
// -math-inputs 1000000 takes a minute.
var mathInputs = flag.Int("math-inputs", 3072, "inputs per function that TestPreciseMath adds to the H100's")

// mathRun is CUDA's math library measured on an H100 (scripts/hw/mathfn.sh).
const mathRun = "../traces/hw/h100-2026-11-26-mathfn"

// preciseFn is one function of gtrace_math.h: its kernel in testdata/samples.cu
// (m_NAME), its maximum error in ulps as the CUDA C++ Programming Guide's table
// "Single-Precision Mathematical Standard Library Functions with Maximum ULP Error"
// gives it, and its value from Go's float64 math.
type preciseFn struct {
	name  string
	bound float64
	ref   func(x, y float64) float64
}

var preciseFns = []preciseFn{
	{"expf", 2, func(x, _ float64) float64 { return math.Exp(x) }},
	{"exp2f", 2, func(x, _ float64) float64 { return math.Exp2(x) }},
	{"exp10f", 2, func(x, _ float64) float64 { return math.Pow(10, x) }},
	{"expm1f", 1, func(x, _ float64) float64 { return math.Expm1(x) }},
	{"logf", 1, func(x, _ float64) float64 { return math.Log(x) }},
	{"log2f", 1, func(x, _ float64) float64 { return math.Log2(x) }},
	{"log10f", 2, func(x, _ float64) float64 { return math.Log10(x) }},
	{"log1pf", 1, func(x, _ float64) float64 { return math.Log1p(x) }},
	{"powf", 4, math.Pow},
	{"sinf", 2, func(x, _ float64) float64 { return math.Sin(x) }},
	{"cosf", 2, func(x, _ float64) float64 { return math.Cos(x) }},
	{"tanf", 4, func(x, _ float64) float64 { return math.Tan(x) }},
	{"tanhf", 2, func(x, _ float64) float64 { return math.Tanh(x) }},
	{"sinhf", 3, func(x, _ float64) float64 { return math.Sinh(x) }},
	{"coshf", 2, func(x, _ float64) float64 { return math.Cosh(x) }},
	{"erff", 2, func(x, _ float64) float64 { return math.Erf(x) }},
	{"atanf", 2, func(x, _ float64) float64 { return math.Atan(x) }},
	{"atan2f", 3, math.Atan2},
	{"asinf", 2, func(x, _ float64) float64 { return math.Asin(x) }},
	{"acosf", 2, func(x, _ float64) float64 { return math.Acos(x) }},
	{"hypotf", 3, math.Hypot},
	{"erfcf", 4, func(x, _ float64) float64 { return math.Erfc(x) }},
	{"cbrtf", 1, func(x, _ float64) float64 { return math.Cbrt(x) }},
}

// gpuValues reads one function's (x, y, CUDA's result) records from the H100 run.
func gpuValues(t *testing.T, name string) (x, y, r []float32) {
	t.Helper()
	return gpuRecords(t, name, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
}

// gpuValuesD is gpuValues for a double function.
func gpuValuesD(t *testing.T, name string) (x, y, r []float64) {
	t.Helper()
	return gpuRecords(t, name, 8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) })
}

// gpuRecords reads values/NAME.bin as (x, y, result) records of size-byte values.
func gpuRecords[T any](t *testing.T, name string, size int, val func([]byte) T) (x, y, r []T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mathRun, "values", name+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+3*size <= len(b); i += 3 * size {
		x, y, r = append(x, val(b[i:])), append(y, val(b[i+size:])), append(r, val(b[i+2*size:]))
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

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// runPrecise captures m_NAME over x and y and returns its results and warp-instructions.
func runPrecise(t *testing.T, kernel string, x, y []float32) ([]float32, uint64) {
	t.Helper()
	n := len(x)
	buf := fmt.Sprintf("buf:f32:%d", n)
	if kernel == "m_sincosf" {
		res := runKernel(t, kernel, n, []string{buf, buf, fmt.Sprintf("i32:%d", n)}, map[int][]byte{0: f32bytes(x), 1: f32bytes(y)})
		return append(f32s(res.Buffers[0].Final), f32s(res.Buffers[1].Final)...), res.WarpInsts
	}
	res := runKernel(t, kernel, n, []string{buf, buf, buf, fmt.Sprintf("i32:%d", n)}, map[int][]byte{0: f32bytes(x), 1: f32bytes(y)})
	return f32s(res.Buffers[2].Final), res.WarpInsts
}

// runPreciseD is runPrecise for a double kernel.
func runPreciseD(t *testing.T, kernel string, x, y []float64) ([]float64, uint64) {
	t.Helper()
	n := len(x)
	bs := func(v []float64) []byte {
		b := make([]byte, 8*len(v))
		for i, f := range v {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
		}
		return b
	}
	buf := fmt.Sprintf("buf:f64:%d", n)
	res := runKernel(t, kernel, n, []string{buf, buf, buf, fmt.Sprintf("i32:%d", n)}, map[int][]byte{0: bs(x), 1: bs(y)})
	out := make([]float64, n)
	for i, u := range u64s(res.Buffers[2].Final) {
		out[i] = math.Float64frombits(u)
	}
	return out, res.WarpInsts
}

// ulpErr is got's distance from the exact value want in ulps of want's binade (float32,
// subnormals' spacing below), or 0 when both are the same NaN, infinity or zero, and +Inf
// when one is not finite and the other differs.
func ulpErr(got float32, want float64) float64 {
	w := float32(want) // the correctly rounded result (overflow rounds to Inf)
	g := float64(got)
	switch {
	case math.IsNaN(want) || math.IsNaN(g):
		if math.IsNaN(want) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(float64(w), 0) || math.IsInf(g, 0):
		if float64(w) == g {
			return 0
		}
		return math.Inf(1)
	}
	_, e := math.Frexp(want)
	ulp := math.Max(math.Ldexp(1, e-24), math.Ldexp(1, -149))
	return math.Abs(g-want) / ulp
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

// The precise math library against CUDA's error bounds (in Go's float64 math) on
// CUDA's own inputs and on 3072 more per function, and against CUDA's results on the
// H100: the same NaN, infinity or signed zero wherever CUDA gives one, and how many
// results are CUDA's bits exactly.
func TestPreciseMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 26))
	for _, fn := range preciseFns {
		t.Run(fn.name, func(t *testing.T) {
			gx, gy, gr := gpuValues(t, fn.name)
			x, y := moreInputs(rng, gx, *mathInputs), moreInputs(rng, gy, *mathInputs)
			got, _ := runPrecise(t, "m_"+fn.name, x, y)
			worst, at := 0.0, 0
			for i := range x {
				if e := ulpErr(got[i], fn.ref(float64(x[i]), float64(y[i]))); e > worst {
					worst, at = e, i
				}
			}
			if worst > fn.bound {
				t.Errorf("%s(%v, %v) = %v, %.2f ulp from %v; CUDA's bound is %v", fn.name, x[at], y[at], got[at],
					worst, fn.ref(float64(x[at]), float64(y[at])), fn.bound)
			}
			same, far := 0, 0.0
			for i, c := range gr {
				cf, gf := float64(c), float64(got[i])
				special := math.IsNaN(cf) || math.IsInf(cf, 0) || c == 0
				if special && !(math.IsNaN(cf) && math.IsNaN(gf)) && math.Float32bits(c) != math.Float32bits(got[i]) {
					t.Errorf("%s(%v, %v) = %v; CUDA gives %v", fn.name, gx[i], gy[i], got[i], c)
				}
				if math.Float32bits(c) == math.Float32bits(got[i]) || math.IsNaN(cf) && math.IsNaN(gf) {
					same++
				} else if !special {
					far = math.Max(far, ulpErr(got[i], cf))
				}
			}
			t.Logf("%-7s max %.2f ulp (CUDA's bound %v) over %d inputs; CUDA's bits on %d of %d, at most %.0f ulp from CUDA's",
				fn.name, worst, fn.bound, len(x), same, len(gr), far)
		})
	}
	t.Run("sincosf", func(t *testing.T) {
		gx, _, _ := gpuValues(t, "sinf")
		x := moreInputs(rng, gx, *mathInputs)
		got, _ := runPrecise(t, "m_sincosf", x, make([]float32, len(x)))
		for i, v := range x {
			s, c := got[i], got[len(x)+i]
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

var (
	pi1400     *big.Float
	pi1400Once sync.Once
)

// refSinCos is sin and cos of x to within an ulp: Go's math for |x| < 2^29; beyond,
// where Go's reduction keeps 64 bits of the fraction (2.6788525030039368e+29 loses 70
// ulp), x reduced by pi/2 in 1400-bit arithmetic first.
func refSinCos(x float64) (s, c float64) {
	if math.Abs(x) < 1<<29 || math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Sin(x), math.Cos(x)
	}
	pi1400Once.Do(func() { pi1400 = bigPi(1400) })
	half := new(big.Float).SetPrec(1400).Quo(pi1400, big.NewFloat(2))
	q := new(big.Float).SetPrec(1400).Quo(new(big.Float).SetFloat64(x), half)
	n, _ := new(big.Float).SetPrec(1400).Add(q, big.NewFloat(0.5)).Int(nil) // floor(q + 1/2)
	if q.Sign() < 0 && new(big.Float).SetInt(n).Cmp(new(big.Float).Add(q, big.NewFloat(0.5))) > 0 {
		n.Sub(n, big.NewInt(1))
	}
	r, _ := new(big.Float).SetPrec(1400).Sub(new(big.Float).SetFloat64(x), new(big.Float).Mul(new(big.Float).SetInt(n), half)).Float64()
	sr, cr := math.Sin(r), math.Cos(r)
	switch new(big.Int).And(n, big.NewInt(3)).Int64() {
	case 0:
		return sr, cr
	case 1:
		return cr, -sr
	case 2:
		return -sr, -cr
	}
	return -cr, sr
}

// refLog is log(x) to within an ulp: Go's math.Log on amd64 is wrong for subnormals
// (log(1.1560562456566313e-308) = -708.67; it is -709.05), so those are scaled first.
func refLog(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// libdeviceCost reads the H100 run's warp-instructions per call: each launch's
// smsp__inst_executed.sum less its type's copy kernel's, over 256 warps.
func libdeviceCost(t *testing.T) map[string]float64 {
	t.Helper()
	names, err := os.ReadFile(filepath.Join(mathRun, "mathfn.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var order, types []string // launches in order, and each one's type (f32, f64)
	for _, line := range strings.Split(strings.TrimSpace(string(names)), "\n")[1:] {
		f := strings.Split(line, ",")
		order, types = append(order, f[0]), append(types, f[1])
	}
	raw, err := os.ReadFile(filepath.Join(mathRun, "mathfn-ncu.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string // ncu's CSV rows; the program's own output is interleaved
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, `"`) {
			rows = append(rows, line)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(rows, "\n"))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("mathfn-ncu.csv: %v", err)
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
		id, _ := strconv.Atoi(r[col["ID"]])
		v, _ := strconv.ParseFloat(strings.ReplaceAll(r[col["Metric Value"]], ",", ""), 64)
		inst[order[id]] = v
	}
	cost := map[string]float64{}
	for i, name := range order {
		cost[name] = (inst[name] - inst["copy_"+types[i]]) / 256
	}
	return cost
}

// Warp-instructions per call: gtrace's header against libdevice's SASS on the H100, on
// the same inputs. The header's count is of PTX instructions, one per div.rn or sqrt.rn
// where SASS runs a sequence, and its algorithms are not libdevice's; each must be
// within a factor of 3 of libdevice's, so that a kernel's instruction mix is not
// dominated by a wrong guess.
func TestPreciseMathCost(t *testing.T) {
	lib := libdeviceCost(t)
	gx, gy, _ := gpuValues(t, "copy_f32")
	_, base := runPrecise(t, "m_copy", gx, gy)
	warps := float64(len(gx) / 32)
	var table []string
	for _, fn := range preciseFns {
		x, y, _ := gpuValues(t, fn.name)
		_, n := runPrecise(t, "m_"+fn.name, x, y)
		ours := float64(n-base) / warps
		want, ok := lib[fn.name]
		if !ok {
			t.Fatalf("the H100 run has no %s", fn.name)
		}
		table = append(table, fmt.Sprintf("%s %.1f/%.1f", fn.name, ours, want))
		if ours > 3*want || ours < want/3 {
			t.Errorf("%s: %.1f warp-instructions per call; libdevice's take %.1f on the H100", fn.name, ours, want)
		}
	}
	dx, dy, _ := gpuValuesD(t, "copy_f64")
	_, dbase := runPreciseD(t, "m_copy_f64", dx, dy)
	for _, name := range []string{"exp", "log", "sin", "cos"} {
		x, y, _ := gpuValuesD(t, name)
		_, n := runPreciseD(t, "m_"+name, x, y)
		ours, want := float64(n-dbase)/warps, lib[name]
		table = append(table, fmt.Sprintf("%s %.1f/%.1f", name, ours, want))
		if ours > 3*want || ours < want/3 {
			t.Errorf("%s: %.1f warp-instructions per call; libdevice's take %.1f on the H100", name, ours, want)
		}
	}
	t.Logf("per call, gtrace/libdevice: %s", strings.Join(table, ", "))
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

// ulpErrD is ulpErr for doubles.
func ulpErrD(got, want float64) float64 {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		if want == got {
			return 0
		}
		return math.Inf(1)
	}
	_, e := math.Frexp(want)
	ulp := math.Max(math.Ldexp(1, e-53), math.Ldexp(1, -1074))
	return math.Abs(got-want) / ulp
}

// The double forms written so far against CUDA's bounds (Programming Guide's
// double-precision table) plus 1 ulp, since the reference (Go's float64 math, refSinCos,
// refLog) is itself within 1 ulp; on CUDA's inputs, 3072 random bit patterns and 3072 in the range of
// CUDA's, with huge arguments for sin and cos (Payne-Hanek). Against the H100: the same
// NaN, infinity and signed zero wherever CUDA returns one.
func TestPreciseMathDouble(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 64))
	for _, fn := range []struct {
		name  string
		bound float64
		ref   func(float64) float64
	}{{"exp", 1, math.Exp}, {"log", 1, refLog},
		{"sin", 2, func(x float64) float64 { s, _ := refSinCos(x); return s }},
		{"cos", 2, func(x float64) float64 { _, c := refSinCos(x); return c }}} {
		t.Run(fn.name, func(t *testing.T) {
			gx, _, gr := gpuValuesD(t, fn.name)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range gx {
				if math.Abs(v) < 1e300 {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			x := append([]float64(nil), gx...)
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
			got, _ := runPreciseD(t, "m_"+fn.name, x, make([]float64, len(x)))
			worst, at := 0.0, 0
			for i, v := range x {
				if e := ulpErrD(got[i], fn.ref(v)); e > worst {
					worst, at = e, i
				}
			}
			if worst > fn.bound+1 {
				t.Errorf("%s(%v) = %v, %.2f ulp from Go's %v; CUDA's bound is %v", fn.name, x[at], got[at], worst, fn.ref(x[at]), fn.bound)
			}
			same, far := 0, 0.0
			for i, c := range gr {
				special := math.IsNaN(c) || math.IsInf(c, 0) || c == 0
				if special && !(math.IsNaN(c) && math.IsNaN(got[i])) && math.Float64bits(c) != math.Float64bits(got[i]) {
					t.Errorf("%s(%v) = %v; CUDA gives %v", fn.name, gx[i], got[i], c)
				}
				if math.Float64bits(c) == math.Float64bits(got[i]) || math.IsNaN(c) && math.IsNaN(got[i]) {
					same++
				} else if !special {
					far = math.Max(far, ulpErrD(got[i], c))
				}
			}
			t.Logf("%-4s max %.2f ulp from Go's (CUDA's bound %v) over %d inputs; CUDA's bits on %d of %d, at most %.0f ulp from CUDA's",
				fn.name, worst, fn.bound, len(x), same, len(gr), far)
		})
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
	cu := filepath.Join(t.TempDir(), "tanh.cu")
	os.WriteFile(cu, []byte("__global__ void k(double *p) { p[0] = tanh(p[0]); }\n"), 0o644)
	_, err := compile(t, cu)
	if err == nil || !strings.Contains(err.Error(), "deleted function 'tanh'") {
		t.Errorf("compiling tanh(double): %v; want an error naming the deleted function tanh", err)
	}
}
