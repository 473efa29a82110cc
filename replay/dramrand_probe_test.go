package replay

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/dram"
)

// dramrandProbe is scripts/hw/probe.sh dramrand's run on an H100: a 1 GB buffer read as
// a stream and as shuffled blocks of 32 to 256 B (scripts/hw/dramrand.cu).
const dramrandProbe = "../traces/hw/h100-2026-11-28-dramrand/"

// channelsRate is the bandwidth in GB/s the DRAM channels of cfg give to reads of n
// blocks of block bytes, in the order order gives them, all offered at once: the
// sectors of a block one after another (a block under a 64 B fetch is 64 B).
func channelsRate(t *testing.T, cfg *arch.Config, block int, order func(i int) int, n int) float64 {
	t.Helper()
	ch, err := dram.NewChannels(cfg.DRAM.Config, channelTiming(cfg))
	if err != nil {
		t.Fatal(err)
	}
	block = max(block, cfg.L2.FetchBytes)
	var last int64
	for i := range n {
		base := uint64(order(i)) * uint64(block)
		for s := 0; s < block; s += 32 {
			last = max(last, ch.Access(0, base+uint64(s), false))
		}
	}
	secs := float64(last) / (float64(cfg.SM.ClockMHz) * 1e6)
	return float64(n*block) / secs / 1e9
}

// The H100's DRAM serves shuffled 64 B reads at 2.00 TB/s, two thirds of a stream's
// 3.08 (scripts/hw/dramrand.cu): each 64 B is a row activation, and a channel
// activates a row every 1.28 ns (dram.rrd_ns) whichever banks are free, so long as
// its controller serves requests as their banks are ready (dram.reorder). Served in
// arrival order, a request that waits for its bank holds up its channel, and the same
// channels gave a quarter of the GPU's rate: why gather@n=8388608 and
// coalesce_random@n=8388608 took twice the H100's time. The hopper/h100 preset's
// channels, fed the probe's block orders, must give the GPU's rate within 5% for 32
// and 64 B blocks; streams and larger blocks are logged (the model's bus reaches the
// datasheet's 3.35 TB/s, the GPU's 92% of it).
func TestDRAMRandProbe(t *testing.T) {
	free, metric := readProbeRun(t, dramrandProbe, "dramrand")
	cfg, err := arch.Preset("hopper", "h100")
	if err != nil {
		t.Fatal(err)
	}
	const sectors = 1 << 20 // 32 MB of each order: enough for every bank many times
	const probeBytes = 1 << 30
	for _, r := range free { // id,kind,block,bytes,blocks,threads,ms
		v := probeInts(t, "dramrand-free.csv", []string{r[0], r[2]})
		id, block := v[0], v[1]
		m := metric[id]
		ns, rd := m["gpu__time_duration.sum"], m["dram__bytes_read.sum"]
		if ns == 0 || rd == 0 || block == 0 {
			t.Fatalf("launch %d (%v) lacks its time, DRAM bytes or block: %v", id, r, m)
		}
		c := *cfg
		c.SM.ClockMHz = int(math.Round(m["sm__cycles_elapsed.avg"] / ns * 1000)) // the clock ncu ran it at
		want := rd / ns                                                          // GB/s
		n := sectors * 32 / max(block, c.L2.FetchBytes)
		order := func(i int) int { return i }
		if r[1] == "rand" { // blocks drawn from the probe's whole 1 GB: rows seldom meet again
			rng := rand.New(rand.NewSource(int64(id)))
			blocks := probeBytes / max(block, c.L2.FetchBytes)
			order = func(int) int { return rng.Intn(blocks) }
		}
		got := channelsRate(t, &c, block, order, n)
		t.Logf("%-6s %3d B: the model's channels %6.0f GB/s, the H100 %6.0f (%+.1f%%)", r[1], block, got, want, 100*(got/want-1))
		if r[1] != "rand" || block > 64 {
			continue
		}
		if math.Abs(got/want-1) > 0.05 {
			t.Errorf("shuffled %d B blocks: the channels give %.0f GB/s, the H100 %.0f: want within 5%%", block, got, want)
		}
		c.DRAM.Reorder = false
		if fifo := channelsRate(t, &c, block, order, n); fifo > want/2 {
			t.Errorf("shuffled %d B blocks in arrival order: %.0f GB/s, want under half the H100's %.0f (what dram.reorder is for)", block, fifo, want)
		} else {
			t.Logf("       in arrival order %6.0f GB/s", fifo)
		}
	}
}
