package report

import (
	"context"
	"math"
	"testing"

	"github.com/gtrace/gtrace/internal/ncucsv"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
)

// roofsCSV is the H200 run of scripts/hw/roofs.sh over the matmuls of kernels.Lessons.
const roofsCSV = "../traces/hw/h200-2026-11-29-roofs/matmul.csv"

// readNcu reads an ncu CSV of scripts/hw/roofs.sh.
func readNcu(t *testing.T, file string) []ncucsv.Row {
	t.Helper()
	rows, err := ncucsv.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// hwMetric is metric of each launch of kernel at grid among rows (one value per
// corpus).
func hwMetric(t *testing.T, rows []ncucsv.Row, kernel, grid, metric string) []float64 {
	t.Helper()
	var out []float64
	for _, r := range rows {
		if r.Kernel == kernel && r.Grid == grid && r.Metric == metric {
			v, err := ncucsv.Number(r.Value)
			if err != nil {
				t.Fatalf("%s of %s: %v", metric, kernel, err)
			}
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no %s of %s at grid %s", roofsCSV, metric, kernel, grid)
	}
	return out
}

// TestTilingRoofline: seed 004's lesson on the hierarchical roofline. At 128² on the
// H200 preset, the untiled matmul does 0.25 FLOP per L1 byte (two 4-byte loads a
// multiply-add, each a 128-byte L1 pass for the warp) and sits under the L1 roof; the
// 16×16 tiles read each global word once a tile, so the L1 point moves right by the
// tile width (15×: the output stores stay) past the L1 ridge, towards the compute
// roof. The L1 bytes are within 10% of ncu's L1 roofline bytes on an H200 for the same
// launches, both corpora (traces/hw/h200-2026-11-29-roofs/matmul.csv), and the tiled
// launch is faster in the timing engine, as on the GPU.
func TestTilingRoofline(t *testing.T) {
	if testing.Short() {
		t.Skip("timing replays of two matmuls")
	}
	cfg, err := arch.Preset("hopper", "h200")
	if err != nil {
		t.Fatal(err)
	}
	hw := readNcu(t, roofsCSV)
	roofs := map[string]Roof{}
	for _, name := range []string{"matmul_naive", "tiled_matmul_bounds"} {
		r, err := kernels.TraceOf(context.Background(), name, []string{"width=128"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := Build(context.Background(), []Input{{Name: name, Trace: r}}, []*arch.Config{cfg.Clone()}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		roof := pg.Kernels[0].Runs[0].Roof
		roofs[name] = roof
		if want := 2.0 * 128 * 128 * 128; roof.FLOP32 != want {
			t.Fatalf("%s: %g FLOPs, want %g", name, roof.FLOP32, want)
		}
		for _, wb := range hwMetric(t, hw, name, "(8, 8, 1)", "l1tex__lsu_writeback_active_mem_lgds.sum") {
			if d := roof.L1Bytes/(128*wb) - 1; math.Abs(d) > 0.10 {
				t.Errorf("%s: %g L1 bytes, the H200's ncu %g (%+.1f%%)", name, roof.L1Bytes, 128*wb, 100*d)
			}
		}
	}
	naive, tiled := roofs["matmul_naive"], roofs["tiled_matmul_bounds"]
	l1 := func(r Roof) float64 { return r.IntensityOf(r.Levels()[0]) }
	ridge := naive.Peak() / naive.L1Bandwidth
	t.Logf("L1 intensity %.3f → %.3f FLOP/B (ridge %.2f); bound %s → %s; %.2f → %.2f µs",
		l1(naive), l1(tiled), ridge, naive.Bound(), tiled.Bound(), naive.Seconds*1e6, tiled.Seconds*1e6)
	if math.Abs(l1(naive)-0.25) > 0.01 {
		t.Errorf("untiled: %g FLOP per L1 byte, want 0.25", l1(naive))
	}
	if f := l1(tiled) / l1(naive); f < 15 || f > 16 {
		t.Errorf("tiles move the L1 point %.2f× right, want the tile width (15-16×)", f)
	}
	if naive.Bound() != "L1" || l1(naive) >= ridge {
		t.Errorf("untiled: %s-bound at %g FLOP per L1 byte (ridge %g), want under the L1 roof", naive.Bound(), l1(naive), ridge)
	}
	if tiled.Bound() == "L1" || l1(tiled) <= ridge {
		t.Errorf("tiled: %s-bound at %g FLOP per L1 byte (ridge %g), want past the L1 ridge", tiled.Bound(), l1(tiled), ridge)
	}
	if !(tiled.Achieved() > naive.Achieved()) {
		t.Errorf("tiled %g FLOP/s, untiled %g: want the tiles faster", tiled.Achieved(), naive.Achieved())
	}
	for _, r := range roofs {
		if r.Achieved() > r.Ceiling()*(1+1e-9) {
			t.Errorf("%g FLOP/s above the roofs' %g", r.Achieved(), r.Ceiling())
		}
	}
}

// TestRoofsAgainstNcu: the H200 preset's L1 roof is ncu's (one 128-byte writeback an SM
// a clock: l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained), and its L2 roof is
// within 3% of ncu's (32 bytes a cycle of lts__lts2xbar_cycles_active's peak, at the L2
// clock: 188 a cycle against the preset's 96 slices of 2 sectors).
func TestRoofsAgainstNcu(t *testing.T) {
	cfg, err := arch.Preset("hopper", "h200")
	if err != nil {
		t.Fatal(err)
	}
	hw := readNcu(t, roofsCSV)
	l1 := 128 * hwMetric(t, hw, "matmul_naive", "(8, 8, 1)", "l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained")[0]
	if got := cfg.PeakL1Bytes() / (float64(cfg.SM.ClockMHz) * 1e6); got != l1 {
		t.Errorf("L1 roof %g B a clock, ncu's %g", got, l1)
	}
	l2 := 32 * hwMetric(t, hw, "matmul_naive", "(8, 8, 1)", "lts__lts2xbar_cycles_active.sum.peak_sustained")[0]
	if got := cfg.PeakL2Bytes() / (float64(cfg.L2ClockMHz()) * 1e6); math.Abs(got/l2-1) > 0.03 {
		t.Errorf("L2 roof %g B an L2 clock, ncu's %g", got, l2)
	}
}
