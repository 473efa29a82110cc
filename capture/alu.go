package capture

import (
	"math"
	"math/bits"
)

// Lanewise execution: the generic loop over a warp's lanes, and the value helpers the
// families' lane functions share. Each family's own lane functions and fast loops are
// in its op_*.go file.

// fullWarp is the exec mask of a warp whose 32 lanes all execute: the fast loops run
// only then.
const fullWarp = 0xffffffff

// runLanes runs an instruction's lane function over the executing lanes.
func runLanes(w *warpState, in *instr, exec, _ uint32) {
	d := w.slot(in.d[0])
	a, b, c := w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	lane := in.lane
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = lane(in, a[l], b[l], c[l])
	}
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
