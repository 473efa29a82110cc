package replay

import (
	"fmt"
	"slices"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// DefaultRegsPerThread is assumed when a trace does not know its kernel's register count
// (PTX does not fix it; ptxas does). 32 is a common count for the simple kernels the seeds
// use and never limits occupancy below the thread limit on any preset.
const DefaultRegsPerThread = 32

// SMLimits are the per-SM resources that bound how many CTAs can be resident at once.
type SMLimits struct {
	MaxThreads      int // resident threads per SM
	MaxWarps        int // resident warps per SM
	MaxCTAs         int // resident CTAs per SM
	Registers       int // 32-bit registers per SM
	RegAllocUnit    int // registers are allocated per warp in units of this many (e.g. 256)
	SharedBytes     int // shared memory available to CTAs per SM (the carve-out)
	SharedAllocUnit int // shared memory is allocated per CTA in units of this many bytes
	SharedReserved  int // bytes the system reserves per CTA (1 KB from sm_80 on)
}

// CTAOccupancy is the outcome of the occupancy calculation for one launch.
type CTAOccupancy struct {
	CTAsPerSM int
	Limiter   string // which resource bound it: "threads", "warps", "ctas", "registers", "shared"
	// Each resource's own bound, for reports.
	ByWarps, ByCTAs, ByRegisters, ByShared int
}

// Occupancy computes the resident CTAs per SM for a CTA of threads threads using regs
// registers per thread (0: DefaultRegsPerThread) and shared bytes of shared memory, as the
// CUDA occupancy calculator does: each resource gives a bound, and the smallest wins.
// Register allocation is per warp, rounded up to RegAllocUnit; shared memory per CTA is
// rounded up to SharedAllocUnit after adding SharedReserved.
func Occupancy(l SMLimits, threads, regs, shared int) (CTAOccupancy, error) {
	if threads <= 0 {
		return CTAOccupancy{}, fmt.Errorf("occupancy: CTA has %d threads", threads)
	}
	if regs <= 0 {
		regs = DefaultRegsPerThread
	}
	warps := (threads + 31) / 32
	o := CTAOccupancy{ByWarps: l.MaxWarps / warps, ByCTAs: l.MaxCTAs}
	if l.MaxThreads > 0 {
		if t := l.MaxThreads / (warps * 32); t < o.ByWarps {
			o.ByWarps = t
		}
	}
	unit := max(l.RegAllocUnit, 1)
	regsPerWarp := (regs*32 + unit - 1) / unit * unit
	o.ByRegisters = l.Registers / (regsPerWarp * warps)
	o.ByShared = l.MaxCTAs
	if need := l.sharedPerCTA(shared); need > 0 {
		o.ByShared = l.SharedBytes / need
	}
	o.CTAsPerSM, o.Limiter = o.ByWarps, "warps"
	for _, b := range []struct {
		n    int
		name string
	}{{o.ByCTAs, "ctas"}, {o.ByRegisters, "registers"}, {o.ByShared, "shared"}} {
		if b.n < o.CTAsPerSM {
			o.CTAsPerSM, o.Limiter = b.n, b.name
		}
	}
	if o.CTAsPerSM <= 0 {
		return o, fmt.Errorf("occupancy: a CTA of %d threads, %d registers/thread and %d shared bytes does not fit on one SM (limited by %s)",
			threads, regs, shared, o.Limiter)
	}
	return o, nil
}

// sharedPerCTA is what a CTA of shared bytes takes from the SM's carve-out: its own
// bytes and the system's reservation, rounded up to the allocation unit.
func (l SMLimits) sharedPerCTA(shared int) int {
	su := max(l.SharedAllocUnit, 1)
	return (shared + l.SharedReserved + su - 1) / su * su
}

// LimitError is a launch over one of a GPU's per-CTA limits. A real GPU of that kind
// refuses such a launch, so replay refuses it too, naming the limit's config key.
type LimitError struct {
	GPU   string // the preset, e.g. "h100"
	What  string // what the launch asks for, e.g. "shared memory per CTA"
	Key   string // the config key holding the limit, e.g. "shared.max_per_cta"
	Value int    // what the launch asks for
	Limit int    // the preset's limit
	Unit  string // " B" for bytes, "" for counts
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the launch is over the %s preset's limit: %s is %d%s, above %s = %d%s",
		e.GPU, e.What, e.Value, e.Unit, e.Key, e.Limit, e.Unit)
}

// checkLaunch compares a launch with the per-CTA limits a GPU enforces at launch time
// (CUDA Programming Guide, technical specifications per compute capability): threads per
// CTA, registers per thread, and shared memory per CTA (static plus dynamic, with the
// opt-in maximum that cudaFuncAttributeMaxDynamicSharedMemorySize unlocks).
func checkLaunch(cfg *arch.Config, l *format.Launch) error {
	for _, c := range []struct {
		what, key, unit string
		value, limit    int
	}{
		{"threads per CTA", "sm.max_threads_per_cta", "", int(l.Block.Count()), cfg.SM.MaxThreadsPerCTA},
		{"registers per thread", "sm.max_regs_per_thread", "", int(l.RegsPerThread), cfg.SM.MaxRegsPerThread},
		{"shared memory per CTA (static + dynamic)", "shared.max_per_cta", " B", int(l.SharedBytes), cfg.Shared.MaxPerCTA},
	} {
		if c.limit > 0 && c.value > c.limit {
			return &LimitError{GPU: cfg.GPU, What: c.what, Key: c.key, Value: c.value, Limit: c.limit, Unit: c.unit}
		}
	}
	return nil
}

// kernelConfig checks a launch against the GPU's per-CTA limits, then picks its
// shared-memory carve-out and the L1 left beside it. The driver sizes each kernel's
// carve-out "to avoid shared memory occupancy bottlenecks" (NVIDIA Ampere and Hopper
// tuning guides, unified shared memory/L1/texture cache): the CTAs that fit with the
// largest carve-out set the occupancy, and the smallest legal carve-out that holds them
// is the one used.
func kernelConfig(base *arch.Config, l *format.Launch) (*arch.Config, CTAOccupancy, error) {
	if err := checkLaunch(base, l); err != nil {
		return nil, CTAOccupancy{}, err
	}
	cfg := base.Clone()
	threads, regs, shared := int(l.Block.Count()), int(l.RegsPerThread), int(l.SharedBytes)
	if cfg.L1.UnifiedSize > 0 && len(cfg.Shared.Carveouts) > 0 && shared > 0 {
		lim := smLimits(cfg)
		lim.SharedBytes = slices.Max(cfg.Shared.Carveouts)
		occ, err := Occupancy(lim, threads, regs, shared)
		if err != nil {
			return nil, occ, err
		}
		if carve, _ := cfg.SharedCarveout(lim.sharedPerCTA(shared) * occ.CTAsPerSM); carve != cfg.Shared.Size {
			if err := cfg.Set("shared.size", fmt.Sprint(carve)); err != nil {
				return nil, occ, err
			}
		}
	}
	occ, err := Occupancy(smLimits(cfg), threads, regs, shared)
	return cfg, occ, err
}

func smLimits(cfg *arch.Config) SMLimits {
	return SMLimits{
		MaxThreads: cfg.SM.MaxThreads, MaxWarps: cfg.SM.MaxWarps, MaxCTAs: cfg.SM.MaxCTAs,
		Registers: cfg.SM.Registers, RegAllocUnit: cfg.SM.RegAllocUnit,
		SharedBytes: cfg.Shared.Size, SharedAllocUnit: cfg.Shared.AllocUnit, SharedReserved: cfg.Shared.ReservedPerCTA,
	}
}
