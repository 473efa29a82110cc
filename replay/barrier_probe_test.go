package replay

import (
	"fmt"
	"slices"
	"testing"
)

// barrierRun is scripts/hw/barrier.cu on an H200: a CTA's warps at a bar.sync, one of
// them 3000 cycles late, and what each kind of instruction after it waits for.
const barrierRun = "../traces/hw/h200-2026-11-29-barrier/barrier.csv"

// lateWarp is the late part's warp that arrives 3000 cycles after the others at a CTA
// of w warps: warp 0 for an even k, the last for an odd one.
func lateWarp(k, w int) int {
	if k%2 == 0 {
		return 0
	}
	return w - 1
}

// afterLast is, for each SM of a late launch, each warp's stamp i less the late warp's
// arrival (t1).
func afterLast(ws map[int][][]int, k, w, i int) map[int][]int {
	d := map[int][]int{}
	for sm, st := range ws {
		a := st[lateWarp(k, w)][1]
		for _, s := range st {
			d[sm] = append(d[sm], s[i]-a)
		}
	}
	return d
}

// TestBarrierProbe: on the H200 a warp issues past a bar.sync (SASS BAR.SYNC.DEFER_BLOCKING)
// until an instruction that needs the barrier: the clock reads and the add after it go
// 3000 cycles before the late warp arrives; an S2R or a second barrier issues 14 cycles
// after the last arrival, a shared load about 60 and a global store or load about 120
// (a lone warp: its arrival t1, the BAR, t2, then the instruction; lat.shared 23 and
// lat.s2r 23 less). 32 warps' S2Rs after it arrive one every 2 cycles, the SM's S2R
// rate (TestS2RProbe). The engine holds a warp at its bar.sync until the last arrives,
// and lets every kind go the next cycle (docs/issue-11.md item 35).
func TestBarrierProbe(t *testing.T) {
	runs := readWarpStamps(t, barrierRun, 1, 2, 10) // part,k,w,block,warp,smid,t0..t3
	for _, k := range []int{0, 1, 6, 7} {           // clock reads, an add
		for sm, d := range runs.launch(t, fmt.Sprintf("late %d 32", k)) {
			early := afterLast(map[int][][]int{sm: d}, k, 32, 3)[sm]
			early = slices.Delete(early, lateWarp(k, 32), lateWarp(k, 32)+1)
			if m := slices.Max(early); m > -2000 {
				t.Errorf("late %d, SM %d: a warp's t3 comes %d cycles after the last arrival, want its clock reads and adds 2000 cycles before it", k, sm, m)
			}
		}
	}
	// lone is a lone warp's t3 less its t1: the barrier's release and what follows it.
	lone := func(k int) int {
		v := []int{}
		for _, d := range afterLast(runs.launch(t, fmt.Sprintf("late %d 1", k)), k, 1, 3) {
			v = append(v, d...)
		}
		return medianInt(v)
	}
	s2r, bar, lds, stg := lone(2), lone(8), lone(4), lone(12)
	t.Logf("a lone warp's t3 after its arrival: S2R read %d, a second bar.sync %d, LDS read %d, STG %d", s2r, bar, lds, stg)
	for _, c := range []struct {
		what      string
		got, want int
	}{{"an S2R's result", s2r, 39}, {"a second barrier", bar, 16}, {"a shared load's result", lds, 86}, {"a global store", stg, 121}} {
		if c.got < c.want-4 || c.got > c.want+4 {
			t.Errorf("a lone warp: %s comes %d cycles after its arrival, want %d±4", c.what, c.got, c.want)
		}
	}
	for sm, d := range afterLast(runs.launch(t, "late 2 32"), 2, 32, 3) {
		slices.Sort(d)
		rate := float64(d[len(d)-1]-d[0]) / float64(len(d)-1)
		t.Logf("SM %d: 32 warps' S2Rs after the barrier arrive from %d to %d cycles after the last arrival, %.2f apart", sm, d[0], d[len(d)-1], rate)
		if d[0] < s2r-4 || rate < 1.8 || rate > 2.4 {
			t.Errorf("SM %d: 32 warps' S2Rs arrive from %d cycles after the last arrival, %.2f apart: want from %d, 1.8-2.4 apart", sm, d[0], rate, s2r-4)
		}
	}
}
