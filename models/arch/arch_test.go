package arch

import (
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/coalesce"
)

// Every preset builds, validates, and gives every key a source.
func TestPresetsValid(t *testing.T) {
	for _, name := range Names() {
		arch, gpu, _ := strings.Cut(name, "/")
		c, err := Preset(arch, gpu)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, k := range c.Keys() {
			if k.Source == "" {
				t.Errorf("%s: %s = %s has no source", name, k.Key, k.Value)
			}
		}
	}
}

// Values the issue names, checked preset by preset.
func TestPresetValues(t *testing.T) {
	for _, tc := range []struct {
		arch, gpu string
		want      map[string]string
	}{
		{"fermi", "", map[string]string{"name": "GeForce GTX 480", "l1.size": "16KB", "shared.size": "48KB", "l1.line": "128",
			"l1.cache_global": "true", "l2.size": "768KB", "dram.type": "GDDR5", "coalescer": "fermi-128B-lines"}},
		{"fermi", "c2050", map[string]string{"sm.count": "14", "l2.size": "768KB"}},
		{"kepler", "", map[string]string{"name": "Tesla K20X", "l1.cache_global": "false", "tex.size": "48KB", "shared.bank_width": "4"}},
		{"kepler", "titan", map[string]string{"sm.clock_mhz": "837"}},
		{"ampere", "", map[string]string{"name": "A100 SXM4 40GB", "l1.line": "128", "l1.sector": "32", "coalescer": "sectored-32B", "dram.type": "HBM2"}},
		{"ampere", "rtx3090", map[string]string{"dram.type": "GDDR6X", "l2.size": "6MB", "sm.max_warps": "48"}},
		{"hopper", "", map[string]string{"l1.unified_size": "256KB", "l2.size": "50MB", "dram.type": "HBM3", "const.l15.size": "64KB"}},
		{"hopper", "h200", map[string]string{"l2.size": "60MB", "dram.type": "HBM3e", "dram.channels": "48"}},
	} {
		c, err := Preset(tc.arch, tc.gpu)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range tc.want {
			if got, err := c.Get(k); err != nil || got != want {
				t.Errorf("%s/%s %s = %q (%v), want %q", tc.arch, tc.gpu, k, got, err, want)
			}
		}
	}
}

func TestPresetErrors(t *testing.T) {
	for _, tc := range []struct{ arch, gpu, want string }{
		{"volta", "", "fermi, kepler, ampere, hopper"},
		{"hopper", "h800", "h100, h200"},
	} {
		if _, err := Preset(tc.arch, tc.gpu); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Preset(%q, %q) = %v, want an error listing %q", tc.arch, tc.gpu, err, tc.want)
		}
	}
}

// The switches the issue names, and what they change.
func TestSwitches(t *testing.T) {
	f, _ := Preset("fermi", "")
	if f.GlobalLoadMode() != coalesce.Lines128 {
		t.Fatalf("fermi default: %v", f.GlobalLoadMode())
	}
	if err := f.Set("l1.cache_global", "false"); err != nil {
		t.Fatal(err)
	}
	if f.GlobalLoadMode() != coalesce.Segments32 {
		t.Errorf("fermi l1.cache_global=false: %v, want 32 B segments", f.GlobalLoadMode())
	}
	// 48 KB L1 / 16 KB shared.
	if err := f.Set("shared.size", "16KB"); err != nil {
		t.Fatal(err)
	}
	if f.L1.Size != 48<<10 || f.Validate() != nil {
		t.Errorf("fermi 48/16: l1 %d, %v", f.L1.Size, f.Validate())
	}
	if _, _, sets, ways, _ := f.L1.Geometry(); sets != 32 || ways != 12 {
		t.Errorf("fermi 48 KB L1: %d sets x %d ways", sets, ways)
	}
	if err := f.Set("l1.size", "32KB"); err == nil || !strings.Contains(err.Error(), "shared.size") {
		t.Errorf("setting derived l1.size: %v", err)
	}

	k, _ := Preset("kepler", "")
	if k.GlobalLoadMode() != coalesce.Segments32 {
		t.Errorf("kepler default global loads: %v, want L2-only segments", k.GlobalLoadMode())
	}
	if err := k.Set("shared.bank_width", "8"); err != nil || k.Shared.BankWidth != 8 || k.Source("shared.bank_width") != "set" {
		t.Errorf("kepler bank width 8: %v %d %q", err, k.Shared.BankWidth, k.Source("shared.bank_width"))
	}

	h, _ := Preset("hopper", "")
	if s, l1 := h.SharedCarveout(100 << 10); s != 100<<10 || l1 != 156<<10 {
		t.Errorf("hopper carve-out for 100 KB: shared %d, l1 %d", s, l1)
	}
	if s := h.L2.Slice(); s.Size != 640<<10 {
		t.Errorf("hopper L2 slice %d B, want 640 KB", s.Size)
	}
	if h.L1.Write != cache.WriteThrough || f.L1.Write != cache.WriteEvict {
		t.Errorf("write policies: hopper %v, fermi %v", h.L1.Write, f.L1.Write)
	}
}

func TestSetErrors(t *testing.T) {
	c, _ := Preset("ampere", "")
	for _, tc := range []struct{ key, value, want string }{
		{"l1.sise", "1", `near: l1.size`},
		{"dram.channel", "8", "dram.channels"},
		{"bank_width", "8", "shared.bank_width"},
		{"l2.size", "big", "not a size"},
		{"l1.cache_global", "maybe", "invalid syntax"},
		{"l1.write", "write-around", "write-back"},
		{"coalescer", "fermi", "sectored-32B"},
		{"l2.slice_map", "hash", "granules"},
		{"l2.atomic_pass_clk", "fast", "invalid syntax"},
		{"l2.partition_bits", "12,64", "not an address bit"},
		{"l2.partition_bits", "21-13", "from its lower bit"},
		{"l2.partition_bits", "12,12", "given twice"},
	} {
		if err := c.Set(tc.key, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%q, %q) = %v, want it to mention %q", tc.key, tc.value, err, tc.want)
		}
	}
}

// Validate catches what a user can get wrong, naming the key.
func TestValidate(t *testing.T) {
	for _, tc := range []struct{ arch, key, value, want string }{
		{"fermi", "l1.set_index", "fermi", ""}, // fine as is
		{"fermi", "l1.sets", "16", "32 or 64 sets"},
		{"ampere", "shared.size", "48KB", "not one of shared.carveouts"},
		{"kepler", "shared.bank_width", "16", "shared.bank_width"},
		{"hopper", "l2.slices", "7", "l2.size"},
		{"hopper", "dram.bus_bytes", "64", "burst"},
		{"ampere", "sm.simt", "warp", "sm.simt"},
		{"hopper", "l2.atomic_pass_clk", "0.5", "l2.atomic_pass_clk"},
		{"hopper", "l2.atomic_pass_clk", "NaN", "l2.atomic_pass_clk"},
		{"hopper", "lat.branch", "-1", "lat.branch"},
		{"fermi", "lat.branch", "0", ""},
		{"hopper", "dram.row_hit_ns", "28.5", "dram.row_hit_ns"}, // past dram.row_miss_ns (28)
		{"hopper", "dram.row_hit_ns", "-1", "dram.row_hit_ns"},
		{"hopper", "dram.row_hit_ns", "14", ""},
		{"hopper", "lat.ldg_64", "-1", "lat.ldg_64"},
		{"hopper", "lat.ldg_128", "20", "lat.ldg_128"}, // below lat.ldg_64 (23)
		{"ampere", "lat.ldg_128", "30", ""},
		{"hopper", "l2.partition_bits", "6,12", "within an l2.line"},
		{"ampere", "l2.partition_bits", "12", "l2.partitions 2"}, // one partition
		{"hopper", "l2.partition_bits", "none", ""},
		{"hopper", "lat.dram_far_ns", "-1", "lat.dram_far_ns"},
		{"hopper", "sm.lsu_queue_cycles", "0", "sm.lsu_queue_cycles"},
		{"hopper", "sm.lsu_miss_line_cycles", "-0.5", "sm.lsu_miss_line_cycles"},
		{"hopper", "sm.lsu_partial_line_cycles", "NaN", "sm.lsu_partial_line_cycles"},
		{"hopper", "sm.lsu_store_sector_cycles", "1", "sm.lsu_stores"}, // a store path with no room
		{"hopper", "sm.lsu_miss_sector_cycles", "0.5", ""},
		{"hopper", "sm.lsu_stores", "40", "no path of their own"},          // ignored without a store path
		{"hopper", "sm.lsu_store_reg_cycles", "1", "no path of their own"}, // likewise
		{"hopper", "sm.s2r_cycles", "2", "lat.s2r is 0"},                   // ignored without lat.s2r
		{"hopper", "sm.store_merge_lines", "24", "no path of their own"},   // likewise
		{"hopper", "sm.store_merge_lines", "-1", "sm.store_merge_lines"},
		{"hopper", "lat.s2r", "-1", "lat.s2r"},
		{"hopper", "lat.s2r", "23", ""},
		{"hopper", "lat.bar_shared", "61", "set lat.bar too"}, // ignored without lat.bar
		{"hopper", "lat.bar_global", "-1", "lat.bar_global"},
		{"hopper", "lat.bar", "14", ""},
	} {
		c, _ := Preset(tc.arch, "")
		if err := c.Set(tc.key, tc.value); err != nil {
			t.Fatal(err)
		}
		err := c.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s %s=%s: %v", tc.arch, tc.key, tc.value, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s=%s: Validate() = %v, want %q", tc.arch, tc.key, tc.value, err, tc.want)
		}
	}
}

func TestLoad(t *testing.T) {
	c, err := Load(strings.NewReader(`
# a what-if H100
base = hopper/h100
name = H100 big L2
l2.size = 80MB   # what-if
l2.slices = 128
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.L2.Size != 80<<20 || c.Source("l2.size") != "what-if" || c.Source("l2.slices") != "config line 6" || c.Name != "H100 big L2" {
		t.Errorf("loaded %d %q %q %q", c.L2.Size, c.Source("l2.size"), c.Source("l2.slices"), c.Name)
	}
	for _, tc := range []struct {
		text string
		line int
		want string
	}{
		{"l2.size = 1MB\n", 1, "base"},
		{"base = hopper/h100\nl2.sise = 1MB\n", 2, "near: l2.size"},
		{"base = hopper\nbase = fermi\n", 2, "twice"},
		{"base = tesla/x\n", 1, "unknown arch"},
		{"base = hopper\nl2.size 5\n", 2, "key = value"},
	} {
		_, err := Load(strings.NewReader(tc.text))
		var le *LoadError
		if !errors.As(err, &le) || le.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) = %v, want line %d mentioning %q", tc.text, err, tc.line, tc.want)
		}
	}
	// A file that parses but does not validate.
	if _, err := Load(strings.NewReader("base = ampere\nshared.size = 50KB\n")); err == nil {
		t.Error("invalid carve-out accepted")
	}
}

// Keys round-trip: setting every key to the value it prints changes nothing.
func TestKeysRoundTrip(t *testing.T) {
	for _, name := range Names() {
		arch, gpu, _ := strings.Cut(name, "/")
		a, _ := Preset(arch, gpu)
		b := a.Clone()
		for _, k := range a.Keys() {
			if a.Derived(k.Key) {
				continue
			}
			if err := b.Set(k.Key, k.Value); err != nil {
				t.Fatalf("%s: Set(%s, %s): %v", name, k.Key, k.Value, err)
			}
		}
		ka, kb := a.Keys(), b.Keys()
		for i := range ka {
			if ka[i].Value != kb[i].Value {
				t.Errorf("%s: %s %q -> %q", name, ka[i].Key, ka[i].Value, kb[i].Value)
			}
		}
	}
}

// Preset returns a fresh copy: changing one does not change the next.
func TestPresetIsACopy(t *testing.T) {
	a, _ := Preset("hopper", "")
	a.Set("shared.carveouts", "0")
	b, _ := Preset("hopper", "")
	if len(b.Shared.Carveouts) != 10 {
		t.Fatalf("preset changed by an earlier Set: %v", b.Shared.Carveouts)
	}
}

// Under the granules map the two lines of a 256-byte granule share a slice, a 1 KB
// block's granules alternate between two slices, and each slice still sees every set
// of a linear index (no half of a slice left unused).
func TestSliceMapGranules(t *testing.T) {
	const n, sets = 80, 256
	base := uint64(0x7f3a00000000)
	s := func(line int) int { return SliceGranules.Slice(base+uint64(line)*128, n) }
	for k, same := range map[int]bool{1: true, 2: false, 3: false, 4: true, 5: true, 6: false, 7: false, 8: false} {
		if got := s(k) == s(0); got != same {
			t.Errorf("lines 0 and %d on one slice: %v, want %v", k, got, same)
		}
	}
	for _, l := range []int{8, 16, 32} {
		seen := map[int]bool{}
		for i := range l {
			seen[s(i)] = true
		}
		if len(seen) != l/4 {
			t.Errorf("%d consecutive lines on %d slices, want %d", l, len(seen), l/4)
		}
	}
	used := map[[2]int]bool{}
	for i := range 50 << 20 >> 7 {
		used[[2]int{s(i), int((base>>7 + uint64(i)) % sets)}] = true
	}
	if len(used) != n*sets {
		t.Errorf("50 MB of lines use %d of %d (slice, set) pairs", len(used), n*sets)
	}
	if SliceLines.Slice(base, n) == SliceLines.Slice(base+128, n) {
		t.Error("lines: two consecutive lines on one slice")
	}
}

// AddrBits reads and writes bit lists and runs, and its parity is the XOR of the bits.
func TestAddrBits(t *testing.T) {
	for in, want := range map[string]string{"none": "none", "": "none", " 19, 12,13 ": "12,13,19",
		"12,13,15,17,19,21-47": "12,13,15,17,19,21-47", "7,8": "7,8", "0-63": "0-63", "3-5,6": "3-6"} {
		var b AddrBits
		if err := b.UnmarshalText([]byte(in)); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if out, _ := b.MarshalText(); string(out) != want {
			t.Errorf("%q reads back as %q, want %q", in, out, want)
		}
	}
	b := AddrBits(1<<12 | 1<<13)
	for addr, want := range map[uint64]int{0: 0, 1 << 12: 1, 1 << 13: 1, 3 << 12: 0, 1<<14 | 1<<11: 0} {
		if got := b.Parity(addr); got != want {
			t.Errorf("Parity(%#x) = %d, want %d", addr, got, want)
		}
	}
}
