package dram

import (
	"math/rand/v2"
	"testing"
)

// Kepler TITAN-like: 12 channels, 16 banks, 2 KB rows, 32 B bursts (BL8 × 4 B),
// 256 B interleave (gpgpu-sim SM3_KEPLER_TITAN [M]).
var titan = Config{Channels: 12, Banks: 16, RowBytes: 2048, BurstLength: 8, BusBytes: 4, Interleave: 256}

func TestMap(t *testing.T) {
	m, _ := New(titan)
	for _, tc := range []struct {
		addr uint64
		want Location
	}{
		{0, Location{0, 0, 0}},
		{255, Location{0, 0, 0}},
		{256, Location{1, 0, 0}},
		{12 * 256, Location{0, 0, 0}},          // wraps to channel 0: local address 256
		{12 * 256 * 8, Location{0, 1, 0}},      // local 2048: next bank
		{12 * 256 * 8 * 16, Location{0, 0, 1}}, // local 32 KB: bank 0, next row
	} {
		if got := m.Map(tc.addr); got != tc.want {
			t.Errorf("Map(%#x) = %+v, want %+v", tc.addr, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []Config{
		{},
		{Channels: 4, Banks: 4, RowBytes: 2048, BurstLength: 8, BusBytes: 16, Interleave: 256}, // 128 B burst
		{Channels: 4, Banks: 4, RowBytes: 2048, BurstLength: 3, BusBytes: 4, Interleave: 256},  // 12 B burst
		{Channels: 4, Banks: 4, RowBytes: 2048, BurstLength: 8, BusBytes: 4, Interleave: 16},
		{Channels: 4, Banks: 4, RowBytes: 48, BurstLength: 8, BusBytes: 4, Interleave: 256},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// A struct of four floats, read one field at a time by warps of 32 lanes, in
// three layouts (seed 002): AoS, SoA, and ASTA with tiles of T elements.
const N = 4096

func layoutAddr(layout string, tile, i, field int) uint64 {
	switch layout {
	case "AoS":
		return uint64(16*i + 4*field)
	case "SoA":
		return uint64(4*N*field + 4*i)
	default: // ASTA: tiles of `tile` elements, each tile a small SoA
		return uint64(16*tile*(i/tile) + 4*tile*field + 4*(i%tile))
	}
}

func TestLayouts(t *testing.T) {
	for _, tc := range []struct {
		layout string
		tile   int
		util   float64 // burst utilisation, percent: exact for these streams
	}{
		{"AoS", 0, 25},    // a 32 B burst holds 2 structs: 8 of its bytes are x
		{"SoA", 0, 100},   // 32 lanes read 128 contiguous bytes
		{"ASTA", 32, 100}, // tile ≥ warp: like SoA within a tile
		{"ASTA", 4, 50},   // 16 B of x then 16 B of y in each burst
	} {
		m, _ := New(titan)
		for field := 0; field < 4; field++ {
			for i := 0; i < N; i++ {
				m.Access(layoutAddr(tc.layout, tc.tile, i, field), 4, false)
			}
		}
		s := m.Stats()
		if s.BurstUtilization() != tc.util || s.ReadBytes != 16*N {
			t.Errorf("%s/%d: burst utilisation %.2f%% (%d useful / %d moved), want %.0f%%",
				tc.layout, tc.tile, s.BurstUtilization(), s.UsefulBytes, s.BurstBytes, tc.util)
		}
	}
}

// Partition camping: reading one column of a row-major float matrix whose
// row pitch is Channels × Interleave puts every access on one channel.
func TestPartitionCamping(t *testing.T) {
	pitch := uint64(titan.Channels * titan.Interleave)
	for _, tc := range []struct {
		name      string
		hash      bool
		column    bool
		imbalance func(float64) bool
	}{
		{"column, linear mapping", false, true, func(x float64) bool { return x == 12 }},
		{"column, hashed mapping", true, true, func(x float64) bool { return x < 1.5 }},
		{"row, linear mapping", false, false, func(x float64) bool { return x == 1 }},
		{"row, hashed mapping", true, false, func(x float64) bool { return x == 1 }},
	} {
		cfg := titan
		cfg.Hash = tc.hash
		m, _ := New(cfg)
		for i := uint64(0); i < 12*1024; i++ {
			if tc.column {
				m.Access(i*pitch, 4, false)
			} else {
				m.Access(i*4, 4, false)
			}
		}
		s := m.Stats()
		if !tc.imbalance(s.ChannelImbalance()) {
			t.Errorf("%s: imbalance %.3f (cv %.3f)", tc.name, s.ChannelImbalance(), s.ChannelCV())
		}
	}
}

func TestRowBuffer(t *testing.T) {
	seq, _ := New(titan)
	for a := uint64(0); a < 12*2048*128; a += 32 { // 128 whole rows per channel
		seq.Access(a, 32, false)
	}
	// Per channel a 2 KB row holds 64 bursts: 1 miss then 63 hits.
	if got := seq.Stats().RowHitRate(); got != 100*63.0/64 {
		t.Errorf("sequential row hit rate %.3f%%, want %.3f%%", got, 100*63.0/64)
	}
	rnd, _ := New(titan)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 1<<16; i++ {
		rnd.Access(uint64(rng.IntN(1<<30))&^31, 32, false)
	}
	if got := rnd.Stats().RowHitRate(); got > 5 {
		t.Errorf("random row hit rate %.2f%%, want under 5%%", got)
	}
}

// A request spanning bursts moves each once; a write does not merge into a read burst.
func TestBursts(t *testing.T) {
	m, _ := New(titan)
	m.Access(16, 64, false) // bytes 16..79: bursts 0, 32, 64
	m.Access(64, 8, true)   // same burst as the last read, but a write
	s := m.Stats()
	if s.Bursts != 4 || s.UsefulBytes != 72 || s.WriteBytes != 8 {
		t.Fatalf("%+v", s)
	}
}

func TestNoAllocation(t *testing.T) {
	m, _ := New(titan)
	a := uint64(0)
	if n := testing.AllocsPerRun(1000, func() { m.Access(a, 32, false); a += 4096 }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkAccess(b *testing.B) {
	cfg := titan
	cfg.Hash = true
	m, _ := New(cfg)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.Access(uint64(i)*32*7, 32, i&3 == 0)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
}

// Move costs bursts but adds no useful bytes: a 32-byte read plus its 32-byte neighbour
// moved alongside is two 32-byte bursts at 50% utilisation.
func TestMoveIsNotUseful(t *testing.T) {
	m, err := New(Config{Channels: 2, Banks: 4, RowBytes: 2048, BurstLength: 4, BusBytes: 8, Interleave: 256})
	if err != nil {
		t.Fatal(err)
	}
	m.Access(0, 32, false)
	m.Move(32, 32, false)
	s := m.Stats()
	if s.Bursts != 2 || s.BurstBytes != 64 || s.ReadBytes != 32 || s.BurstUtilization() != 50 || s.RowHits != 1 {
		t.Errorf("stats %+v, utilisation %v: want 2 bursts, 64 B moved, 32 B read, 50%%, 1 row hit", s, s.BurstUtilization())
	}
}
