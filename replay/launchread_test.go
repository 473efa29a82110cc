package replay

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// fmaChain is scripts/hw/codefetch.cu's code_k<n> in PTX: n FFMAs in straight-line
// code on one float a thread, and a store no thread makes (the result never has the
// magic pattern), so the launch reads no data.
func fmaChain(n int) string {
	return `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .f32 a, .param .f32 b, .param .u32 magic, .param .u64 sink)
{
.reg .pred %p<2>;
.reg .f32 %f<4>;
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.f32 %f1, [a];
ld.param.f32 %f2, [b];
ld.param.u32 %r1, [magic];
mov.u32 %r2, %tid.x;
cvt.rn.f32.u32 %f3, %r2;
` + strings.Repeat("fma.rn.f32 %f3, %f3, %f1, %f2;\n", n) + `mov.b32 %r3, %f3;
setp.ne.s32 %p1, %r3, %r1;
@%p1 bra DONE;
ld.param.u64 %rd1, [sink];
cvta.to.global.u64 %rd2, %rd1;
st.global.f32 [%rd2], %f3;
DONE:
ret;
}
`
}

// codefetchKey names a launch of scripts/hw/codefetch.cu by its n and stride.
type codefetchKey struct{ n, stride int }

// codefetchReads reads the H200's codefetch run (traces/hw/h200-2026-11-28-codefetch):
// the DRAM bytes read by each one-warp launch of kind (rows id,kind,n,stride,blocks,...).
func codefetchReads(t *testing.T, kind string) map[codefetchKey]float64 {
	t.Helper()
	launches, metrics := readProbeRun(t, "../traces/hw/h200-2026-11-28-codefetch/", "codefetch")
	reads := map[codefetchKey]float64{}
	for _, l := range launches {
		if l[1] == kind && l[4] == "1" {
			id, _ := strconv.Atoi(l[0])
			n, _ := strconv.Atoi(l[2])
			s, _ := strconv.Atoi(l[3])
			reads[codefetchKey{n, s}] = metrics[id]["dram__bytes_read.sum"]
		}
	}
	return reads
}

// TestLaunchReadsItsCode: a launch that reads no data reads the driver's launch state
// and its own code from DRAM, as the H200 does under ncu --cache-control all
// (scripts/hw/probe.sh codefetch, traces/hw/h200-2026-11-28-codefetch): the code_k<n>
// launches of one warp, n FFMAs, within 10% in both engines (the estimate of the
// code's size is sass.go's; the fixed part is the median of the run). Off
// (sm.inst_bytes 0), both read nothing.
func TestLaunchReadsItsCode(t *testing.T) {
	hw := map[int]float64{} // FFMAs → DRAM bytes read, one warp
	for k, v := range codefetchReads(t, "code") {
		hw[k.n] = v
	}
	if len(hw) != 6 {
		t.Fatalf("%d one-warp code launches in the run, want 6", len(hw))
	}
	cfg := presetOf(t, "hopper", "h200")
	off := presetOf(t, "hopper", "h200", "sm.inst_bytes=0")
	for _, n := range []int{0, 16, 64, 256, 1024, 4096} {
		r := captureWarp(t, fmaChain(n), "f32:1.0001", "f32:0.5", "u32:2143289345", "buf:f32:16")
		tr, err := Timing(context.Background(), r, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, kr := range []*KernelReport{replayOne(t, r, cfg, false), &tr.Kernels[0]} {
			engine := [2]string{"memory", "timing"}[i]
			got := metric(t, kr, "dram__bytes_read.sum")
			off := fmt.Sprintf("%+.1f%%", 100*(got/hw[n]-1))
			t.Logf("%s, %4d FFMAs: DRAM read %6.0f B, H200 %6.0f (%s)", engine, n, got, hw[n], off)
			if math.Abs(got/hw[n]-1) > 0.10 {
				t.Errorf("%s, %d FFMAs: DRAM read %.0f B, H200 %.0f (%s): want within 10%%", engine, n, got, hw[n], off)
			}
		}
		if got := metric(t, replayOne(t, r, off, false), "dram__bytes_read.sum"); got != 0 {
			t.Errorf("sm.inst_bytes=0, %d FFMAs: DRAM read %.0f B, want 0", n, got)
		}
	}
}

// constLanes is scripts/hw/codefetch.cu's const_k in PTX: lane l reads the word at
// (l % n) × stride bytes of a 64 KB constant table, once.
const constLanes = `.version 7.0
.target sm_80
.address_size 64
.visible .const .align 4 .b8 c_table[65536];
.visible .entry k(.param .u32 n, .param .u32 stride, .param .u32 magic, .param .u64 sink)
{
.reg .pred %p<2>;
.reg .b32 %r<12>;
.reg .b64 %rd<6>;
ld.param.u32 %r1, [n];
ld.param.u32 %r2, [stride];
ld.param.u32 %r3, [magic];
mov.u32 %r4, %tid.x;
and.b32 %r5, %r4, 31;
rem.u32 %r6, %r5, %r1;
shr.u32 %r7, %r2, 2;
mul.lo.s32 %r8, %r6, %r7;
and.b32 %r9, %r8, 16383;
shl.b32 %r10, %r9, 2;
cvt.u64.u32 %rd1, %r10;
mov.u64 %rd2, c_table;
add.s64 %rd3, %rd2, %rd1;
ld.const.u32 %r11, [%rd3];
setp.ne.s32 %p1, %r11, %r3;
@%p1 bra DONE;
ld.param.u64 %rd4, [sink];
cvta.to.global.u64 %rd5, %rd4;
st.global.u32 [%rd5], %r11;
DONE:
ret;
}
`

// TestConstantGranules: a constant read that misses the SM's constant caches reads an
// aligned 256 B granule from DRAM (const.l15.line on hopper), as the H200's const_k
// launches show (traces/hw/h200-2026-11-28-codefetch): at every stride, what N
// distinct addresses read beyond one address's launch is the H200's within one
// granule, the most the H200's own launches vary by.
func TestConstantGranules(t *testing.T) {
	hw := codefetchReads(t, "const")
	if len(hw) != 35 {
		t.Fatalf("%d const launches in the run, want 35", len(hw))
	}
	cfg := presetOf(t, "hopper", "h200")
	model := map[codefetchKey]float64{}
	for k := range hw {
		r := captureWarp(t, constLanes, "u32:"+strconv.Itoa(k.n), "u32:"+strconv.Itoa(k.stride), "u32:4294967295", "buf:u32:16")
		model[k] = metric(t, replayOne(t, r, cfg, false), "dram__bytes_read.sum")
	}
	for _, s := range []int{4, 32, 64, 128, 256, 512, 1024} {
		var line []string
		for _, n := range []int{2, 4, 8, 32} {
			got, want := model[codefetchKey{n, s}]-model[codefetchKey{1, s}], hw[codefetchKey{n, s}]-hw[codefetchKey{1, s}]
			line = append(line, fmt.Sprintf("N=%d %+5.0f (H200 %+5.0f)", n, got, want))
			if math.Abs(got-want) > 256 {
				t.Errorf("stride %d, %d addresses: %+.0f B over one address, H200 %+.0f: want within 256", s, n, got, want)
			}
		}
		t.Logf("stride %4d: %s", s, strings.Join(line, "  "))
	}
}
