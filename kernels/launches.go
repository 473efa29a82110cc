package kernels

import (
	"fmt"
	"strconv"
	"strings"
)

// LaunchName names a launch of k at sizes sz: k.Name at k's default sizes, else
// k.Name@NAME=VALUE,... listing every size that differs from its default, in k.Sizes
// order. ParseLaunch reads it back. The name keys a launch in a ground-truth CSV and
// in a job directory, so it holds no dot, slash or space.
func LaunchName(k *Kernel, sz map[string]int) string {
	var diff []string
	for _, s := range k.Sizes {
		if v, ok := sz[s.Name]; ok && v != s.Default {
			diff = append(diff, s.Name+"="+strconv.Itoa(v))
		}
	}
	if len(diff) == 0 {
		return k.Name
	}
	return k.Name + "@" + strings.Join(diff, ",")
}

// ParseLaunch reads a launch name, KERNEL or KERNEL@NAME=VALUE,..., and returns the
// kernel and its sizes (the defaults, overridden by those named). Each size is checked
// as ParseSizes checks it.
func ParseLaunch(name string) (*Kernel, map[string]int, error) {
	kname, sizes, hasSizes := strings.Cut(name, "@")
	k, err := Lookup(kname)
	if err != nil {
		return nil, nil, fmt.Errorf("launch %q: %w", name, err)
	}
	var kv []string
	if hasSizes {
		if sizes == "" {
			return nil, nil, fmt.Errorf("launch %q: no sizes after @", name)
		}
		kv = strings.Split(sizes, ",")
	}
	sz, err := ParseSizes(k, kv)
	if err != nil {
		return nil, nil, fmt.Errorf("launch %q: %w", name, err)
	}
	return k, sz, nil
}

// HeldOut lists the launches of the held-out validation set (issue 11): kernels and
// sizes the models were never tuned on. It covers dynamic shared memory from none to
// Hopper's per-CTA maximum, returning and non-returning atomics on global and shared
// memory with 1 to 4096 distinct addresses, footprints from 1 MB to over four times
// an H200's L2, strided and scattered reads and writes, and __constant__ reads at 1 to
// 32 addresses per warp. Its ground truth is collected like the tuning set's
// (scripts/hw/collect.sh with SIZES=heldout) and `gtrace validate` reports it apart;
// no preset value may change to fit one of its rows.
func HeldOut() []string {
	return []string{
		// Footprint: 8n bytes moved (n ints in, n out), 1 MB to 256 MB.
		"copy@n=131072", "copy@n=1048576", "copy@n=3145728", "copy@n=5242880",
		"copy@n=8388608", "copy@n=16777216", "copy@n=33554432",
		// Scattered and strided reads and writes.
		"gather", "gather@n=8388608", "scatter", "scatter@n=8388608",
		"strided@stride=2", "strided", "strided@stride=32",
		"coalesce_random@n=8388608", "test_scattered@elements=8388608",
		// Atomics: non-returning (RED), returning (ATOM), privatised in shared memory.
		"hist_global@bins=1", "hist_global@bins=16", "hist_global", "hist_global@bins=4096",
		"hist_global_ret@bins=1", "hist_global_ret@bins=16", "hist_global_ret", "hist_global_ret@bins=4096",
		"hist_shared@bins=1", "hist_shared@bins=32", "hist_shared", "hist_shared@bins=4096",
		// Dynamic shared memory up to the per-CTA maximum (232448 B on Hopper).
		"shared_sweep@words=1", "shared_sweep@words=4096", "shared_sweep@words=12288",
		"shared_sweep@words=30000", "shared_sweep@words=58112",
		"volkov_memcpy_f1@smem=49152", "volkov_memcpy_f1@smem=232448",
		// __constant__ reads at 1 to 32 addresses per warp.
		"constant_lanes@distinct=1", "constant_lanes@distinct=2", "constant_lanes",
		"constant_lanes@distinct=8", "constant_lanes@distinct=32",
	}
}

// Lessons lists the launches of issue 15's seed lessons (kernels/cu/lessons.cu and
// the matmuls beside it) for ground truth: scatter versus gather, every coarsening
// factor and grid-stride grids sized to 1, 2 and 8 times an H100/H200's 132 SMs at
// two footprints, untiled versus 16x16-tiled matmul at a width both tile exactly,
// the SDK matmul's 1 to 8 outputs per thread at sizes a test replays in seconds,
// and histograms privatised per block and per warp, on uniform and skewed inputs.
// The models were never tuned on them, so `gtrace validate` reports them with the
// held-out set (collect.sh SIZES=lessons).
func Lessons() []string {
	var out []string
	out = append(out, "conv1d_scatter", "conv1d_gather", "conv1d_scatter@n=65536", "conv1d_gather@n=65536")
	for _, n := range []string{"", "@n=1048576"} {
		for _, c := range []string{"1", "2", "4", "8"} {
			out = append(out, "saxpy_c"+c+n)
		}
		out = append(out, "saxpy_gridstride"+n)
		for _, b := range []string{"132", "264", "1056"} {
			if n == "" {
				out = append(out, "saxpy_gridstride@blocks="+b)
			} else {
				out = append(out, "saxpy_gridstride"+n+",blocks="+b)
			}
		}
	}
	out = append(out, "matmul_naive", "matmul_naive@width=1024", "tiled_matmul_bounds@width=1024",
		"matmul_naive@width=128", "tiled_matmul_bounds@width=128")
	for _, n := range []string{"256", "512"} {
		for _, c := range []string{"1", "2", "4", "8"} {
			out = append(out, "matmul_sdk_"+c+"@n="+n)
		}
	}
	// Privatisation: per-warp copies at 1 to 4096 bins (the global and per-block
	// forms at those bins are in HeldOut), per-block at 16 bins beside the global
	// histogram's 16, and all three on skewed inputs (half and 90% of the elements
	// in bin 0).
	out = append(out, "hist_warp@bins=1", "hist_warp@bins=16", "hist_warp", "hist_warp@bins=4096", "hist_shared@bins=16")
	for _, hot := range []string{"50", "90"} {
		for _, k := range []string{"hist_global", "hist_shared", "hist_warp"} {
			out = append(out, k+"@hot="+hot)
		}
	}
	// Stream compaction with one atomic per kept element and per warp, at 10, 50 and
	// 90% kept; the cascaded reduction at 1, 2, 8 and 32 blocks per SM (132 SMs)
	// beside reduction V3, V4.2 and V5.2 on the same 4 M floats.
	// (keep=50 and blocks=264 are the defaults: LaunchName leaves them out.)
	for _, keep := range []string{"@keep=10", "", "@keep=90"} {
		out = append(out, "compact_atomic"+keep, "compact_warp"+keep)
	}
	for _, b := range []string{"@blocks=132", "", "@blocks=1056", "@blocks=4224"} {
		out = append(out, "reduce_cascade"+b)
	}
	out = append(out, "reduce_v3", "reduce_v4_2", "reduce_v5_2")
	// Constant memory: a convolution's mask from a global buffer and from __constant__.
	for _, n := range []string{"", "@n=65536"} {
		out = append(out, "conv1d_mask_global"+n, "conv1d_mask_const"+n)
	}
	// Cutoff binning at two lattice sides (the direct form's work grows with the
	// square of the points, the binned forms' linearly) and the binning scatter with
	// no bin full (1024 atoms on 16 x 16 bins of 16 slots, 10 at most in one; 65536 on 64 x 64 bins
	// of 40, 33 at most).
	// Where bins overflow, which warps take the overflow branch is the order the
	// atomics ran in, so the request counts are no longer a property of the kernel.
	for _, c := range []string{"@cells=8", ""} {
		out = append(out, "cutoff_direct"+c, "cutoff_binned"+c, "cutoff_binned_shared"+c)
	}
	out = append(out, "bin_atoms@cap=16", "bin_atoms@n=65536,cells=64,cap=40")
	// Integer chains on one SM: one warp with one chain (the step's dependent
	// latency) and with eight (how far independent chains overlap), then 8 and 32
	// warps (the issue rate).
	for _, op := range []string{"ffma", "imad", "iadd", "mulhi", "setp", "div", "rem"} {
		for _, at := range []string{"", "@ilp=8", "@ilp=2,warps=8", "@ilp=8,warps=32"} {
			out = append(out, "chain_"+op+at)
		}
	}
	return out
}
