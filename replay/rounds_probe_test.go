package replay

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// roundsProbe is scripts/hw/probe.sh rounds on an H200: grids of 1 to 128 CTAs an SM
// of 256 threads that do nothing, load, store or copy a word a thread.
const roundsProbe = "../traces/hw/h200-2026-11-28-rounds/"

// roundsCycles captures the probe's kernel over ctas CTAs and returns the engine's
// elapsed cycles for it under sets, on the hopper/h200 preset at the SM and L2 clocks ncu
// measured the launch at (m).
func roundsCycles(t *testing.T, ptx []byte, kernel string, ctas int, m map[string]float64) func(sets ...string) float64 {
	t.Helper()
	n := strconv.Itoa(ctas * 256)
	args := map[string][]string{"empty": nil, "load": {"buf:u32:" + n + ":const:16843009", "buf:u32:" + n},
		"store": {"buf:u32:" + n}, "copy": {"buf:u32:" + n, "buf:u32:" + n}}[kernel]
	r, _ := captureSpec(t, capture.Spec{PTX: ptx, PTXName: "rounds.ptx", Kernel: kernel,
		Grid: format.Dim3{X: uint32(ctas), Y: 1, Z: 1}, Block: format.Dim3{X: 256, Y: 1, Z: 1}, SIMT: format.SIMTITS, Args: args})
	ns := m["gpu__time_duration.sum"]
	sm := ncuClockMHz(m, ns)
	l2 := int(math.Round(m["lts__cycles_elapsed.avg"] / ns * 1000))
	return func(sets ...string) float64 {
		cfg := presetOf(t, "hopper", "h200", append([]string{"sm.clock_mhz=" + strconv.Itoa(sm), "l2.clock_mhz=" + strconv.Itoa(l2)}, sets...)...)
		rep, err := Timing(context.Background(), r, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return metric(t, &rep.Kernels[0], "sm__cycles_elapsed.avg")
	}
}

// Short CTAs one after another on the H200 (traces/hw/h200-2026-11-28-rounds, hw-facts
// section 15): from 32 to 128 CTAs an SM, each further CTA costs an SM 121-126 cycles
// at 1496 MHz whether it does nothing, loads or stores a word a thread (81-84 ns; 77-79
// ns at 1980 MHz without a profiler): the distributor's pace, sm.cta_launch_ns. The
// engine's cost a CTA must come within 5% of the H200's for those three kernels, and
// for the empty and storing ones fall under half of it without the pace. A loading
// CTA holds its room about as long as 8 launches take: its life and its retirement,
// sm.cta_retire_ns (logged without it). A copy's CTA costs the H200 134-136 cycles (its
// room is held longer: the store's part, not modelled) and is logged.
func TestTimingRoundsProbe(t *testing.T) {
	free, metric := readProbeRun(t, roundsProbe, "rounds")
	ptx, err := os.ReadFile("testdata/rounds.ptx")
	if err != nil {
		t.Fatal(err)
	}
	at := map[[2]string]int{} // kind, CTAs: launch id
	sms := 0
	for _, r := range free { // id,kind,blocks_per_sm,rounds,ctas,ms
		v := probeInts(t, "rounds-free.csv", []string{r[0], r[2], r[3], r[4]})
		at[[2]string{r[1], strconv.Itoa(v[3])}] = v[0]
		sms = v[3] / (v[1] * v[2]) // ctas = SMs * blocks_per_sm * rounds
	}
	const few, many = 4224, 16896 // 32 and 128 CTAs an SM
	for _, kind := range []string{"empty", "load", "store", "copy"} {
		a, ok1 := at[[2]string{kind, strconv.Itoa(few)}]
		b, ok2 := at[[2]string{kind, strconv.Itoa(many)}]
		if !ok1 || !ok2 {
			t.Fatalf("rounds-free.csv lacks %s at %d or %d CTAs", kind, few, many)
		}
		per := float64(many-few) / float64(sms)
		want := (metric[b]["sm__cycles_elapsed.avg"] - metric[a]["sm__cycles_elapsed.avg"]) / per
		manyCycles, fewCycles := roundsCycles(t, ptx, kind, many, metric[b]), roundsCycles(t, ptx, kind, few, metric[a])
		cost := func(sets ...string) float64 { return (manyCycles(sets...) - fewCycles(sets...)) / per }
		got := cost()
		// Without the pace, empty and store CTAs come as fast as they retire; load and
		// copy CTAs hold their rooms for their life and the retirement.
		key := "sm.cta_launch_ns"
		if kind == "load" || kind == "copy" {
			key = "sm.cta_retire_ns"
		}
		without := cost(key + "=0")
		t.Logf("%-5s: a CTA costs an SM %5.1f cycles in the engine, %5.1f without %s, the H200 %5.1f (%+.1f%%)",
			kind, got, without, key, want, 100*(got/want-1))
		if want <= 0 || kind == "copy" {
			continue
		}
		if math.Abs(got/want-1) > 0.05 || (key == "sm.cta_launch_ns" && without > want/2) {
			t.Errorf("%s: %.1f cycles a CTA (%.1f without %s), the H200 %.1f: want within 5%%", kind, got, without, key, want)
		}
	}
}
