package replay

import (
	"math"
	"slices"
	"testing"
)

// compactionH200 is the stream compaction and cascaded reduction launches measured on
// an H200 (collect.sh SIZES=lessons MATCH='^(compact|reduce)_', docs/issue-15.md).
const compactionH200 = "../traces/hw/h200-2026-11-26-compaction.csv"

// TestCascadeOnTheGPU: algorithm cascading (optimization-techniques seed; PMPP 8.5).
// Adding elements sequentially in each thread before the tree cuts the instructions a
// reduction spends per element, and the time, provided the grid keeps enough warps
// in flight:
//   - warp-instructions per element: the tree-only reduction (V3) spends 8x and more
//     what the cascade at 8 blocks per SM does, in the model (memory replay, n = 2^18
//     with the same elements per thread) and on the H200 (n = 2^22), within 10% of
//     each other;
//   - one block per SM (132) is over 4x slower than 8 per SM (1056) on both (Little's
//     law: too few loads in flight), the model's ratio within 20% of the GPU's;
//   - the model picks the GPU's fastest of the four grids, and times each within 20%.
func TestCascadeOnTheGPU(t *testing.T) {
	gt := readTruth(t, compactionH200, "h200", "clang-14")

	inst := "smsp__inst_executed.sum"
	hopper := preset(t, "hopper")
	v3 := metric(t, replayOne(t, traceOf(t, "reduce_v3", "n=262144"), hopper, false), inst)
	cas := metric(t, replayOne(t, traceOf(t, "reduce_cascade", "n=262144", "blocks=66"), hopper, false), inst)
	model, gpu := v3/cas, gt.hw["reduce_v3"][inst]/gt.hw["reduce_cascade@blocks=1056"][inst]
	t.Logf("V3 spends %.1fx the cascade's warp-instructions (GPU %.1fx)", model, gpu)
	if model < 8 || gpu < 8 || math.Abs(model/gpu-1) > 0.1 {
		t.Errorf("V3 / cascade warp-instructions: model %.2fx, GPU %.2fx: want both 8x or more, within 10%%", model, gpu)
	}

	grids := []string{"reduce_cascade@blocks=132", "reduce_cascade", "reduce_cascade@blocks=1056", "reduce_cascade@blocks=4224"}
	m, g := gpuTimes(t, gt, grids...)
	if mr, gr := m[0]/m[2], g[0]/g[2]; mr < 4 || gr < 4 || math.Abs(mr/gr-1) > 0.2 {
		t.Errorf("132 blocks against 1056: model %.2fx slower, GPU %.2fx: want both over 4x and within 20%%", mr, gr)
	}
	if pick, best := slices.Index(m, slices.Min(m)), slices.Index(g, slices.Min(g)); pick != best {
		t.Errorf("the model's fastest grid is %s, the GPU's %s", grids[pick], grids[best])
	}
	for i := range grids {
		if math.Abs(m[i]/g[i]-1) > 0.2 {
			t.Errorf("%s: model %.0f ns, GPU %.0f ns: more than 20%% apart", grids[i], m[i], g[i])
		}
	}
}

// TestCompactionOnTheGPU: stream compaction on one counter, with an atomicAdd per kept
// element and aggregated by hand per warp (a ballot, one atomicAdd of its popcount).
// ptxas aggregates the first form itself (aggregate.go), so on the H200 both are one
// atomic per warp serialised at one L2 slice, about 0.77 ns each whatever fraction is
// kept, and take the same time. The model makes the same one atomic sector per warp as
// the GPU (126554 at 10% kept, 131072 at 90%: warps with no kept lane make none) and
// times both within 10% at 10 and 90% kept.
func TestCompactionOnTheGPU(t *testing.T) {
	gt := readTruth(t, compactionH200, "h200", "clang-14")
	sectors := "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"
	for _, name := range []string{"compact_warp@keep=10", "compact_warp@keep=90", "compact_atomic@keep=10", "compact_atomic@keep=90"} {
		m, g, r := gpuTime(t, gt, name)
		if math.Abs(m/g-1) > 0.1 {
			t.Errorf("%s: model %.0f ns, GPU %.0f ns: more than 10%% apart", name, m, g)
		}
		if got, want := metric(t, replayOne(t, r, presetOf(t, "hopper", "h200"), false), sectors), gt.hw[name][sectors]; got != want {
			t.Errorf("%s: %g atomic sectors, the H200 %g", name, got, want)
		}
	}
}
