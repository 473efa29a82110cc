package arch

import (
	"fmt"
	"slices"
)

// DefaultRegsPerThread is assumed when a kernel's register count is not known (PTX does
// not fix it; ptxas does). 32 is a common count for the simple kernels the seeds use and
// never limits occupancy below the thread limit on any preset.
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
	o.ByRegisters = l.Registers / (l.RegsPerWarp(regs) * warps)
	o.ByShared = l.MaxCTAs
	if need := l.SharedPerCTA(shared); need > 0 {
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

// RegsPerWarp is what a warp of regs registers per thread takes from the SM's register
// file: 32 threads' registers, rounded up to the allocation unit.
func (l SMLimits) RegsPerWarp(regs int) int {
	unit := max(l.RegAllocUnit, 1)
	return (regs*32 + unit - 1) / unit * unit
}

// SharedPerCTA is what a CTA of shared bytes takes from the SM's carve-out: its own
// bytes and the system's reservation, rounded up to the allocation unit.
func (l SMLimits) SharedPerCTA(shared int) int {
	su := max(l.SharedAllocUnit, 1)
	return (shared + l.SharedReserved + su - 1) / su * su
}

// SMLimits are the per-SM limits of c, with its configured shared-memory carve-out.
func (c *Config) SMLimits() SMLimits {
	return SMLimits{
		MaxThreads: c.SM.MaxThreads, MaxWarps: c.SM.MaxWarps, MaxCTAs: c.SM.MaxCTAs,
		Registers: c.SM.Registers, RegAllocUnit: c.SM.RegAllocUnit,
		SharedBytes: c.Shared.Size, SharedAllocUnit: c.Shared.AllocUnit, SharedReserved: c.Shared.ReservedPerCTA,
	}
}

// MaxCarveoutLimits are c's per-SM limits with the largest shared-memory carve-out the
// unified L1 allows (the configured one where there is no choice): what the driver
// sizes a kernel's occupancy with before it picks the carve-out.
func (c *Config) MaxCarveoutLimits() SMLimits {
	lim := c.SMLimits()
	if c.L1.UnifiedSize > 0 && len(c.Shared.Carveouts) > 0 {
		lim.SharedBytes = slices.Max(c.Shared.Carveouts)
	}
	return lim
}

// ForKernel picks the shared-memory carve-out for a kernel of CTAs of threads threads,
// regs registers per thread and shared bytes of shared memory, and returns c with it
// (and the L1 left beside it) and the kernel's occupancy there. The driver sizes each
// kernel's carve-out "to avoid shared memory occupancy bottlenecks" (NVIDIA Ampere and
// Hopper tuning guides, unified shared memory/L1/texture cache): the CTAs that fit with
// the largest carve-out set the occupancy, and the smallest legal carve-out that holds
// them is the one used. c itself is not changed.
func (c *Config) ForKernel(threads, regs, shared int) (*Config, CTAOccupancy, error) {
	cfg := c.Clone()
	if cfg.L1.UnifiedSize > 0 && len(cfg.Shared.Carveouts) > 0 && shared > 0 {
		lim := cfg.MaxCarveoutLimits()
		occ, err := Occupancy(lim, threads, regs, shared)
		if err != nil {
			return nil, occ, err
		}
		if carve, _ := cfg.SharedCarveout(lim.SharedPerCTA(shared) * occ.CTAsPerSM); carve != cfg.Shared.Size {
			if err := cfg.Set("shared.size", fmt.Sprint(carve)); err != nil {
				return nil, occ, err
			}
		}
	}
	occ, err := Occupancy(cfg.SMLimits(), threads, regs, shared)
	return cfg, occ, err
}
