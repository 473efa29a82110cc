package capture

import "math"

// FMA32 is fma.rn.f32: x*y+z rounded once to float32, as the GPU's FFMA is. The product
// of two floats is exact in a float64, but the float64 sum may round, and rounding that
// again to float32 differs from one rounding when the float64 sum lands exactly on a
// midpoint between two float32s: then the sum's rounding error says which side the exact
// value is on. (Seen on an H100: 1 element in 10^6 of a 1000-step product differed by an
// ulp before this, in the Go reference and in the emulator alike.)
func FMA32(x, y, z float32) float32 {
	p := float64(x) * float64(y) // exact: 24 + 24 significant bits
	s := p + float64(z)
	r := float32(s)
	if float64(r) == s || math.IsInf(s, 0) || math.IsNaN(s) {
		return r // s is a float32: the exact value is within half a float64 ulp of it
	}
	// TwoSum: e is exactly p + z - s.
	b := s - p
	e := (p - (s - b)) + (float64(z) - b)
	if e == 0 {
		return r
	}
	other := math.Nextafter32(r, float32(math.Inf(1)))
	if float64(r) > s {
		other = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if mid := (float64(r) + float64(other)) / 2; s != mid {
		return r
	}
	lo, hi := min(r, other), max(r, other)
	if e > 0 {
		return hi
	}
	return lo
}
