package replay

import "fmt"

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
	if need := shared + l.SharedReserved; need > 0 {
		su := max(l.SharedAllocUnit, 1)
		need = (need + su - 1) / su * su
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
