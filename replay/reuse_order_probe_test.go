package replay

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// reuseOrderRuns are the H200 runs of scripts/hw/reuse.cu's order, order2, skew and
// warps parts (ARGS=order ... scripts/hw/probe.sh reuse, one machine; hw-facts section
// 21): which lines past 40 MB the L2 keeps depends on how evenly the warps go, not on
// the order of the addresses.
const reuseOrderRuns = "../traces/hw/h200-2026-11-29-reuse-"

// orderLaunch is one launch of the order or order2 part: H MB of hot lines read 4
// passes in an order (kind), and what ncu counted (caches flushed before it).
type orderLaunch struct {
	kind string
	mb   float64
	// read is the DRAM MB read; near the fraction of the SMs' L2 sectors read that hit
	// in the partition they reached first.
	read, near float64
}

// kept is the fraction of hot lines a pass after the first finds in the L2.
func (l orderLaunch) kept() float64 { return 1 - (l.read-l.mb)/(3*l.mb) }

func readOrderRun(t *testing.T, part string) map[string]orderLaunch {
	t.Helper()
	recs, metric := readProbeRun(t, reuseOrderRuns+part+"/", "reuse")
	by := map[string]orderLaunch{}
	for _, rec := range recs {
		if len(rec) != 11 {
			t.Fatalf("%s reuse-free.csv %v: want id,kind,bytes,blocks,threads,ms,r,warm,passes,part,ranked", part, rec)
		}
		n := probeInts(t, "reuse-free.csv", []string{rec[0], rec[2]})
		m := metric[n[0]]
		need := []string{"dram__bytes_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"}
		for _, k := range need {
			if _, ok := m[k]; !ok {
				t.Fatalf("%s launch %d: no %s in the ncu run", part, n[0], k)
			}
		}
		l := orderLaunch{kind: rec[1], mb: float64(n[1]) / (1 << 20), read: m[need[0]] / (1 << 20), near: m[need[2]] / m[need[1]]}
		by[fmt.Sprintf("%s %.0f", l.kind, l.mb)] = l
	}
	return by
}

// TestReuseOrderProbe checks hw-facts section 21 against the committed runs.
func TestReuseOrderProbe(t *testing.T) {
	order, order2 := readOrderRun(t, "order"), readOrderRun(t, "order2")
	if len(order) != 36 || len(order2) != 28 {
		t.Fatalf("%d and %d launches in the order and order2 runs, want 36 and 28", len(order), len(order2))
	}
	for _, c := range []struct {
		run      map[string]orderLaunch
		launch   string
		min, max float64
		what     string
	}{
		// The same addresses in the same order keep or lose the 48 MB by the rate the
		// warps issue at: seqperm computes hot's permutation and reads seq's lines.
		{order, "seq 48", 0, 0.5, "in order"},
		{order, "seqperm 48", 0.95, 1, "in order at the shuffled read's instruction rate"},
		{order, "hot 48", 0.95, 1, "shuffled"},
		{order, "inblk 48", 0, 0.5, "lines shuffled within 4 KB blocks (cheap)"},
		{order, "blk 48", 0.95, 1, "4 KB blocks shuffled (a permutation a warp)"},
		// Fewer warps an SM lose it at a lower rate still.
		{order, "hot1 48", 0, 0.2, "shuffled, one CTA an SM"},
		{order2, "hot2 48", 0, 0.2, "shuffled, two CTAs an SM"},
		{order2, "seqs32 48", 0.95, 1, "in order, 32 multiply-adds a read, 8 CTAs an SM"},
		{order2, "seqs32x2 48", 0, 0.2, "the same at two CTAs an SM"},
		// One partition's SMs: in order, 40 MB misses in the near partition on every
		// read after the first pass, and the far half stays at home (kept 0.5).
		{order, "seqp 40", 0.45, 0.55, "in order from one partition's SMs"},
		{order, "hotp 40", 0.9, 1, "shuffled from one partition's SMs"},
	} {
		l, ok := c.run[c.launch]
		if !ok {
			t.Fatalf("no launch %q", c.launch)
		}
		if k := l.kept(); k < c.min || k > c.max {
			t.Errorf("%s (%s): keeps %.2f of its hot lines a pass, want %.2f-%.2f", c.launch, c.what, k, c.min, c.max)
		}
	}
	if l := order["seqp 40"]; l.near > 0.02 {
		t.Errorf("seqp 40: %.2f of reads hit near, want none past the first pass (0.02 at most)", l.near)
	}
	// More multiply-adds a read (a slower issue) keep more of 64 MB, at 8 CTAs an SM.
	prev := -1.0
	for _, k := range []string{"seq", "seqs8", "seqs16", "seqs32", "seqs64", "seqs128"} {
		l := order2[k+" 64"]
		if l.kept() <= prev {
			t.Errorf("%s 64: keeps %.2f, not more than the launch with fewer multiply-adds (%.2f)", k, l.kept(), prev)
		}
		prev = l.kept()
	}
}

// TestReuseSkewProbe: with the SMs' issue saturated, the warps of the oldest CTAs on
// an SM go first (hw-facts section 21): their passes end long before the youngest
// CTAs' first does; in order at full rate, or at one CTA an SM, all go evenly.
func TestReuseSkewProbe(t *testing.T) {
	recs := readCSVRecords(t, reuseOrderRuns+"skew/reuse-free.csv")
	spread := map[string]float64{} // pass 0's p90 over p10, by launch
	for _, r := range recs[1:] {
		if len(r) != 13 {
			t.Fatalf("reuse-skew %v: want id,kind,bytes,blocks,threads,ms,pass,p1,p10,p50,p90,p99,corr", r)
		}
		if r[6] != "0" {
			continue
		}
		mb := probeInts(t, "reuse-skew", r[2:3])[0] >> 20
		spread[fmt.Sprintf("%s %d", r[1], mb)] = probeFloat(t, "reuse-skew", r, r[10]) / probeFloat(t, "reuse-skew", r, r[8])
	}
	for _, c := range []struct {
		launch   string
		min, max float64
	}{{"hot 48", 3, 10}, {"seqperm 48", 3, 10}, {"seqs32 48", 3, 10}, {"seq 48", 1, 1.2}, {"hot1 48", 1, 1.1}, {"seqs32x2 48", 1, 1.1}} {
		s, ok := spread[c.launch]
		if !ok {
			t.Fatalf("reuse-skew: no launch %q", c.launch)
		}
		if s < c.min || s > c.max {
			t.Errorf("%s: the slowest tenth of warps take %.2f times the fastest tenth's cycles for pass 0, want %.1f-%.1f", c.launch, s, c.min, c.max)
		}
	}

	// By warp: the CTA's age on its SM decides, its warp slot does not.
	rows := readCSVRecords(t, reuseOrderRuns+"warps/reuse-free.csv")
	type key struct {
		kind string
		sm   int
	}
	type warp struct{ block, slot, c0 int }
	bySM := map[key][]warp{}
	for _, r := range rows[1:] {
		if len(r) != 11 {
			t.Fatalf("reuse-warps %v: want id,kind,bytes,warp,block,slot,smid,c0,c1,c2,c3", r)
		}
		n := probeInts(t, "reuse-warps", []string{r[4], r[5], r[6], r[7]})
		bySM[key{r[1], n[2]}] = append(bySM[key{r[1], n[2]}], warp{n[0], n[1], n[3]})
	}
	// mean pass-0 cycles by the CTA's rank among those on its SM (0: lowest blockIdx)
	// and by warp slot
	rank, slot := map[string]*[8][2]float64{}, map[string]*[8][2]float64{}
	for k, ws := range bySM {
		blocks := map[int]int{}
		for _, w := range ws {
			blocks[w.block] = 0
		}
		for r, b := range slices.Sorted(maps.Keys(blocks)) {
			blocks[b] = r
		}
		if rank[k.kind] == nil {
			rank[k.kind], slot[k.kind] = &[8][2]float64{}, &[8][2]float64{}
		}
		for _, w := range ws {
			if r := blocks[w.block]; r < 8 && w.slot < 8 {
				rank[k.kind][r][0] += float64(w.c0)
				rank[k.kind][r][1]++
				slot[k.kind][w.slot][0] += float64(w.c0)
				slot[k.kind][w.slot][1]++
			}
		}
	}
	mean := func(a *[8][2]float64, i int) float64 { return a[i][0] / max(a[i][1], 1) }
	for _, c := range []struct {
		kind     string
		min, max float64 // the youngest CTA's pass 0 over the oldest's
	}{{"hot", 4, 10}, {"seqperm", 4, 10}, {"seqs32", 4, 10}, {"seq", 1, 1.1}} {
		a, s := rank[c.kind], slot[c.kind]
		if a == nil {
			t.Fatalf("reuse-warps: no launch %q", c.kind)
		}
		if q := mean(a, 7) / mean(a, 0); q < c.min || q > c.max {
			t.Errorf("%s: the youngest CTA on an SM takes %.2f times the oldest's cycles for pass 0, want %.1f-%.1f", c.kind, q, c.min, c.max)
		}
		lo, hi := mean(s, 0), mean(s, 0)
		for i := range 8 {
			lo, hi = min(lo, mean(s, i)), max(hi, mean(s, i))
		}
		if hi/lo > 1.03 {
			t.Errorf("%s: warp slots' mean pass-0 cycles from %.0f to %.0f, want within 3%%", c.kind, lo, hi)
		}
	}
}

// TestReuseOrderModel: the timing engine on hopper/h200 with sm.scheduler gtoc reads
// from DRAM what the H200 does for 48 MB of lines read 4 passes shuffled and in order
// (the order run). Shuffled, each read's 64-bit modulo (udiv64SASS) saturates issue and
// gtoc lets an SM's oldest CTAs go first, so their lines are read again while the L2
// holds them; the same trace under the preset's gtrr (round robin over all warps) reads
// three times as much. In address order the warps wait on memory, go in step, and lose
// the lines. (The preset stays gtrr until gtoc's transposes are understood:
// docs/issue-11.md item 25.)
func TestReuseOrderModel(t *testing.T) {
	hw := readOrderRun(t, "order")
	const mb = 48
	traces := map[string]*format.Reader{}
	for _, c := range []struct {
		kind      string
		scheduler string
		min, max  float64
	}{
		{"hot", "gtoc", -0.1, 0.1},
		{"hot", "gtrr", 1.5, 5}, // 2.5 to 6 times the H200's read
		{"seq", "gtoc", -0.1, 0.1},
	} {
		if traces[c.kind] == nil {
			traces[c.kind] = captureReuse(t, reuseLaunch{kind: c.kind, mb: mb, passes: 4})
		}
		rep, err := Timing(context.Background(), traces[c.kind], presetOf(t, "hopper", "h200", "sm.scheduler="+c.scheduler), Options{})
		if err != nil {
			t.Fatal(err)
		}
		read := metric(t, &rep.Kernels[0], "dram__bytes_read.sum") / (1 << 20)
		h := hw[fmt.Sprintf("%s %d", c.kind, mb)].read
		if d := read/h - 1; d < c.min || d > c.max {
			t.Errorf("%s %d MB, scheduler %q: DRAM read %.1f MB, H200 %.1f (%+.0f%%, want %+.0f%% to %+.0f%%)", c.kind, mb, c.scheduler, read, h, 100*d, 100*c.min, 100*c.max)
		}
	}
}
