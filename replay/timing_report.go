package replay

import (
	"github.com/gtrace/gtrace/format"
)

// stallMetric is the per-pc (and kernel-total) name of a warp state: warp-cycles spent in
// it, as Nsight Compute's PC sampling would count with a sample every cycle.
func stallMetric(s stall) string {
	if s == stSelected {
		return "smsp__pcsamp_warps_issue_selected"
	}
	return "smsp__pcsamp_warps_issue_stalled_" + stallNames[s]
}

// report turns the run's counts into metrics, ncu's names first, then gtrace's own.
func (e *timer) report(l *format.Launch, opts Options) *KernelReport {
	cfg := e.cfg
	elapsed := e.l2.acked
	var active, warpCycles, issueCycles int64
	for _, s := range e.sms {
		elapsed = max(elapsed, s.end, s.last)
		active += s.active
		warpCycles += s.warpCycles
		issueCycles += s.issueCycles
	}
	// ncu's elapsed cycles include the launch and drain around the SMs' work.
	elapsed += int64(cfg.SM.LaunchCycles)
	nsm := float64(len(e.sms))
	scheds := float64(max(cfg.SM.Schedulers, 1))
	// Instructions as ncu counts them, in SASS (sass.go's estimate); the stall ratios
	// below stay per instruction the engine issued.
	issued := float64(e.issued)
	weights := e.sassCount
	var sassInst, threadInst uint64
	for pc := range e.inst {
		sassInst += sassCount(e.inst[pc], weights, pc)
		threadInst += sassCount(e.thread[pc], weights, pc)
	}
	inst := float64(sassInst)
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	kr := &KernelReport{Name: l.Kernel, Launch: l, Occupancy: e.occ, SharedCarveout: cfg.Shared.Size, L1Bytes: cfg.L1.Size}
	put := func(name string, v float64) { kr.Metrics = append(kr.Metrics, Metric{name, v}) }
	put("sm__cycles_elapsed.avg", float64(elapsed))
	put("sm__cycles_active.avg", float64(active)/nsm)
	put("gpu__time_duration.sum", float64(elapsed)*1000/float64(cfg.SM.ClockMHz))
	put("smsp__inst_executed.sum", inst)
	put("smsp__thread_inst_executed.sum", float64(threadInst))
	put("gtrace__ptx_inst_executed.sum", issued)
	put("sm__inst_executed.avg.per_cycle_elapsed", div(inst, nsm*float64(elapsed)))
	put("sm__inst_executed.avg.per_cycle_active", div(inst, float64(active)))
	put("smsp__inst_executed.avg.per_cycle_active", div(inst, float64(active)*scheds))
	put("sm__warps_active.avg.pct_of_peak_sustained_active", 100*div(float64(warpCycles), float64(active)*float64(cfg.SM.MaxWarps)))
	put("smsp__issue_active.avg.pct_of_peak_sustained_active", 100*div(float64(issueCycles), float64(active)*scheds))
	// The totals are the per-pc counts summed here, not counted a second time in the
	// engine's hot loop.
	var reason [numStalls]uint64
	for pc := range e.stalls {
		for s, n := range e.stalls[pc] {
			reason[s] += n
		}
	}
	for s := range numStalls {
		put(stallMetric(s), float64(reason[s]))
	}
	for s := range numStalls {
		if s == stSelected {
			continue
		}
		put("smsp__average_warps_issue_stalled_"+stallNames[s]+"_per_issue_active.ratio", div(float64(reason[s]), issued))
	}
	put("lts__t_sectors_srcunit_tex_op_write.sum", float64(e.l2.written))
	r, w := e.l2.dram.Bytes()
	rd, wr := float64(r+e.launchRead), float64(w)
	put("dram__bytes_read.sum", rd)
	put("dram__bytes_write.sum", wr)
	peak := cfg.DRAM.BandwidthGBs * 1e9 / (float64(cfg.SM.ClockMHz) * 1e6) // bytes per cycle
	put("dram__throughput.avg.pct_of_peak_sustained_elapsed", 100*div(rd+wr, peak*float64(elapsed)))
	put("gtrace__ctas_per_sm", float64(e.occ.CTAsPerSM))
	if opts.PerPC {
		for pc := range e.prog {
			if e.inst[pc] == 0 && e.stalls[pc] == ([numStalls]uint64{}) {
				continue
			}
			p := PCReport{PC: uint32(pc), PTX: e.prog[pc].PTX, Line: e.prog[pc].Line}
			p.Metrics = append(p.Metrics, Metric{"smsp__inst_executed.sum", float64(sassCount(e.inst[pc], weights, pc))},
				Metric{"smsp__thread_inst_executed.sum", float64(sassCount(e.thread[pc], weights, pc))},
				Metric{"gtrace__ptx_inst_executed.sum", float64(e.inst[pc])})
			for s := range numStalls {
				p.Metrics = append(p.Metrics, Metric{stallMetric(s), float64(e.stalls[pc][s])})
			}
			kr.PerPC = append(kr.PerPC, p)
		}
	}
	return kr
}
