package replay

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/gtrace/gtrace/internal/sysmem"
	"github.com/gtrace/gtrace/models/arch"
)

// availableMemory says how much more memory the process may take; a test gives less.
var availableMemory = sysmem.Available

// MemoryError is a configuration whose models need more memory than the process can
// take: an engine builds every SM's caches and scheduler state, the L2 slices and the
// DRAM banks before the first warp runs, and the Go runtime cannot recover from running
// out (a --set sm.count=100000000 used to end in its fatal error, exit 2).
type MemoryError struct {
	Arch   string // arch/gpu
	Engine string // "memory" or "timing"
	Need   uint64 // bytes the models take
	Parts  []MemoryPart
	Limit  sysmem.Limit
}

// MemoryPart is one term of a MemoryError's need: Count copies of Each bytes, set by
// the config keys in Keys.
type MemoryPart struct {
	What  string
	Keys  string
	Count uint64
	Each  uint64
}

// Bytes is the part's total, at most 2^64-1: an absurd count must not wrap around to a
// small need.
func (p MemoryPart) Bytes() uint64 {
	hi, lo := bits.Mul64(p.Count, p.Each)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

func (e *MemoryError) Error() string {
	big := e.Parts[0]
	return fmt.Sprintf("the %s engine's models of %s need %s of memory before the first warp runs, most of it %s: %d × %s (%s); this process can take %s more: lower those values",
		e.Engine, e.Arch, sysmem.Size(e.Need), big.What, big.Count, sysmem.Size(big.Each), big.Keys, e.Limit)
}

// modelMemory is what an engine's models take for a launch on cfg with occ resident
// CTAs of warpsPerCTA warps, largest part first. The decoded trace of the resident CTAs
// is not in it (it is the trace's size, not the configuration's: docs/issue-14.md).
func modelMemory(cfg *arch.Config, occ arch.CTAOccupancy, warpsPerCTA int, timing bool) []MemoryPart {
	sms := uint64(max(cfg.SM.Count, 0))
	caches := cfg.L1.Config.Bytes() + cfg.Tex.Bytes() + cfg.Const.L1.Bytes() + cfg.Const.L15.Bytes()
	resident := uint64(max(occ.CTAsPerSM, 0)) * uint64(max(warpsPerCTA, 0))
	var sm, warp uint64
	var slots MemoryPart
	if timing {
		sm = uint64(unsafe.Sizeof(timedSM{})) + uint64(max(cfg.SM.Schedulers, 1))*uint64(unsafe.Sizeof(timedSched{}))
		warp = uint64(unsafe.Sizeof(timedWarp{}))
		slots = MemoryPart{"the warp slots of every SM", "sm.count × sm.max_warps", sms * uint64(max(cfg.SM.MaxWarps, 0)),
			uint64(unsafe.Sizeof(slotHot{})) + uint64(unsafe.Sizeof((*timedWarp)(nil)))}
	} else {
		sm = uint64(unsafe.Sizeof(smState{}))
		warp = uint64(unsafe.Sizeof(warpState{}))
	}
	oneChannel := cfg.DRAM.Config
	oneChannel.Channels = 1
	l2Slices := uint64(max(cfg.L2.Slices, 1))
	parts := []MemoryPart{
		{"every SM's L1, texture and constant caches", "sm.count, l1.*, tex.*, const.*", sms, caches},
		{"every SM's engine state", "sm.count", sms, sm},
		{"the resident warps of every SM", "sm.count, sm.max_warps, sm.max_ctas", sms, resident * warp},
		slots,
		{"the L2 slices", "l2.size, l2.slices", l2Slices, cfg.L2.Slice().Bytes() + 3*8},
		{"the DRAM channels", "dram.channels, dram.banks", uint64(max(cfg.DRAM.Channels, 0)), oneChannel.Bytes()},
	}
	parts = slices.DeleteFunc(parts, func(p MemoryPart) bool { return p.Bytes() == 0 })
	slices.SortStableFunc(parts, func(a, b MemoryPart) int { return cmp.Compare(b.Bytes(), a.Bytes()) })
	return parts
}

// checkModelMemory refuses a configuration whose models would not fit in what the
// process can still take; where the system says nothing about its memory, it lets it
// through.
func checkModelMemory(cfg *arch.Config, occ arch.CTAOccupancy, warpsPerCTA int, timing bool) error {
	lim, ok := availableMemory()
	if !ok {
		return nil
	}
	parts := modelMemory(cfg, occ, warpsPerCTA, timing)
	need := uint64(0)
	for _, p := range parts {
		if need += p.Bytes(); need < p.Bytes() {
			need = math.MaxUint64
		}
	}
	if need <= lim.Bytes {
		return nil
	}
	engine := "memory"
	if timing {
		engine = "timing"
	}
	return &MemoryError{Arch: cfg.Arch + "/" + cfg.GPU, Engine: engine, Need: need, Parts: parts, Limit: lim}
}
