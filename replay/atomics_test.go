package replay

import (
	"context"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// An atomicAdd whose result is discarded is a RED in SASS, and Nsight Compute counts its
// requests and sectors under op_red; one whose result is used stays under op_atom.
func TestUnreadAtomCountsAsRed(t *testing.T) {
	const ptx = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<4>;
.reg .b64 %rd<3>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
atom.global.add.u32 %r1, [%rd2], 1;
atom.global.add.u32 %r2, [%rd2+4], 1;
st.global.u32 [%rd2+8], %r2;
ret;
}
`
	r, _ := captureSpec(t, capture.Spec{PTX: []byte(ptx), PTXName: "red.ptx", Kernel: "k",
		Grid: format.Dim3{X: 2, Y: 1, Z: 1}, Block: format.Dim3{X: 64, Y: 1, Z: 1}, SIMT: format.SIMTITS,
		Args: []string{"buf:u32:4"}})
	// Every lane of a warp adds to the same word: 32 passes of one sector each
	// (coalesce.Atomic), at L1 and at L2 alike. The address and operand are the same in
	// every lane, so ptxas would aggregate both into one atomic per warp: this counts the
	// passes without that (TestAggregatedAtomics counts them with it).
	const warps = 4 // 2 CTAs of 2 warps
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		kr := replayOne(t, r, preset(t, a, "sm.aggregate_atomics=false"), false)
		for name, want := range map[string]float64{
			"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum":  warps,
			"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum":   32 * warps,
			"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": warps,
			"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum":  32 * warps,
			"lts__t_sectors_srcunit_tex_op_red.sum":             32 * warps,
			"lts__t_sectors_srcunit_tex_op_atom.sum":            32 * warps,
		} {
			if got := metric(t, kr, name); got != want {
				t.Errorf("%s: %s = %v, want %v", a, name, got, want)
			}
		}
	}
}

// Lanes on one word serialise: the timing engine sends one pass per same-address round
// (coalesce.Atomic), so a warp of atomics to one word takes 32 passes through the LSU
// and the L2 slice where one to 32 neighbouring words takes one. On an H100,
// hist_global@bins=1 takes 8.3 times as long as @bins=4096
// (traces/hw/h100-2026-11-25-heldout.csv); here the one-word grid must take several times
// as long as the spread one.
func TestTimingSameAddressAtomicsSerialise(t *testing.T) {
	const ptx = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 spread)
{
.reg .b32 %r<8>;
.reg .b64 %rd<6>;
.reg .pred %p<2>;
ld.param.u64 %rd1, [p];
ld.param.u32 %r1, [spread];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r2, %tid.x;
and.b32 %r3, %r2, 31;
mul.lo.u32 %r4, %r3, %r1;
mul.wide.u32 %rd3, %r4, 4;
add.s64 %rd4, %rd2, %rd3;
mov.u32 %r5, 0;
LOOP:
red.global.add.u32 [%rd4], 1;
add.u32 %r5, %r5, 1;
setp.lt.u32 %p1, %r5, 64;
@%p1 bra LOOP;
ret;
}
`
	cycles := func(spread string) float64 {
		r, _ := captureSpec(t, capture.Spec{PTX: []byte(ptx), PTXName: "red.ptx", Kernel: "k",
			Grid: format.Dim3{X: 264, Y: 1, Z: 1}, Block: format.Dim3{X: 256, Y: 1, Z: 1}, SIMT: format.SIMTITS,
			Args: []string{"buf:u32:32", "u32:" + spread}})
		cyc, err := Cycles(context.Background(), r, preset(t, "hopper"))
		if err != nil {
			t.Fatal(err)
		}
		return cyc[0]
	}
	one, spread := cycles("0"), cycles("1")
	t.Logf("64 RED per thread: %.0f cycles on one word, %.0f on 32 words", one, spread)
	if one < 4*spread {
		t.Errorf("one word: %.0f cycles, 32 words: %.0f; want the one-word grid at least 4 times as long", one, spread)
	}
}
