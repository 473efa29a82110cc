package replay

import (
	"bufio"
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// streamlatProbe is scripts/hw/probe.sh streamlat on an H200 (hw-facts section 16): warps
// with one load in flight each, timed a round at a time.
const streamlatProbe = "../traces/hw/h200-2026-11-28-streamlat/"

// streamlatRound captures the probe's kernel at k blocks of block threads an SM on sms
// SMs, over a buffer of words 4-byte words, for iters and 2*iters rounds, and returns the
// engine's cycles a round under sets (hopper/h200 at the run's 1980 MHz): the kernel's
// cycles at 2*iters rounds less at iters, over iters. The stream kernels get no probe
// warps; each gets the 256 MB its random lines span.
func streamlatRound(t *testing.T, ptx []byte, kernel string, k, block, sms, words, iters int) func(sets ...string) float64 {
	t.Helper()
	capt := func(iters int) *format.Reader {
		n := strconv.Itoa(iters)
		args := []string{"buf:u32:32", "buf:u32:" + strconv.Itoa(words), "u64:" + strconv.Itoa(words), "i32:" + n, "i32:0",
			"buf:i64:" + strconv.Itoa(sms*k*block/32), "buf:u64:4", "buf:u32:2"}
		if kernel == "each" {
			args = []string{"buf:u32:67108864", "i32:" + n, "buf:u32:" + strconv.Itoa(sms*k*iters), "buf:u32:2"}
		}
		r, _ := captureSpec(t, capture.Spec{PTX: ptx, PTXName: "streamlat.ptx", Kernel: kernel,
			Grid: format.Dim3{X: uint32(sms * k), Y: 1, Z: 1}, Block: format.Dim3{X: uint32(block), Y: 1, Z: 1},
			SIMT: format.SIMTITS, Args: args})
		return r
	}
	short, long := capt(iters), capt(2*iters)
	return func(sets ...string) float64 {
		cfg := presetOf(t, "hopper", "h200", append([]string{"sm.clock_mhz=1980"}, sets...)...)
		cycles := func(r *format.Reader) float64 {
			rep, err := Timing(context.Background(), r, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return metric(t, &rep.Kernels[0], "sm__cycles_elapsed.avg")
		}
		return (cycles(long) - cycles(short)) / float64(iters)
	}
}

// streamlatEach is the mean of the probe's #each histogram: a lone warp's rounds of
// random DRAM reads, in cycles at 1980 MHz.
func streamlatEach(t *testing.T) float64 {
	t.Helper()
	f, err := os.Open(streamlatProbe + "streamlat-free.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n, sum float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "#each,"); ok { // #each,cycles,count: 8-cycle bins
			v := probeInts(t, "streamlat-free.csv", strings.Split(rest, ","))
			n += float64(v[1])
			sum += float64(v[1]) * (float64(v[0]) + 4)
		}
	}
	if n == 0 {
		t.Fatal("streamlat-free.csv has no #each rows")
	}
	return sum / n
}

// One load in flight a warp on the H200 (traces/hw/h200-2026-11-28-streamlat, hw-facts
// section 16), at one block of 8 warps an SM: a lone warp's rounds of random DRAM reads
// take 723.5 cycles, and rounds reading new lines in order as long (a sector, 736.6;
// a whole line, 731.3), where the engine used to stream them 54 cycles faster than it
// read random lines: a row hit saved dram.row_miss_ns of the latency. With
// dram.row_hit_ns the engine's random rounds and its one-line rounds must come within
// 5% of the H200's, and the line's not without it. The loop alone (l1hit) and rounds of
// 2 and 4 lines a request (each further line costs the H200 about 30 cycles, the engine
// 14-21: not modelled) are logged.
func TestTimingStreamlatProbe(t *testing.T) {
	ptx, err := os.ReadFile("testdata/streamlat.ptx")
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSVRecords(t, streamlatProbe+"streamlat-free.csv")
	want := map[string]float64{"each": streamlatEach(t)}
	sms := 0
	for _, r := range recs[1:] { // id,kind,lines,blocks_per_sm,warps,...,stream_round (10)
		v := probeInts(t, "streamlat-free.csv", []string{r[3], r[4]})
		if v[0] != 1 {
			continue
		}
		sms = v[1] / 8
		if want[r[1]], err = strconv.ParseFloat(r[10], 64); err != nil {
			t.Fatalf("streamlat-free.csv %v: %v", r, err)
		}
	}
	for _, kind := range []string{"each", "sector", "line", "line2", "line4", "l1hit"} {
		block := 256
		if kind == "each" {
			block = 32
		}
		round := streamlatRound(t, ptx, kind, 1, block, sms, 16777216, 40)
		got := round()
		h := want[kind]
		t.Logf("%-6s: %6.1f cycles a round in the engine, the H200 %6.1f (%+.1f%%)", kind, got, h, 100*(got/h-1))
		switch kind {
		case "each", "sector":
			if math.Abs(got/h-1) > 0.05 {
				t.Errorf("%s: %.1f cycles a round, the H200 %.1f: want within 5%%", kind, got, h)
			}
		case "line":
			without := round("dram.row_hit_ns=0")
			t.Logf("line  : %6.1f without dram.row_hit_ns", without)
			if math.Abs(got/h-1) > 0.05 || math.Abs(without/h-1) <= 0.05 {
				t.Errorf("line: %.1f cycles a round (%.1f without dram.row_hit_ns), the H200 %.1f: want within 5%% only with it", got, without, h)
			}
		}
	}
}

// A wide load waits longer (traces/hw/h200-2026-11-28-streamlat-l1w, hw-facts section
// 16): with one load in flight a warp and the lanes on one line, a round of 8 B a lane
// takes the H200 28 cycles more than one of 4 B, and of 16 B a lane 38 more, whether the
// line is in L1 (l1w64 and l1w128 against l1hit, one block of 8 warps an SM), in L2 (w64
// and w128 against line, the #l2 rows at one warp an SM) or in DRAM (one block an SM).
// Part of it is the LOP3s that fold the words into the next address (one and two in the
// SASS; the engine replays the PTX's one and three xors, 5 cycles each); the rest is
// lat.ldg_64 and lat.ldg_128. The engine's extra cycles a round must come within 8 of
// the H200's at each (16 B a lane is about 6 over: the PTX's third xor), and not without
// lat.ldg_64 and lat.ldg_128.
func TestTimingWideLoads(t *testing.T) {
	const dir = "../traces/hw/h200-2026-11-28-streamlat-l1w/"
	ptx, err := os.ReadFile("testdata/streamlat.ptx")
	if err != nil {
		t.Fatal(err)
	}
	hw := map[string]float64{} // "L1 w64", "L2 line", ...: the H200's cycles a round
	f, err := os.Open(dir + "streamlat-free.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sms := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r := strings.Split(sc.Text(), ",")
		var where string
		var round string
		switch {
		case r[0] == "#l2" && len(r) == 11 && r[4] == "1": // #l2,id,kind,lines,warps_per_sm,mhz,ms,round,...
			where, round = "L2", r[7]
		case len(r) == 14 && r[3] == "1": // id,kind,lines,blocks_per_sm,warps,...,stream_round (10)
			where, round = "DRAM", r[10]
			if strings.HasPrefix(r[1], "l1") {
				where = "L1"
			}
			sms = probeInts(t, "streamlat-free.csv", r[4:5])[0] / 8
		default:
			continue
		}
		kind := strings.TrimPrefix(r[1], "l1")
		if r[0] == "#l2" {
			kind = r[2]
		}
		if kind == "hit" {
			kind = "line"
		}
		if hw[where+" "+kind], err = strconv.ParseFloat(round, 64); err != nil {
			t.Fatalf("streamlat-free.csv %v: %v", r, err)
		}
	}
	if sms == 0 {
		t.Fatal("streamlat-free.csv: no rows at one block an SM")
	}
	type src struct {
		where, base, w64, w128 string // kernels: 4, 8 and 16 B a lane
		block, words, iters    int
	}
	for _, c := range []src{
		{"L1", "l1hit", "l1w64", "l1w128", 256, 16777216, 40},
		{"L2", "line", "w64", "w128", 32, 262144, 100},
		{"DRAM", "line", "w64", "w128", 256, 16777216, 40},
	} {
		base := streamlatRound(t, ptx, c.base, 1, c.block, sms, c.words, c.iters)
		b, b0 := base(), base("lat.ldg_64=0", "lat.ldg_128=0")
		for _, w := range []struct{ name, kernel string }{{"w64", c.w64}, {"w128", c.w128}} {
			h := hw[c.where+" "+w.name] - hw[c.where+" line"]
			if hw[c.where+" "+w.name] == 0 || hw[c.where+" line"] == 0 {
				t.Fatalf("streamlat-free.csv has no %s row for %s or line", c.where, w.name)
			}
			round := streamlatRound(t, ptx, w.kernel, 1, c.block, sms, c.words, c.iters)
			got, without := round()-b, round("lat.ldg_64=0", "lat.ldg_128=0")-b0
			t.Logf("%-4s %-4s: +%5.1f cycles a round over 4 B a lane in the engine (%+5.1f without lat.ldg_*), the H200 +%5.1f (%.1f against %.1f)",
				c.where, w.name, got, without, h, hw[c.where+" "+w.name], hw[c.where+" line"])
			if math.Abs(got-h) > 8 || math.Abs(without-h) <= 8 {
				t.Errorf("%s %s: +%.1f cycles (%+.1f without lat.ldg_*), the H200 +%.1f: want within 8 only with them", c.where, w.name, got, without, h)
			}
		}
	}
}
