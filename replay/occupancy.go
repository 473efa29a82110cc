package replay

import (
	"fmt"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

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
// shared-memory carve-out and the L1 left beside it (arch.Config.ForKernel).
func kernelConfig(base *arch.Config, l *format.Launch) (*arch.Config, arch.CTAOccupancy, error) {
	if err := checkLaunch(base, l); err != nil {
		return nil, arch.CTAOccupancy{}, err
	}
	return base.ForKernel(int(l.Block.Count()), int(l.RegsPerThread), int(l.SharedBytes))
}
