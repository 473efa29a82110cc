package kernels

import "math"

// Hand-made references of the integer chains: every step written out on 64-bit
// integers (and float64 for the FMA chain), from the launch's own arguments.
func init() {
	chain := func(step func(x, c, d uint64) uint64, float bool) handMade {
		return func(l Launch, sz map[string]int, a []any) {
			out, c, d, ilp, iters := a[0].([]int32), uint64(uint32(a[1].(int))), uint64(uint32(a[2].(int))), a[3].(int), a[4].(int)
			forThreads(l, func(bx, _, tx, _ int) {
				acc := uint32(0)
				for k := range ilp {
					x := uint64(uint32(tx)*2654435761+uint32(k)*40503+0x12345) & math.MaxUint32
					if float {
						x = uint64(math.Float32bits(float32(8*tx + k)))
					}
					for range 8 * iters {
						x = step(x, c, d) & math.MaxUint32
					}
					acc = acc*31 + uint32(x)
				}
				out[bx*int(l.Block.X)+tx] = int32(acc)
			})
		}
	}
	handMadeRefs["chain_ffma"] = chain(func(x, c, d uint64) uint64 {
		// x*1 + 0.5 on whole and half numbers below 2^23 is exact in float64 too.
		f := float64(math.Float32frombits(uint32(x)))*float64(math.Float32frombits(uint32(c))) + float64(math.Float32frombits(uint32(d)))
		return uint64(math.Float32bits(float32(f)))
	}, true)
	handMadeRefs["chain_imad"] = chain(func(x, c, _ uint64) uint64 { return x*x + c }, false)
	handMadeRefs["chain_iadd"] = chain(func(x, c, d uint64) uint64 { return (x + c) ^ d }, false)
	handMadeRefs["chain_mulhi"] = chain(func(x, c, d uint64) uint64 { return x*d>>32 + c }, false)
	handMadeRefs["chain_setp"] = chain(func(x, c, d uint64) uint64 {
		if x < c {
			x += d
		}
		return x ^ c
	}, false)
	handMadeRefs["chain_div"] = chain(func(x, c, d uint64) uint64 { return x/d + c }, false)
	handMadeRefs["chain_rem"] = chain(func(x, c, d uint64) uint64 { return x%d + c }, false)
}
