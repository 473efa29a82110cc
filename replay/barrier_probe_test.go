package replay

import (
	"fmt"
	"maps"
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

// lateAfterLast is afterLast's stamp t3 of the H200's launch "part k w" (a late part:
// barrier.cu's late, ldsrate.cu's late and warm), every SM's warps together.
func lateAfterLast(t *testing.T, runs warpRuns, part string, k, w int) []int {
	t.Helper()
	return slices.Concat(slices.Collect(maps.Values(afterLast(runs.launch(t, fmt.Sprintf("%s %d %d", part, k, w)), k, w, 3)))...)
}

// loneAfterLast is the H200's lone warp in barrier.cu's late part k: the median of its
// t3 less its arrival t1, the barrier's release and what follows it.
func loneAfterLast(t *testing.T, runs warpRuns, k int) int {
	t.Helper()
	return medianInt(lateAfterLast(t, runs, "late", k, 1))
}

// TestBarrierProbe: on the H200 a warp issues past a bar.sync (SASS BAR.SYNC.DEFER_BLOCKING)
// until an instruction that needs the barrier: the clock reads and the add after it go
// 3000 cycles before the late warp arrives; an S2R or a second barrier issues 14 cycles
// after the last arrival, a shared load about 60 and a global store or load about 120
// (a lone warp: its arrival t1, the BAR, t2, then the instruction; lat.shared 23 and
// lat.s2r 23 less). 32 warps' S2Rs after it arrive one every 2 cycles, the SM's S2R
// rate (TestS2RProbe). Without lat.bar the engine holds a warp at its bar.sync until
// the last arrives, and lets every kind go the next cycle (TestBarrierOnTheProbe;
// docs/issue-11.md item 35).
func TestBarrierProbe(t *testing.T) {
	runs := readWarpStamps(t, barrierRun, 1, 2, 10) // part,k,w,block,warp,smid,t0..t3
	for _, k := range []int{0, 1, 6, 7} {           // clock reads, an add
		for sm, d := range afterLast(runs.launch(t, fmt.Sprintf("late %d 32", k)), k, 32, 3) {
			early := slices.Delete(d, lateWarp(k, 32), lateWarp(k, 32)+1)
			if m := slices.Max(early); m > -2000 {
				t.Errorf("late %d, SM %d: a warp's t3 comes %d cycles after the last arrival, want its clock reads and adds 2000 cycles before it", k, sm, m)
			}
		}
	}
	lone := func(k int) int { return loneAfterLast(t, runs, k) }
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

// barrierLatePTX is barrier.cu's late part for a CTA of warps warps and part k: each
// warp stores its word of a shared array, bar.sync, t0; the late warp (lateWarp) spins
// on the clock (capture's clock counts the warp's instructions: 750 trips); t1,
// bar.sync, t2, then by k / 2 what follows it and t3 (0: nothing; 1: an S2R and an add
// on it; 2: a shared load and an add; 4: a second bar.sync; 6: a global store).
func barrierLatePTX(k, warps int) string {
	var then string
	switch k / 2 {
	case 0:
	case 1:
		then = "mov.u32 %r10, %lanemask_le;\nadd.u32 %r11, %r10, 1;\n"
	case 2:
		then = "ld.volatile.shared.u32 %r10, [%r7];\nadd.u32 %r11, %r10, 1;\n"
	case 4:
		then = "bar.sync 0;\n"
	case 6:
		then = "mul.wide.u32 %rd11, %r1, 4;\nadd.s64 %rd12, %rd10, %rd11;\nst.global.u32 [%rd12], %r1;\n"
	default:
		panic(fmt.Sprintf("barrierLatePTX: no part %d", k))
	}
	return fmt.Sprintf(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf)
{
.reg .pred %%p<4>;
.reg .b32 %%r<16>;
.reg .b64 %%rd<16>;
.shared .align 4 .b8 sh[4096];
ld.param.u64 %%rd10, [buf];
mov.u32 %%r1, %%tid.x;
shr.u32 %%r3, %%r1, 5;
shl.b32 %%r5, %%r1, 2;
mov.u32 %%r6, sh;
add.u32 %%r7, %%r6, %%r5;
st.shared.u32 [%%r7], %%r1;
bar.sync 0;
mov.u64 %%rd1, %%clock64;
setp.ne.u32 %%p1, %%r3, %d;
@%%p1 bra ARRIVE;
SPIN:
mov.u64 %%rd2, %%clock64;
sub.s64 %%rd3, %%rd2, %%rd1;
setp.lt.s64 %%p2, %%rd3, 3000;
@%%p2 bra SPIN;
ARRIVE:
mov.u64 %%rd4, %%clock64;
bar.sync 0;
mov.u64 %%rd5, %%clock64;
%smov.u64 %%rd6, %%clock64;
ret;
}
`, lateWarp(k, warps), then)
}

// barrierKeys are the release's measured waits (TestBarrierProbe; a lone warp): a
// second barrier 14 cycles after the last arrival's BAR, a shared load 61 (its result
// at 86, lat.shared 23), a global store 119 (t3 121); with the S2R's keys (item 34).
var barrierKeys = append([]string{"lat.bar=14", "lat.bar_shared=61", "lat.bar_global=119"}, s2rKeys...)

// TestBarrierOnTheProbe: barrier.cu's late part in the timing engine on hopper/h200
// against the H200 (TestBarrierProbe). With lat.bar, lat.bar_shared and lat.bar_global
// the other warps' clock reads after the barrier come long before the late warp
// arrives (without them, after it), and a lone warp's S2R, second barrier, shared load
// and global store come within 4 cycles of the H200's after its arrival. 32 warps'
// S2Rs behind the release arrive 2 cycles apart, from the lone warp's time.
func TestBarrierOnTheProbe(t *testing.T) {
	runs := readWarpStamps(t, barrierRun, 1, 2, 10)
	// t3 is each CTA's warps' stamp t3 (clock read 3, counting from 0) less the late
	// warp's t1 (clock read 1; the spin's reads come between and are skipped).
	t3 := func(k, warps int, sets ...string) []int {
		r := captureProbe(t, "barrier.ptx", barrierLatePTX(k, warps), 4, 32*warps, "buf:u32:4096")
		_, st := engineStamps(t, r, sets...)
		var d []int
		for _, ws := range st {
			late := ws[lateWarp(k, warps)]
			a := late[len(late)-3] // t1, t2, t3 are each warp's last three
			for _, w := range ws {
				d = append(d, w[len(w)-1]-a)
			}
		}
		return d
	}
	for _, k := range []int{0, 1} {
		with, without := slices.Min(t3(k, 32, barrierKeys...)), slices.Min(t3(k, 32))
		t.Logf("late %d, 32 warps: the first clock read after the barrier comes %d cycles after the last arrival with the keys, %d without", k, with, without)
		if with > -1000 || without < 0 {
			t.Errorf("late %d: the first clock read after the barrier %d cycles after the last arrival with the keys, %d without: want long before with them only", k, with, without)
		}
	}
	hw := func(k int) int { return loneAfterLast(t, runs, k) }
	for _, c := range []struct {
		what string
		k    int
	}{{"an S2R's result", 2}, {"a second barrier", 8}, {"a shared load's result", 4}, {"a global store", 12}} {
		got, without, want := medianInt(t3(c.k, 1, barrierKeys...)), medianInt(t3(c.k, 1, s2rKeys...)), hw(c.k)
		t.Logf("a lone warp: %s %d cycles after its arrival in the engine (%d without the barrier's keys), the H200 %d", c.what, got, without, want)
		if got < want-4 || got > want+4 {
			t.Errorf("a lone warp: %s %d cycles after its arrival in the engine, the H200 %d: want within 4", c.what, got, want)
		}
	}
	for _, k := range []int{4, 8, 12} {
		d, h := t3(k, 32, barrierKeys...), lateAfterLast(t, runs, "late", k, 32)
		t.Logf("late %2d, 32 warps: t3 from %d to %d cycles after the last arrival in the engine, the H200 %d to %d", k, slices.Min(d), slices.Max(d), slices.Min(h), slices.Max(h))
	}
	d := t3(2, 32, barrierKeys...)
	slices.Sort(d)
	rate := float64(d[len(d)-1]-d[0]) / 31 // 4 CTAs of 32 warps, each alone on its SM
	t.Logf("32 warps' S2Rs after the barrier arrive from %d to %d cycles after the last arrival, %.2f apart", d[0], d[len(d)-1], rate)
	if d[0] < hw(2)-4 || rate < 1.8 || rate > 2.4 {
		t.Errorf("32 warps' S2Rs arrive from %d cycles after the last arrival, %.2f apart: want from %d, 1.8-2.4 apart", d[0], rate, hw(2)-4)
	}
}
