package capture

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactFMA32 rounds x*y+z once to float32, through exact big.Float arithmetic.
func exactFMA32(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(200).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetPrec(200).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetPrec(200).SetFloat64(float64(z)))
	f, _ := p.Float32()
	return f
}

// FMA32 rounds once, like FFMA: on a case built to make a float64 sum land on a float32
// midpoint (the double rounding a plain float32(math.FMA(...)) gets wrong), and on random
// operands of every magnitude against an exact reference.
func TestFMA32RoundsOnce(t *testing.T) {
	// x*y = 2^-24 - 2^-60 exactly; z = 1 + 2^-23. The exact sum, 1 + 3*2^-24 - 2^-60, is
	// just under the midpoint of 1+2^-23 and 1+2^-22, and rounds to the float64 midpoint.
	x := float32(1 + 1.0/(1<<18))
	y := float32(math.Ldexp(1-1.0/(1<<18), -24))
	z := float32(1 + 1.0/(1<<23))
	want := z
	if naive := float32(math.FMA(float64(x), float64(y), float64(z))); naive == want {
		t.Fatalf("the constructed case does not double-round (%v): the test checks nothing", naive)
	}
	if got := FMA32(x, y, z); got != want || got != exactFMA32(x, y, z) {
		t.Fatalf("fma32 = %v, want %v", got, want)
	}
	if got := FMA32(-x, y, -z); got != -want {
		t.Fatalf("fma32 negated = %v, want %v", got, -want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func() float32 {
		f := float32(math.Ldexp(rng.Float64()+0.5, rng.IntN(40)-20))
		if rng.IntN(2) == 0 {
			f = -f
		}
		return f
	}
	for i := range 200000 {
		x, y, z := rnd(), rnd(), rnd()
		if i%2 == 0 { // sums near a float32 midpoint, where double rounding bites
			z = float32(-float64(x) * float64(y))
			z = math.Nextafter32(z, float32(math.Inf(1)))
		}
		if got, want := FMA32(x, y, z), exactFMA32(x, y, z); got != want {
			t.Fatalf("FMA32(%v, %v, %v) = %v, want %v", x, y, z, got, want)
		}
	}
}
