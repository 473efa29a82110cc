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
	case format.ClassTensor: // an m16n8k16 every sm.mma_cycles_k16 per scheduler
		p = pipe{name: "tensor", latency: cfg.Latency.MMAK16}
		if c := cfg.SM.MMACyclesK16; c > 0 {
			p.rate = math.Min(float64(max(cfg.SM.DispatchPerScheduler, 1)), 1/float64(c))
		}
		return p, p.rate > 0 && p.latency > 0
	default:
		return p, false
	}
	scheds := max(cfg.SM.Schedulers, 1)
	p.rate = math.Min(float64(max(cfg.SM.DispatchPerScheduler, 1)), float64(lanes)/float64(scheds)/32)
	return p, lanes > 0 && p.latency > 0
}

// stallTotals returns a getter of the timing replay's kernel metrics and the stalled
// warp-cycles summed over every reason.
func (in *kernelInput) stallTotals() (get func(string) float64, stalled float64) {
	get = func(name string) float64 { v, _ := in.tim.Metric(name); return v }
	for _, s := range stallReasons {
		stalled += get(stallPrefix + s.Name)
	}
	return get, stalled
}

// mostStalled returns the pc of the program, among those keep accepts, with the most
// warp-cycles stalled for reason in the timing replay; -1 if none has any.
func (in *kernelInput) mostStalled(reason string, keep func(pc int) bool) int {
	best, most := -1, 0.0
	for i := range in.tim.PerPC {
		p := &in.tim.PerPC[i]
		if int(p.PC) >= len(in.launch.Program.Insts) || !keep(int(p.PC)) {
			continue
		}
		if w, _ := p.Metric(stallPrefix + reason); w > most {
			best, most = int(p.PC), w
		}
	}
	return best
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
	get, stalled := in.stallTotals()
	wait := get(stallPrefix + "wait")
	if stalled == 0 || wait < latencyWaitShare*stalled {
		return nil
	}
	// The instruction the warps wait at most on: the head of the dependent chain.
	prog := in.launch.Program.Insts
	best := in.mostStalled("wait", func(pc int) bool {
		_, ok := pipeOf(prog[pc].Class, in.cfg)
		return ok
	})
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

// memoryLatency fires where the warps wait on global memory because too few bytes are in
// flight to cover the DRAM's latency (seed 003, Part II). Little's law: the DRAM
// delivers the bytes in flight over its latency, so at the preset's unloaded DRAM
// latency and peak bandwidth an SM needs latency × peak / SMs bytes in flight, shared by
// its warps' threads, for the reads' part of the peak (the writes take the rest). The
// trace says how many bytes each thread has in flight when it waits (pcPattern.waits).
// It fires when
//   - at least latencyWaitShare of the stalled warp-cycles are long_scoreboard (a load's
//     result not back yet) and the DRAM moves under latencyPipeShare of its peak;
//   - most of the loads' bytes come from DRAM, and the grid fills every SM at least
//     once (a smaller launch leaves the DRAM idle for want of CTAs);
//   - Little's law explains the shortfall: the bytes in flight reach under
//     latencyPipeShare of the need;
//   - and the reads come at no less than half the rate Little's law gives at the
//     unloaded latency: below that the loads wait on something else that fills the
//     memory system (contended atomics, a hot L2 slice), which more bytes in flight
//     would not cure.
//
// The fix is more bytes in flight per thread (independent loads, wider loads) or more
// warps. The prediction, for threads given just the bytes in flight they need, is the
// DRAM at its peak except while a CTA gives its room to the next: an upper bound for
// that fix, as the latency rises when the channels fill (more bytes a thread than
// that make fewer, longer CTAs, which lose less to the turnover).
func memoryLatency(in *kernelInput) []Finding {
	if in.tim == nil || in.cfg == nil {
		return nil
	}
	get, stalled := in.stallTotals()
	long := get(stallPrefix + "long_scoreboard")
	const metric = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
	reached := get(metric) / 100
	rd, wr := get("dram__bytes_read.sum"), get("dram__bytes_write.sum")
	loaded := 32 * in.total("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
	occ := in.rep.Occupancy
	warps := get("sm__warps_active.avg.pct_of_peak_sustained_active") / 100 * float64(in.cfg.SM.MaxWarps)
	if stalled == 0 || long < latencyWaitShare*stalled || reached <= 0 || reached >= latencyPipeShare ||
		rd < 0.5*loaded || in.launch.NumCTAs() < in.cfg.SM.Count*max(occ.CTAsPerSM, 1) || warps <= 0 {
		return nil
	}
	// The instruction the warps wait at most on memory: the first use of a load.
	best := in.mostStalled("long_scoreboard", func(pc int) bool { return in.pats[pc].waits > 0 })
	if best < 0 {
		return nil
	}
	pat := &in.pats[best]
	perThread := float64(pat.waitBytes) / float64(pat.waits) / 32 // bytes each thread has in flight
	loads := float64(pat.waitLoads) / float64(pat.waits)
	readShare := rd / (rd + wr)
	latency := in.cfg.DRAMCycles()
	latS := float64(latency) / (float64(in.cfg.SM.ClockMHz) * 1e6)
	need := latS * in.cfg.PeakDRAMBytes() * readShare / float64(in.cfg.SM.Count) / (warps * 32)
	little := perThread / need // the part of their share of the peak the reads' bytes in flight reach at the unloaded latency
	if little >= latencyPipeShare || reached < 0.5*little {
		return nil
	}
	// Between two CTAs an SM's room stands empty (sm.cta_retire_ns, then the next launch,
	// sm.cta_launch_ns): with k CTAs resident, a k-th of the SM's bytes in flight pause
	// that long once a CTA, which at the SM's share of the peak moves its bytes in
	// bytes / share after the DRAM's latency. The fix gives each thread need/perThread
	// times its bytes (so as many times the bytes a CTA, over fewer CTAs), and the
	// DRAM runs at its peak the rest of the time.
	perCTA := (rd + wr) / float64(in.launch.NumCTAs()) / little
	busy := perCTA/(in.cfg.PeakDRAMBytes()/float64(in.cfg.SM.Count)) + latS
	gap := (in.cfg.SM.CTARetireNS + in.cfg.SM.CTALaunchNS) * 1e-9 / float64(max(occ.CTAsPerSM, 1))
	f := in.finding(RuleMemLatency, uint32(best))
	f.Metric = metric
	f.Before, f.After = 100*reached, 100*busy/(busy+gap)
	f.Share, f.ShareOf = long/stalled, "stalled warp-cycles"
	f.Saw = fmt.Sprintf("%.0f%% of the stalled warp-cycles wait on a load's result (long_scoreboard, most at this pc), and the DRAM moves %.0f%% of its peak: %.1f warps per SM (%d CTAs, limited by %s), each thread with %.0f B in flight (%.1f loads) when it waits here; Little's law at the DRAM's %d-cycle latency and %.0f GB/s needs %.0f B per thread in flight at this occupancy for the reads' %.0f%% of the traffic, %.1f× today",
		100*long/stalled, 100*reached, warps, occ.CTAsPerSM, occ.Limiter, perThread, loads, latency, in.cfg.PeakDRAMBytes()/1e9, need, 100*readShare, 1/little)
	f.Lesson = seedVolkov + ": better performance at lower occupancy, Part II (memory-level parallelism: bytes in flight = latency × bandwidth, supplied by warps × bytes in flight per thread)"
	f.Fix = fmt.Sprintf("issue about %d independent loads of %.0f B per thread before using any (all the loads, then the stores), or wider loads (float2, float4) for the same bytes in fewer instructions, or run %.1f× the warps per SM where registers and shared memory allow; the latency rises as the channels fill, so aim above it",
		int(math.Ceil(need/(perThread/loads))), perThread/loads, 1/little)
	return []Finding{f}
}
