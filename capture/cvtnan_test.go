package capture

import (
	"fmt"
	"math"
	"testing"
)

// Float-to-integer conversions of NaN, the infinities and values past the destination's
// range, which saturate. The PTX ISA says "NaN inputs are converted to 0"; an H100
// does so from f32 to a 32-bit integer only, and gives the sign bit alone (the least
// signed value, for an unsigned type too) from f64 and to 64 bits
// (traces/hw/h100-2026-11-27-opcases, cvt.*.bin). The inputs' edges hold both floats'
// NaNs (either sign) and infinities; their random words are mostly past any range.
func TestCvtFloatToIntEdges(t *testing.T) { runOpCases(t, cvtCases()) }

func cvtCases() []opCase {
	forms := []struct {
		rnd, dst, src string
	}{
		{"rzi", "s32", "f32"}, {"rzi", "u32", "f32"}, {"rni", "s64", "f32"}, {"rzi", "u64", "f32"},
		{"rni", "s32", "f64"}, {"rzi", "u32", "f64"}, {"rzi", "s64", "f64"}, {"rni", "u64", "f64"},
		{"rzi", "s16", "f32"}, {"rni", "u16", "f32"}, {"rzi", "s16", "f64"}, {"rzi", "u16", "f64"},
		{"rzi", "s32", "f16"}, {"rni", "s64", "f16"},
	}
	var cases []opCase
	for _, f := range forms {
		name := fmt.Sprintf("cvt.%s.%s.%s", f.rnd, f.dst, f.src)
		bits, signed := 32, f.dst[0] == 's'
		fmt.Sscan(f.dst[1:], &bits)
		d, src := [2]string{"%r4", "%r5"}, [2]string{"%f1", "%f2"}
		var pre, post string
		switch {
		case bits == 64:
			d = [2]string{"%rd4", "%rd5"}
		case bits == 16:
			d = [2]string{"%h0", "%h1"}
			post = "cvt.u32.u16 %r4, %h0;\ncvt.u32.u16 %r5, %h1;\n"
		}
		switch f.src {
		case "f64":
			src = [2]string{"%fd1", "%fd2"}
		case "f16":
			src = [2]string{"%h2", "%h3"}
			pre = "cvt.u16.u32 %h2, %r1;\ncvt.u16.u32 %h3, %r2;\n"
		}
		round := math.Trunc
		if f.rnd == "rni" {
			round = math.RoundToEven
		}
		nan := uint64(1) << (bits - 1)
		if f.src != "f64" && bits <= 32 {
			nan = 0
		}
		conv := func(w uint64) uint64 {
			var v float64
			switch f.src {
			case "f32":
				v = float64(math.Float32frombits(uint32(w)))
			case "f64":
				v = math.Float64frombits(w)
			case "f16":
				v = fmtOf(tF16).value(uint16(w))
			}
			return cvtRef(round(v), bits, signed, nan)
		}
		cases = append(cases, opCase{name: name, wide: bits == 64,
			body: fmt.Sprintf("{\n.reg .b16 %%h<4>;\n%s%s %s, %s;\n%s %s, %s;\n%s}", pre, name, d[0], src[0], name, d[1], src[1], post),
			ref: func(x [][3]uint64, t int) [2]uint64 {
				return [2]uint64{conv(x[t][0]), conv(x[t][1])}
			}})
	}
	return cases
}

// cvtRef is an integer v (or NaN, or an infinity) converted to an integer of bits bits:
// saturated to the type's range, NaN to nan.
func cvtRef(v float64, bits int, signed bool, nan uint64) uint64 {
	mask := uint64(math.MaxUint64) >> (64 - bits)
	lo, hi := 0.0, math.Ldexp(1, bits) // the range is [lo, hi)
	if signed {
		lo, hi = -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
	}
	switch {
	case math.IsNaN(v):
		return nan
	case v < lo:
		return uint64(int64(lo)) & mask
	case v >= hi:
		if signed {
			return mask >> 1
		}
		return mask
	case signed:
		return uint64(int64(v)) & mask
	case v >= math.Ldexp(1, 63):
		return uint64(v-math.Ldexp(1, 63)) | 1<<63
	}
	return uint64(v)
}
