package replay

import (
	"testing"

	"github.com/gtrace/gtrace/format"
)

// The optimisation-techniques and tiling seeds' lessons (issue 15) on the memory
// engine: kernels/cu/lessons.cu.

// sumOf adds metrics of a kernel report.
func sumOf(t testing.TB, k *KernelReport, names ...string) float64 {
	t.Helper()
	var s float64
	for _, n := range names {
		s += metric(t, k, n)
	}
	return s
}

// TestScatterVersusGather: the seed's "GPUs should gather, not scatter". The same
// convolution written parallel over the output needs no atomics, and sends fewer
// sectors to the L2 than the scatter form, whose atomics all go there (an L1 does
// not hold them).
func TestScatterVersusGather(t *testing.T) {
	sc := traceOf(t, "conv1d_scatter", "n=65536")
	ga := traceOf(t, "conv1d_gather", "n=65536")
	atomics := []string{"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"}
	l2 := []string{"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
		"lts__t_sectors_srcunit_tex_op_atom.sum", "lts__t_sectors_srcunit_tex_op_red.sum"}
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		s := replayOne(t, sc, preset(t, a), false)
		g := replayOne(t, ga, preset(t, a), false)
		// 7 REDs per element, 2048 warps.
		if got := sumOf(t, s, atomics...); got != 7*2048 {
			t.Errorf("%s: scatter makes %g atomic requests, want 7 per warp (%d)", a, got, 7*2048)
		}
		if got := sumOf(t, g, atomics...); got != 0 {
			t.Errorf("%s: gather makes %g atomic requests, want none", a, got)
		}
		sl2, gl2 := sumOf(t, s, l2...), sumOf(t, g, l2...)
		if gl2*3 > sl2 {
			t.Errorf("%s: gather sends %g sectors to the L2, scatter %g: want gather at most a third", a, gl2, sl2)
		}
		t.Logf("%s: L2 sectors scatter %g, gather %g (%.1fx)", a, sl2, gl2, sl2/gl2)
	}
}

// globalLoadBytesAndFLOPs counts what seed 004's computational intensity counts: the
// bytes the threads ask of global memory (every active lane's load width) and the
// FLOPs (format.Inst.FLOPs per active lane), from the per-pc
// warp-instructions and SIMD efficiency of a memory replay.
func globalLoadBytesAndFLOPs(t testing.TB, prog []format.Inst, k *KernelReport) (bytes, flops float64) {
	t.Helper()
	for _, p := range k.PerPC {
		in := &prog[p.PC]
		inst, _ := p.Metric("gtrace__ptx_inst_executed.sum")
		simd, _ := p.Metric("gtrace__simd_efficiency.pct")
		lanes := inst * 32 * simd / 100
		if in.Space == format.SpaceGlobal && in.MemOp == format.MemLoad {
			bytes += lanes * float64(in.Width)
		}
		f, _ := in.FLOPs()
		flops += float64(f) * lanes
	}
	return bytes, flops
}

// TestTilingIntensity: seed 004's arithmetic. Untiled, every fused multiply-add (2
// FLOPs) loads two floats (8 B): 0.25 FLOP/B. With 16x16 tiles each loaded float
// serves 16 threads: 4 FLOP/B, exactly 16x. At the warp level the fall is 8x: a warp
// of a 16x16 block is two rows of 16 threads, so the untiled M load is a broadcast of
// 2 sectors and the N load 2 sectors, 4 per k; tiled, 8 sectors serve 16 k. The
// seed's remark that on modern GPUs tiling gains less than this, since the L1 catches
// most of the untiled kernel's reuse, shows as the untiled kernel's L1 hit rate: at
// least 7/8, since a sector holds 8 floats that serve one warp's next 8 k (M) or the
// block's 8 warps (N), and only the first of those 8 uses misses.
func TestTilingIntensity(t *testing.T) {
	const width = 128
	naive := traceOf(t, "matmul_naive", "width=128")
	tiled := traceOf(t, "tiled_matmul_bounds", "width=128")
	for _, a := range []string{"fermi", "hopper"} {
		var fpb, sectors, hit [2]float64
		for i, r := range []*format.Reader{naive, tiled} {
			k := replayOne(t, r, preset(t, a), true)
			b, f := globalLoadBytesAndFLOPs(t, r.Meta().Launches[0].Program.Insts, k)
			if f != 2*width*width*width {
				t.Fatalf("%s on %s: %g FLOPs, want 2 n^3 = %d", k.Name, a, f, 2*width*width*width)
			}
			fpb[i] = f / b
			sectors[i] = metric(t, k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
			hit[i] = metric(t, k, "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct")
		}
		if fpb[0] != 0.25 || fpb[1] != 4 {
			t.Errorf("%s: %g and %g FLOP per global byte requested, want 0.25 untiled and 4 tiled", a, fpb[0], fpb[1])
		}
		if sectors[0] != 8*sectors[1] {
			t.Errorf("%s: L1 load sectors %g untiled, %g tiled: want 8x", a, sectors[0], sectors[1])
		}
		if hit[0] < 87.5 {
			t.Errorf("%s: the untiled kernel's L1 load hit rate is %.1f%%, want at least 7/8", a, hit[0])
		}
		t.Logf("%s: FLOP/B %g -> %g; L1 load sectors %g -> %g; L1 hit rate %.1f%% -> %.1f%%", a, fpb[0], fpb[1], sectors[0], sectors[1], hit[0], hit[1])
	}
}

// TestCoarseningInstructions: a coarsened thread does its C elements' work with one
// index computation and bounds set-up, so the warp-instructions per element fall as C
// grows, while every load stays coalesced: the sectors do not change.
func TestCoarseningInstructions(t *testing.T) {
	var prevInst, sectors float64
	for i, name := range []string{"saxpy_c1", "saxpy_c2", "saxpy_c4", "saxpy_c8"} {
		k := replayOne(t, traceOf(t, name, "n=65536"), preset(t, "hopper"), false)
		inst := metric(t, k, "gtrace__ptx_inst_executed.sum")
		sec := sumOf(t, k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
		if i == 0 {
			sectors = sec
		} else if inst >= prevInst {
			t.Errorf("%s: %g warp-instructions, not fewer than the factor before's %g", name, inst, prevInst)
		}
		if sec != sectors || sec != 3*65536*4/32 {
			t.Errorf("%s: %g global sectors, want %d (x and y read, y written, each once)", name, sec, 3*65536*4/32)
		}
		prevInst = inst
		t.Logf("%s: %.2f warp-instructions per 32 elements", name, inst/(65536/32))
	}
}

// TestCutoffBinning: the seed's data scalability. Doubling the lattice side with the
// atom density kept (4x the points, 4x the atoms) multiplies the direct cutoff sum's
// work by 16 and the binned sum's by about 4, with the same energies (capture checks
// both against one reference); staging the block's 9 bins in shared memory leaves a
// few global loads per block instead of 9 cap per warp; and the timing engine has
// the binned sum many times faster.
func TestCutoffBinning(t *testing.T) {
	names := []string{"cutoff_direct", "cutoff_binned", "cutoff_binned_shared"}
	inst := map[string][]float64{}
	big := map[string]*format.Reader{} // the traces at 8 x 8 bins and their memory replays
	bigK := map[string]*KernelReport{}
	for _, cells := range []string{"cells=4", "cells=8"} {
		for _, name := range names {
			big[name] = traceOf(t, name, cells)
			bigK[name] = replayOne(t, big[name], preset(t, "hopper"), false)
			inst[name] = append(inst[name], metric(t, bigK[name], "gtrace__ptx_inst_executed.sum"))
		}
	}
	const ldReq = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
	loads := [2]float64{metric(t, bigK[names[1]], ldReq), metric(t, bigK[names[2]], ldReq)}
	cycles := [2]float64{metric(t, timeOne(t, big[names[0]], "hopper"), "sm__cycles_elapsed.avg"),
		metric(t, timeOne(t, big[names[1]], "hopper"), "sm__cycles_elapsed.avg")}
	for name, v := range inst {
		t.Logf("%s: %g -> %g warp-instructions (x%.2f)", name, v[0], v[1], v[1]/v[0])
	}
	if g := inst["cutoff_direct"][1] / inst["cutoff_direct"][0]; g < 15 || g > 16.5 {
		t.Errorf("the direct sum's work grows %.2fx with 4x the points and atoms, want about 16x", g)
	}
	for _, name := range []string{"cutoff_binned", "cutoff_binned_shared"} {
		// 4x the points; the edge bins, which have fewer neighbours, weigh less.
		if g := inst[name][1] / inst[name][0]; g < 4 || g > 5.5 {
			t.Errorf("%s: work grows %.2fx with 4x the points, want between 4x and 5.5x", name, g)
		}
	}
	if loads[1]*10 > loads[0] {
		t.Errorf("the shared-memory form makes %g global load requests, the binned one %g: want a tenth at most", loads[1], loads[0])
	}
	if cycles[0] < 5*cycles[1] {
		t.Errorf("at 8x8 bins the direct sum takes %g cycles, the binned one %g: want at least 5x", cycles[0], cycles[1])
	}
	t.Logf("at 8x8 bins: global load requests %g binned, %g staged; cycles %g direct, %g binned (%.1fx)", loads[0], loads[1], cycles[0], cycles[1], cycles[0]/cycles[1])
}
