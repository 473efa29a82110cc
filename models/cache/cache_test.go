package cache

import (
	"strings"
	"testing"
)

func TestGeometry(t *testing.T) {
	for _, tc := range []struct {
		cfg                      Config
		line, sector, sets, ways int
		err                      string
	}{
		{cfg: Config{Size: 16 << 10, Ways: 4}, line: 128, sector: 32, sets: 32, ways: 4},
		{cfg: Config{Size: 128 << 10, Sets: 4}, line: 128, sector: 32, sets: 4, ways: 256},
		{cfg: Config{Size: 48 << 10, Sets: 32, SetIndex: FermiHash}, line: 128, sector: 32, sets: 32, ways: 12},
		{cfg: Config{}, line: 128, sector: 32},
		{cfg: Config{Size: 48 << 10, Ways: 4, SetIndex: FermiHash}, err: "32 or 64 sets"},
		{cfg: Config{Size: 1000, Ways: 4}, err: "not a multiple"},
		{cfg: Config{Size: 4096, Line: 96, Ways: 4}, err: "power of two"},
		{cfg: Config{Size: 4096, Sector: 48, Ways: 4}, err: "multiple of 32"},
		{cfg: Config{Size: 4096}, err: "give sets or ways"},
		{cfg: Config{Size: 4096, Sets: 4, Ways: 4}, err: "not size"},
		{cfg: Config{Size: 3 * 4096, Ways: 4, SetIndex: XORFold}, err: "power-of-two"},
	} {
		line, sector, sets, ways, err := tc.cfg.Geometry()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: err %v, want %q", tc.cfg, err, tc.err)
			}
			continue
		}
		if err != nil || line != tc.line || sector != tc.sector || sets != tc.sets || ways != tc.ways {
			t.Errorf("%+v: got %d %d %d %d %v", tc.cfg, line, sector, sets, ways, err)
		}
	}
}

func TestMask(t *testing.T) {
	c, _ := New(Config{Size: 4096, Ways: 4})
	for _, tc := range []struct {
		addr uint64
		size int
		want uint8
	}{
		{0x1000, 4, 0b0001},
		{0x101c, 8, 0b0011},   // straddles sectors 0 and 1
		{0x1004, 128, 0b1111}, // clipped at the end of the line
		{0x1060, 32, 0b1000},
		{0x1000, 0, 0},
	} {
		if got := c.Mask(tc.addr, tc.size); got != tc.want {
			t.Errorf("Mask(%#x, %d) = %04b, want %04b", tc.addr, tc.size, got, tc.want)
		}
	}
}

// An absent cache (size 0) forwards everything and keeps nothing.
func TestAbsent(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if r := c.Access(0x40, 0b0011, Load); r.Miss != 0b0011 || r.Fetch != 0b0011 {
			t.Fatalf("load %d: %+v", i, r)
		}
	}
	if r := c.Access(0x40, 0b0001, Store); r.Forward != 0b0001 {
		t.Fatalf("store: %+v", r)
	}
}

func TestNoAllocation(t *testing.T) {
	c, _ := New(Config{Size: 64 << 10, Sets: 4, MSHRs: 8})
	addr := uint64(0)
	n := testing.AllocsPerRun(1000, func() {
		c.Access(addr, 0b0101, Load)
		c.Access(addr+64, 0b0001, Store)
		addr += 128
	})
	if n != 0 {
		t.Fatalf("%v allocations per access", n)
	}
}

func BenchmarkAccess(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"fermi-l1-16KB", Config{Size: 16 << 10, Sets: 32, Sector: 128, SetIndex: FermiHash, Write: WriteEvict}},
		{"ampere-l1-128KB", Config{Size: 128 << 10, Sets: 4, Write: WriteThrough, MSHRs: 64}},
		{"l2-slice-640KB", Config{Size: 640 << 10, Ways: 20, WriteAllocate: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := New(bc.cfg)
			if err != nil {
				b.Fatal(err)
			}
			// A stream with reuse: 4 passes over a window 2x the cache, strided by sector.
			span := uint64(2 * bc.cfg.Size)
			b.ReportAllocs()
			b.ResetTimer()
			addr := uint64(0)
			for i := 0; i < b.N; i++ {
				c.Access(addr%span, 1<<(i&3), Op(i&1))
				addr += 32
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
		})
	}
}

// The line index used for many-way sets must behave exactly like a tag scan.
func TestIndexMatchesScan(t *testing.T) {
	cfg := Config{Size: 64 << 10, Sets: 4, MSHRs: 4, Write: WriteEvict}
	fast, _ := New(cfg)
	slow, _ := New(cfg)
	slow.index = nil
	x := uint64(12345)
	for i := 0; i < 200000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		addr := (x % (256 << 10)) &^ 31
		op := Op(x >> 60 & 1)
		mask := uint8(1 + x>>40%15)
		if a, b := fast.Access(addr, mask, op), slow.Access(addr, mask, op); a != b {
			t.Fatalf("access %d (%#x %04b %v): index %+v, scan %+v", i, addr, mask, op, a, b)
		}
		if i%1000 == 0 {
			fast.Drain()
			slow.Drain()
		}
	}
	if fast.Stats() != slow.Stats() {
		t.Fatalf("stats differ: %+v vs %+v", fast.Stats(), slow.Stats())
	}
}

// TestClean: Clean returns a line's dirty chunks once, keeps the line valid, and an
// eviction of it afterwards writes nothing back.
func TestClean(t *testing.T) {
	c, err := New(Config{Size: 256, Line: 128, Sector: 32, Ways: 1, Write: WriteBack, WriteAllocate: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Clean(0x80); d != 0 {
		t.Fatalf("clean before any access: %04b", d)
	}
	c.Access(0x80, 0b0110, Store)
	if d := c.Clean(0x80); d != 0b0110 {
		t.Fatalf("clean: %04b, want 0110", d)
	}
	if d := c.Clean(0x80); d != 0 {
		t.Fatalf("second clean: %04b", d)
	}
	if r := c.Access(0x80, 0b0110, Load); r.Hit != 0b0110 {
		t.Fatalf("load after clean: %+v", r)
	}
	if r := c.Access(0x180, 0b0001, Load); !r.Evicted || r.EvictDirty != 0 {
		t.Fatalf("eviction after clean: %+v", r)
	}
	if s := c.Stats(); s.WrittenBack != 2 {
		t.Fatalf("written back %d chunks, want 2", s.WrittenBack)
	}
}
