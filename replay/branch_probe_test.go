package replay

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// loopcostH100 is scripts/hw/loopcost.sh's run on an H100: per loop, warps and trip
// count, the slowest warp's loop cycles.
const loopcostH100 = "../traces/hw/h100-2026-11-27-loopcost/loopcost.csv"

// loopTrips is the engine's cycles a trip of one of scripts/hw/loopcost_kernels.cu's
// loops (clang-14's PTX, replay/testdata/loopcost.ptx) on one block of warps warps,
// as the GPU's are taken: the difference between 512 and 256 trips, over 256.
func loopTrips(t *testing.T, ptx []byte, loop string, warps int, sets ...string) float64 {
	t.Helper()
	threads := 32 * warps
	var c [2]float64
	for j, trips := range []int{256, 512} {
		spec := capture.Spec{PTX: ptx, PTXName: "loopcost.ptx", Kernel: "loop_" + loop,
			Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: uint32(threads), Y: 1, Z: 1}, SIMT: format.SIMTITS}
		switch loop {
		case "count":
			spec.Args = []string{"i32:" + strconv.Itoa(trips*threads), "buf:i32:1024", "buf:i64:32"}
		case "fma":
			spec.Args = []string{"i32:" + strconv.Itoa(trips*threads), "f32:0.999", "buf:f32:1024", "buf:i64:32"}
		case "sts": // as loopcost.cu: reps passes over n words, n at most 32768
			n := min(32768, trips*threads)
			spec.DynShared = 4 * 32768
			spec.Args = []string{"u32:" + strconv.Itoa(n), "i32:" + strconv.Itoa(trips*threads/n), "buf:i32:1024", "buf:i64:32"}
		}
		c[j] = h100Cycles(t, spec, sets...)
	}
	return (c[1] - c[0]) / 256
}

// h100Cycles captures spec and times it on the hopper preset at the 1980 MHz the H100
// probes ran at (with sets on top): its sm__cycles_elapsed.avg.
func h100Cycles(t *testing.T, spec capture.Spec, sets ...string) float64 {
	t.Helper()
	r, _ := captureSpec(t, spec)
	return metric(t, timeOne(t, r, "hopper", append([]string{"sm.clock_mhz=1980"}, sets...)...), "sm__cycles_elapsed.avg")
}

// A warp waits lat.branch cycles after a taken branch before its target issues; other
// warps issue meanwhile. On an H100 (traces/hw/h100-2026-11-27-loopcost, one block on
// one SM) a counter loop takes 28 cycles a trip, the shared-memory zeroing loop of
// hist_warp 31-36 and a loop of 8 dependent FMAs 39-49 while the SM has at most 16
// warps: latency, where the engine without the wait gave 18, 19 and 32. With 32 warps
// the issue rate hides it. Up to 16 warps each loop must come within 12% of the
// H100's; the wait must account for 8 cycles or more of the counter loop's trip; 32
// warps are logged (the zeroing loop is 10% slow there: its warps fall into step
// after the waits and meet at the shared-memory pipe).
func TestTimingLoopProbe(t *testing.T) {
	hw := readLoopcost(t)
	ptx, err := os.ReadFile("testdata/loopcost.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, loop := range []string{"count", "sts", "fma"} {
		for _, warps := range []int{1, 4, 8, 16, 32} {
			key := loop + "/" + strconv.Itoa(warps)
			want, ok := hw[key]
			if !ok {
				t.Fatalf("%s: %s has no %s", key, loopcostH100, key)
			}
			got := loopTrips(t, ptx, loop, warps)
			d := got/want - 1
			t.Logf("%-9s %6.2f cycles a trip, H100 %6.2f (%+.1f%%)", key, got, want, 100*d)
			if warps <= 16 && math.Abs(d) > 0.12 {
				t.Errorf("%s: %.2f cycles a trip, H100 %.2f: off by %+.1f%% (tolerance 12%%)", key, got, want, 100*d)
			}
		}
	}
	with, without := loopTrips(t, ptx, "count", 1), loopTrips(t, ptx, "count", 1, "lat.branch=0")
	if with-without < 8 {
		t.Errorf("the counter loop takes %.2f cycles a trip with lat.branch, %.2f without: want the taken branch's wait to be 8 or more", with, without)
	}
}

// readLoopcost returns the H100's cycles a trip by "loop/warps", as loopcost.sh
// computes them: the slowest warps' difference between the two trip counts.
func readLoopcost(t *testing.T) map[string]float64 {
	t.Helper()
	recs := readCSVRecords(t, loopcostH100)
	type point struct{ trips, cycles int }
	at := map[string][]point{}
	for _, r := range recs[1:] { // loop,warps,trips,cycles_min,cycles_max
		v := probeInts(t, loopcostH100, r[1:5])
		key := r[0] + "/" + r[1]
		at[key] = append(at[key], point{v[1], v[3]})
	}
	out := map[string]float64{}
	for key, p := range at {
		if len(p) != 2 || p[0].trips == p[1].trips {
			t.Fatalf("%s: %s has %d trip counts, want two different ones", loopcostH100, key, len(p))
		}
		out[key] = float64(p[1].cycles-p[0].cycles) / float64(p[1].trips-p[0].trips)
	}
	return out
}
