package report

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// Input is one trace the report covers, with the name the page gives it.
type Input struct {
	Name  string
	Trace *format.Reader
}

// Options tune Build. The zero value replays with both engines.
type Options struct {
	// NoTiming skips the timing engine: no cycles, time or IPC (faster on big traces).
	NoTiming bool
	// Progress, if set, is called before each replay with what it is about to run.
	Progress func(step string, done, total int)
	// SourceArch names the arch (as --arch spells it) whose per-pc counters the source
	// view shows; "" takes the last arch given.
	SourceArch string
	// SourceDir is a folder to look in, by base name, for a CUDA file that the line
	// table names and that is not at its path.
	SourceDir string
}

// Page is everything the HTML report shows: every kernel of every input, each replayed
// on every arch.
type Page struct {
	Archs   []string // "hopper/h200": the column heads, in the order given
	Kernels []KernelPage
}

// KernelPage is one launch replayed on every arch.
type KernelPage struct {
	Trace  string // the Input's name
	Name   string // the kernel
	Launch *format.Launch
	Runs   []Run // one per arch, in Page.Archs order
	Source *SourceView
}

// Label names the launch in charts: its trace's name, with the launch's index when
// the trace holds several.
func (kp *KernelPage) Label(pg *Page) string {
	n, i := 0, 0
	for j := range pg.Kernels {
		if pg.Kernels[j].Trace == kp.Trace {
			if &pg.Kernels[j] == kp {
				i = n
			}
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf("%s#%d", kp.Trace, i)
	}
	return kp.Trace
}

// Run is one launch on one arch.
type Run struct {
	Arch, GPU string
	ClockMHz  int
	Memory    *replay.KernelReport // with per-pc metrics
	Timing    *replay.KernelReport // nil with Options.NoTiming
	Findings  []Finding
	Roof      Roof
}

// Build replays every input on every arch (memory engine with per-pc metrics, the
// timing engine unless opts.NoTiming) and runs the advisor on each.
func Build(ctx context.Context, ins []Input, cfgs []*arch.Config, opts Options) (*Page, error) {
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("report: no arch to replay on")
	}
	pg := &Page{}
	src := len(cfgs) - 1 // the source view's arch
	if opts.SourceArch != "" {
		src = -1
	}
	for i, cfg := range cfgs {
		pg.Archs = append(pg.Archs, cfg.Arch+"/"+cfg.GPU)
		if src < 0 && (cfg.Arch == opts.SourceArch || pg.Archs[i] == opts.SourceArch) {
			src = i
		}
	}
	if src < 0 {
		return nil, fmt.Errorf("source arch %q is not among the report's archs (%s)", opts.SourceArch, strings.Join(pg.Archs, ", "))
	}
	steps, done := len(ins)*len(cfgs), 0
	source := readSource(opts.SourceDir)
	for _, in := range ins {
		first := len(pg.Kernels)
		for k := range in.Trace.Meta().Launches {
			l := &in.Trace.Meta().Launches[k]
			pg.Kernels = append(pg.Kernels, KernelPage{Trace: in.Name, Name: l.Kernel, Launch: l})
		}
		pats, err := scanAll(in.Trace) // the trace's own patterns: the same on every arch
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		for _, cfg := range cfgs {
			if opts.Progress != nil {
				opts.Progress(in.Name+" on "+cfg.Arch+"/"+cfg.GPU, done, steps)
			}
			done++
			mem, err := replay.Memory(ctx, in.Trace, cfg, replay.Options{PerPC: true})
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", in.Name, cfg.GPU, err)
			}
			var tim *replay.Report
			if !opts.NoTiming {
				if tim, err = replay.Timing(ctx, in.Trace, cfg, replay.Options{PerPC: true}); err != nil {
					return nil, fmt.Errorf("%s on %s (timing): %w", in.Name, cfg.GPU, err)
				}
			}
			adv := adviseOn(in.Trace, pats, cfg, mem, tim)
			for k := range mem.Kernels {
				run := Run{Arch: cfg.Arch, GPU: cfg.GPU, ClockMHz: cfg.SM.ClockMHz,
					Memory: &mem.Kernels[k], Findings: adv.Kernels[k].Findings}
				if tim != nil {
					run.Timing = &tim.Kernels[k]
				}
				kp := &pg.Kernels[first+k]
				run.Roof = roofOf(kp.Launch.Program.Insts, run.Memory, run.Timing, cfg)
				kp.Runs = append(kp.Runs, run)
			}
		}
		for k := first; k < len(pg.Kernels); k++ {
			kp := &pg.Kernels[k]
			kp.Source = buildSource(kp.Launch, &kp.Runs[src], src, source)
		}
	}
	if opts.Progress != nil {
		opts.Progress("done", done, steps)
	}
	return pg, nil
}

// Engine says which replay a headline metric comes from.
type Engine int

const (
	EngineMemory Engine = iota
	EngineTiming
)

// Headline is a metric the summary shows: a label for people, the ncu (or gtrace) name,
// and how to print it.
type Headline struct {
	Label, Metric string
	Engine        Engine
	Unit          string  // printed after the value
	Scale         float64 // the value is divided by it (bytes to MB)
}

// Headlines are the summary's rows, in order.
var Headlines = []Headline{
	{"cycles", "sm__cycles_elapsed.avg", EngineTiming, "", 1},
	{"time", "gpu__time_duration.sum", EngineTiming, "µs", 1e3},
	{"IPC (per SM)", "sm__inst_executed.avg.per_cycle_active", EngineTiming, "", 1},
	{"issue slots busy", "smsp__issue_active.avg.pct_of_peak_sustained_active", EngineTiming, "%", 1},
	{"warp-instructions", "smsp__inst_executed.sum", EngineMemory, "", 1},
	{"SIMD efficiency", "gtrace__simd_efficiency.pct", EngineMemory, "%", 1},
	{"global load sectors/request", "gtrace__global_ld_sectors_per_request", EngineMemory, "", 1},
	{"global store sectors/request", "gtrace__global_st_sectors_per_request", EngineMemory, "", 1},
	{"L1 hit rate", "l1tex__t_sector_hit_rate.pct", EngineMemory, "%", 1},
	{"L2 hit rate", "lts__t_sector_hit_rate.pct", EngineMemory, "%", 1},
	{"DRAM read", "dram__bytes_read.sum", EngineMemory, "MB", 1e6},
	{"DRAM write", "dram__bytes_write.sum", EngineMemory, "MB", 1e6},
	{"shared load wavefronts/request", "gtrace__shared_ld_wavefronts_per_request", EngineMemory, "", 1},
	{"shared bank conflicts (ld)", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", EngineMemory, "", 1},
	{"DRAM row-buffer hit rate", "gtrace__dram_row_hit_rate.pct", EngineMemory, "%", 1},
}

// Value is a headline metric of a run, NaN if the run lacks it (no timing replay).
func (r *Run) Value(h Headline) float64 {
	k := r.Memory
	if h.Engine == EngineTiming {
		k = r.Timing
	}
	if k == nil {
		return math.NaN()
	}
	v, ok := k.Metric(h.Metric)
	if !ok {
		return math.NaN()
	}
	return v / h.Scale
}
