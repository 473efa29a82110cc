package report

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

var dump = flag.Bool("dump", false, "log every finding as JSON")

// adviseTrace captures a reference kernel at sizes (none: its Small sizes) and advises
// on it for arch's default GPU: the trace, the config and the launch's advice.
func adviseTrace(t testing.TB, archName, name string, sizes ...string) (*format.Reader, *arch.Config, *KernelAdvice) {
	t.Helper()
	k, err := kernels.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := arch.Preset(archName, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) == 0 {
		sizes = k.Small
	}
	r, err := kernels.TraceOf(context.Background(), name, sizes, nil)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := Advise(context.Background(), r, cfg, AdviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *dump {
		b, _ := json.MarshalIndent(adv, "", "  ")
		t.Logf("%s", b)
	}
	return r, cfg, &adv.Kernels[0]
}

// adviseKernel is adviseTrace with the kernel's memory replay (its totals).
func adviseKernel(t testing.TB, archName, name string, sizes ...string) (*KernelAdvice, *replay.KernelReport) {
	t.Helper()
	r, cfg, adv := adviseTrace(t, archName, name, sizes...)
	rep, err := replay.Memory(context.Background(), r, cfg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return adv, &rep.Kernels[0]
}

// TestRulesPredictTheFix: each rule fires on a reference kernel that breaks its lesson,
// not on the kernel that applies the fix, and its predicted gain matches the fixed
// kernel. The prediction is the broken kernel's total of the finding's metric less the
// gains its findings of that rule promise; the fixed kernel's total is the measurement.
// Where the fix is the only change between the two kernels (an index, a pad, a layout)
// the prediction is exact; where the fixed kernel also computes its index differently
// (reduction V1 to V2, divergence) the band says by how much.
func TestRulesPredictTheFix(t *testing.T) {
	for _, tc := range []struct {
		rule, broken, fixed string
		tol                 float64 // |predicted - measured| / measured
		perCTA              bool    // the fix runs another grid: compare per CTA
		sizes               []string
	}{
		{RuleUncoalesced, "transpose_v1", "transpose_v2", 0, false, nil},
		{RuleUncoalesced, "coalesce_random", "coalesce_sequential", 0, false, nil},
		{RuleUncoalesced, "test_offset_2", "test_coalesced", 0, false, nil},
		{RuleAoS, "particles_aos", "particles_soa", 0, false, nil},
		{RuleBankConflict, "transpose_v2", "transpose_v3", 0, false, nil},
		{RuleBankConflict, "bank_sums_unpadded", "bank_sums_padded", 0, false, nil},
		{RuleTreeStride, "reduce_v2", "reduce_v3", 0, false, nil},
		// V2 computes its index with a multiply where V1 takes a remainder: 24 of
		// 1556 warp-instructions (1.5%) differ outside the branch.
		{RuleInterleaved, "reduce_v1", "reduce_v2", 0.02, false, nil},
		// No reference kernel does the same work warp-aligned: divergence_warp_aligned
		// runs A on 32 threads of 64 where half_warp runs it on 48 and if_else runs A
		// or B on all. The rule must fire on both and not on the aligned kernel.
		{RuleDivergence, "divergence_half_warp", "divergence_warp_aligned", sameWorkUnknown, false, nil},
		{RuleDivergence, "divergence_if_else", "divergence_warp_aligned", sameWorkUnknown, false, nil},
		// hist_shared runs a grid-stride loop over fewer CTAs than hist_global's one
		// thread per element: after privatisation each CTA sends one update per bin, so
		// the prediction holds per CTA. hist_global_ret's atomics return a ticket, which
		// hist_shared does not keep: the global updates compare all the same.
		{RuleAtomics, "hist_global", "hist_shared", 0, true, nil},
		{RuleAtomics, "hist_global_ret", "hist_shared", sameWorkUnknown, false, nil},
		// Seed 004: 16×16 tiles load each element of M and N once per block. At a
		// width of 64 every tile is whole and aligned, as the seed's arithmetic has it.
		{RuleTiling, "matmul_naive", "tiled_matmul_bounds", 0, false, []string{"width=64"}},
		// The seed's constant memory: the convolution's mask from __constant__ takes
		// every global request of its 7 uniform loads away, nothing else.
		{RuleConstant, "conv1d_mask_global", "conv1d_mask_const", 0, false, nil},
		// The seed's texture memory, ColumnAfterColumn: the same column walk through a
		// texture object takes half the sectors, in the texture pipe.
		{RuleTexture, "tex_column_global", "tex_column_tex", 0, false, nil},
		{RuleTexture, "tex_column_restrict", "tex_column_tex", 0, false, nil},
	} {
		for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
			t.Run(a+"/"+tc.rule+"/"+tc.broken, func(t *testing.T) {
				adv, rep := adviseKernel(t, a, tc.broken, tc.sizes...)
				var fired []Finding
				for _, f := range adv.Findings {
					if f.Rule == tc.rule {
						fired = append(fired, f)
					}
				}
				if len(fired) == 0 {
					t.Fatalf("%s: no %s finding among %d", tc.broken, tc.rule, len(adv.Findings))
				}
				metric, into := fired[0].Metric, fired[0].Into
				predicted, predictedInto := total(t, rep, metric), 0.0
				if into != "" {
					predictedInto = total(t, rep, into)
				}
				for _, f := range fired {
					if f.Metric != metric || f.Into != into {
						continue // a store's sectors next to a load's: each checked in its own row
					}
					if f.After >= f.Before || f.Lesson == "" || f.Fix == "" || f.Saw == "" {
						t.Errorf("pc %d: finding with no gain or no words: %+v", f.PC, f)
					}
					if into != "" { // the fix moves the cost to another counter
						predicted -= f.Before
						predictedInto += f.After
						continue
					}
					predicted -= f.Before - f.After
				}
				fixedAdv, fixedRep := adviseKernel(t, a, tc.fixed, tc.sizes...)
				for _, f := range fixedAdv.Findings {
					if f.Rule == tc.rule {
						t.Errorf("%s (the fix) also fires %s at pc %d: %s", tc.fixed, f.Rule, f.PC, f.Saw)
					}
				}
				measured := total(t, fixedRep, metric)
				if tc.tol == sameWorkUnknown {
					return
				}
				if into != "" {
					if m := total(t, fixedRep, into); math.Abs(predictedInto-m) > tc.tol*m {
						t.Errorf("%s: %s predicted %.0f after the fix, %s measures %.0f (band %.0f%%)",
							tc.broken, into, predictedInto, tc.fixed, m, 100*tc.tol)
					}
					t.Logf("%s → %s: %s predicted %.0f, measured %.0f", tc.broken, tc.fixed, into, predictedInto, total(t, fixedRep, into))
				}
				if tc.perCTA {
					predicted /= float64(ctas(rep))
					measured /= float64(ctas(fixedRep))
				}
				if math.Abs(predicted-measured) > tc.tol*measured {
					t.Errorf("%s: %s predicted %.0f after the fix, %s measures %.0f (band %.0f%%)",
						tc.broken, metric, predicted, tc.fixed, measured, 100*tc.tol)
				}
				per := ""
				if tc.perCTA {
					per = " per CTA"
				}
				t.Logf("%s → %s: %s %.0f → predicted %.0f%s, measured %.0f%[6]s", tc.broken, tc.fixed, metric, total(t, rep, metric), predicted, per, measured)
			})
		}
	}
}

// sameWorkUnknown marks a pair whose fixed kernel does other work: the test checks that
// the rule fires and that the fix does not, not the size of the gain.
const sameWorkUnknown = -1

func ctas(k *replay.KernelReport) int {
	g := k.Launch.Grid
	return int(g.X) * int(g.Y) * int(g.Z)
}

func total(t testing.TB, k *replay.KernelReport, name string) float64 {
	t.Helper()
	v, ok := k.Metric(name)
	if !ok {
		t.Fatalf("%s: no metric %s", k.Name, name)
	}
	return v
}

// TestAdviceKnowsAggregatedAtomics: compact_atomic's atomicAdd on one counter is one
// atomic per warp where ptxas aggregates it (hopper, replay.Aggregated): privatising per
// block then saves the warps of a CTA (8 at 256 threads), not the kept lanes, and the
// finding says why. On fermi every kept lane takes a pass, and the gain is theirs.
func TestAdviceKnowsAggregatedAtomics(t *testing.T) {
	for _, c := range []struct {
		arch     string
		min, max float64
		aggSaid  bool
	}{{"hopper", 7.5, 8.5, true}, {"fermi", 100, 256, false}} {
		adv, _ := adviseKernel(t, c.arch, "compact_atomic")
		found := false
		for _, f := range adv.Findings {
			if f.Rule != RuleAtomics {
				continue
			}
			found = true
			g := f.Before / f.After
			if g < c.min || g > c.max {
				t.Errorf("%s: contended-atomics promises %.1fx, want %g-%gx", c.arch, g, c.min, c.max)
			}
			if said := strings.Contains(f.Saw, "ptxas already"); said != c.aggSaid {
				t.Errorf("%s: finding says %q; want the aggregation named: %v", c.arch, f.Saw, c.aggSaid)
			}
		}
		if !found {
			t.Errorf("%s: no contended-atomics finding on compact_atomic", c.arch)
		}
	}
}

// TestTilingRuleStatesTheSeedsIntensity: on the untiled matrix multiply the finding
// states seed 004's arithmetic, 0.25 FLOP per byte the threads load, 4 with 16×16 tiles
// (each element serves the 16 threads of a tile row or column), and, over the reference
// kernels at their test sizes, the rule fires on no kernel whose CTAs do not read the
// same bytes again.
func TestTilingRuleStatesTheSeedsIntensity(t *testing.T) {
	adv, _ := adviseKernel(t, "hopper", "matmul_naive", "width=64")
	n := 0
	for _, f := range adv.Findings {
		if f.Rule != RuleTiling {
			continue
		}
		n++
		if !strings.Contains(f.Saw, "0.25 FLOP per byte") || !strings.Contains(f.Saw, "4.00 with every such load tiled") || !strings.Contains(f.Saw, "each byte 16.0 times") {
			t.Errorf("pc %d: %q lacks seed 004's 0.25 -> 4 FLOP/B and 16 uses per byte", f.PC, f.Saw)
		}
	}
	if n == 0 {
		t.Fatal("no untiled-reuse finding on matmul_naive")
	}
	// Kernels whose CTAs do read the same bytes again at their test sizes: the untiled
	// multiply, and test_offset_32, whose index (32 × id mod 512) wraps within a CTA at
	// 512 elements.
	reuses := map[string]bool{"matmul_naive": true, "test_offset_32": true}
	adviseEveryKernel(t, "hopper", func(name string, ka *KernelAdvice) {
		fired := slices.ContainsFunc(ka.Findings, func(f Finding) bool { return f.Rule == RuleTiling })
		if fired != reuses[name] {
			t.Errorf("%s: untiled-reuse fires %v, want %v", name, fired, reuses[name])
		}
	})
}

// adviseEveryKernel advises on every reference kernel at its test size on arch's
// default GPU, without the timing replay, and hands f each launch's advice.
func adviseEveryKernel(t *testing.T, archName string, f func(name string, ka *KernelAdvice)) {
	t.Helper()
	cfg, err := arch.Preset(archName, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kernels.All() {
		r, err := kernels.SmallTrace(context.Background(), k.Name)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		adv, err := Advise(context.Background(), r, cfg, AdviseOptions{NoTiming: true})
		if err != nil {
			t.Fatal(err)
		}
		f(k.Name, &adv.Kernels[0])
	}
}
