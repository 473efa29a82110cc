package replay

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// linewaitH200 reads scripts/hw/probe.sh linewait's rounds on an H200 (hw-facts section
// 17) at one warp an SM: cycles a round by layout and lines a request.
func linewaitH200(t *testing.T) map[string]map[int]float64 {
	t.Helper()
	const file = "linewait-free.csv"
	out := map[string]map[int]float64{}
	for _, r := range readCSVRecords(t, "../traces/hw/h200-2026-11-28-linewait/"+file)[1:] { // n,layout,warps_per_sm,iters,mhz,ms,round,...
		v := probeInts(t, file, []string{r[0], r[2]})
		if v[1] != 1 {
			continue
		}
		if out[r[1]] == nil {
			out[r[1]] = map[int]float64{}
		}
		out[r[1]][v[0]] = probeFloat(t, file, r, r[6])
	}
	return out
}

// A request waits for its latest line, and a line's DRAM read takes one of two times by
// the L2 partition its 4 KB block is homed in (hw-facts sections 16 and 17: 89.7 ns
// apart, the home an XOR of address bits 12, 13, 15, 17 and 19, and lines of different
// 2 MB pages as independent as random ones). One warp an SM on 132 SMs reads n lines a
// round, each in a 4 KB block of its own (far) or a 2 MB page of its own (page), as
// scripts/hw/linewait_gtrace.sh replays it. With l2.partition_bits and
// lat.dram_far_ns (lat.dram_ns lowered by half the step, so that one line's mean stays):
// one line within 5% of the H200's round; a second line adds at least half what it adds
// on the H200 (two equal peaks give +44 cycles of its +88 to +93), and 32 lines at least
// 1.5 times what they add without the keys, and no more than on the H200 (the spread
// within a peak and the slow tail are not modelled). Without the keys a second line adds
// less than half the H200's.
func TestTimingLineWait(t *testing.T) {
	ptx, err := os.ReadFile("testdata/linewait.ptx")
	if err != nil {
		t.Fatal(err)
	}
	hw := linewaitH200(t)
	const sms = 132
	round := func(n, stride int) func(sets ...string) float64 {
		capt := func(iters int) *format.Reader {
			r, _ := captureSpec(t, capture.Spec{PTX: ptx, PTXName: "linewait.ptx", Kernel: "lines",
				Grid: format.Dim3{X: sms, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}, SIMT: format.SIMTITS,
				Args: []string{"buf:u32:67108864", "u64:2097152", "i32:" + strconv.Itoa(n), "u64:" + strconv.Itoa(stride),
					"i32:" + strconv.Itoa(iters), "buf:u32:" + strconv.Itoa(sms*80), "buf:u32:2"}})
			return r
		}
		short, long := capt(40), capt(80)
		return func(sets ...string) float64 { return h200Round(t, short, long, 40, sets...) }
	}
	without := []string{"l2.partition_bits=none", "lat.dram_far_ns=0", "lat.dram_ns=191.4"}
	one := round(1, 33)
	with1, without1 := one(), one(without...)
	h1 := hw["far"][1]
	t.Logf("1 line : %6.1f cycles a round in the engine (%6.1f without the keys), the H200 %6.1f", with1, without1, h1)
	if h1 == 0 || math.Abs(with1/h1-1) > 0.05 || math.Abs(without1/h1-1) > 0.05 {
		t.Errorf("1 line: %.1f cycles a round (%.1f without the keys), the H200 %.1f: want both within 5%%", with1, without1, h1)
	}
	for _, lay := range []struct {
		name   string
		stride int // lines between a request's lanes
	}{{"far", 33}, {"page", 16385}} {
		h := hw[lay.name]
		if h[2] == 0 || h[32] == 0 {
			t.Fatalf("linewait-free.csv: no %s rows for 2 and 32 lines at one warp an SM", lay.name)
		}
		two, many := round(2, lay.stride), round(32, lay.stride)
		w2, w32 := two()-with1, many()-with1
		o2, o32 := two(without...)-without1, many(without...)-without1
		h2, h32 := h[2]-h1, h[32]-h1
		t.Logf("%-4s: 2 lines +%5.1f, 32 lines +%5.1f cycles over one in the engine (+%5.1f, +%5.1f without the keys), the H200 +%5.1f, +%5.1f",
			lay.name, w2, w32, o2, o32, h2, h32)
		if w2 < h2/2 || o2 >= h2/2 {
			t.Errorf("%s: a second line adds %.1f cycles (%.1f without the keys), the H200 %.1f: want at least half of it only with them", lay.name, w2, o2, h2)
		}
		if w32 < 1.5*o32 || w32 > h32 {
			t.Errorf("%s: 32 lines add %.1f cycles (%.1f without the keys), the H200 %.1f: want 1.5 times the keys' absence and no more than the H200", lay.name, w32, o32, h32)
		}
	}
}
