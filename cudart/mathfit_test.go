package cudart

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The precise math of include/gtrace_math.h evaluates a few functions with polynomials
// whose coefficients come from here: interpolation at the Chebyshev nodes of the
// interval (near-minimax; Trefethen, Approximation Theory and Approximation Practice,
// ch. 16), solved in float64 and rounded to float32. TestMathFits recomputes each
// and fails when the header's block differs, printing the block to paste.

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
	// atan(t) = t + t^3 P(t^2) for t in [0, tan(pi/8)].
	{"atan", func(z float64) float64 {
		if z < 1e-3 {
			return series(z, -1.0/3, 1.0/5, -1.0/7, 1.0/9, -1.0/11)
		}
		t := math.Sqrt(z)
		return (math.Atan(t) - t) / (t * z)
	}, 0, 0.1716, 0, 5},
	// asin(t) = t + t^3 P(t^2) for t in [0, 1/2].
	{"asin", func(z float64) float64 {
		if z < 1e-3 {
			return series(z, 1.0/6, 3.0/40, 15.0/336, 105.0/3456)
		}
		t := math.Sqrt(z)
		return (math.Asin(t) - t) / (t * z)
	}, 0, 0.25, 0, 6},
	// erf(t) = t + t P(t^2) for t in [0, 1].
	{"erf", func(z float64) float64 {
		if z < 1e-6 {
			return 2/math.Sqrt(math.Pi)*(1-z/3) - 1
		}
		t := math.Sqrt(z)
		return math.Erf(t)/t - 1
	}, 0, 1, 0, 6},
	// erfc(x) = exp(P(x)) for x in [1, 3.92] (erf is 1 in float beyond).
	{"logerfc", func(x float64) float64 { return math.Log(math.Erfc(x)) }, 1, 3.92, 0, 8},
	// erfc(x) = e^(-x^2) P(x - 1.25) for x in [1/2, 2].
	{"erfcnear", func(x float64) float64 { return math.Erfc(x) * math.Exp(x*x) }, 0.5, 2, 1.25, 10},
	// erfc(x) = e^(-x^2) t P(t) with t = 1/x, for x in [2, 10.06] (erfc is 0 in float beyond).
	{"erfcfar", func(t float64) float64 { x := 1 / t; return math.Erfc(x) * math.Exp(x*x) * x }, 1 / 10.06, 0.5, 0, 8},
}

// coefficients interpolates f at its N+1 Chebyshev nodes and returns P's coefficients,
// constant first, rounded to float32.
func (f mathFit) coefficients() []float32 {
	m := f.N + 1
	h := math.Max(math.Abs(f.A-f.C), math.Abs(f.B-f.C)) // (z - C) / h is within [-1, 1]
	a := make([][]float64, m)
	for i := range a {
		z := (f.A+f.B)/2 + (f.B-f.A)/2*math.Cos(math.Pi*(float64(i)+0.5)/float64(m))
		row := make([]float64, m+1)
		for k, p := 0, 1.0; k < m; k, p = k+1, p*(z-f.C)/h {
			row[k] = p
		}
		row[m] = f.G(z)
		a[i] = row
	}
	for c := range m { // Gauss-Jordan with partial pivoting
		piv := c
		for r := c + 1; r < m; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[piv][c]) {
				piv = r
			}
		}
		a[c], a[piv] = a[piv], a[c]
		for r := range m {
			if r != c {
				k := a[r][c] / a[c][c]
				for j := c; j <= m; j++ {
					a[r][j] -= k * a[c][j]
				}
			}
		}
	}
	out := make([]float32, m)
	for k := range out {
		out[k] = float32(a[k][m] / a[k][k] / math.Pow(h, float64(k)))
	}
	return out
}

// block is the Horner evaluation of the fit as the header writes it.
func (f mathFit) block() string {
	c := f.coefficients()
	var b strings.Builder
	fmt.Fprintf(&b, "\t// fit %s: cudart/mathfit_test.go\n", f.Name)
	fmt.Fprintf(&b, "\tfloat p = %s;\n", cfloat(c[len(c)-1]))
	for k := len(c) - 2; k >= 0; k-- {
		fmt.Fprintf(&b, "\tp = fmaf(p, z, %s);\n", cfloat(c[k]))
	}
	return b.String()
}

func cfloat(v float32) string {
	s := strconv.FormatFloat(float64(v), 'g', 9, 32)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s + "f"
}

var fitBlock = regexp.MustCompile(`(?m)^\t*// fit (\w+): .*\n(?:\t*(?:float )?p = .*\n)+`)

func TestMathFits(t *testing.T) {
	h, err := include.ReadFile("include/gtrace_math.h")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, m := range fitBlock.FindAllStringSubmatch(string(h), -1) {
		found[m[1]] = regexp.MustCompile(`(?m)^\t+`).ReplaceAllString(m[0], "\t") // any indent
	}
	for _, f := range mathFits {
		if got, want := found[f.Name], f.block(); got != want {
			t.Errorf("include/gtrace_math.h's fit %s is\n%s\nwant\n%s", f.Name, got, want)
		}
		delete(found, f.Name)
	}
	for name := range found {
		t.Errorf("include/gtrace_math.h has a fit %s that mathFits does not make", name)
	}
}
