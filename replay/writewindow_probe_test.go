package replay

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/dram"
)

// A read waits longer while the L2 writes back (traces/hw/h200-2026-11-28-wbhome,
// hw-facts section 18): wbhome's paced kernel stores a whole new line every 1 to 16
// rounds on the odd SMs while light random reads run on the even ones, and each `#pace`
// row gives the readers' cycles a round with the stores written back (splitapart) and
// kept in the L2 (splitkept). Here the hopper/h200 channels at the run's clock get a
// random sector read every cycle (63 GB/s, light) and whole lines written at random
// times at each row's rate; what the writes add to a read's mean latency is set
// against the rounds' difference. Without dram.write_window_ns the channels add
// nearly nothing at these rates (their queues are all but empty).
func TestWriteWindowProbe(t *testing.T) {
	const file = "../traces/hw/h200-2026-11-28-wbhome/wbhome-free.csv"
	type pace struct{ gbps, apart, kept float64 }
	rows := map[int]*pace{} // by how many rounds a store
	// #pace,id,kind,every,iters,ms,write_gbps,reader_round,writer_round
	for _, r := range probeTagged(t, file, "pace") {
		if len(r) != 8 {
			t.Fatalf("%s: #pace row %q has %d fields, want 8", file, r, len(r))
		}
		every := probeInts(t, file, r[2:3])[0]
		gbps, round := probeFloat(t, file, r, r[5]), probeFloat(t, file, r, r[6])
		if rows[every] == nil {
			rows[every] = &pace{}
		}
		switch r[1] {
		case "splitapart":
			rows[every].gbps, rows[every].apart = gbps, round
		case "splitkept":
			rows[every].kept = round
		}
	}
	cfg, err := arch.Preset("hopper", "h200")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SM.ClockMHz = 1978 // the run's
	// With no writes the window does not matter: one baseline for both.
	base := readLatency(t, cfg, 0, false)
	worst := 0.0
	for _, every := range []int{1, 2, 4, 8, 16} { // past 16 kept's lines leave the L2: no baseline
		p := rows[every]
		if p == nil || p.gbps == 0 || p.kept == 0 {
			t.Fatalf("%s: no #pace rows for a store every %d rounds", file, every)
		}
		hw := p.apart - p.kept
		model := readLatency(t, cfg, p.gbps, true) - base
		bare := readLatency(t, cfg, p.gbps, false) - base
		t.Logf("a store every %2d rounds, %5.1f GB/s written: a read waits %+5.1f cycles (without the window %+4.1f), the H200 %+5.1f",
			every, p.gbps, model, bare, hw)
		worst = max(worst, math.Abs(model-hw))
		if bare > 10 {
			t.Errorf("%.1f GB/s: the channels without the window add %.1f cycles a read, want under 10", p.gbps, bare)
		}
	}
	// kept's own rounds vary by 67 cycles from launch to launch (hw-facts section 18).
	if worst > 30 {
		t.Errorf("the model's wait is up to %.1f cycles off the H200's, want within 30", worst)
	}
}

// readLatency returns the mean latency in cycles of random sector reads, one a cycle,
// over cfg's timed channels (with or without its write window) while whole lines are
// written at gbps.
func readLatency(t *testing.T, cfg *arch.Config, gbps float64, window bool) float64 {
	t.Helper()
	tm := channelTiming(cfg)
	if !window {
		tm.WriteWindowNS = 0
	}
	c, err := dram.NewChannels(cfg.DRAM.Config, tm)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const cycles, span = 400000, 1 << 30 // 200 µs over 1 GB read and 1 GB written
	perCycle := gbps * 1e9 / 128 / (float64(cfg.SM.ClockMHz) * 1e6)
	next := math.Inf(1)
	if perCycle > 0 {
		next = rng.ExpFloat64() / perCycle
	}
	var sum float64
	for at := int64(0); at < cycles; at++ {
		for ; next <= float64(at); next += rng.ExpFloat64() / perCycle {
			line := span + rng.Uint64N(span/128)*128
			for s := uint64(0); s < 128; s += 32 {
				c.Access(at, line+s, true)
			}
		}
		sum += float64(c.Access(at, rng.Uint64N(span/32)*32, false) - at)
	}
	return sum / cycles
}
