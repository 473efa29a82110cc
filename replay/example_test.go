package replay_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// Timing estimates a kernel's cycles on a GPU preset from its trace: here Volkov's ILP 4
// arithmetic chain, one block of 256 threads, on Fermi (GTX 480), whose FMA pipes take
// one warp instruction per SM per cycle. The same trace is replayed under the preset's
// round-robin schedulers and under greedy-then-oldest, which runs one warp ahead and
// leaves the last warps' dependent chains exposed at the end.
func ExampleTiming() {
	k, _ := kernels.Lookup("volkov_ilp4")
	sz, _ := kernels.ParseSizes(k, []string{"threads=256", "iters=4"})
	spec, _ := k.Spec(sz, kernels.Clang14)
	spec.SIMT = format.SIMTStack
	kk, err := capture.Load(spec)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if _, err := kk.Capture(context.Background(), &buf, "example"); err != nil {
		panic(err)
	}
	r, _ := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))

	for _, sched := range []string{"lrr", "gto"} {
		cfg, _ := arch.Preset("fermi", "gtx480")
		cfg.Set("sm.scheduler", sched)
		rep, err := replay.Timing(context.Background(), r, cfg, replay.Options{})
		if err != nil {
			panic(err)
		}
		kr := rep.Kernels[0]
		cyc, _ := kr.Metric("sm__cycles_elapsed.avg")
		ipc, _ := kr.Metric("sm__inst_executed.avg.per_cycle_active")
		inst, _ := kr.Metric("smsp__inst_executed.sum")
		fmt.Printf("%s: %.0f warp instructions in %.0f cycles, IPC %.2f\n", sched, inst, cyc, ipc)
	}
	// Output:
	// lrr: 2320 warp instructions in 2489 cycles, IPC 1.00
	// gto: 2320 warp instructions in 3053 cycles, IPC 0.80
}
