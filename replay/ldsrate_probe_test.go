package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// ldsRateRun is scripts/hw/ldsrate.cu on an H200: how fast an SM serves conflict-free
// shared loads from 1 to 32 warps with no barrier in the way, and what a constant,
// texture or read-only global read after a bar.sync waits for.
const ldsRateRun = "../traces/hw/h200-2026-11-29-ldsrate/ldsrate.csv"

// ldsSpan is the median over the SMs of the H200's launch "part k w" of the cycles from
// the first warp's t1 to the last warp's t2 (the first load's issue to the last's data).
func ldsSpan(t *testing.T, runs warpRuns, part string, k, w int) int {
	t.Helper()
	return medianSpan(runs.launch(t, fmt.Sprintf("%s %d %d", part, k, w)), 1, 2)
}

// TestLDSRateProbe: on the H200 a lone warp's conflict-free shared loads (LDS, a word a
// lane: one wavefront) issue 4 cycles apart and its 16-byte ones (LDS.128, four
// wavefronts) 8 apart, and four warps, one a sub-partition, go as fast as one, as do
// two on one sub-partition (a warp's limit, not its sub-partition's); 32
// warps' loads take the SM about one cycle a wavefront, as conflicting ones do
// (section 26). So 32 warps' single loads arriving 3 cycles apart behind a barrier's
// release (section 31) are not the SM's load rate. A constant, texture or ld.global.nc
// read after a bar.sync waits only the release (12 cycles more than without the
// barrier, for a lone warp; from the last arrival with 2 to 32 warps), where a coherent
// global load waits about 119 (TestBarrierProbe): the non-coherent paths need no
// memory ordering. hw-facts section 32.
func TestLDSRateProbe(t *testing.T) {
	runs := readWarpStamps(t, ldsRateRun, 1, 2, 10) // part,k,w,block,warp,smid,t0..t3
	gap := func(part string, k, w, a, b int) int {
		return medianGap(runs.launch(t, fmt.Sprintf("%s %d %d", part, k, w)), a, b)
	}
	lone := func(part string, k, w int) int { return gap(part, k, w, 1, 2) }
	per := float64(lone("rate", 16, 1)-lone("rate", 1, 1)) / 15
	per128 := float64(lone("rate128", 4, 1)-lone("rate128", 1, 1)) / 3
	t.Logf("a lone warp: 1 to 16 loads %d to %d cycles (%.2f a further load); LDS.128 1 and 4, %d and %d (%.2f)",
		lone("rate", 1, 1), lone("rate", 16, 1), per, lone("rate128", 1, 1), lone("rate128", 4, 1), per128)
	if per < 3.5 || per > 4.5 || per128 < 7 || per128 > 9 {
		t.Errorf("a lone warp's further loads %.2f cycles apart (LDS.128 %.2f): want 3.5-4.5 (7-9)", per, per128)
	}
	if one, four := lone("rate", 16, 1), lone("rate", 16, 4); four > one+4 {
		t.Errorf("16 loads a warp: one warp %d cycles, one a sub-partition %d: want within 4", one, four)
	}
	for _, c := range []struct {
		part   string
		k, wfs int // loads a warp, wavefronts a load
	}{{"rate", 16, 1}, {"rate", 8, 1}, {"rate128", 4, 4}} {
		s := ldsSpan(t, runs, c.part, c.k, 32)
		r := float64(s-lone(c.part, 1, 1)) / float64(32*c.k*c.wfs)
		t.Logf("32 warps, %d %s loads each: %d cycles from the first load to the last data, %.2f a wavefront past a lone load's latency", c.k, c.part, s, r)
		if r < 0.9 || r > 1.3 {
			t.Errorf("32 warps, %d %s loads: %.2f cycles a wavefront, want 0.9-1.3", c.k, c.part, r)
		}
	}
	// sub: only warps 0, 4, 8, ... load, 16 each (a warp's sub-partition is its number
	// mod 4): two on one sub-partition take as long as one, eight about 2.3 cycles a
	// load together.
	loaders := func(w int) []int {
		var v []int
		for _, ws := range runs.launch(t, fmt.Sprintf("sub 16 %d", w)) {
			for i := 0; i < len(ws); i += 4 {
				v = append(v, ws[i][2]-ws[i][1])
			}
		}
		return v
	}
	one, two, eight := medianInt(loaders(4)), medianInt(loaders(8)), slices.Max(loaders(32))
	t.Logf("16 loads a warp on one sub-partition: one warp %d cycles, two %d, eight %d (%.2f a load)", one, two, eight, float64(eight)/128)
	if two > one+one/10 || float64(eight)/128 < 1.8 {
		t.Errorf("one sub-partition: one warp's 16 loads %d cycles, two warps' %d, eight warps' 128 %d: want two within 10%% of one, eight at 1.8 cycles a load or more", one, two, eight)
	}
	for k, kind := range []string{"a constant read", "a divergent constant read", "a texture fetch", "an ld.global.nc"} {
		bar, free := gap("warm", 2*k, 1, 1, 3), gap("nobar", 2*k, 1, 1, 3)
		after := medianInt(lateAfterLast(t, runs, "warm", 2*k, 2))
		t.Logf("%s after a bar.sync: a lone warp's %d cycles, %d without the barrier; 2 warps' from the last arrival %d", kind, bar, free, after)
		if bar-free < 10 || bar-free > 14 || after < bar-2 || after > bar+4 {
			t.Errorf("%s: %d cycles after a bar.sync, %d without, %d from the last of 2 warps: want 10-14 more, and the last arrival's within 4", kind, bar, free, after)
		}
	}
}

// ldsRatePTX is ldsrate.cu's rate part (vec false) or rate128 (vec true) with k loads a
// warp: bar.sync, t1, k independent shared loads at immediate offsets from one address
// (a word a lane, or 16 bytes a lane), their sum, t2.
func ldsRatePTX(k int, vec bool) string {
	var b strings.Builder
	for j := range k {
		if vec {
			fmt.Fprintf(&b, "ld.volatile.shared.v4.u32 {%%r%d, %%r%d, %%r%d, %%r%d}, [%%r8+%d];\n", 20+4*j, 21+4*j, 22+4*j, 23+4*j, (j%2)*8192)
			fmt.Fprintf(&b, "xor.b32 %%r%d, %%r%d, %%r%d;\n", 100+j, 20+4*j, 23+4*j)
		} else {
			fmt.Fprintf(&b, "ld.volatile.shared.u32 %%r%d, [%%r7+%d];\n", 100+j, (j%4)*4096)
		}
	}
	for j := 1; j < k; j++ {
		fmt.Fprintf(&b, "add.u32 %%r100, %%r100, %%r%d;\n", 100+j)
	}
	return fmt.Sprintf(`.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf)
{
.reg .b32 %%r<200>;
.reg .b64 %%rd<16>;
.shared .align 16 .b8 sh[16384];
mov.u32 %%r1, %%tid.x;
shl.b32 %%r5, %%r1, 2;
mov.u32 %%r6, sh;
add.u32 %%r7, %%r6, %%r5;
shl.b32 %%r9, %%r1, 4;
and.b32 %%r9, %%r9, 8191;
add.u32 %%r8, %%r6, %%r9;
st.shared.u32 [%%r7], %%r1;
bar.sync 0;
mov.u64 %%rd4, %%clock64;
%sadd.u32 %%r101, %%r100, 1;
mov.u64 %%rd5, %%clock64;
ret;
}
`, b.String())
}

// ncReadPTX is ldsrate.cu's warm (bar) and nobar parts for a lone warp, by kind: 0 a
// constant word, one address; 1 a constant word a lane, 32 addresses; 2 a texture fetch
// of a word a lane; 3 an ld.global.nc of a word a lane; 4 a coherent ld.global (for
// contrast). The read once, an add that waits for it, t1, the bar.sync (bar), t2, the
// read again, an add on it, t3.
func ncReadPTX(kind int, bar bool) string {
	read := [...]string{
		"ld.const.u32 %%r%d, [%%rd2];",
		"ld.const.u32 %%r%d, [%%rd3];",
		"tex.1d.v4.u32.s32 {%%r%d, %%r20, %%r21, %%r22}, [tx, {%%r1}];",
		"ld.global.nc.u32 %%r%d, [%%rd12];",
		"ld.global.u32 %%r%d, [%%rd12];",
	}[kind]
	sync := ""
	if bar {
		sync = "bar.sync 0;"
	}
	return fmt.Sprintf(`.version 7.0
.target sm_80
.address_size 64
.const .align 4 .b32 ctab[1024];
.global .texref tx;
.visible .entry k(.param .u64 buf)
{
.reg .b32 %%r<32>;
.reg .b64 %%rd<16>;
ld.param.u64 %%rd10, [buf];
mov.u32 %%r1, %%tid.x;
and.b32 %%r2, %%r1, 31;
mov.u64 %%rd1, ctab;
mul.wide.u32 %%rd4, %%r2, 128;
add.s64 %%rd3, %%rd1, %%rd4;
mov.u64 %%rd2, %%rd1;
mul.wide.u32 %%rd11, %%r1, 4;
add.s64 %%rd12, %%rd10, %%rd11;
%[1]s
add.u32 %%r11, %%r10, 1;
mov.u64 %%rd5, %%clock64;
%[2]s
mov.u64 %%rd6, %%clock64;
%[3]s
add.u32 %%r13, %%r12, 1;
mov.u64 %%rd7, %%clock64;
ret;
}
`, fmt.Sprintf(read, 10), sync, fmt.Sprintf(read, 12))
}

// TestLDSRateOnTheProbe: ldsrate.cu in the timing engine on hopper/h200 against the
// H200 (TestLDSRateProbe). The engine's LSU works a shared wavefront a cycle, so 32
// warps' conflict-free loads take it within 15% of the H200's span (which includes the
// 60-70 cycles over which its warps leave their spin).
// With the barrier's keys (lat.bar) a lone warp's constant, texture and ld.global.nc
// reads after a bar.sync wait lat.bar more than without it, as the H200's wait 12, and
// a coherent global load lat.bar_global.
func TestLDSRateOnTheProbe(t *testing.T) {
	runs := readWarpStamps(t, ldsRateRun, 1, 2, 10)
	for _, c := range []struct {
		part string
		vec  bool
		k, w int
	}{{"rate", false, 16, 8}, {"rate", false, 16, 32}, {"rate", false, 8, 32}, {"rate128", true, 4, 32}} {
		r := captureProbe(t, "ldsrate.ptx", ldsRatePTX(c.k, c.vec), 4, 32*c.w, "buf:u32:16")
		_, st := engineStamps(t, r)
		got, hw := medianSpan(st, 0, 1), ldsSpan(t, runs, c.part, c.k, c.w)
		t.Logf("%s, %d loads, %2d warps: %d cycles from the first load to the last data in the engine, the H200 %d (%+.1f%%)", c.part, c.k, c.w, got, hw, 100*float64(got-hw)/float64(hw))
		if d := float64(got-hw) / float64(hw); d < -0.15 || d > 0.15 {
			t.Errorf("%s, %d loads, %d warps: %d cycles in the engine, the H200 %d: want within 15%%", c.part, c.k, c.w, got, hw)
		}
	}
	for kind, what := range []string{"a constant read", "a divergent constant read", "a texture fetch", "an ld.global.nc", "a coherent global load"} {
		after := func(bar bool) int {
			spec := capture.Spec{PTX: []byte(ncReadPTX(kind, bar)), PTXName: "ncread.ptx", Kernel: "k",
				Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1},
				SIMT: format.SIMTITS, Args: []string{"buf:u32:64"}}
			if kind == 2 {
				spec.TexBinds = []string{"tx=0"}
			}
			r, _ := captureSpec(t, spec)
			_, st := engineStamps(t, r, barrierKeys...)
			s := st[0][0]
			return s[len(s)-1] - s[len(s)-2]
		}
		bar, free := after(true), after(false)
		want := 14
		if kind == 4 {
			want = 119
		}
		t.Logf("%s after a bar.sync: %d cycles from the clock read after it in the engine, %d without the barrier", what, bar, free)
		if d := bar - free; d < want-3 || d > want+1 {
			t.Errorf("%s: %d cycles after a bar.sync, %d without: want %d-%d more", what, bar, free, want-3, want+1)
		}
	}
}
