package kernels

import (
	"math"
	"math/bits"
)

// Integer chains (kernels/cu/intchain.cu): the dependent latency and issue rate of the
// integer instructions ptxas makes of a register divide, and of the divide itself, with
// an FMA chain to calibrate against. The H200's figures for the same steps are in
// traces/hw/h200-2026-11-26-intchain/ (scripts/hw/intchain.sh).
func intchainKernels() []*Kernel {
	steps := []struct {
		name, summary string
		step          func(x, c, d uint32) uint32
	}{
		{"ffma", "x = x*c + d in fp32 (fma.rn.f32: FFMA), the calibration", func(x, c, d uint32) uint32 {
			return math.Float32bits(fmaf32(math.Float32frombits(x), math.Float32frombits(c), math.Float32frombits(d)))
		}},
		{"imad", "x = x*x + c (mad.lo.u32: IMAD)", func(x, c, _ uint32) uint32 { return x*x + c }},
		{"iadd", "x = (x + c) ^ d (add, xor: two ALU ops)", func(x, c, d uint32) uint32 { return (x + c) ^ d }},
		{"mulhi", "x = hi(x*d) + c (mul.hi.u32, add: one IMAD.HI)", func(x, c, d uint32) uint32 {
			hi, _ := bits.Mul32(x, d)
			return hi + c
		}},
		{"setp", "x = (x < c ? x + d : x) ^ c (setp feeding a predicated add)", func(x, c, d uint32) uint32 {
			if x < c {
				x += d
			}
			return x ^ c
		}},
		{"div", "x = x/d + c (div.u32 by a register: the sequence ptxas inlines)", func(x, c, d uint32) uint32 { return x/d + c }},
		{"rem", "x = x%d + c (rem.u32 by a register)", func(x, c, d uint32) uint32 { return x%d + c }},
	}
	var ks []*Kernel
	for _, s := range steps {
		step, ffma := s.step, s.name == "ffma"
		// c and d: 1.0 and 0.5 for the fp32 chain (exact floats, whatever the order),
		// else an odd constant and the divisor 7.
		c, d := uint32(0x9e3779b9), uint32(7)
		if ffma {
			c, d = math.Float32bits(1), math.Float32bits(0.5)
		}
		k := &Kernel{
			Name: "chain_" + s.name, Entry: "chain_" + s.name, PTXFile: "intchain.ptx",
			Topic:   "integer latency and issue rate (issue 15: the divide's pipe)",
			Summary: "ilp independent chains per thread of " + s.summary + ", 8 steps per chain per trip",
			Sizes: []Size{
				{Name: "ilp", Default: 1, Help: "independent chains per thread (1, 2, 4 or 8)", Min: 1, Max: 8, Pow2: true},
				{Name: "warps", Default: 1, Help: "warps in each block", Min: 1, Max: 32},
				{Name: "blocks", Default: 1, Help: "blocks (one per SM while they fit)", Min: 1, Max: 1 << 16},
				{Name: "iters", Default: 256, Help: "trips of the loop", Min: 1, Max: 1 << 16},
			},
			Small: []string{"ilp=2", "warps=2", "iters=3"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["warps"] * 32
				return Launch{Grid: dim1(sz["blocks"]), Block: dim1(n),
					Args: []string{buf("i32", n*sz["blocks"], "zero"), i32(int(int32(c))), i32(int(int32(d))), i32(sz["ilp"]), i32(sz["iters"])}}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, _ mem) (map[int]any, error) {
			n, chains, iters := sz["warps"]*32, sz["ilp"], sz["iters"]
			out := make([]int32, n*sz["blocks"])
			for i := range out {
				t := uint32(i % n)
				var acc uint32
				for k := range uint32(chains) {
					x := t*2654435761 + k*40503 + 0x12345
					if ffma {
						x = math.Float32bits(float32(t*8 + k))
					}
					for range iters * 8 {
						x = step(x, c, d)
					}
					acc = acc*31 + x
				}
				out[i] = int32(acc)
			}
			return map[int]any{0: out}, nil
		}))
	}
	return ks
}

// fmaf32 is fma.rn.f32: x*y + z rounded once.
func fmaf32(x, y, z float32) float32 {
	return float32(math.FMA(float64(x), float64(y), float64(z)))
}
