package replay

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
)

// lessonsGroundTruth is issue 15's launches measured on an H100 (collect.sh
// SIZES=lessons, docs/issue-15.md).
const lessonsGroundTruth = "../traces/hw/h100-2026-11-25-lessons.csv"

// readGroundTruth reads a collect.sh CSV: metric values by launch name, for one
// producer's corpus.
func readGroundTruth(t testing.TB, path, producer string) map[string]map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#' // the header of where and how it was measured
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]map[string]float64{}
	for _, r := range recs[1:] {
		if r[1] != producer {
			continue
		}
		v, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			continue // a unitless blank, say
		}
		if out[r[0]] == nil {
			out[r[0]] = map[string]float64{}
		}
		out[r[0]][r[2]] = v
	}
	return out
}

// groundTruth is one collect.sh CSV's values for one corpus, and the preset of the
// GPU it was measured on.
type groundTruth struct {
	path, gpu string
	hw        map[string]map[string]float64
}

func readTruth(t testing.TB, path, gpu, producer string) groundTruth {
	t.Helper()
	return groundTruth{path, gpu, readGroundTruth(t, path, producer)}
}

// gpuTimes replays each launch with the timing engine on hopper at gt's GPU preset and
// at the SM clock the launch ran at there, and returns the modelled and measured
// durations (ns).
func gpuTimes(t *testing.T, gt groundTruth, launches ...string) (model, gpu []float64) {
	t.Helper()
	for _, name := range launches {
		m, g, _ := gpuTime(t, gt, name)
		model, gpu = append(model, m), append(gpu, g)
	}
	return model, gpu
}

// gpuTime is gpuTimes for one launch, with the trace it captured.
func gpuTime(t *testing.T, gt groundTruth, name string) (model, gpu float64, r *format.Reader) {
	t.Helper()
	h, ok := gt.hw[name]
	if !ok {
		t.Fatalf("%s: not in %s", name, gt.path)
	}
	k, sz, err := kernels.ParseLaunch(name)
	if err != nil {
		t.Fatal(err)
	}
	var kv []string
	for _, s := range k.Sizes {
		kv = append(kv, s.Name+"="+strconv.Itoa(sz[s.Name]))
	}
	cfg := presetOf(t, "hopper", gt.gpu, "sm.clock_mhz="+strconv.Itoa(int(math.Round(h["sm__cycles_elapsed.avg.per_second"]/1e6))))
	r = traceOf(t, k.Name, kv...)
	rep, err := Timing(context.Background(), r, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	model, gpu = metric(t, &rep.Kernels[0], "gpu__time_duration.sum"), h["gpu__time_duration.sum"]
	t.Logf("%-40s GPU %6.0f ns  model %6.0f ns", name, gpu, model)
	return model, gpu, r
}

// TestLessonsOnTheGPU checks the timing engine's answers to issue 15's lessons against
// an H100 (each launch replayed at the SM clock ncu ran it at):
//   - gather beats scatter on both;
//   - coarsening: the factor the model would pick runs on the GPU within 7% of the
//     GPU's own best, for a bandwidth-bound saxpy (where every factor is within a few
//     per cent on both) and the SDK matmul (where one output per thread is the
//     slowest on both);
//   - a grid-stride loop with one block per SM leaves bandwidth idle (Little's law:
//     too few loads in flight): 132 blocks take over twice as long as 1056 on both,
//     and the model's ratio is within 25% of the GPU's;
//   - 16x16 tiles beat the untiled matmul on both.
func TestLessonsOnTheGPU(t *testing.T) {
	hw := readTruth(t, lessonsGroundTruth, "h100", "clang-14")

	m, g := gpuTimes(t, hw, "conv1d_scatter@n=65536", "conv1d_gather@n=65536")
	if m[1] >= m[0] || g[1] >= g[0] {
		t.Errorf("scatter / gather: model %.0f / %.0f ns, GPU %.0f / %.0f: want gather faster on both", m[0], m[1], g[0], g[1])
	}

	checkCoarseningPick(t, hw, "saxpy_c1@n=1048576", "saxpy_c2@n=1048576", "saxpy_c4@n=1048576", "saxpy_c8@n=1048576")
	m, g = checkCoarseningPick(t, hw, "matmul_sdk_1@n=256", "matmul_sdk_2@n=256", "matmul_sdk_4@n=256", "matmul_sdk_8@n=256")
	if slices.Max(m) != m[0] || slices.Max(g) != g[0] {
		t.Errorf("one output per thread is not the slowest on both: model %v, GPU %v", m, g)
	}
	checkGridStride(t, hw)

	m, g = gpuTimes(t, hw, "matmul_naive@width=128", "tiled_matmul_bounds@width=128")
	if m[1] >= m[0] || g[1] >= g[0] {
		t.Errorf("untiled / tiled matmul: model %.0f / %.0f ns, GPU %.0f / %.0f: want tiled faster on both", m[0], m[1], g[0], g[1])
	}
}

// TestCoarseningOnTheH200: issue 15 names the H200 for coarsening's best factor
// (traces/hw/h200-2026-11-29-lessons.csv, `SIZES=lessons MATCH='^saxpy'
// scripts/hw/collect.sh`). At 1 M and 4 M elements the factor the model picks on
// hopper/h200 runs on the H200 within 7% of the H200's own best (the H200's best: 8
// at 1 M, 2 at 4 M, in both corpora; the clang-14 launches here, as gpuTimes replays
// clang-14's PTX); and a grid-stride loop with one block an SM is over twice as slow
// as eight on both, the model's ratio within 25% of the H200's.
func TestCoarseningOnTheH200(t *testing.T) {
	hw := readTruth(t, "../traces/hw/h200-2026-11-29-lessons.csv", "h200", "clang-14")
	for _, n := range []string{"@n=1048576", ""} { // "": the default, 4 M
		checkCoarseningPick(t, hw, "saxpy_c1"+n, "saxpy_c2"+n, "saxpy_c4"+n, "saxpy_c8"+n)
	}
	checkGridStride(t, hw)
}

// checkCoarseningPick replays one family of coarsening factors: the launch the model
// finds fastest must run on the GPU within 7% of the GPU's fastest. It returns the
// modelled and measured times.
func checkCoarseningPick(t *testing.T, hw groundTruth, family ...string) (model, gpu []float64) {
	t.Helper()
	m, g := gpuTimes(t, hw, family...)
	pick, best := slices.Index(m, slices.Min(m)), slices.Index(g, slices.Min(g))
	if g[pick] > 1.07*g[best] {
		t.Errorf("the model picks %s, which takes %.0f ns on the %s; its best, %s, %.0f ns (more than 7%% apart)",
			family[pick], g[pick], hw.gpu, family[best], g[best])
	}
	return m, g
}

// checkGridStride: a grid-stride loop with one block an SM (132) is over twice as slow
// as with eight (1056) on the GPU and in the model, the two ratios within 25%.
func checkGridStride(t *testing.T, hw groundTruth) {
	t.Helper()
	m, g := gpuTimes(t, hw, "saxpy_gridstride@n=1048576,blocks=132", "saxpy_gridstride@n=1048576,blocks=1056")
	mr, gr := m[0]/m[1], g[0]/g[1]
	if mr < 2 || gr < 2 || math.Abs(mr/gr-1) > 0.25 {
		t.Errorf("grid-stride, 132 blocks against 1056: model %.2fx slower, %s %.2fx: want both over 2x and within 25%%", mr, hw.gpu, gr)
	}
}
