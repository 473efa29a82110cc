package validate_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/validate"
)

// Two counters of add_vectors as ncu measured them on an H200 (traces/hw/), checked
// against a capture and memory replay of the same launch on the hopper/h200 preset.
func ExampleRun() {
	const hw = `# gpu: NVIDIA H200
kernel,producer,metric,unit,value
add_vectors,clang-14,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,,65536
add_vectors,clang-14,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sector,262144
`
	gt, err := validate.ReadGroundTruth(strings.NewReader(hw))
	if err != nil {
		log.Fatal(err)
	}
	gpu, err := validate.PresetGPU("hopper", gt.Get("gpu"))
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := arch.Preset("hopper", gpu)
	if err != nil {
		log.Fatal(err)
	}
	v, err := validate.Run(context.Background(), gt, cfg, validate.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range v.Comparisons {
		fmt.Printf("%s %s: hardware %g, model %g: %s\n", c.Kernel, c.Band.Metric, c.HW, c.Model, c.Status)
	}
	// Output:
	// add_vectors l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum: hardware 65536, model 65536: match
	// add_vectors l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum: hardware 262144, model 262144: match
}
