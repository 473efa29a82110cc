package smem

import "testing"

// lanes returns the 32 byte addresses of elem(tidx) for 4-byte (or size-byte) elements.
func lanes(size int, elem func(tidx int) int) []uint64 {
	a := make([]uint64, 32)
	for t := range a {
		a[t] = uint64(elem(t) * size)
	}
	return a
}

// The seed's bank examples and transpose V2/V3, plus Kepler's 8-byte mode.
func TestSeedCases(t *testing.T) {
	for _, tc := range []struct {
		name        string
		width, size int
		addrs       []uint64
		wave, ways  int
	}{
		{"tile[tidx]", 4, 4, lanes(4, func(t int) int { return t }), 1, 1},
		{"tile[tidx - tidx%2] broadcast", 4, 4, lanes(4, func(t int) int { return t - t%2 }), 1, 1},
		{"tile[tidx + tidx%2*31] 2-way", 4, 4, lanes(4, func(t int) int { return t + t%2*31 }), 2, 2},
		{"transpose V2 mat[tx][ty] 32x32", 4, 4, lanes(4, func(t int) int { return t*32 + 5 }), 32, 32},
		{"transpose V3 mat[tx][ty] 32x33", 4, 4, lanes(4, func(t int) int { return t*33 + 5 }), 1, 1},
		{"all lanes one word", 4, 4, lanes(4, func(t int) int { return 7 }), 1, 1},
		{"double d[tidx], 4-byte banks", 4, 8, lanes(8, func(t int) int { return t }), 2, 1},
		{"double d[tidx], 8-byte banks", 8, 8, lanes(8, func(t int) int { return t }), 1, 1},
		{"float4 v[tidx], 4-byte banks", 4, 16, lanes(16, func(t int) int { return t }), 4, 1},
		{"float4 v[tidx], 8-byte banks", 8, 16, lanes(16, func(t int) int { return t }), 2, 1},
		// 8-byte mode: two floats in one 8-byte word do not conflict...
		{"tile[tidx] in 8-byte mode", 8, 4, lanes(4, func(t int) int { return t }), 1, 1},
		// ...but stride-2 floats hit 16 distinct 8-byte words over 16 banks, twice: still 1 pass,
		// while stride 64 floats (256 B) put every lane in bank 0: 32 words, 32-way.
		{"tile[2*tidx] in 8-byte mode", 8, 4, lanes(4, func(t int) int { return 2 * t }), 1, 1},
		{"tile[64*tidx] in 8-byte mode", 8, 4, lanes(4, func(t int) int { return 64 * t }), 32, 32},
		// The 2-way example in 8-byte mode: lanes 2k and 2k+1 read words 2k and 2k+32 → 8-byte
		// words k and k+16, in banks k and k+16: conflict-free.
		{"tile[tidx + tidx%2*31] in 8-byte mode", 8, 4, lanes(4, func(t int) int { return t + t%2*31 }), 1, 1},
		// 4-byte mode, double at stride 2 (16 B): each half-warp touches 32 words over 16 even... 2-way.
		{"double d[2*tidx], 4-byte banks", 4, 8, lanes(8, func(t int) int { return 2 * t }), 4, 2},
	} {
		b, err := New(32, tc.width)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Access(^uint32(0), tc.addrs, tc.size)
		if r.Wavefronts != tc.wave || r.Ways != tc.ways {
			t.Errorf("%s: %d wavefronts %d-way, want %d, %d-way", tc.name, r.Wavefronts, r.Ways, tc.wave, tc.ways)
		}
	}
}

// Transpose V2 over a whole 32x32 tile: wavefronts = 32 × requests exactly,
// and the histogram puts every request in the 32-way bin. V3 has none.
func TestTransposeTile(t *testing.T) {
	for _, tc := range []struct {
		pitch, perReq int
	}{{32, 32}, {33, 1}} {
		b, _ := New(32, 4)
		for ty := 0; ty < 32; ty++ { // one warp per row of threads: threadIdx.y = ty
			b.Access(^uint32(0), lanes(4, func(tx int) int { return tx*tc.pitch + ty }), 4)
		}
		s := b.Stats()
		if s.Requests != 32 || s.Wavefronts != uint64(32*tc.perReq) || s.Ways[tc.perReq] != 32 {
			t.Errorf("pitch %d: %d requests %d wavefronts, %d in the %d-way bin", tc.pitch, s.Requests, s.Wavefronts, s.Ways[tc.perReq], tc.perReq)
		}
	}
}

// Inactive lanes are skipped; an inactive half-warp costs no pass.
func TestMask(t *testing.T) {
	b, _ := New(32, 4)
	a := make([]uint64, 16)
	for i := range a {
		a[i] = uint64(16+i) * 8
	}
	if r := b.Access(0xFFFF0000, a, 8); r.Wavefronts != 1 || r.Ideal != 1 {
		t.Fatalf("upper half-warp of doubles: %+v", r)
	}
	// Lanes 0 and 16 only, same bank, different words: 2-way with 4-byte words.
	if r := b.Access(1|1<<16, []uint64{0, 128}, 4); r.Wavefronts != 2 || r.Ways != 2 {
		t.Fatalf("two lanes, one bank: %+v", r)
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct{ banks, width int }{{32, 2}, {33, 4}, {0, 4}, {64, 4}} {
		if _, err := New(tc.banks, tc.width); err == nil {
			t.Errorf("New(%d, %d) accepted", tc.banks, tc.width)
		}
	}
}

func TestNoAllocation(t *testing.T) {
	b, _ := New(32, 4)
	a := lanes(4, func(t int) int { return t * 32 })
	if n := testing.AllocsPerRun(1000, func() { b.Access(^uint32(0), a, 4) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkAccess(b *testing.B) {
	for _, bc := range []struct {
		name  string
		pitch int
	}{{"conflict-free", 33}, {"32-way", 32}} {
		b.Run(bc.name, func(b *testing.B) {
			banks, _ := New(32, 4)
			a := lanes(4, func(t int) int { return t * bc.pitch })
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				banks.Access(^uint32(0), a, 4)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "warp-inst/s")
		})
	}
}

// An atomic's lanes on one word each take a wavefront, where a load's share one: the
// H200's ATOMS wavefronts for lane l on word (l%L) + 32*((l/L)%A) are 32/L whatever A
// (traces/hw/h200-2026-11-25-atomics, launches 98-112).
func TestAtomicSerialisesSameWord(t *testing.T) {
	b, err := New(32, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ l, a int }{{1, 1}, {1, 32}, {2, 1}, {2, 16}, {8, 4}, {16, 2}, {32, 1}} {
		a := lanes(4, func(l int) int { return l%c.l + 32*((l/c.l)%c.a) })
		if got, want := b.Atomic(^uint32(0), a, 4).Wavefronts, 32/c.l; got != want {
			t.Errorf("L=%d A=%d: atomic %d wavefronts, want %d", c.l, c.a, got, want)
		}
		if got, want := b.Access(^uint32(0), a, 4).Wavefronts, c.a; got != want {
			t.Errorf("L=%d A=%d: load %d wavefronts, want %d", c.l, c.a, got, want)
		}
	}
}

// Spread counts lanes on one word apart, a lane's bytes on every bank they cover, and
// takes the lanes it is given as one pass whatever their number.
func TestSpread(t *testing.T) {
	b, err := New(32, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		addrs      []uint64
		size, ways int
	}{
		{"32 words, one a bank", lanes(4, func(l int) int { return l }), 4, 1},
		{"32 lanes on one word", lanes(4, func(int) int { return 0 }), 4, 32},
		{"two lanes a word", lanes(4, func(l int) int { return l / 2 }), 4, 2},
		{"16-byte lanes, 8 of them", lanes(16, func(l int) int { return l })[:8], 16, 1},
		{"16-byte lanes, all 32", lanes(16, func(l int) int { return l }), 16, 4},
		{"8-byte lanes on a 128-byte stride", lanes(128, func(l int) int { return l })[:4], 8, 4},
		{"none", nil, 4, 1},
	} {
		stats := b.Stats()
		if got := b.Spread(c.addrs, c.size); got != c.ways {
			t.Errorf("%s: %d ways, want %d", c.name, got, c.ways)
		}
		if b.Stats() != stats {
			t.Errorf("%s: Spread changed the stats", c.name)
		}
	}
	if got := b.PassBytes(); got != 128 {
		t.Errorf("32 banks of 4 bytes move %d bytes a wavefront, want 128", got)
	}
}
