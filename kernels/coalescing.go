package kernels

import "fmt"

// Global-memory coalescing: the hardware-mapping seed's granularity examples
// (cuda-hardware-mapping-simt-memory-spaces) and the coalescing seed's table
// (cuda-performance-coalescing-banks-reduction).
func coalescingKernels() []*Kernel {
	var ks []*Kernel

	// The granularity examples: testCoalesced(int* in, int* out, int elements). The
	// seed reports 16 MiB moved per run (its GiB/s times its ms is 2^24 bytes for
	// every test): 2^21 ints read and 2^21 written. Its block size is not given; 256
	// is the seed's other default.
	const block = 256
	type gran struct {
		name, entry, summary string
		id                   func(gid, tx int32) int32 // (block_offset + warp_offset + x) before % elements
	}
	lane := func(gid, tx int32) int32 { return gid }
	for _, g := range []gran{
		{"test_coalesced", "testCoalesced", "lane l of warp w copies word 32w+l: one 128-byte line per warp", lane},
		{"test_mixed", "testMixed", "lanes permuted ((7*l) mod 32) within the warp's 128-byte line", func(gid, tx int32) int32 {
			return gid - tx%32 + int32((uint32(tx)*7)%32)
		}},
		{"test_offset_2", "testOffset_2", "index times 2: a warp spans 2 lines", func(gid, tx int32) int32 { return gid * 2 }},
		{"test_offset_4", "testOffset_4", "index times 4: a warp spans 4 lines", func(gid, tx int32) int32 { return gid * 4 }},
		{"test_offset_8", "testOffset_8", "index times 8: a warp spans 8 lines", func(gid, tx int32) int32 { return gid * 8 }},
		{"test_offset_32", "testOffset_32", "index times 32: one line per lane", func(gid, tx int32) int32 { return gid * 32 }},
		{"test_scattered", "testScattered", "index times 121 mod elements: scattered", func(gid, tx int32) int32 { return gid * 121 }},
	} {
		k := &Kernel{
			Name: g.name, Entry: g.entry, PTXFile: "coalescing.ptx",
			Topic:   "coalescing granularity (seed: hardware mapping)",
			Summary: "out[id] = in[id], " + g.summary,
			// Max keeps index*121 within int, as the kernels compute it.
			Sizes: []Size{{Name: "elements", Default: 1 << 21, Help: "ints per buffer, one thread each",
				Min: block, Max: 1 << 24, Multiple: block}},
			Small: []string{"elements=512"},
			SIMT:  both,
			Launch: func(sz map[string]int) Launch {
				n := sz["elements"]
				return Launch{
					Grid: dim1(n / block), Block: dim1(block),
					Args: []string{buf("i32", n, "rand:1"), buf("i32", n, "zero"), i32(n)},
				}
			},
		}
		id := g.id
		ks = append(ks, withCheck(k, func(sz map[string]int, in mem) (map[int]any, error) {
			n := int32(sz["elements"])
			src, out := in.i32(0), in.i32(1)
			for gid := int32(0); gid < n; gid++ {
				// gid = blockIdx.x*blockDim.x + threadIdx.x = block_offset +
				// warp_offset + laneid, as the kernels compute it in int.
				i := id(gid, gid%block) % n
				if i < 0 {
					return nil, fmt.Errorf("elements=%d: index %d overflows int", n, i)
				}
				out[i] = src[i]
			}
			return map[int]any{1: out}, nil
		}))
	}

	// The coalescing table: (const float* in, float* out, int n); lane i of the
	// grid stores out[i] = in[index(i)].
	type row struct {
		name, entry, summary string
		inCount              func(n int) int
		index                func(i, n int) int
	}
	for _, r := range []row{
		{"coalesce_sequential", "coalesce_sequential", "32 lanes read 32 consecutive words of one aligned 128-byte line",
			func(n int) int { return n }, func(i, n int) int { return i }},
		{"coalesce_permuted", "coalesce_permuted", "lane l reads word 31-l of its warp's 128-byte line",
			func(n int) int { return n }, func(i, n int) int { return i - i%32 + 31 - i%32 }},
		{"coalesce_misaligned", "coalesce_misaligned", "32 consecutive words from one word past a line boundary: two lines, five sectors",
			func(n int) int { return n + 1 }, func(i, n int) int { return i + 1 }},
		{"coalesce_broadcast", "coalesce_broadcast", "all 32 lanes of warp w read word w",
			func(n int) int { return ceilDiv(n, 32) }, func(i, n int) int { return i / 32 }},
		{"coalesce_random", "coalesce_random", "lane i reads word (i*2654435761 mod 2^32) mod n: scattered",
			func(n int) int { return n }, func(i, n int) int { return int((uint32(i) * 2654435761) % uint32(n)) }},
	} {
		k := &Kernel{
			Name: r.name, Entry: r.entry, PTXFile: "coalescing.ptx",
			Topic:   "coalescing table (seed: coalescing)",
			Summary: "out[i] = in[index(i)]: " + r.summary,
			Sizes:   []Size{count("n", 1<<20, 32, "output floats, one thread each")},
			Small:   []string{"n=512"},
			SIMT:    both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{
					Grid: dim1(ceilDiv(n, block)), Block: dim1(block),
					Args: []string{buf("f32", r.inCount(n), "rand:1"), buf("f32", n, "zero"), i32(n)},
				}
			},
		}
		ks = append(ks, withCheck(k, func(sz map[string]int, in mem) (map[int]any, error) {
			n := sz["n"]
			src := in.f32(0)
			out := make([]float32, n)
			for i := range out {
				out[i] = src[r.index(i, n)]
			}
			return map[int]any{1: out}, nil
		}))
	}
	return ks
}
