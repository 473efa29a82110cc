package constcache

import (
	"testing"

	"github.com/gtrace/gtrace/models/cache"
)

// Hopper-like: a small IDC in front of a GCC.
var hopper = Config{
	L1:  cache.Config{Size: 2 << 10, Line: 64, Ways: 4},
	L15: cache.Config{Size: 64 << 10, Line: 64, Ways: 8},
}

// Fermi-like: one 8 KB level (gpgpu-sim N:64:64:2).
var fermi = Config{L1: cache.Config{Size: 8 << 10, Line: 64, Sets: 64, Sector: 64}}

func warp(f func(lane int) uint64) []uint64 {
	a := make([]uint64, 32)
	for i := range a {
		a[i] = 0x100 + f(i)
	}
	return a
}

func TestSeedRequests(t *testing.T) {
	for _, cfg := range []Config{hopper, fermi} {
		for _, tc := range []struct {
			name  string
			addrs []uint64
			want  int
		}{
			{"c_array[0]", warp(func(int) uint64 { return 0 }), 1},
			{"c_array[blockIdx.x]", warp(func(int) uint64 { return 4 * 7 }), 1},
			{"c_array[threadIdx.x]", warp(func(l int) uint64 { return 4 * uint64(l) }), 32},
			{"c_array[threadIdx.x/2]", warp(func(l int) uint64 { return 4 * uint64(l/2) }), 16},
		} {
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for rep := 0; rep < 10; rep++ {
				if r := c.Access(tc.addrs, 4); r.Requests != tc.want {
					t.Fatalf("%s: %d requests, want %d", tc.name, r.Requests, tc.want)
				}
			}
			if s := c.Stats(); s.Requests != uint64(10*tc.want) || s.Instructions != 10 {
				t.Errorf("%s: stats %+v", tc.name, s)
			}
		}
	}
}

// The levels: a first touch misses both; the repeat hits the IDC; a working
// set bigger than the IDC but inside the GCC hits at level 1.5.
func TestLevels(t *testing.T) {
	c, _ := New(hopper)
	a := []uint64{0x0}
	if r := c.Access(a, 4); r.L1Misses != 1 || r.L15Misses != 1 || r.L2Sectors != 1 {
		t.Fatalf("cold: %+v", r)
	}
	if r := c.Access(a, 4); r.L1Hits != 1 {
		t.Fatalf("warm: %+v", r)
	}
	// Stream 8 KB (4× the IDC) twice: the second pass hits the GCC, not the IDC.
	for pass := 0; pass < 2; pass++ {
		var hits15, hits1 int
		for off := uint64(0x1000); off < 0x1000+8<<10; off += 64 {
			r := c.Access([]uint64{off}, 4)
			hits15 += r.L15Hits
			hits1 += r.L1Hits
		}
		if pass == 1 && (hits1 != 0 || hits15 != 128) {
			t.Fatalf("second pass over 8 KB: %d IDC hits, %d GCC hits; want 0 and 128", hits1, hits15)
		}
	}
}

func TestNoAllocation(t *testing.T) {
	c, _ := New(hopper)
	a := warp(func(l int) uint64 { return 4 * uint64(l) })
	if n := testing.AllocsPerRun(1000, func() { c.Access(a, 4) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkAccess(b *testing.B) {
	for _, bc := range []struct {
		name string
		f    func(int) uint64
	}{{"uniform", func(int) uint64 { return 0 }}, {"divergent", func(l int) uint64 { return 4 * uint64(l) }}} {
		b.Run(bc.name, func(b *testing.B) {
			c, _ := New(hopper)
			a := warp(bc.f)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.Access(a, 4)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "warp-inst/s")
		})
	}
}
