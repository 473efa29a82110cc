package validate

import (
	"context"
	"math"
	"strings"
	"testing"
)

// chainsFile is the integer probe's kernels measured on an H100 (issue 15 item 10).
const chainsFile = "../traces/hw/h100-2026-11-26-chains.csv"

// chainResidues are the chain launches (a launch, or a launch and its corpus) the
// hopper model is known to miss by more than chainTolerance, each with why (docs/issue-15.md item 11): the mechanisms that are
// modelled hold on every other launch.
var chainResidues = map[string]string{
	// One warp issues an IMAD.HI every 6.1 cycles however many chains it has, where
	// many warps reach 4 per scheduler: a per-warp cost of the two-pass multiply that
	// is not modelled.
	"chain_mulhi@ilp=8": "one warp's IMAD.HI rate",
	// The hoisted divide's 10 SASS instructions issue as one PTX instruction on the
	// FP32 pipe (10 slots); the H100 takes 13.2 cycles per divide and add per
	// scheduler with 32 warps, 18.3 with one warp's eight chains (its IMAD.HI).
	"chain_div@ilp=8": "divide throughput", "chain_div@ilp=2,warps=8": "divide throughput",
	"chain_div@ilp=8,warps=32": "divide throughput", "chain_rem@ilp=8": "divide throughput",
	"chain_rem@ilp=2,warps=8": "divide throughput", "chain_rem@ilp=8,warps=32": "divide throughput",
	// One warp with eight FFMA chains takes 1.29 cycles per FFMA in ncu's elapsed
	// cycles (1.1 in the probe's clock64 loop), the model 1.0 (clang-14 only; nvcc's
	// is -12%).
	"chain_ffma@ilp=8 clang-14": "one warp's FFMA rate",
}

// chainTolerance is issue 15's target for the chain launches' cycles.
const chainTolerance = 0.15

// TestIntegerChains holds the hopper model's integer pipes and latencies
// (sm.int32_lanes, lat.int, lat.imad_hi, lat.setp; replay/timing_int.go) to the
// integer probe's 28 launches on an H100, both corpora: every launch not in
// chainResidues within 15% on sm__cycles_elapsed.avg, and the cycles MAPE over all 28
// under 15% (33.6% clang-14 and 32.5% nvcc with one ALU pipe and lat.alu for every
// integer instruction). A residue that comes within the tolerance is reported, to be
// taken off the list.
func TestIntegerChains(t *testing.T) {
	gt, err := ReadGroundTruthFile(chainsFile)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Run(context.Background(), gt, hopperOf(t, gt), Options{Producers: []string{"clang-14", "nvcc"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]float64{}
	n := map[string]int{}
	for _, c := range v.Comparisons {
		if c.Band.Metric != cyclesMetric {
			continue
		}
		if !strings.HasPrefix(c.Kernel, "chain_") {
			t.Errorf("%s: not a chain launch", c.Kernel)
		}
		e := c.Model/c.HW - 1
		sum[c.Producer] += math.Abs(e)
		n[c.Producer]++
		why, known := chainResidues[c.Kernel+" "+c.Producer]
		if !known {
			why, known = chainResidues[c.Kernel]
		}
		switch {
		case math.Abs(e) > chainTolerance && !known:
			t.Errorf("%s (%s): %.0f cycles on the H100, %.0f in the model (%+.1f%%): outside %.0f%%", c.Kernel, c.Producer, c.HW, c.Model, 100*e, 100*chainTolerance)
		case math.Abs(e) <= chainTolerance && known:
			t.Logf("%s (%s): %+.1f%%, within %.0f%%: a residue (%s) no longer", c.Kernel, c.Producer, 100*e, 100*chainTolerance, why)
		}
	}
	for _, p := range []string{"clang-14", "nvcc"} {
		if n[p] != 28 {
			t.Fatalf("%s: %d chain launches compared, want 28", p, n[p])
		}
		mape := sum[p] / float64(n[p])
		t.Logf("%s: cycles MAPE %.1f%% over %d chain launches", p, 100*mape, n[p])
		if mape > chainTolerance {
			t.Errorf("%s: cycles MAPE %.1f%% over the chain launches, want at most %.0f%%", p, 100*mape, 100*chainTolerance)
		}
	}
}
