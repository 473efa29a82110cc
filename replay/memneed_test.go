package replay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/sysmem"
	"github.com/gtrace/gtrace/models/arch"
)

// withMemory makes availableMemory report limit bytes for the test's duration.
func withMemory(t *testing.T, limit uint64) {
	old := availableMemory
	availableMemory = func() (sysmem.Limit, bool) { return sysmem.Limit{Bytes: limit, Source: "the test's limit"}, true }
	t.Cleanup(func() { availableMemory = old })
}

// TestModelMemoryRefusedBeforeBuilding: a configuration whose models cannot fit in the
// memory left is refused with what needs it and the key that sets it, before anything
// is built (the engines used to die in the Go runtime on --set sm.count=100000000,
// dram.banks=1000000000, sm.max_warps=100000000 with the timing engine); a
// configuration that fits to the byte is replayed.
func TestModelMemoryRefusedBeforeBuilding(t *testing.T) {
	r := traceOf(t, "add_vectors", "n=4096")
	l := &r.Meta().Launches[0]
	engines := map[bool]func(context.Context, *arch.Config, Options) (*Report, error){
		false: func(ctx context.Context, c *arch.Config, o Options) (*Report, error) { return Memory(ctx, r, c, o) },
		true:  func(ctx context.Context, c *arch.Config, o Options) (*Report, error) { return Timing(ctx, r, c, o) },
	}
	for _, tc := range []struct {
		set    string
		timing bool
		keys   string
	}{
		{"sm.count=100000000", false, "sm.count, l1.*, tex.*, const.*"},
		{"sm.count=100000000", true, "sm.count, l1.*, tex.*, const.*"},
		{"dram.banks=1000000000", false, "dram.channels, dram.banks"},
		{"l2.size=100000MB", false, "l2.size, l2.slices"},
		{"sm.max_warps=100000000", true, "sm.count × sm.max_warps"},
	} {
		withMemory(t, 8e9)
		_, err := engines[tc.timing](context.Background(), preset(t, "hopper", tc.set), Options{})
		var me *MemoryError
		if !errors.As(err, &me) || me.Parts[0].Keys != tc.keys || me.Need <= 8e9 {
			t.Errorf("%s (timing %v): %v, want a MemoryError over 8 GB led by %s", tc.set, tc.timing, err, tc.keys)
			continue
		}
		for _, s := range []string{"before the first warp runs", sysmem.Size(me.Need), "the test's limit", tc.keys} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q lacks %q", tc.set, err, s)
			}
		}
	}
	for timing, run := range engines {
		cfg := preset(t, "hopper")
		kc, occ, err := kernelConfig(cfg, l)
		if err != nil {
			t.Fatal(err)
		}
		need := uint64(0)
		for _, p := range modelMemory(kc, occ, l.WarpsPerCTA(), timing) {
			need += p.Bytes()
		}
		withMemory(t, need)
		if _, err := run(context.Background(), cfg, Options{}); err != nil {
			t.Errorf("timing %v: the models' %d B exactly: %v", timing, need, err)
		}
		withMemory(t, need-1)
		if _, err := run(context.Background(), cfg, Options{}); !errors.As(err, new(*MemoryError)) {
			t.Errorf("timing %v: one byte short of the models' %d B: %v, want a MemoryError", timing, need, err)
		}
	}
}

// TestMemoryPartSaturates: a product past 2^64 is the largest need, not a small one.
func TestMemoryPartSaturates(t *testing.T) {
	if b := (MemoryPart{Count: 1 << 40, Each: 1 << 30}).Bytes(); b != 1<<64-1 {
		t.Errorf("2^70 B reads as %d", b)
	}
	cfg, err := arch.Preset("hopper", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SM.Count = 1 << 62
	withMemory(t, 1<<40)
	if err := checkModelMemory(cfg, arch.CTAOccupancy{}, 1, true); !errors.As(err, new(*MemoryError)) {
		t.Errorf("2^62 SMs: %v, want a MemoryError", err)
	}
}
