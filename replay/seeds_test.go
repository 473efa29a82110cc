package replay

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// traceOf captures a reference kernel under ITS into an in-memory trace, checking its
// output with the kernel's Go reference first (captureRegs, timing_test.go).
func traceOf(t testing.TB, name string, sizes ...string) *format.Reader {
	t.Helper()
	return captureSIMT(t, format.SIMTITS, name, sizes...)
}

func preset(t testing.TB, a string, sets ...string) *arch.Config {
	t.Helper()
	return presetOf(t, a, "", sets...)
}

// presetOf is preset for a named GPU of the arch ("" = its default).
func presetOf(t testing.TB, a, gpu string, sets ...string) *arch.Config {
	t.Helper()
	cfg, err := arch.Preset(a, gpu)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

func replayOne(t testing.TB, r *format.Reader, cfg *arch.Config, perPC bool) *KernelReport {
	t.Helper()
	rep, err := Memory(context.Background(), r, cfg, Options{PerPC: perPC})
	if err != nil {
		t.Fatal(err)
	}
	return &rep.Kernels[0]
}

func metric(t testing.TB, k *KernelReport, name string) float64 {
	t.Helper()
	v, ok := k.Metric(name)
	if !ok {
		t.Fatalf("%s: no metric %s", k.Name, name)
	}
	return v
}

// Seed 000's coalescing table, on fermi (GTX480), in L1 mode (-dlcm=ca, 128-byte lines)
// and L2-only mode (-dlcm=cg, 32-byte segments): bus utilisation of the pattern load.
// Exact: the patterns are aligned and every warp is full.
func TestCoalescingTableFermi(t *testing.T) {
	for _, tc := range []struct {
		kernel     string
		l1, l2only float64 // percent
	}{
		{"coalesce_sequential", 100, 100},
		{"coalesce_permuted", 100, 100},
		{"coalesce_misaligned", 50, 80},
		{"coalesce_broadcast", 3.125, 12.5},
	} {
		r := traceOf(t, tc.kernel, "n=4096")
		for _, mode := range []struct {
			set  string
			want float64
		}{{"l1.cache_global=true", tc.l1}, {"l1.cache_global=false", tc.l2only}} {
			k := replayOne(t, r, preset(t, "fermi", mode.set), false)
			if got := metric(t, k, "gtrace__global_ld_bus_utilization.pct"); math.Abs(got-mode.want) > 1e-9 {
				t.Errorf("%s %s: bus utilisation %.4f%%, want %.4f%%", tc.kernel, mode.set, got, mode.want)
			}
		}
	}
}

// The random row: 128/(N·128) in L1 mode and 128/(N·32) in L2-only mode, where N is the
// number of distinct lines (segments) a warp touches. N is counted here straight from
// the trace's addresses, independently of the coalescer.
func TestCoalescingTableFermiRandom(t *testing.T) {
	r := traceOf(t, "coalesce_random", "n=4096")
	prog := r.Meta().Launches[0].Program.Insts
	var useful, lines, segs float64
	for w, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Len() {
			in := prog[w.PC[i]]
			if in.Space != format.SpaceGlobal || in.MemOp != format.MemLoad {
				continue
			}
			l, s := map[uint64]bool{}, map[uint64]bool{}
			for _, a := range w.Addrs(i, nil) {
				l[a/128], s[a/32] = true, true
			}
			useful += 4 * float64(len(w.Addrs(i, nil)))
			lines += float64(len(l))
			segs += float64(len(s))
		}
	}
	for _, mode := range []struct {
		set  string
		want float64
	}{{"l1.cache_global=true", 100 * useful / (lines * 128)}, {"l1.cache_global=false", 100 * useful / (segs * 32)}} {
		k := replayOne(t, r, preset(t, "fermi", mode.set), false)
		if got := metric(t, k, "gtrace__global_ld_bus_utilization.pct"); math.Abs(got-mode.want) > 1e-9 {
			t.Errorf("random %s: bus utilisation %.4f%%, want %.4f%%", mode.set, got, mode.want)
		}
	}
}

// testOffset<2,4,8,32>: sectors per global-load request on the sectored archs (ncu's rule,
// checked on an H200: 4 for coalesced, 32 for a 128-byte stride), and 128-byte lines per
// request on fermi with L1 caching.
func TestOffsetSectorsPerRequest(t *testing.T) {
	for _, tc := range []struct {
		kernel       string
		sectors      float64
		fermiLinesRq float64
	}{
		{"test_coalesced", 4, 1},
		{"test_offset_2", 8, 2},
		{"test_offset_4", 16, 4},
		{"test_offset_8", 32, 8},
		{"test_offset_32", 32, 32},
	} {
		r := traceOf(t, tc.kernel, "elements=8192")
		for _, a := range []string{"ampere", "hopper"} {
			k := replayOne(t, r, preset(t, a), false)
			got := metric(t, k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") /
				metric(t, k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
			if got != tc.sectors {
				t.Errorf("%s on %s: %.3f sectors per request, want %v", tc.kernel, a, got, tc.sectors)
			}
		}
		k := replayOne(t, r, preset(t, "fermi"), false)
		got := metric(t, k, "gtrace__global_ld_transactions.sum") / metric(t, k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
		if got != tc.fermiLinesRq {
			t.Errorf("%s on fermi: %.3f lines per request, want %v", tc.kernel, got, tc.fermiLinesRq)
		}
	}
}

// sharedLoadWays is wavefronts per shared-load instruction, over the kernel.
func sharedLoadWays(t testing.TB, k *KernelReport) float64 {
	return metric(t, k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") /
		metric(t, k, "smsp__sass_inst_executed_op_shared_ld.sum")
}

// Transpose: V2 reads its 32×32 tile down a column, a 32-way conflict (wavefronts = 32 ×
// requests); the 32×33 padding of V3 and V4 removes it, for loads and stores.
func TestTransposeBankConflicts(t *testing.T) {
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		cfg := preset(t, a)
		k := replayOne(t, traceOf(t, "transpose_v2", "n=128"), cfg, false)
		if got := sharedLoadWays(t, k); got != 32 {
			t.Errorf("%s: transpose V2 shared load: %v wavefronts per request, want 32", a, got)
		}
		if got := metric(t, k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"); got != 31*metric(t, k, "smsp__sass_inst_executed_op_shared_ld.sum") {
			t.Errorf("%s: transpose V2: %v load bank conflicts, want 31 per request", a, got)
		}
		for _, v := range []string{"transpose_v3", "transpose_v4"} {
			k := replayOne(t, traceOf(t, v, "n=128"), cfg, false)
			for _, op := range []string{"ld", "st"} {
				if got := metric(t, k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_"+op+".sum"); got != 0 {
					t.Errorf("%s: %s has %v shared %s bank conflicts, want 0", a, v, got, op)
				}
			}
		}
	}
}

// The seed's bank examples (32 × 4-byte banks on every arch); and an 8-byte access,
// which is 2-way in Kepler's 4-byte bank mode and conflict-free in its 8-byte mode.
func TestBankExamples(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		arch   string
		set    string
		ways   float64
	}{
		{"bank_linear", "hopper", "", 1},
		{"bank_same_word", "hopper", "", 1},
		{"bank_two_way", "hopper", "", 2},
		{"bank_linear", "fermi", "", 1},
		{"bank_two_way", "fermi", "", 2},
		{"bank_double", "kepler", "shared.bank_width=4", 2},
		{"bank_double", "kepler", "shared.bank_width=8", 1},
	} {
		var sets []string
		if tc.set != "" {
			sets = append(sets, tc.set)
		}
		k := replayOne(t, traceOf(t, tc.kernel, "blocks=4"), preset(t, tc.arch, sets...), false)
		if got := sharedLoadWays(t, k); got != tc.ways {
			t.Errorf("%s on %s %s: %v wavefronts per shared load, want %v", tc.kernel, tc.arch, tc.set, got, tc.ways)
		}
	}
}

// Constant memory: a uniform c_array[0] (and c_array[blockIdx.x]) is one request per
// warp-instruction; c_array[threadIdx.x] is 32 serialised requests.
func TestConstantRequests(t *testing.T) {
	k := replayOne(t, traceOf(t, "constant_access", "blocks=8", "threads=128"), preset(t, "hopper"), true)
	var perInst []float64
	for _, p := range k.PerPC {
		if !strings.HasPrefix(p.PTX, "ld.const") {
			continue
		}
		var inst, req float64
		for _, m := range p.Metrics {
			switch m.Name {
			case "smsp__inst_executed.sum":
				inst = m.Value
			case "idc__requests.sum":
				req = m.Value
			}
		}
		perInst = append(perInst, req/inst)
	}
	want := []float64{1, 1, 32}
	if len(perInst) != len(want) {
		t.Fatalf("constant_access: %d ld.const instructions (%v requests each), want %d", len(perInst), perInst, len(want))
	}
	for i := range want {
		if perInst[i] != want[i] {
			t.Errorf("ld.const #%d: %v requests per warp-instruction, want %v", i, perInst[i], want[i])
		}
	}
}

// Texture (seed 001, "ColumnAfterColumn"): plain global memory laid out row-major makes a
// column walk "the pathological worst case", with SM-to-L2 traffic "multiple times larger
// than the image itself", while a texture's block-linear layout serves rows and columns
// with similar efficiency. At the kernels' default launch:
//   - global: a column request touches 8x the sectors of a row request (32 vs 4), and
//     the L2 serves 8x the image;
//   - texture: a column request touches only 2x the sectors of a row request (16 vs 8,
//     the GOB's sectors being 16 bytes x 2 rows), a quarter of global's penalty;
//   - the texture cache's hit rate does not collapse for columns: within 15 points of
//     the row walk's.
func TestTextureLocality(t *testing.T) {
	const imageSectors = 1024 * 1024 * 4 / 32 // the default 1024x1024 float image
	spr := func(k *KernelReport, pipe string) float64 {
		if pipe == "tex" {
			return metric(t, k, "l1tex__t_sectors_pipe_tex_mem_texture.sum") / metric(t, k, "l1tex__t_requests_pipe_tex_mem_texture.sum")
		}
		return metric(t, k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") / metric(t, k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
	}
	traces := map[string]*format.Reader{}
	for _, v := range []string{"tex_row_tex", "tex_column_tex", "tex_row_global", "tex_column_global"} {
		traces[v] = traceOf(t, v)
	}
	for _, a := range []string{"kepler", "ampere", "hopper"} {
		cfg := preset(t, a)
		k := map[string]*KernelReport{}
		for v, r := range traces {
			k[v] = replayOne(t, r, cfg, false)
		}
		globalPenalty := spr(k["tex_column_global"], "lsu") / spr(k["tex_row_global"], "lsu")
		texPenalty := spr(k["tex_column_tex"], "tex") / spr(k["tex_row_tex"], "tex")
		if globalPenalty < 4 {
			t.Errorf("%s: global column walk costs %.1fx the sectors per request of a row walk, want at least 4x", a, globalPenalty)
		}
		if texPenalty > globalPenalty/4 {
			t.Errorf("%s: texture column walk costs %.1fx a row walk, global %.1fx: want texture at most a quarter of global's penalty",
				a, texPenalty, globalPenalty)
		}
		if l2 := metric(t, k["tex_column_global"], "lts__t_sectors_srcunit_tex_op_read.sum"); l2 < 4*imageSectors {
			t.Errorf("%s: global column walk reads %.0f sectors from L2, want several times the image (%d)", a, l2, imageSectors)
		}
		hr, hc := metric(t, k["tex_row_tex"], "gtrace__texture_hit_rate.pct"), metric(t, k["tex_column_tex"], "gtrace__texture_hit_rate.pct")
		if hc < hr-15 {
			t.Errorf("%s: texture hit rate column %.1f%% vs row %.1f%%: want column within 15 points of row or better", a, hc, hr)
		}
	}
}

// Data layout (seed 002): SoA and ASTA reach a higher DRAM burst utilisation than AoS.
func TestLayoutBurstUtilization(t *testing.T) {
	for _, a := range []string{"fermi", "hopper"} {
		cfg := preset(t, a)
		util := map[string]float64{}
		for _, v := range []string{"particles_aos", "particles_soa", "particles_asta"} {
			util[v] = metric(t, replayOne(t, traceOf(t, v, "n=4096"), cfg, false), "gtrace__dram_burst_utilization.pct")
		}
		if util["particles_soa"] <= util["particles_aos"] || util["particles_asta"] <= util["particles_aos"] {
			t.Errorf("%s: burst utilisation AoS %.1f%%, SoA %.1f%%, ASTA %.1f%%: want SoA and ASTA above AoS",
				a, util["particles_aos"], util["particles_soa"], util["particles_asta"])
		}
	}
}

// engines are the two replay engines, each with the worker counts its results must not
// depend on: the memory engine runs the SM stage on that many goroutines (one runs the
// L2 inline, more serve it on its own goroutine, l2Pipe, and decode batches ahead,
// Reader.Prefetch); the timing engine runs on one goroutine, and with more workers only
// decodes the next CTA's batch ahead.
var engines = []struct {
	name    string
	run     func(context.Context, *format.Reader, *arch.Config, Options) (*Report, error)
	workers []int
}{{"memory", Memory, []int{1, 2, 7}}, {"timing", Timing, []int{1, 2}}}

// The counts, kernel totals and per pc, must not depend on how many workers an engine
// has.
func TestDeterministicAcrossWorkers(t *testing.T) {
	for _, k := range []struct{ name, size string }{{"transpose_v2", "n=256"}, {"transpose_v1", "n=512"}, {"add_vectors", "n=65536"}} {
		r := traceOf(t, k.name, k.size)
		for _, a := range []string{"fermi", "hopper"} {
			cfg := preset(t, a)
			for _, eng := range engines {
				var first *KernelReport
				for _, w := range eng.workers {
					rep, err := eng.run(context.Background(), r, cfg, Options{Workers: w, PerPC: true})
					if err != nil {
						t.Fatal(err)
					}
					kr := &rep.Kernels[0]
					if first == nil {
						first = kr
					} else if !reflect.DeepEqual(kr.Metrics, first.Metrics) || !reflect.DeepEqual(kr.PerPC, first.PerPC) {
						t.Fatalf("%s on %s: %s engine with workers=%d differs from workers=1", k.name, a, eng.name, w)
					}
				}
			}
		}
	}
}

// TestEnginesReleaseEveryView: both engines hold each resident CTA's warps as views
// into its decoded batch (format.Reader.ViewCTA), and give every one back when they
// return, whether the kernel finished or the context was cancelled midway. One worker,
// so that no background decode holds a batch when Held is read.
func TestEnginesReleaseEveryView(t *testing.T) {
	r := traceOf(t, "transpose_v1", "n=1024")
	cfg := preset(t, "hopper")
	for _, eng := range engines {
		name := eng.name
		run := func(ctx context.Context, o Options) error { _, err := eng.run(ctx, r, cfg, o); return err }
		if err := run(context.Background(), Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		if n := r.Held(); n != 0 {
			t.Errorf("%s: %d views still held after a finished run", name, n)
		}
		ctx, cancel := context.WithCancel(context.Background())
		retired := 0
		err := run(ctx, Options{Workers: 1, Progress: func(_, done, _ int) {
			if retired = done; done > 0 {
				cancel()
			}
		}})
		cancel()
		if err == nil || retired >= r.NumCTAs(0) {
			t.Fatalf("%s: the cancelled run returned %v after %d of %d CTAs, want it stopped early", name, err, retired, r.NumCTAs(0))
		}
		if n := r.Held(); n != 0 {
			t.Errorf("%s: %d views still held after a cancelled run (%d CTAs retired)", name, n, retired)
		}
	}
}
