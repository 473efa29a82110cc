package report

import (
	"fmt"
	"math"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// Thresholds of the latency-bound rule. A kernel is latency-bound on arithmetic when at
// least half of its stalled warp-cycles wait on a fixed-latency dependency and it issues
// under latencyPipeShare of what its main arithmetic pipe takes: the pipe has room that
// only more independent work can fill (seed 003). Both are where the lesson starts to
// matter, not fitted: below half the stalls are something else's, and at 70% of the
// pipe's rate no more than 1.4× is left to win.
const (
	latencyWaitShare = 0.5
	latencyPipeShare = 0.7
)

// pipe is an arithmetic pipe as the timing engine models it: its dependent-issue
// latency and the warp-instructions one scheduler sends it per cycle.
type pipe struct {
	name    string
	latency int
	rate    float64
}

// pipeOf is the pipe an instruction class runs on in cfg (the timing engine's model:
// lanes per scheduler over 32 threads a warp-instruction, at most the dispatch width),
// false for a class that is not arithmetic.
func pipeOf(c format.Class, cfg *arch.Config) (pipe, bool) {
	var p pipe
	lanes := 0
	switch c {
	case format.ClassFP32:
		p, lanes = pipe{name: "FP32", latency: cfg.Latency.FMA}, cfg.SM.FP32Lanes
	case format.ClassALU, format.ClassConv:
		p, lanes = pipe{name: "integer", latency: cfg.Latency.ALU}, cfg.SM.FP32Lanes
	case format.ClassFP64:
		p, lanes = pipe{name: "FP64", latency: cfg.Latency.DP}, cfg.SM.DPLanes
	case format.ClassSFU:
		p, lanes = pipe{name: "special-function", latency: cfg.Latency.SFU}, cfg.SM.SFULanes
	default:
		return p, false
	}
	scheds := max(cfg.SM.Schedulers, 1)
	p.rate = math.Min(float64(max(cfg.SM.DispatchPerScheduler, 1)), float64(lanes)/float64(scheds)/32)
	return p, lanes > 0 && p.latency > 0
}

// latencyBound fires at the arithmetic instruction whose warps wait longest on a
// fixed-latency dependency, when the timing replay says the kernel is latency-bound
// (latencyWaitShare, latencyPipeShare). Little's law gives the fix's size: the pipe
// needs latency × rate independent warp-instructions in flight per scheduler, and the
// resident warps supply warps × ILP; the gain is the issue rate rising to the pipe's.
func latencyBound(in *kernelInput) []Finding {
	if in.tim == nil || in.cfg == nil {
		return nil
	}
	get := func(name string) float64 { v, _ := in.tim.Metric(name); return v }
	var stalled float64
	for _, s := range stallReasons {
		stalled += get(stallPrefix + s.Name)
	}
	wait := get(stallPrefix + "wait")
	if stalled == 0 || wait < latencyWaitShare*stalled {
		return nil
	}
	// The instruction the warps wait at most on: the head of the dependent chain.
	best, bestWait := -1, 0.0
	prog := in.launch.Program.Insts
	for i := range in.tim.PerPC {
		p := &in.tim.PerPC[i]
		if int(p.PC) >= len(prog) {
			continue
		}
		if _, ok := pipeOf(prog[p.PC].Class, in.cfg); !ok {
			continue
		}
		if w, _ := p.Metric(stallPrefix + "wait"); w > bestWait {
			best, bestWait = int(p.PC), w
		}
	}
	if best < 0 {
		return nil
	}
	pp, _ := pipeOf(prog[best].Class, in.cfg)
	// Schedulers with warps: a launch of fewer warps than an SM has schedulers leaves
	// some idle, which no ILP fills.
	scheds := float64(max(in.cfg.SM.Schedulers, 1))
	smWarps := get("sm__warps_active.avg.pct_of_peak_sustained_active") / 100 * float64(in.cfg.SM.MaxWarps)
	busy := math.Min(scheds, math.Ceil(smWarps-0.05))
	active := get("sm__cycles_active.avg") * float64(in.cfg.SM.Count) * busy // busy scheduler-cycles
	if active == 0 || busy < 1 {
		return nil
	}
	rate := get("gtrace__ptx_inst_executed.sum") / active // warp-instructions per busy scheduler-cycle
	warps := math.Round(smWarps/busy*10) / 10             // as printed: 2.0 warps need 2 chains of 4, not 3
	if rate >= latencyPipeShare*pp.rate {
		return nil
	}
	need := float64(pp.latency) * pp.rate // independent warp-instructions in flight per scheduler
	ilp := rate * float64(pp.latency) / warps
	chains := int(math.Ceil(need / warps))
	f := in.finding(RuleLatency, uint32(best))
	f.Metric = "smsp__inst_executed.avg.per_cycle_active"
	f.Before = get(f.Metric)
	f.After = f.Before * pp.rate / rate
	f.Share, f.ShareOf = wait/stalled, "stalled warp-cycles"
	f.Saw = fmt.Sprintf("%.0f%% of the stalled warp-cycles wait on a fixed-latency dependency (most at this pc); each scheduler issues %.2f warp-instructions a cycle where its %s pipe takes %.2f: %.1f warps per scheduler with about %.1f independent instruction%s each cover %.1f of the %d-cycle latency × %.2f/cycle = %.1f in flight the pipe needs",
		100*wait/stalled, rate, pp.name, pp.rate, warps, ilp, plural(int(math.Round(ilp))), warps*ilp, pp.latency, pp.rate, need)
	f.Lesson = seedVolkov + ": better performance at lower occupancy (ILP against occupancy: the needed parallelism is latency × throughput, supplied by warps × independent instructions per warp)"
	f.Fix = fmt.Sprintf("give each thread about %d independent chains (several accumulators, or several outputs per thread, the loop unrolled so they interleave) at %.0f warps per scheduler, or run more warps; more threads alone stop helping once registers or shared memory cap them", chains, warps)
	return []Finding{f}
}
