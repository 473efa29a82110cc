package replay

import (
	"slices"
	"testing"
)

// s2rRun is scripts/hw/s2r.cu on an H200: reads of special registers (S2R), alone,
// from 32 warps, and behind queued shared loads or global stores.
const s2rRun = "../traces/hw/h200-2026-11-29-s2r/s2r.csv"

// TestS2RProbe: on the H200 a lone warp's read of a special register (S2R) arrives
// 25-40 cycles after it issues; 32 warps' reads, one each, arrive one every 2 cycles
// (the SM's rate); a read waits behind the 32-way conflicting shared loads queued
// before it (one a warp: 1024 wavefronts, the median read 600 cycles), and far less
// behind global stores (16 lines a warp: 200). The engine takes such a read for an
// ALU move (docs/issue-11.md item 33).
func TestS2RProbe(t *testing.T) {
	runs := readWarpStamps(t, s2rRun, 1, 2, 15) // part,k,w,block,warp,smid,t0..t8
	get := func(key string) map[int][][]int {
		t.Helper()
		sms, ok := runs[key]
		if !ok {
			t.Fatalf("s2r: no launch %q", key)
		}
		return sms
	}
	// wait is the median over the launch's warps of t2 - t1: the read's issue to its
	// arrival (behind and behindst).
	wait := func(key string) int {
		var v []int
		for _, ws := range get(key) {
			for _, w := range ws {
				v = append(v, w[2]-w[1])
			}
		}
		return medianInt(v)
	}
	alone := wait("behind 0 1")
	t.Logf("a lone warp's read arrives %d cycles after it issues", alone)
	if alone < 25 || alone > 40 {
		t.Errorf("a lone warp's read arrives after %d cycles, want 25-40", alone)
	}
	for sm, ws := range get("behind 0 32") {
		at := column(ws, 2)
		slices.Sort(at)
		rate := float64(at[len(at)-1]-at[0]) / float64(len(at)-1)
		t.Logf("SM %d: 32 warps' reads arrive over %d cycles, %.2f apart", sm, at[len(at)-1]-at[0], rate)
		if rate < 1.8 || rate > 2.4 {
			t.Errorf("SM %d: 32 warps' reads arrive %.2f cycles apart, want 1.8-2.4", sm, rate)
		}
	}
	free, shared, stores := wait("behind 0 32"), wait("behind 1 32"), wait("behindst 16 32")
	t.Logf("32 warps: a read waits %d cycles with nothing queued, %d behind a 32-way conflicting load a warp, %d behind 16 line stores a warp", free, shared, stores)
	if shared < 4*free || shared < 2*stores {
		t.Errorf("a read waits %d cycles behind conflicting loads, %d with nothing queued, %d behind stores: want at least 4 and 2 times as long", shared, free, stores)
	}
}
