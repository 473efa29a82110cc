package validate

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gtrace/gtrace/models/arch"
)

// The metrics a launch's clocks come from. collect.sh records the first two since
// 2026-11-25; the ground truths before that have cycles and duration only.
const (
	smClockMetric = "sm__cycles_elapsed.avg.per_second"
	l2ClockMetric = "lts__cycles_elapsed.avg.per_second"
	timeMetric    = "gpu__time_duration.sum"
)

// minClockCycles is how long a launch must run for its cycles over its duration to
// give the SM clock: ncu's duration also covers the launch itself, which on a
// 10000-cycle kernel moves the ratio by up to 10% (1.40-1.67 GHz on the H200's
// launches of about 10000 cycles, 1.47-1.54 on those of 40000 and more, whose median
// is within 1% of the clock ncu reports: TestClockEstimateMatchesProbe).
const minClockCycles = 40000

// Clock is the SM and L2 clock a launch ran at, in MHz, and where they come from. An
// L2MHz of 0 means unknown: the preset's L2 clock stays.
type Clock struct {
	SMMHz, L2MHz float64
	Source       string
}

// Clock returns the clocks kernel ran at: the launch's own ncu clock metrics when the
// ground truth has them, else the SM clock estimated from the file's long launches
// (the median of sm__cycles_elapsed.avg over gpu__time_duration.sum). ok is false when
// neither is there. The estimate is computed once per file.
func (g *GroundTruth) Clock(kernel, producer string) (c Clock, ok bool) {
	if hz, ok := g.Value(kernel, producer, smClockMetric); ok && hz > 0 {
		c = Clock{SMMHz: hz / 1e6, Source: "ncu per launch (" + smClockMetric + ")"}
		if hz, ok := g.Value(kernel, producer, l2ClockMetric); ok && hz > 0 {
			c.L2MHz = hz / 1e6
		}
		return c, true
	}
	g.estimate.Do(func() { g.estimated, g.hasEstimated = g.estimateClock() })
	return g.estimated, g.hasEstimated
}

// estimateClock is the median of cycles over duration of the file's launches of
// minClockCycles or more.
func (g *GroundTruth) estimateClock() (Clock, bool) {
	var ratios []float64
	for _, r := range g.Rows {
		if r.Metric != cyclesMetric || r.Value < minClockCycles {
			continue
		}
		if ns, ok := g.Value(r.Kernel, r.Producer, timeMetric); ok && ns > 0 {
			ratios = append(ratios, r.Value/ns*1000)
		}
	}
	if len(ratios) == 0 {
		return Clock{}, false
	}
	slices.Sort(ratios)
	m := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		m = (m + ratios[len(ratios)/2-1]) / 2
	}
	return Clock{SMMHz: m, Source: fmt.Sprintf("estimated: median %s / %s of the %d launches of %d cycles or more",
		cyclesMetric, timeMetric, len(ratios), minClockCycles)}, true
}

// String says the clocks in words.
func (c Clock) String() string {
	l2 := "the preset's L2 clock"
	if c.L2MHz > 0 {
		l2 = fmt.Sprintf("L2 %.0f MHz", c.L2MHz)
	}
	return fmt.Sprintf("SM %.0f MHz, %s (%s)", c.SMMHz, l2, c.Source)
}

// atClock returns cfg replaying at clock c.
func atClock(cfg *arch.Config, c Clock) (*arch.Config, error) {
	out := cfg.Clone()
	set := [][2]string{{"sm.clock_mhz", strconv.Itoa(int(math.Round(c.SMMHz)))}}
	if c.L2MHz > 0 {
		set = append(set, [2]string{"l2.clock_mhz", strconv.Itoa(int(math.Round(c.L2MHz)))})
	}
	for _, kv := range set {
		if err := out.Set(kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("validate: replaying at the measured clock: %w", err)
		}
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("validate: replaying at the measured clock (%v): %w", c, err)
	}
	return out, nil
}
