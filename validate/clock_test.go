package validate

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/ncucsv"
)

// probeSMClock is the mean SM clock ncu recorded over scripts/hw/footprint.sh's chase
// launches under --clock-control base: a direct measurement of the clock collect.sh's
// ground truths ran at, on the same GPU model.
func probeSMClock(t *testing.T, path string) float64 {
	t.Helper()
	rows, err := ncucsv.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	var n int
	for _, r := range rows {
		if r.Metric == smClockMetric {
			v, err := ncucsv.Number(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			sum, n = sum+v/1e6, n+1
		}
	}
	if n == 0 {
		t.Fatalf("%s: no %s", path, smClockMetric)
	}
	return sum / float64(n)
}

// The ground truths committed before collect.sh recorded clocks get their SM clock
// from their own long launches, within 1% of what ncu says the base clock is.
func TestClockEstimateMatchesProbe(t *testing.T) {
	for _, tc := range []struct{ hw, probe string }{
		{hwFile, "../traces/hw/h200-2026-11-25-footprint/chase-base-ncu.csv"},
		{"../traces/hw/h100-2026-11-24.csv", "../traces/hw/h100-2026-11-25-footprint/chase-base-ncu.csv"},
	} {
		gt, err := ReadGroundTruthFile(tc.hw)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := gt.Clock("copy", "clang-14")
		if !ok || !strings.HasPrefix(c.Source, "estimated") || c.L2MHz != 0 {
			t.Fatalf("%s: %+v %v, want an estimate of the SM clock only", tc.hw, c, ok)
		}
		want := probeSMClock(t, tc.probe)
		if math.Abs(c.SMMHz-want)/want > 0.01 {
			t.Errorf("%s: estimated SM clock %.0f MHz, ncu measured %.0f under the same clock control", tc.hw, c.SMMHz, want)
		}
	}
}

// A launch with ncu's clock metrics replays at them: memory latency in SM cycles falls
// with the SM clock, so the model's cycles do too; the preset's clock is an option, and
// a ground truth with no way to know the clock is an error that names it.
func TestReplayAtMeasuredClock(t *testing.T) {
	const kernel = "coalesce_misaligned"
	const head = "# gpu: NVIDIA H200\nkernel,producer,metric,unit,value\n" +
		kernel + ",clang-14,sm__cycles_elapsed.avg,cycle,10000\n"
	clocks := kernel + ",clang-14," + smClockMetric + ",hz,1500000000\n" +
		kernel + ",clang-14," + l2ClockMetric + ",hz,1677000000\n"
	run := func(text string, opts Options) (*Validation, error) {
		gt, err := ReadGroundTruth(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return Run(context.Background(), gt, h200(t), opts)
	}
	cycles := func(v *Validation) float64 {
		for _, c := range v.Comparisons {
			if c.Band.Metric == cyclesMetric {
				return c.Model
			}
		}
		t.Fatal("no cycles compared")
		return 0
	}
	measured, err := run(head+clocks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	preset, err := run(head+clocks, Options{AtPresetClock: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(measured.Clock, "SM 1500 MHz, L2 1677 MHz") || !strings.Contains(preset.Clock, "SM 1980 MHz, L2 1707 MHz") {
		t.Errorf("clocks %q and %q", measured.Clock, preset.Clock)
	}
	if m, p := cycles(measured), cycles(preset); m >= p {
		t.Errorf("%s: %v cycles at 1500 MHz, %v at 1980: the memory side did not get cheaper in SM cycles", kernel, m, p)
	}
	if _, err := run(head, Options{}); err == nil || !strings.Contains(err.Error(), "--at-preset-clock") {
		t.Errorf("no clock in the ground truth: %v", err)
	}
	if _, err := run(head, Options{AtPresetClock: true}); err != nil {
		t.Errorf("no clock, at the preset's: %v", err)
	}
}
