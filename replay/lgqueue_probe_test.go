package replay

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// The runs of scripts/hw/lgqueue.cu, lgdepth.cu and phases.cu on the H200
// (docs/issue-11.md item 27), and of lgstore.cu (item 28).
const (
	lgStoreRun  = "../traces/hw/h200-2026-11-29-lgstore/lgstore.csv"
	lgAfterRun  = "../traces/hw/h200-2026-11-29-lgafter/lgafter.csv"
	lgBufferRun = "../traces/hw/h200-2026-11-29-lgbuffer/lgbuffer.csv"
	lgQueueRun  = "../traces/hw/h200-2026-11-29-lgqueue/lgqueue.csv"
	lgDepthRun  = "../traces/hw/h200-2026-11-29-lgdepth/lgdepth.csv"
	phasesRun   = "../traces/hw/h200-2026-11-29-phases/phases.csv"
)

// readWarpStamps reads a run of lgqueue.cu, lgdepth.cu or lgstore.cu, whose records
// are a launch (words words and keyInts integers), block, warp, smid, then the warp's
// clock stamps; it returns by launch ("l2 32 32 2": the launch's fields joined by
// spaces), by SM, each warp's stamps. width is the records' length.
func readWarpStamps(t *testing.T, path string, words, keyInts, width int) warpRuns {
	t.Helper()
	return warpStamps(t, path, readCSVRecords(t, path), words, keyInts, width)
}

// warpStamps is readWarpStamps on the records recs of path, read already.
func warpStamps(t *testing.T, path string, recs [][]string, words, keyInts, width int) warpRuns {
	t.Helper()
	runs := warpRuns{}
	for _, r := range recs[1:] {
		if len(r) != width {
			t.Fatalf("%s %v: want %d fields (%s)", path, r, width, strings.Join(recs[0], ","))
		}
		n := probeInts(t, path, r[words:])
		key := strings.Join(r[:words+keyInts], " ")
		if runs[key] == nil {
			runs[key] = map[int][][]int{}
		}
		sm := n[keyInts+2]
		runs[key][sm] = append(runs[key][sm], n[keyInts+3:])
	}
	return runs
}

// warpRuns is a stamped probe's launches (readWarpStamps): by launch key, by SM (or by
// CTA, engineStamps), each warp's stamps.
type warpRuns map[string]map[int][][]int

// launch is the launch key's stamps, or stops the test.
func (r warpRuns) launch(t *testing.T, key string) map[int][][]int {
	t.Helper()
	sms, ok := r[key]
	if !ok {
		t.Fatalf("no launch %q among the probe's %d", key, len(r))
	}
	return sms
}

// medianGap is the median over every warp of ws of its stamp b less its stamp a.
func medianGap(ws map[int][][]int, a, b int) int {
	var v []int
	for _, w := range ws {
		for _, s := range w {
			v = append(v, s[b]-s[a])
		}
	}
	return medianInt(v)
}

// column is stamp i of each warp.
func column(ws [][]int, i int) []int {
	c := make([]int, len(ws))
	for j, w := range ws {
		c[j] = w[i]
	}
	return c
}

// medianSpan is the median over the SMs (or CTAs) of ws of the cycles from the
// earliest warp's stamp a to the latest warp's stamp b.
func medianSpan(ws map[int][][]int, a, b int) int {
	var v []int
	for _, st := range ws {
		lo, hi := st[0][a], st[0][b]
		for _, s := range st {
			lo, hi = min(lo, s[a]), max(hi, s[b])
		}
		v = append(v, hi-lo)
	}
	return medianInt(v)
}

// medianInt is the middle of v (the upper one of an even count); v is sorted in place.
func medianInt(v []int) int {
	slices.Sort(v)
	return v[len(v)/2]
}

// returnSpread is the cycles a line between the first and the last of the warps' data
// arrivals at, each warp with lines lines: how fast the L1 worked them off.
func returnSpread(at []int, lines int) float64 {
	return float64(slices.Max(at)-slices.Min(at)) / float64((len(at)-1)*lines)
}

// TestLGQueueProbe: an H200 SM takes 64 warps' loads of 32 lines each, 2048 line
// misses, without holding any warp at issue (lg_throttle), from the L2 and from DRAM;
// its L1 then works the misses off at about 1.25 cycles a line. The timing engine's
// LSU queue today holds 32 cycles of work (mioQueue), one such load.
func TestLGQueueProbe(t *testing.T) {
	runs := readWarpStamps(t, lgQueueRun, 1, 3, 10) // from,k,warps,ctas_per_sm,block,warp,smid,t0,t1,t2
	// Issue: the 64th warp's load leaves within 400 cycles of the SM's first warp's
	// start (the second CTA starts about 200 cycles after the first).
	for _, key := range []string{"l2 32 32 2", "dram 32 32 2", "l2 4 32 2"} {
		for sm, ws := range runs.launch(t, key) {
			if len(ws) != 64 {
				t.Fatalf("%s: SM %d has %d warps, want 64", key, sm, len(ws))
			}
			if d := slices.Max(column(ws, 1)) - slices.Min(column(ws, 0)); d > 400 {
				t.Errorf("%s, SM %d: the last of 64 loads issued %d cycles after the first warp started, want at most 400", key, sm, d)
			}
		}
	}
	// Rate: with 4 SMs busy (the L2 idle), 32 warps' returns are spread by the L1's
	// work: 1.25 cycles a line of one sector when each warp has 32 (1.25 to 1.26 on
	// all four SMs), 1.1-1.6 with 4 a warp, 2.5-3.1 a line of four sectors.
	for _, c := range []struct {
		key      string
		lines    int // a warp's lines
		min, max float64
	}{{"l2 32 32 0", 32, 1.2, 1.3}, {"l2 4 32 0", 4, 1.0, 1.7}, {"l2 1 32 0", 1, 2.2, 3.3}} {
		for sm, ws := range runs.launch(t, c.key) {
			if per := returnSpread(column(ws, 2), c.lines); per < c.min || per > c.max {
				t.Errorf("%s, SM %d: returns %.2f cycles a line apart, want %.2f-%.2f", c.key, sm, per, c.min, c.max)
			}
		}
	}
	// Latency of one warp's one-line load: an L2 hit (about 290 cycles), then DRAM (the
	// fastest of 32 warps 516-740).
	for _, c := range []struct {
		key      string
		min, max int
	}{{"l2 1 1 1", 250, 320}, {"dram 1 32 1", 450, 800}} {
		for sm, ws := range runs.launch(t, c.key) {
			fastest := math.MaxInt
			for _, w := range ws {
				fastest = min(fastest, w[2]-w[1])
			}
			if fastest < c.min || fastest > c.max {
				t.Errorf("%s, SM %d: fastest load %d cycles, want %d-%d", c.key, sm, fastest, c.min, c.max)
			}
		}
	}
}

// ctaSpan is one CTA's first warp start and last warp end on its SM's clock.
type ctaSpan struct{ start, end int }

// readPhases reads the phases run: by kernel (v1, v2), by SM, its CTAs' spans in
// start order.
func readPhases(t *testing.T) map[string]map[int][]ctaSpan {
	t.Helper()
	recs := readCSVRecords(t, phasesRun)
	type key struct {
		kernel string
		block  int
	}
	spans, sms := map[key]*ctaSpan{}, map[key]int{}
	for _, r := range recs[1:] {
		if len(r) != 8 {
			t.Fatalf("phases %v: want kernel,block,warp,smid,t0,t1,t2,t3", r)
		}
		n := probeInts(t, "phases", r[1:])
		k := key{r[0], n[0]}
		s := spans[k]
		if s == nil {
			s = &ctaSpan{math.MaxInt, math.MinInt}
			spans[k], sms[k] = s, n[2]
		}
		s.start, s.end = min(s.start, n[3]), max(s.end, n[6])
	}
	out := map[string]map[int][]ctaSpan{}
	for _, k := range slices.SortedFunc(maps.Keys(spans), func(a, b key) int { return a.block - b.block }) {
		if out[k.kernel] == nil {
			out[k.kernel] = map[int][]ctaSpan{}
		}
		out[k.kernel][sms[k]] = append(out[k.kernel][sms[k]], *spans[k])
	}
	for _, bySM := range out {
		for _, cs := range bySM {
			slices.SortFunc(cs, func(a, b ctaSpan) int { return a.start - b.start })
		}
	}
	return out
}

// staggers are, over every SM, where each CTA starts in the lifetime of a CTA already
// running on its SM: 0 at its start (the two go in step), 0.5 halfway (they alternate).
func staggers(bySM map[int][]ctaSpan) []float64 {
	var f []float64
	for _, cs := range bySM {
		for i, c := range cs {
			for j, o := range cs {
				if i != j && o.start <= c.start && c.start < o.end {
					f = append(f, float64(c.start-o.start)/float64(o.end-o.start))
				}
			}
		}
	}
	slices.Sort(f)
	return f
}

// TestTransposePhasesProbe: on the H200 the two CTAs that share an SM in transpose V1
// (1024 threads each, strided loads) do not go in step: of the first two on an SM,
// one ends about 1500 cycles (60% of a CTA's time) before the other, and later CTAs
// start halfway through the one they join. That is the pattern sm.scheduler gtoc gives
// in the timing engine (the older CTA's warps first) and gtrr does not (the two in
// step, each starting 7% into the other's time). V2 (through a shared tile) is mixed.
func TestTransposePhasesProbe(t *testing.T) {
	runs := readPhases(t)
	for _, c := range []struct {
		kernel                    string
		apart                     float64 // share of SMs whose first two CTAs end 800 cycles apart or more
		stagger25, stagger75      float64 // the staggers' quartiles at least
		staggerMedLo, staggerMedH float64
	}{
		{"v1", 0.9, 0.4, 0.6, 0.5, 0.7},   // 0.95 apart
		{"v2", 0.5, 0.15, 0.5, 0.25, 0.5}, // 0.60 apart
	} {
		bySM := runs[c.kernel]
		if len(bySM) != 132 {
			t.Fatalf("phases %s: %d SMs, want 132", c.kernel, len(bySM))
		}
		apart := 0
		for _, cs := range bySM {
			if d := cs[1].end - cs[0].end; d >= 800 || d <= -800 {
				apart++
			}
		}
		if f := float64(apart) / float64(len(bySM)); f < c.apart {
			t.Errorf("%s: the first two CTAs end 800 cycles apart or more on %.2f of the SMs, want %.2f or more", c.kernel, f, c.apart)
		}
		s := staggers(bySM)
		q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
		if q(0.25) < c.stagger25 || q(0.75) < c.stagger75 || q(0.5) < c.staggerMedLo || q(0.5) > c.staggerMedH {
			t.Errorf("%s: staggers p25 %.2f, p50 %.2f, p75 %.2f; want p25 >= %.2f, p50 %.2f-%.2f, p75 >= %.2f",
				c.kernel, q(0.25), q(0.5), q(0.75), c.stagger25, c.staggerMedLo, c.staggerMedH, c.stagger75)
		}
	}
}

// TestLGDepthProbe: where the H200 does hold loads at issue, and what that does to a
// shared load (scripts/hw/lgdepth.cu). 32 warps an SM each with N loads of 32 lines:
// within 300 cycles of the start the SM takes 43-44 loads at N = 2, 54-63 at N = 4 and
// 63-70 at N = 8 and 16 (2000-2200 line misses), then one as room frees; a
// conflict-free shared load, 32 cycles alone, takes 300-420 cycles behind 31 warps'
// loads of 32 lines and about 1500 behind a full queue: the shared and global paths
// are one queue. L1 hits return 1 cycle a line apart, a line of one sector or four.
func TestLGDepthProbe(t *testing.T) {
	runs := readWarpStamps(t, lgDepthRun, 1, 2, 24) // part,n,ctas,block,warp,smid,t0,t1..t16,tend
	bySM := func(part string, n, ctas int) map[int][][]int {
		t.Helper()
		r := runs[fmt.Sprintf("%s %d %d", part, n, ctas)]
		if len(r) != 4 {
			t.Fatalf("lgdepth %s n=%d ctas=%d: %d SMs, want 4", part, n, ctas, len(r))
		}
		return r
	}
	for _, c := range []struct {
		n, min, max int // loads a warp; loads an SM takes within 300 cycles
	}{{1, 32, 32}, {2, 40, 48}, {4, 50, 66}, {8, 60, 72}, {16, 60, 72}} {
		for _, ctas := range []int{4, 132} {
			for sm, ws := range bySM("depth", c.n, ctas) {
				start, early := slices.Min(column(ws, 0)), 0
				for _, w := range ws {
					for j := 1; j <= c.n; j++ {
						if w[j]-start <= 300 {
							early++
						}
					}
				}
				if early < c.min || early > c.max {
					t.Errorf("depth n=%d, %d CTAs, SM %d: %d loads issued within 300 cycles, want %d-%d", c.n, ctas, sm, early, c.min, c.max)
				}
			}
		}
	}
	// L1 hits: the same lines again after a barrier; the 32 warps' data return 1 cycle
	// a line apart (0.98 for 32 lines a warp, 1.03-1.08 for 1 or 4).
	for _, k := range []int{1, 4, 32} {
		for sm, ws := range bySM("hit", k, 4) {
			if per := returnSpread(column(ws, 17), k); per < 0.9 || per > 1.2 {
				t.Errorf("hit n=%d, SM %d: returns %.2f cycles a line apart, want 0.9-1.2", k, sm, per)
			}
		}
	}
	for _, c := range []struct {
		n, min, max int // the other warps' loads; warp 0's shared load cycles
	}{{0, 28, 40}, {1, 250, 500}, {4, 1100, 1700}, {16, 1100, 1700}} {
		for sm, ws := range bySM("shared", c.n, 4) {
			if d := ws[0][17] - ws[0][1]; d < c.min || d > c.max {
				t.Errorf("shared behind %d loads a warp, SM %d: %d cycles, want %d-%d", c.n, sm, d, c.min, c.max)
			}
		}
	}
}

// TestLGAfterProbe: what a global store waits for on the H200, and what it does not
// (scripts/hw/lgafter.cu, docs/issue-11.md item 29). Warp 0 of a 32-warp CTA stores
// one line 200 cycles after the other 31 warps issued their loads (4 SMs):
//   - Alone, its store issues in 45 cycles and a membar.gl sees it acknowledged about
//     390 cycles later (a line of 4 sectors; 520-700 for 32 partial lines).
//   - Behind loads that do not fill the queue (31 shared loads with a 32-way conflict,
//     992 cycles of wavefronts; or 31 loads of 32 lines from the L2) it still issues
//     in 45 cycles, but is acknowledged only after the work queued before it: the
//     store goes through the one queue the SM's shared loads and global lookups go
//     through, first in, first out.
//   - Behind loads that fill the queue (4 or 16 loads a warp) it waits 1300-10000
//     cycles to issue, as a load does.
//
// And a CTA's room: with one CTA of 1024 threads an SM at a time, the next CTA starts
// 540-890 cycles after the last warp's last stamp whether the warps stored 0, 4 or 16
// lines each, so the room does not wait for whole-line stores to drain.
func TestLGAfterProbe(t *testing.T) {
	recs := readCSVRecords(t, lgAfterRun)
	runs := warpStamps(t, lgAfterRun, recs, 3, 2, 12) // part,ahead,kind,n,ctas,block,warp,smid,t0,t1,t2,tend
	after := func(ahead, kind string, n int) [][]int {
		t.Helper()
		r := runs[fmt.Sprintf("after %s %s %d 4", ahead, kind, n)]
		if len(r) != 4 {
			t.Fatalf("lgafter after %s %s n=%d: %d SMs, want 4", ahead, kind, n, len(r))
		}
		var ws [][]int
		for _, sm := range slices.Sorted(maps.Keys(r)) {
			ws = append(ws, r[sm]...)
		}
		return ws
	}
	for _, c := range []struct {
		ahead, kind        string
		n                  int
		issueMin, issueMax int // t2 - t1: the store's issue
		ackMin, ackMax     int // tend - t2: membar.gl's wait for its acknowledgement
		queued             int // cycles of work the 31 warps queued before warp 0's store (0: not checked)
	}{
		{"none", "line", 1, 40, 60, 370, 600, 0},
		{"none", "lines", 1, 40, 60, 500, 750, 0},
		{"shconf", "line", 1, 40, 60, 850, 1300, 31 * 32},
		{"lgline", "line", 1, 40, 60, 1400, 2400, 31 * 32},
		{"shconf", "line", 4, 1300, 1700, 2000, 2600, 4 * 31 * 32},
		{"lgline", "line", 4, 1300, 1700, 2700, 3300, 4 * 31 * 32},
		{"shconf", "line", 16, 8000, 10500, 2900, 4000, 0},
		{"lgline", "line", 16, 1700, 2100, 3000, 4300, 0},
	} {
		for _, w := range after(c.ahead, c.kind, c.n) {
			issue, ack := w[2]-w[1], w[3]-w[2]
			if issue < c.issueMin || issue > c.issueMax || ack < c.ackMin || ack > c.ackMax {
				t.Errorf("store of a %s behind %d %s loads a warp: issued in %d, acknowledged %d later; want %d-%d and %d-%d",
					c.kind, c.n, c.ahead, issue, ack, c.issueMin, c.issueMax, c.ackMin, c.ackMax)
			}
			// FIFO: acknowledged no sooner than the work queued before it (at least
			// a cycle a wavefront or a line) is done, from the loads' start.
			if c.queued > 0 && w[3]-w[0] < c.queued {
				t.Errorf("store of a %s behind %d %s loads a warp: acknowledged %d cycles after the loads began, before their %d cycles of work",
					c.kind, c.n, c.ahead, w[3]-w[0], c.queued)
			}
		}
	}
	// room: by kind and n, by SM, by block: the CTA's first start (t0) and its
	// warps' last stamp after their stores (t1)
	type span struct{ first, last int }
	rooms := map[string]map[int]map[int]*span{}
	for _, r := range recs[1:] {
		if r[0] != "room" {
			continue
		}
		n := probeInts(t, "lgafter room", r[5:10]) // block,warp,smid,t0,t1
		key := r[2] + " " + r[3]
		if rooms[key] == nil {
			rooms[key] = map[int]map[int]*span{}
		}
		if rooms[key][n[2]] == nil {
			rooms[key][n[2]] = map[int]*span{}
		}
		sp := rooms[key][n[2]][n[0]]
		if sp == nil {
			sp = &span{n[3], n[4]}
			rooms[key][n[2]][n[0]] = sp
		}
		sp.first, sp.last = min(sp.first, n[3]), max(sp.last, n[4])
	}
	for _, key := range []string{"line 0", "line 4", "line 16"} {
		if len(rooms[key]) != 4 {
			t.Fatalf("lgafter room %s: %d SMs, want 4", key, len(rooms[key]))
		}
		for sm, bs := range rooms[key] {
			spans := slices.SortedFunc(maps.Values(bs), func(a, b *span) int { return a.first - b.first })
			if len(spans) < 2 {
				t.Fatalf("lgafter room %s, SM %d: %d CTAs, want 2 or more", key, sm, len(spans))
			}
			for i := 1; i < len(spans); i++ {
				if g := spans[i].first - spans[i-1].last; g < 500 || g > 950 {
					t.Errorf("lgafter room %s, SM %d: CTA %d starts %d cycles after the one before, want 500-950", key, sm, i, g)
				}
			}
		}
	}
}

// lgBufferIssues is, for each SM of lgbuffer.cu's launch key ("line 1 4": kind, loads
// a loader warp, CTAs), the storer warps' store issues in order, in cycles from the
// first storer's start (the loaders began about 100 cycles before it).
func lgBufferIssues(t *testing.T, runs map[string]map[int][][]int, key string) map[int][]int {
	t.Helper()
	r := runs["fill "+key]
	if len(r) != 4 {
		t.Fatalf("lgbuffer %s: %d SMs, want 4", key, len(r))
	}
	out := map[int][]int{}
	for sm, ws := range r {
		base := slices.Min(column(ws, 0))
		var at []int
		for _, w := range ws {
			for _, x := range w[1:17] {
				at = append(at, x-base)
			}
		}
		slices.Sort(at)
		out[sm] = at
	}
	return out
}

// TestLGBufferProbe: how many stores an H200 SM holds while they wait behind its LSU's
// queue (scripts/hw/lgbuffer.cu, docs/issue-11.md item 29). 16 warps of a CTA queue
// loads of 32 lines from the L2 (L a warp); the other 16 warps then issue 16 stores
// each, back to back (4 SMs):
//   - with 512 or 1024 lookups queued (L = 1, 2), 30-40 stores issue within 200
//     cycles and the rest wait, issuing as the queue drains (the last 1500-2100 cycles
//     in): the SM holds about 30-40 stores whose lines wait behind the queue;
//   - stores of 32 partial lines, each 62 cycles on the store path, with nothing
//     queued: 42-47 issue at once, then one each 60-70 cycles: about 40 held, whatever
//     their size;
//   - with no loads, stores of a line issue at the path's 4 cycles a store (256 within
//     1000 cycles).
//
// Stores of 4 lines of one sector each hold fewer: 28-30 at L = 1, 17-18 at L = 2 (not
// modelled: sm.lsu_stores counts stores whatever their lines).
func TestLGBufferProbe(t *testing.T) {
	runs := readWarpStamps(t, lgBufferRun, 2, 2, 25) // part,kind,l,ctas,block,warp,smid,t0,t1..t16,tend
	for _, c := range []struct {
		key                  string
		by                   int // cycles from the storers' start
		minIssued, maxIssued int
		lastMin, lastMax     int // the last store's issue
	}{
		{"line 0 4", 200, 80, 100, 850, 1050},
		{"line 1 4", 200, 30, 42, 1400, 1800},
		{"line 2 4", 200, 28, 36, 1750, 2100},
		{"line 1 132", 200, 30, 42, 1400, 1800},
		{"lines 0 4", 200, 40, 50, 15000, 16000},
		{"quarter 1 4", 200, 25, 32, 2150, 2450},
	} {
		for sm, at := range lgBufferIssues(t, runs, c.key) {
			n, _ := slices.BinarySearch(at, c.by)
			if last := at[len(at)-1]; n < c.minIssued || n > c.maxIssued || last < c.lastMin || last > c.lastMax {
				t.Errorf("lgbuffer %s, SM %d: %d stores issued by %d cycles, the last at %d; want %d-%d and %d-%d",
					c.key, sm, n, c.by, last, c.minIssued, c.maxIssued, c.lastMin, c.lastMax)
			}
		}
	}
}

// TestLGStoreProbe: what the H200's LSU does with stores, and with transpose V1's loads
// (scripts/hw/lgstore.cu, docs/issue-11.md item 28).
//   - A warp's store costs its SM a cycle a sector it writes, at least about 1.25 a
//     line, and 2 a line when it writes a few bytes of a sector: 32 warps each storing
//     16 times back to back (4 SMs, the lines in the L2) issue a store of one line of
//     four sectors every 4 cycles, of 2 lines of 2 sectors every 4.2, of 4 lines of one
//     whole sector every 5.1, of 32 lines of 4 bytes every 62 (1.95 a line).
//   - A shared load waits behind the stores of partial lines (about 1.9 cycles a line,
//     and about 3000 cycles behind a full queue: about 1500 such lines) but hardly
//     behind whole sectors (under 200 cycles behind 496 stores of a line each).
//   - V1's loads (warp w loads word w of 32 lines, so 8 warps read each sector and 7 of
//     them find it on its way) cost 1.2-1.35 cycles a line, from the L2 and from DRAM:
//     a lookup that finds its sector still in flight costs what a miss does (1.25,
//     lgdepth.cu), not what a hit does (1.0).
//   - In V1 itself the 64 warps of an SM's first two CTAs get their data 1.24-1.42
//     cycles a line apart; a warp waits about 330 cycles from its start to its load's
//     issue, 2170 (median) for the data, and about 66 to issue its store.
func TestLGStoreProbe(t *testing.T) {
	recs := readCSVRecords(t, lgStoreRun)
	runs := warpStamps(t, lgStoreRun, recs, 2, 2, 25) // part,kind,n,ctas,block,warp,smid,t0,t1..t16,tend
	bySM := func(part, kind string, n, ctas, sms int) map[int][][]int {
		t.Helper()
		r := runs[fmt.Sprintf("%s %s %d %d", part, kind, n, ctas)]
		if len(r) != sms {
			t.Fatalf("lgstore %s %s n=%d ctas=%d: %d SMs, want %d", part, kind, n, ctas, len(r), sms)
		}
		return r
	}
	for _, c := range []struct {
		kind     string
		n        int
		per      float64 // lines a store, or 1 for cycles a store
		min, max float64 // cycles a store (or a line)
	}{
		{"line", 16, 1, 3.8, 4.2}, {"half", 16, 1, 4.0, 4.5}, {"quarter", 16, 1, 4.9, 5.4},
		{"lines", 16, 32, 1.85, 2.1}, {"lines", 4, 32, 1.7, 2.2},
	} {
		for sm, ws := range bySM("store", c.kind, c.n, 4, 4) {
			start, last := slices.Min(column(ws, 0)), 0
			for _, w := range ws {
				last = max(last, slices.Max(w[1:c.n+1]))
			}
			if got := float64(last-start) / float64(len(ws)*c.n) / c.per; got < c.min || got > c.max {
				t.Errorf("store %s n=%d, SM %d: %.2f cycles, want %.2f-%.2f", c.kind, c.n, sm, got, c.min, c.max)
			}
		}
	}
	for _, c := range []struct {
		kind     string
		n        int
		min, max int // warp 0's shared load, cycles
	}{
		{"line", 1, 28, 40}, {"line", 16, 28, 200}, {"half", 16, 28, 200}, {"quarter", 16, 28, 200},
		{"lines", 1, 1700, 2000}, {"lines", 4, 2800, 3500}, {"lines", 16, 2800, 3500},
	} {
		for sm, ws := range bySM("behind", c.kind, c.n, 4, 4) {
			if d := ws[0][17] - ws[0][1]; d < c.min || d > c.max {
				t.Errorf("shared load behind %d stores of %s a warp, SM %d: %d cycles, want %d-%d", c.n, c.kind, sm, d, c.min, c.max)
			}
		}
	}
	for _, from := range []string{"l2", "dram"} {
		for _, ctas := range []int{4, 132} {
			for sm, ws := range bySM("pend", from, 1, ctas, 4) {
				if per := returnSpread(column(ws, 17), 32); per < 1.1 || per > 1.4 {
					t.Errorf("pend from %s, %d CTAs, SM %d: data %.2f cycles a line apart, want 1.1-1.4", from, ctas, sm, per)
				}
			}
		}
	}
	// V1's warps by SM, each as block, t0, t1, t2, t3 (readWarpStamps drops the block)
	v1 := map[int][][]int{}
	for _, r := range recs[1:] {
		if r[0] == "v1" {
			n := probeInts(t, "lgstore v1", r[4:11]) // block,warp,smid,t0..t3
			v1[n[2]] = append(v1[n[2]], []int{n[0], n[3], n[4], n[5], n[6]})
		}
	}
	if len(v1) != 16 {
		t.Fatalf("lgstore v1: %d SMs, want 16", len(v1))
	}
	var issue, data, store []int
	for sm, ws := range v1 {
		// the first two CTAs on the SM: the blocks whose warps start first
		starts := map[int]int{}
		for _, w := range ws {
			if s, ok := starts[w[0]]; !ok || w[1] < s {
				starts[w[0]] = w[1]
			}
		}
		blocks := slices.SortedFunc(maps.Keys(starts), func(a, b int) int { return starts[a] - starts[b] })
		var at []int
		for _, w := range ws {
			if w[0] == blocks[0] || w[0] == blocks[1] {
				at = append(at, w[3])
			}
			issue, data, store = append(issue, w[2]-w[1]), append(data, w[3]-w[2]), append(store, w[4]-w[3])
		}
		if len(at) != 64 {
			t.Fatalf("lgstore v1, SM %d: %d warps in the first two CTAs, want 64", sm, len(at))
		}
		if per := returnSpread(at, 32); per < 1.2 || per > 1.45 {
			t.Errorf("v1, SM %d: the first two CTAs' data %.2f cycles a line apart, want 1.2-1.45", sm, per)
		}
	}
	if i, d, s := medianInt(issue), medianInt(data), medianInt(store); i < 250 || i > 450 || d < 1800 || d > 2600 || s > 100 {
		t.Errorf("v1: a warp's median wait to issue its load %d, for the data %d, to issue its store %d cycles; want 250-450, 1800-2600, under 100", i, d, s)
	}
}
