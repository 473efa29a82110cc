package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// Every preset accepts a CTA at its per-CTA limits and refuses one byte, thread or
// register more, naming the limit. At the shared maximum a CTA fills the largest
// carve-out alone (CUDA Programming Guide, technical specifications and the unified
// L1/shared sections: the opt-in maximum plus the 1 KB the system reserves per CTA from
// cc 8.0 is exactly the largest carve-out).
func TestLaunchLimitsEveryPreset(t *testing.T) {
	for _, a := range arch.Archs() {
		for _, gpu := range arch.GPUs(a) {
			cfg := presetOf(t, a, gpu)
			name := a + "/" + gpu
			limit := cfg.Shared.MaxPerCTA
			launch := func(threads, regs, shared int) *format.Launch {
				return &format.Launch{Kernel: "k", Grid: format.Dim3{X: 1, Y: 1, Z: 1},
					Block: format.Dim3{X: uint32(threads), Y: 1, Z: 1}, RegsPerThread: uint32(regs), SharedBytes: uint32(shared)}
			}
			// At the limit: one CTA per SM, bound by shared memory, in the largest carve-out.
			got, occ, err := kernelConfig(cfg, launch(256, 32, limit))
			if err != nil {
				t.Errorf("%s: %d shared bytes (the per-CTA maximum) refused: %v", name, limit, err)
				continue
			}
			if occ.CTAsPerSM != 1 || occ.Limiter != "shared" {
				t.Errorf("%s at the shared maximum: %d CTAs/SM limited by %s, want 1 by shared", name, occ.CTAsPerSM, occ.Limiter)
			}
			if largest := slices.Max(cfg.Shared.Carveouts); got.Shared.Size != largest {
				t.Errorf("%s at the shared maximum: carve-out %d, want the largest, %d", name, got.Shared.Size, largest)
			}
			// One byte over each limit: refused, naming the key and the value.
			for _, over := range []struct {
				key   string
				value int
				l     *format.Launch
			}{
				{"shared.max_per_cta", limit + 1, launch(256, 32, limit+1)},
				{"sm.max_threads_per_cta", cfg.SM.MaxThreadsPerCTA + 1, launch(cfg.SM.MaxThreadsPerCTA+1, 16, 0)},
				{"sm.max_regs_per_thread", cfg.SM.MaxRegsPerThread + 1, launch(32, cfg.SM.MaxRegsPerThread+1, 0)},
			} {
				_, _, err := kernelConfig(cfg, over.l)
				var le *LimitError
				if !errors.As(err, &le) || le.Key != over.key || le.Value != over.value {
					t.Errorf("%s: %s one over (%d): got %v, want a LimitError naming %s and %d", name, over.key, over.value, err, over.key, over.value)
				}
				if err != nil && !strings.Contains(err.Error(), fmt.Sprint(over.value)) {
					t.Errorf("%s: error %q does not name the value %d", name, err, over.value)
				}
			}
		}
	}
}

// The carve-out follows occupancy as the driver sizes it: the CTAs that fit in the largest
// carve-out, then the smallest carve-out that holds them (values for one Hopper SM).
func TestCarveoutFollowsOccupancy(t *testing.T) {
	cfg := presetOf(t, "hopper", "h100")
	for _, tc := range []struct {
		threads, shared int
		ctas, carveKB   int
	}{
		// The launch: 120000 B + 1 KB reserved = 121088 B after rounding; two
		// would need 242176 B > 228 KB, so one CTA, in the 132 KB carve-out.
		{256, 120000, 1, 132},
		// 48 KB + 1 KB, 8 CTAs by warps (2048 / 256): 401408 B > 228 KB, so 4 CTAs by
		// shared (233472 / 50176) in 196 KB, more than the 64 KB default would allow.
		{256, 48 << 10, 4, 196},
		// 4 KB + 1 KB, 8 CTAs by warps: 40 KB, the 64 KB carve-out.
		{256, 4 << 10, 8, 64},
		// No shared memory: the preset's default split stays.
		{256, 0, 8, 64},
	} {
		l := &format.Launch{Kernel: "k", Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: uint32(tc.threads), Y: 1, Z: 1}, SharedBytes: uint32(tc.shared)}
		got, occ, err := kernelConfig(cfg, l)
		if err != nil {
			t.Errorf("%d threads, %d shared: %v", tc.threads, tc.shared, err)
			continue
		}
		if occ.CTAsPerSM != tc.ctas || got.Shared.Size != tc.carveKB<<10 || got.L1.Size != got.L1.UnifiedSize-got.Shared.Size {
			t.Errorf("%d threads, %d shared: %d CTAs/SM in a %d B carve-out (L1 %d B), want %d in %d KB",
				tc.threads, tc.shared, occ.CTAsPerSM, got.Shared.Size, got.L1.Size, tc.ctas, tc.carveKB)
		}
	}
}

// A launch at each preset's per-CTA shared maximum replays on both engines, and one byte
// more is refused by both.
func TestReplayAtSharedMaximum(t *testing.T) {
	traces := map[int]*format.Reader{}
	trace := func(smem int) *format.Reader {
		if r, ok := traces[smem]; ok {
			return r
		}
		r := captureWith(t, func(s *capture.Spec) { s.SIMT = format.SIMTITS },
			"volkov_memcpy_f1", "n=16384", "block=128", fmt.Sprintf("smem=%d", smem))
		traces[smem] = r
		return r
	}
	ctx := context.Background()
	for _, a := range arch.Archs() {
		for _, gpu := range arch.GPUs(a) {
			cfg := presetOf(t, a, gpu)
			limit := cfg.Shared.MaxPerCTA
			for _, engine := range []struct {
				name string
				run  func(context.Context, *format.Reader, *arch.Config, Options) (*Report, error)
			}{{"memory", Memory}, {"timing", Timing}} {
				rep, err := engine.run(ctx, trace(limit), cfg, Options{})
				if err != nil {
					t.Errorf("%s/%s %s at %d shared bytes: %v", a, gpu, engine.name, limit, err)
				} else if k := &rep.Kernels[0]; k.Occupancy.CTAsPerSM != 1 || metric(t, k, "smsp__inst_executed.sum") == 0 {
					t.Errorf("%s/%s %s at %d shared bytes: %d CTAs/SM and %v warp-instructions, want 1 CTA/SM and some",
						a, gpu, engine.name, limit, k.Occupancy.CTAsPerSM, metric(t, k, "smsp__inst_executed.sum"))
				}
				var le *LimitError
				if _, err := engine.run(ctx, trace(limit+1), cfg, Options{}); !errors.As(err, &le) || le.Key != "shared.max_per_cta" {
					t.Errorf("%s/%s %s at %d shared bytes: got %v, want a shared.max_per_cta LimitError", a, gpu, engine.name, limit+1, err)
				}
			}
		}
	}
}
