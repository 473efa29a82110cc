package kernels

// Shared-memory bank examples, one warp per block: the coalescing seed's three
// tile[64] accesses, the hardware-mapping seed's 32x33 padded row and column sums
// (with the 32x32 layout for contrast), and 8-byte words whose conflicts depend on
// the bank width.
func bankKernels() []*Kernel {
	blocks := Size{Name: "blocks", Default: 1024, Help: "blocks of one warp each", Min: 1, Max: 1 << 18}
	one := func(name, entry, topic, summary string, inTyp string, inPer, outPer int, expect func(in mem, blocks int) any) *Kernel {
		k := &Kernel{
			Name: name, Entry: entry, PTXFile: "banks.ptx", Topic: topic, Summary: summary,
			Sizes: []Size{blocks}, Small: []string{"blocks=2"}, SIMT: both,
			Launch: func(sz map[string]int) Launch {
				b := sz["blocks"]
				return Launch{
					Grid: dim1(b), Block: dim1(32),
					Args: []string{buf(inTyp, b*inPer, "rand:1"), buf(inTyp, b*outPer, "zero")},
				}
			},
		}
		return withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
			return map[int]any{1: expect(m, sz["blocks"])}, nil
		})
	}
	// tile64 is a bank example over the seed's __shared__ float tile[64]: block b
	// loads in[64b .. 64b+63], thread t writes out[32b+t] = f(tile, t).
	tile64 := func(name, entry, summary string, f func(tile []float32, t int) float32) *Kernel {
		return one(name, entry, "shared-memory banks (seed: coalescing)", summary, "f32", 64, 32, func(m mem, blocks int) any {
			in := m.f32(0)
			out := make([]float32, 32*blocks)
			for b := 0; b < blocks; b++ {
				for t := 0; t < 32; t++ {
					out[32*b+t] = f(in[64*b:64*b+64], t)
				}
			}
			return out
		})
	}
	sums := func(name, entry, summary string) *Kernel {
		return one(name, entry, "shared-memory banks (seed: hardware mapping)", summary, "f32", 1024, 64, func(m mem, blocks int) any {
			in := m.f32(0)
			out := make([]float32, 64*blocks)
			for b := 0; b < blocks; b++ {
				blk := in[1024*b : 1024*b+1024] // 32x32, row-major
				for t := 0; t < 32; t++ {
					var col, row float32
					for i := 0; i < 32; i++ {
						col += blk[32*i+t]
						row += blk[32*t+i]
					}
					out[64*b+t], out[64*b+32+t] = col, row
				}
			}
			return out
		})
	}
	return []*Kernel{
		tile64("bank_linear", "bank_linear", "tile[tidx] - 3: 32 lanes, 32 banks, conflict-free",
			func(tile []float32, t int) float32 { return tile[t] - 3 }),
		tile64("bank_same_word", "bank_same_word", "tile[tidx - tidx % 2]: lane pairs read one word, a broadcast, conflict-free",
			func(tile []float32, t int) float32 { return tile[t-t%2] }),
		tile64("bank_two_way", "bank_two_way", "tile[tidx + tidx % 2 * 31]: odd lanes hit their even neighbour's bank, another word: 2-way conflict",
			func(tile []float32, t int) float32 { return tile[t+t%2*31] }),
		sums("bank_sums_padded", "bank_sums_padded",
			"32x33 tile: column sums mydata[tid + i*33] and row sums mydata[tid*33 + i], both conflict-free"),
		sums("bank_sums_unpadded", "bank_sums_unpadded",
			"32x32 tile: column sums conflict-free, row sums mydata[tid*32 + i] a 32-way conflict"),
		one("bank_double", "bank_double", "shared-memory banks, 4- and 8-byte modes (seed: coalescing)",
			"__shared__ double per lane: 2-way conflict with 4-byte banks, none with 8-byte banks", "f64", 32, 32,
			func(m mem, blocks int) any {
				in := m.f64(0)
				out := make([]float64, 32*blocks)
				for b := 0; b < blocks; b++ {
					for t := 0; t < 32; t++ {
						out[32*b+t] = in[32*b+31-t] * 2
					}
				}
				return out
			}),
	}
}
