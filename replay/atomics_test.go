package replay

import (
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// An atomicAdd whose result is discarded is a RED in SASS, and Nsight Compute counts its
// requests and sectors under op_red; one whose result is used stays under op_atom. Every
// lane adds to one word, so each warp makes one request of one sector per atomic, at L1 and at L2.
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
	const warps = 4 // 2 CTAs of 2 warps
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		kr := replayOne(t, r, preset(t, a), false)
		for name, want := range map[string]float64{
			"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum":  warps,
			"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum":   warps,
			"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": warps,
			"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum":  warps,
			"lts__t_sectors_srcunit_tex_op_red.sum":             warps,
			"lts__t_sectors_srcunit_tex_op_atom.sum":            warps,
		} {
			if got := metric(t, kr, name); got != want {
				t.Errorf("%s: %s = %v, want %v", a, name, got, want)
			}
		}
	}
}
