package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// lsuMeasured are the LSU's costs as scripts/hw/lgdepth.cu and lgstore.cu measured them
// on the H200 (docs/issue-11.md items 27-28), as config keys: a queue of about 2000
// missing lines, a missing line 0.75 cycles and 0.5 a sector, a stored line a cycle a
// sector and at least 1.25, a partial line 2 on the LSU, a store path that holds about
// one store.
var lsuMeasured = []string{"sm.lsu_queue_cycles=2560", "sm.lsu_miss_line_cycles=0.75", "sm.lsu_miss_sector_cycles=0.5",
	"sm.lsu_store_line_cycles=1.25", "sm.lsu_store_sector_cycles=1", "sm.lsu_partial_line_cycles=2", "sm.lsu_stores=40"}

// lgstorePTX is lgstore.cu's stores kernel: each warp of one CTA issues n stores of 32
// words back to back, store j of warp w touching k lines (k = 1, 2, 4: whole sectors;
// 32: 4 bytes of one sector each) from line (w*16 + j)*k on.
const lgstorePTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 k, .param .u32 n)
{
.reg .b32 %r<32>;
.reg .b64 %rd<16>;
.reg .pred %p<2>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd1, %rd1;
ld.param.u32 %r1, [k];
ld.param.u32 %r2, [n];
mov.u32 %r4, %tid.x;
and.b32 %r5, %r4, 31;
shr.u32 %r6, %r4, 5;
mov.u32 %r10, 32;
div.u32 %r10, %r10, %r1;
div.u32 %r11, %r5, %r10;
rem.u32 %r12, %r5, %r10;
mul.wide.u32 %rd4, %r12, 4;
shl.b32 %r9, %r6, 4;
mov.u32 %r13, 0;
LOOP:
add.u32 %r14, %r9, %r13;
mad.lo.u32 %r15, %r14, %r1, %r11;
mul.wide.u32 %rd2, %r15, 128;
add.s64 %rd3, %rd1, %rd2;
add.s64 %rd3, %rd3, %rd4;
st.global.u32 [%rd3], %r5;
add.u32 %r13, %r13, 1;
setp.lt.u32 %p1, %r13, %r2;
@%p1 bra LOOP;
ret;
}
`

// pendPTX is lgstore.cu's pend pattern in one warp: its n loads (8 or 16), back to
// back, read word j of lines w*32 to w*32 + 31, so 8 loads read each sector (the first
// misses, 7 find it on their way, as 8 warps do in transpose v1). Nothing waits for
// the data.
func pendPTX(n int) string {
	var b strings.Builder
	b.WriteString(onePointerKernel + `.reg .b32 %q<16>;
mov.u32 %r4, %tid.x;
shl.b32 %r7, %r4, 5;
mul.wide.u32 %rd3, %r7, 4;
add.s64 %rd3, %rd2, %rd3;
`)
	for j := range n {
		fmt.Fprintf(&b, "ld.global.u32 %%q%d, [%%rd3+%d];\n", j, 4*j)
	}
	b.WriteString("ret;\n}\n")
	return b.String()
}

// TestLSUCostsOnTheProbes: the timing engine with the measured LSU keys reproduces
// lgstore.cu's readings on one SM of the hopper preset (TestLGStoreProbe has the
// H200's side): a store of one line of 4 sectors every 4 cycles, of 2 lines of 2
// every 4.2, of 4 whole sectors every 5.1, of 32 partial lines every 62 (1.95 a line);
// v1's loads (8 warps a sector) 1.18-1.33 cycles a line. Today's keys (the preset)
// give a line a cycle whatever it is.
func TestLSUCostsOnTheProbes(t *testing.T) {
	// storeCycles is the cycles a store on the SM, with the measured keys and with
	// today's: 12 more stores a warp (16 against 4), each launch captured once.
	storeCycles := func(k int) (measured, today float64) {
		var r [2]*format.Reader
		for i, n := range []int{4, 16} {
			r[i] = captureProbe(t, "lgstore.ptx", lgstorePTX, 1, 1024, "buf:u32:"+strconv.Itoa(32*16*32*32), "u32:"+strconv.Itoa(k), "u32:"+strconv.Itoa(n))
		}
		per := func(sets ...string) float64 {
			return (metric(t, timeOne(t, r[1], "hopper", sets...), "sm__cycles_elapsed.avg") -
				metric(t, timeOne(t, r[0], "hopper", sets...), "sm__cycles_elapsed.avg")) / (12 * 32)
		}
		return per(lsuMeasured...), per()
	}
	for _, c := range []struct {
		k        int
		h200     float64 // cycles a store
		min, max float64
	}{{1, 3.96, 3.6, 4.4}, {2, 4.25, 3.8, 4.7}, {4, 5.1, 4.6, 5.6}, {32, 62.4, 56, 69}} {
		got, today := storeCycles(c.k)
		t.Logf("store of %2d lines: %.2f cycles a store (H200 %.2f; today's keys %.2f)", c.k, got, c.h200, today)
		if got < c.min || got > c.max {
			t.Errorf("store of %d lines: %.2f cycles a store, want %.1f-%.1f (H200 %.2f)", c.k, got, c.min, c.max, c.h200)
		}
	}
	// v1's loads: the cycles of 8 more loads a warp (16 against 8), per line, with
	// fills from DRAM that take longer than the LSU's work (lat.dram_ns 20 µs): every
	// lookup that is not the sector's first finds it on its way, as in the H200's pend
	// (its data from the L2 land about 400 cycles after the first issue, while the
	// LSU works on for 1200), and MSHRs enough for every miss. The warps' loads interleave in the LSU, so at the
	// preset's latency most lookups here would find their sector landed.
	var pr [2]*format.Reader
	for i, n := range []int{8, 16} {
		pr[i] = captureProbe(t, "pend.ptx", pendPTX(n), 1, 1024, "buf:u32:"+strconv.Itoa(32*32*32))
	}
	pend := func(sets ...string) float64 {
		sets = append(sets, "lat.dram_ns=20000", "l1.mshrs=8192")
		active := func(r *format.Reader) float64 {
			return 132 * metric(t, timeOne(t, r, "hopper", sets...), "sm__cycles_active.avg")
		}
		return (active(pr[1]) - active(pr[0])) / (8 * 1024)
	}
	got, today := pend(lsuMeasured...), pend()
	t.Logf("v1's loads: %.3f cycles a line (H200 1.18-1.33; today's keys %.3f)", got, today)
	if got < 1.15 || got > 1.4 {
		t.Errorf("v1's loads: %.3f cycles a line, want 1.15-1.4 (H200 1.18-1.33: a lookup whose sector is on its way costs a miss's 1.25)", got)
	}
}

// lgbufferPTX is lgbuffer.cu's fill launch in one CTA of 32 warps: warps 0-15 each
// issue l loads of a word a lane from 32 lines (line (w*4 + j)*32 + lane of 2048) and
// wait for them; warps 16-31 each issue 16 stores of one line (lines after the 2048).
func lgbufferPTX(l int) string {
	var b strings.Builder
	b.WriteString(onePointerKernel + `.reg .b32 %q<8>;
mov.u32 %r4, %tid.x;
shr.u32 %r5, %r4, 5;
and.b32 %r6, %r4, 31;
setp.ge.u32 %p1, %r5, 16;
@%p1 bra STORE;
shl.b32 %r7, %r5, 2;
mov.u32 %q0, 0;
`)
	for j := range l {
		fmt.Fprintf(&b, `add.u32 %%r8, %%r7, %d;
shl.b32 %%r8, %%r8, 5;
add.u32 %%r8, %%r8, %%r6;
mul.wide.u32 %%rd3, %%r8, 128;
add.s64 %%rd3, %%rd2, %%rd3;
ld.global.u32 %%q%d, [%%rd3];
`, j, j+1)
	}
	for j := range l {
		fmt.Fprintf(&b, "add.u32 %%q0, %%q0, %%q%d;\n", j+1)
	}
	b.WriteString(`setp.eq.u32 %p2, %q0, 0x9e3779b9;
@%p2 st.global.u32 [%rd2], %q0;
ret;
STORE:
shl.b32 %r9, %r5, 9;
add.u32 %r9, %r9, %r6;
mul.wide.u32 %rd4, %r9, 4;
add.s64 %rd4, %rd2, %rd4;
add.s64 %rd4, %rd4, 262144;
`)
	for j := range 16 {
		fmt.Fprintf(&b, "st.global.u32 [%%rd4+%d], %%r6;\n", 128*j)
	}
	b.WriteString("ret;\n}\n")
	return b.String()
}

// TestLSUStoresOnTheProbe: the timing engine with the measured LSU keys holds about 40
// stores behind its LSU's queue, as the H200 does in lgbuffer.cu (TestLGBufferProbe
// has its side): 16 warps queue 512 or 1024 line lookups, then 16 others store 256
// lines. On the H200 the storer warps take 22.6-24.0 k and 28.7-29.0 k warp-cycles
// in all from their start to their last store (4 SMs), nearly all of it waiting to
// issue; the engine's storers wait (lg_throttle) about as long, ±20%. Without the
// hold (sm.lsu_stores large) they wait 0 and 13.5 k (MSHRs).
func TestLSUStoresOnTheProbe(t *testing.T) {
	waits := func(r *format.Reader, sets ...string) float64 {
		return metric(t, timeOne(t, r, "hopper", sets...), "smsp__pcsamp_warps_issue_stalled_lg_throttle")
	}
	for _, c := range []struct {
		l        int
		min, max float64 // the H200's storer warp-cycles, ±20%
	}{{1, 18000, 28800}, {2, 23000, 34800}} {
		r := captureProbe(t, "lgbuffer.ptx", lgbufferPTX(c.l), 1, 1024, "buf:u32:"+strconv.Itoa(65536+32*16*32))
		got := waits(r, lsuMeasured...)
		free := waits(r, append(slices.Clone(lsuMeasured), "sm.lsu_stores=100000")...)
		t.Logf("%d loads a loader warp: the stores wait %.0f warp-cycles (H200 %.0f-%.0f; without the hold %.0f)", c.l, got, c.min, c.max, free)
		if got < c.min || got > c.max {
			t.Errorf("%d loads a loader warp: the stores wait %.0f warp-cycles, want %.0f-%.0f", c.l, got, c.min, c.max)
		}
	}
}
