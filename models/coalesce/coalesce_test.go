package coalesce

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

const base = 0x10000 // 128-byte aligned

// warp returns 32 addresses base + f(lane).
func warp(f func(lane int) uint64) []uint64 {
	a := make([]uint64, 32)
	for i := range a {
		a[i] = base + f(i)
	}
	return a
}

// Seed 000's coalescing table, on Fermi in L1 mode (128 B lines) and in
// L2-only mode (32 B segments). Exact: the answer is a count.
func TestSeedTable(t *testing.T) {
	perm := rand.New(rand.NewPCG(1, 2)).Perm(32)
	for _, tc := range []struct {
		name            string
		addrs           []uint64
		lines, segments int
		l1Util, l2Util  float64 // percent
	}{
		{"sequential", warp(func(l int) uint64 { return uint64(4 * l) }), 1, 4, 100, 100},
		{"permuted", warp(func(l int) uint64 { return uint64(4 * perm[l]) }), 1, 4, 100, 100},
		// 32 consecutive words starting one word into a line: the seed's
		// "not all continuous" picture, 2 lines or 5 segments.
		{"misaligned", warp(func(l int) uint64 { return uint64(4 + 4*l) }), 2, 5, 50, 80},
		{"broadcast", warp(func(l int) uint64 { return 40 }), 1, 1, 3.125, 12.5},
	} {
		for _, m := range []struct {
			mode Mode
			want int
			util float64
		}{{Lines128, tc.lines, tc.l1Util}, {Segments32, tc.segments, tc.l2Util}} {
			c, _ := New(m.mode)
			r := c.Coalesce(0xFFFFFFFF, tc.addrs, 4, false)
			if r.Requests != 1 || r.Transactions != m.want || r.BusUtilization() != m.util {
				t.Errorf("%s %v: %d requests, %d transactions, %.3f%% bus; want 1, %d, %.3f%%",
					tc.name, m.mode, r.Requests, r.Transactions, r.BusUtilization(), m.want, m.util)
			}
		}
	}
}

// Random: 32 distinct words scattered over 1 MB. N is counted here
// independently (a map of lines), and the table's formulas must hold.
func TestSeedTableRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		seen := map[uint64]bool{}
		addrs := make([]uint64, 0, 32)
		for len(addrs) < 32 {
			a := base + uint64(rng.IntN(1<<18))*4
			if !seen[a] {
				seen[a] = true
				addrs = append(addrs, a)
			}
		}
		lines, segs := map[uint64]bool{}, map[uint64]bool{}
		for _, a := range addrs {
			lines[a/128], segs[a/32] = true, true
		}
		l1, _ := New(Lines128)
		l2, _ := New(Segments32)
		r1 := l1.Coalesce(^uint32(0), addrs, 4, false)
		r2 := l2.Coalesce(^uint32(0), addrs, 4, false)
		if n := len(lines); r1.Transactions != n || r1.BusUtilization() != 100*128/float64(n*128) {
			t.Fatalf("L1: %d lines %.3f%%, want N=%d, 128/(N·128)", r1.Transactions, r1.BusUtilization(), n)
		}
		if n := len(segs); r2.Transactions != n || r2.BusUtilization() != 100*128/float64(n*32) {
			t.Fatalf("L2: %d segments %.3f%%, want N=%d, 128/(N·32)", r2.Transactions, r2.BusUtilization(), n)
		}
	}
}

// testOffset<S>: lane l reads word l*S. Ampere/Hopper count sectors per
// request as ncu does; Fermi L1 counts lines.
func TestStrides(t *testing.T) {
	for _, tc := range []struct {
		stride         uint64 // in 4-byte words
		sectors, lines int
	}{
		{1, 4, 1}, {2, 8, 2}, {4, 16, 4}, {8, 32, 8}, {32, 32, 32},
	} {
		a := warp(func(l int) uint64 { return uint64(l) * tc.stride * 4 })
		s, _ := New(Sectors32)
		f, _ := New(Lines128)
		rs, rf := s.Coalesce(^uint32(0), a, 4, false), f.Coalesce(^uint32(0), a, 4, false)
		if rs.Requests != 1 || rs.Sectors != tc.sectors {
			t.Errorf("stride %d sectored: %d requests %d sectors, want 1, %d", tc.stride, rs.Requests, rs.Sectors, tc.sectors)
		}
		if rf.Requests != 1 || rf.Transactions != tc.lines {
			t.Errorf("stride %d fermi L1: %d requests %d lines, want 1, %d", tc.stride, rf.Requests, rf.Transactions, tc.lines)
		}
	}
}

// Vector accesses: ncu counts one request per instruction and the unique
// sectors; Fermi splits 8-byte words by half-warp and 16-byte by quarter-warp.
func TestWideAccesses(t *testing.T) {
	for _, tc := range []struct {
		mode                 Mode
		width                int
		requests, trans, sec int
	}{
		{Sectors32, 8, 1, 8, 8},    // float2: 256 B
		{Sectors32, 16, 1, 16, 16}, // float4: 512 B
		{Lines128, 8, 2, 2, 8},     // one 128 B line per half-warp
		{Lines128, 16, 4, 4, 16},   // one line per quarter-warp
		{Segments32, 8, 2, 8, 8},
	} {
		c, _ := New(tc.mode)
		a := warp(func(l int) uint64 { return uint64(l * tc.width) })
		r := c.Coalesce(^uint32(0), a, tc.width, false)
		if r.Requests != tc.requests || r.Transactions != tc.trans || r.Sectors != tc.sec || r.BusUtilization() != 100 {
			t.Errorf("%v %dB: req %d trans %d sec %d util %.1f; want %d %d %d 100",
				tc.mode, tc.width, r.Requests, r.Transactions, r.Sectors, r.BusUtilization(), tc.requests, tc.trans, tc.sec)
		}
	}
}

// Inactive lanes do not count, and a half-warp with no active lane issues no request.
func TestMask(t *testing.T) {
	c, _ := New(Lines128)
	a := make([]uint64, 16)
	for i := range a {
		a[i] = base + uint64(16+i)*8 // lanes 16..31, 8-byte words
	}
	r := c.Coalesce(0xFFFF0000, a, 8, false)
	if r.Requests != 1 || r.Transactions != 1 || r.UsefulBytes != 128 {
		t.Fatalf("upper half-warp only: %+v", r)
	}
	if u := r.Request(0); len(u) != 1 || u[0].Line != base+128 || u[0].Sectors != 0b1111 {
		t.Fatalf("units %+v", u)
	}
}

// Fermi stores go to L2 in 32-byte segments even in L1 mode.
func TestFermiStore(t *testing.T) {
	c, _ := New(Lines128)
	r := c.Coalesce(^uint32(0), warp(func(l int) uint64 { return uint64(4 + 4*l) }), 4, true)
	if r.Mode != Segments32 || r.Transactions != 5 {
		t.Fatalf("misaligned store: %v, %d transactions; want 5 segments", r.Mode, r.Transactions)
	}
}

// A lane's access that straddles a line boundary touches both lines.
func TestStraddle(t *testing.T) {
	c, _ := New(Sectors32)
	r := c.Coalesce(1, []uint64{base + 124}, 8, false)
	if r.Sectors != 2 || len(r.Request(0)) != 2 || r.UsefulBytes != 8 {
		t.Fatalf("straddle: %+v %+v", r, r.Request(0))
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Lines128, Segments32, Sectors32} {
		if got, err := ParseMode(m.String()); got != m || err != nil {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMode("128"); err == nil {
		t.Error("ParseMode accepted a bad name")
	}
}

func TestNoAllocation(t *testing.T) {
	c, _ := New(Sectors32)
	a := warp(func(l int) uint64 { return uint64(l * 36) })
	if n := testing.AllocsPerRun(1000, func() { c.Coalesce(^uint32(0), a, 4, false) }); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}

func BenchmarkCoalesce(b *testing.B) {
	perm := rand.New(rand.NewPCG(5, 6)).Perm(32)
	for _, bc := range []struct {
		name  string
		mode  Mode
		width int
		f     func(int) uint64
	}{
		{"sectored/coalesced", Sectors32, 4, func(l int) uint64 { return uint64(4 * l) }},
		{"sectored/stride32", Sectors32, 4, func(l int) uint64 { return uint64(128 * l) }},
		{"sectored/permuted", Sectors32, 4, func(l int) uint64 { return uint64(4 * perm[l]) }},
		{"fermi-lines/float4", Lines128, 16, func(l int) uint64 { return uint64(16 * l) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, _ := New(bc.mode)
			a := warp(bc.f)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.Coalesce(^uint32(0), a, bc.width, false)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "warp-inst/s")
		})
	}
}

// Atomics: one pass per same-address round, each pass sending its own sectors. The
// counts are the mechanism's, checked by hand; hist_global@bins=1 and @bins=16 on an H100
// (traces/hw/h100-2026-11-25-heldout.csv) are exactly this count over a whole grid.
func TestAtomicPasses(t *testing.T) {
	c, err := New(Sectors32)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		addrs   []uint64
		sectors int
		units   []Unit // every pass's units, pass after pass
	}{
		{"32 lanes, one word", warp(func(int) uint64 { return 0 }), 32, nil},
		{"distinct words, one line", warp(func(l int) uint64 { return uint64(4 * l) }), 4,
			[]Unit{{base, 0xf}}},
		// Lanes 0-15 on words 0-15 (sectors 0 and 1), lanes 16-31 again: two passes.
		{"two rounds", warp(func(l int) uint64 { return uint64(4 * (l % 16)) }), 4,
			[]Unit{{base, 0x3}, {base, 0x3}}},
		// Lane 0..2 on one word of sector 0; lane 3 alone in sector 3 of the next line.
		// Pass 0: sector 0 and the other line's sector; passes 1 and 2: sector 0 only.
		{"uneven", []uint64{base, base, base, base + 128 + 96}, 4,
			[]Unit{{base, 0x1}, {base + 128, 0x8}, {base, 0x1}, {base, 0x1}}},
		{"none", nil, 0, []Unit{}},
	} {
		r := c.Atomic(tc.addrs, 4)
		if r.Sectors != tc.sectors {
			t.Errorf("%s: %d sectors, want %d", tc.name, r.Sectors, tc.sectors)
		}
		if want := min(len(tc.addrs), 1); r.Requests != want {
			t.Errorf("%s: %d requests, want %d", tc.name, r.Requests, want)
		}
		if tc.units != nil && !slices.Equal(r.Units(), tc.units) {
			t.Errorf("%s: units %v, want %v", tc.name, r.Units(), tc.units)
		}
		sum := 0
		for _, u := range r.Units() {
			sum += bits.OnesCount8(u.Sectors)
		}
		if sum != r.Sectors {
			t.Errorf("%s: units hold %d sectors, Sectors says %d", tc.name, sum, r.Sectors)
		}
	}
	// Distinct addresses: exactly Coalesce's sectors, whatever the pattern.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		perm := rng.Perm(4096)
		a := warp(func(l int) uint64 { return uint64(4 * perm[l]) })
		want := c.Coalesce(^uint32(0), a, 4, false).Sectors
		if got := c.Atomic(a, 4).Sectors; got != want {
			t.Fatalf("distinct addresses %v: %d sectors, Coalesce %d", a, got, want)
		}
	}
}

// Serial gives each address a unit of its own, in order, repeats and straddles included,
// in one request.
func TestSerial(t *testing.T) {
	c, err := New(Sectors32)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		addrs   []uint64
		width   int
		sectors int
		units   []Unit
	}{
		{"two lanes in one sector", []uint64{base, base + 16}, 16, 2, []Unit{{base, 0x1}, {base, 0x1}}},
		{"lines apart", []uint64{base + 128, base + 32}, 16, 2, []Unit{{base + 128, 0x1}, {base, 0x2}}},
		{"a lane over two sectors", []uint64{base + 24}, 16, 2, []Unit{{base, 0x3}}},
		{"a lane over two lines", []uint64{base + 120}, 16, 2, []Unit{{base, 0x8}, {base + 128, 0x1}}},
		{"none", nil, 16, 0, []Unit{}},
	} {
		r := c.Serial(tc.addrs, tc.width)
		if r.Sectors != tc.sectors || r.Transactions != tc.sectors {
			t.Errorf("%s: %d sectors, %d transactions, want %d", tc.name, r.Sectors, r.Transactions, tc.sectors)
		}
		if want := min(len(tc.addrs), 1); r.Requests != want {
			t.Errorf("%s: %d requests, want %d", tc.name, r.Requests, want)
		}
		if !slices.Equal(r.Units(), tc.units) {
			t.Errorf("%s: units %v, want %v", tc.name, r.Units(), tc.units)
		}
	}
	// 32 lanes, two lines apart each: 64 units at most fit.
	if r := c.Serial(warp(func(l int) uint64 { return uint64(256*l + 120) }), 16); r.Sectors != 64 || len(r.Units()) != 64 {
		t.Errorf("32 straddling lanes: %d sectors in %d units, want 64 in 64", r.Sectors, len(r.Units()))
	}
}

// Strided answers exactly as Coalesce on the lanes' addresses, on every mode, for
// shapes it remembers (the same shape at many bases, so most calls move a remembered
// answer) and for those it cannot (negative strides, the top of the address space).
func TestStridedIsCoalesce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	strides := []int64{0, 1, 2, 4, 8, 12, 16, 32, 64, 128, 132, 4096, 1 << 20, 1 << 24, 1<<24 + 4, -4, -128}
	masks := []uint32{^uint32(0), 0xFFFF, 0xFFFF0000, 0x80000001, 1, 0x55555555}
	for _, m := range []Mode{Lines128, Segments32, Sectors32} {
		memo, _ := New(m)
		ref, _ := New(m)
		for n := 0; n < 20000; n++ {
			mask := masks[rng.IntN(len(masks))]
			if rng.IntN(4) == 0 {
				mask = rng.Uint32()
			}
			stride := strides[rng.IntN(len(strides))]
			width := []int{1, 2, 4, 8, 12, 16}[rng.IntN(6)]
			b := uint64(0x7000_0000) + uint64(rng.IntN(64))*128 + uint64(rng.IntN(8))*uint64(width)
			if rng.IntN(50) == 0 {
				b = ^uint64(0) - uint64(rng.IntN(1<<12)) // wraps: no frame to move
			}
			store := rng.IntN(2) == 0
			got := memo.Strided(mask, b, stride, width, store)
			var lanes []uint64
			for l := 0; l < 32; l++ {
				if mask&(1<<l) != 0 {
					lanes = append(lanes, b+uint64(stride*int64(l)))
				}
			}
			want := ref.Coalesce(mask, lanes, width, store)
			if got.Requests != want.Requests || got.Transactions != want.Transactions || got.Sectors != want.Sectors ||
				got.UsefulBytes != want.UsefulBytes || got.UnitBytes != want.UnitBytes || got.Mode != want.Mode ||
				!slices.Equal(got.units, want.units) || !slices.Equal(got.ends, want.ends) {
				t.Fatalf("%s mask %#x base %#x stride %d width %d store %v:\n got %+v\nwant %+v", m, mask, b, stride, width, store, got, want)
			}
		}
	}
}
