package report_test

import (
	"context"
	"fmt"

	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/report"
)

// Advise reads a trace the way the seed lessons read a kernel: here reduction V2, whose
// strided index keeps the active threads contiguous but walks shared memory at a stride
// that doubles per step. The advisor sees the conflicts, the changing stride, and names
// V3's sequential addressing with the wavefronts it saves.
func ExampleAdvise() {
	k, _ := kernels.Lookup("reduce_v2")
	r, err := kernels.TraceOf(context.Background(), k.Name, k.Small, nil)
	if err != nil {
		panic(err)
	}
	cfg, _ := arch.Preset("hopper", "h200")
	adv, err := report.Advise(context.Background(), r, cfg, report.AdviseOptions{})
	if err != nil {
		panic(err)
	}
	f := adv.Kernels[0].Findings[0]
	fmt.Printf("%s at pc %d (%s)\n%s\n%s %.0f → %.0f\n", f.Rule, f.PC, f.PTX, f.Fix, f.Metric, f.Before, f.After)
	// Output:
	// reduction-interleaved-addressing at pc 34 (ld.shared.f32 %f2, [%rd6];)
	// walk the tree with sequential addressing: for (s = blockDim.x/2; s > 0; s >>= 1) if (tid < s) sdata[tid] += sdata[tid + s]
	// l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 94 → 24
}
