package host

import (
	"fmt"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/cudart/fatbin"
	"github.com/gtrace/gtrace/models/arch"
)

// A kernel's attributes, and the occupancy API, answered from the GPU preset and the
// kernel's PTX as the H100 answers them (examples/cuda/occupancy.cu, its output in
// traces/hw/h100-2026-11-26-occupancy). The register count is not in PTX (ptxas fixes
// it): Runtime.regs takes it from the fat binary's cubin for the GPU, or from ptxas,
// and assumes arch.DefaultRegsPerThread, 32, as the replay does, when neither is there.

// Function attributes (enum cudaFuncAttribute, CUDA 11.8's driver_types.h).
const (
	FuncAttrMaxDynamicSharedMemorySize    = 8
	FuncAttrPreferredSharedMemoryCarveout = 9
)

// Flags of cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (driver_types.h).
const (
	OccupancyDefault                = 0
	OccupancyDisableCachingOverride = 1 // about caching global loads in L1, which the count ignores
)

// FuncSetAttribute is cudaFuncSetAttribute on the kernel whose host stub is stub. The
// dynamic shared memory a kernel may ask for is kept and checked at each launch: at most
// what the GPU gives a block less the kernel's static shared memory (the H100 refuses a
// byte more). The carve-out preference is kept for the occupancy API; the replay picks
// the carve-out for the architecture it models.
func (r *Runtime) FuncSetAttribute(stub uintptr, attr int, value int) error {
	const call = "cudaFuncSetAttribute"
	f, err := r.function(call, stub)
	if err != nil {
		return err
	}
	switch attr {
	case FuncAttrMaxDynamicSharedMemorySize:
		info, err := f.entry()
		if err != nil {
			return err
		}
		most := max(r.gpu.Shared.MaxPerCTA-int(info.StaticShared), 0)
		if value < 0 || value > most {
			return fail(InvalidValue, "%s(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d): want 0 to %d bytes, the %d the %s gives a block (shared.max_per_cta) less the kernel's %d bytes of static shared memory",
				call, f.name, value, most, r.gpu.Shared.MaxPerCTA, r.gpu.GPU, info.StaticShared)
		}
		f.optIn = value
	case FuncAttrPreferredSharedMemoryCarveout:
		if value < -1 || value > 100 {
			return fail(InvalidValue, "%s(%s, cudaFuncAttributePreferredSharedMemoryCarveout, %d): want -1 (no preference) or a percentage", call, f.name, value)
		}
		f.carveout = value
	default:
		return fail(InvalidValue, "%s(%s): attribute %d is not one gtrace knows (cudaFuncAttributeMaxDynamicSharedMemorySize or cudaFuncAttributePreferredSharedMemoryCarveout)", call, f.name, attr)
	}
	return nil
}

// FuncAttributes are what cudaFuncGetAttributes reports of a kernel (struct
// cudaFuncAttributes).
type FuncAttributes struct {
	SharedSizeBytes, ConstSizeBytes, LocalSizeBytes                     uint64
	MaxThreadsPerBlock, NumRegs, PTXVersion, BinaryVersion, CacheModeCA int
	MaxDynamicSharedSizeBytes, PreferredShmemCarveout                   int
}

// FuncAttributes is cudaFuncGetAttributes on the kernel whose host stub is stub: its
// static shared, constant and local memory from its PTX (constant memory is the whole
// module's bank, as the H100 reports it; local memory is what the PTX declares, where
// ptxas's frame may differ), the block size the GPU and its registers allow, the PTX
// version of its fat binary entry, the GPU's compute capability as the binary version
// (the driver compiles the PTX for it), and the dynamic shared memory and carve-out the
// program set.
func (r *Runtime) FuncAttributes(stub uintptr) (FuncAttributes, error) {
	f, err := r.function("cudaFuncGetAttributes", stub)
	if err != nil {
		return FuncAttributes{}, err
	}
	info, maxDyn, err := f.sharedLimits()
	if err != nil {
		return FuncAttributes{}, err
	}
	major, minor := computeCapability(r.gpu.CC)
	regs := r.regs(f)
	return FuncAttributes{
		SharedSizeBytes: uint64(info.StaticShared), ConstSizeBytes: uint64(info.Const), LocalSizeBytes: uint64(info.Local),
		MaxThreadsPerBlock: r.blockLimit(info, regs), NumRegs: regs,
		PTXVersion: f.ptx.Arch, BinaryVersion: major*10 + minor,
		MaxDynamicSharedSizeBytes: int(maxDyn), PreferredShmemCarveout: f.carveout,
	}, nil
}

// maxThreads is the largest block a kernel of regs registers a thread may have: the
// GPU's limit, or fewer where the SM's registers run out first.
func (r *Runtime) maxThreads(regs int) int {
	lim := r.gpu.SMLimits()
	return min(r.gpu.SM.MaxThreadsPerCTA, lim.Registers/lim.RegsPerWarp(regs)*32)
}

// blockLimit is the most threads a block of the kernel of info and regs registers a
// thread may have: maxThreads, or fewer where its __launch_bounds__ say so (.maxntid,
// .reqntid).
func (r *Runtime) blockLimit(info *capture.EntryInfo, regs int) int {
	if m := info.MaxThreads(); m > 0 {
		return int(min(m, uint64(r.maxThreads(regs))))
	}
	return r.maxThreads(regs)
}

// knownRegs is regs where it came from a cubin or ptxas, for the trace; 0 (unknown)
// where it is assumed.
func (r *Runtime) knownRegs(f *function) uint32 {
	if n := r.regs(f); f.regsKnown {
		return uint32(n)
	}
	return 0
}

// regs is the registers a thread of f uses on the GPU the program is told of, found
// at the first need: from the fat binary's cubin that the GPU can run (the same
// major compute capability, the highest minor up to the GPU's: sm_80's on an sm_86
// GPU, only sm_90's on an sm_90 one), else from Options.Ptxas compiling f's PTX for
// the GPU (as the driver would), else arch.DefaultRegsPerThread, said once a run.
func (r *Runtime) regs(f *function) int {
	if f.regs > 0 {
		return f.regs
	}
	major, minor := computeCapability(r.gpu.CC)
	target := fmt.Sprintf("sm_%d%d", major, minor)
	m := f.mod
	if m.regs == nil && m.regsErr == nil {
		m.regs, m.regsErr = fatbin.Registers(m.entries, func(a int) bool { return a/10 == major && a%10 <= minor })
	}
	why := "no cubin for " + target + " in the fat binary"
	if m.regsErr != nil {
		why = m.regsErr.Error()
	}
	best := -1
	for a, regs := range m.regs {
		if _, ok := regs[f.name]; ok && a > best {
			best = a
		}
	}
	if best >= 0 {
		f.regs, f.regsKnown = m.regs[best][f.name], true
		r.logf("%s uses %d registers a thread (the fat binary's sm_%d cubin)", f.name, f.regs, best)
		return f.regs
	}
	if r.opts.Ptxas != nil {
		n, err := r.opts.Ptxas(f.ptx.Data, f.name, target)
		if err == nil && n > 0 {
			f.regs, f.regsKnown = n, true
			r.logf("%s uses %d registers a thread (ptxas for %s)", f.name, n, target)
			return f.regs
		}
		why += fmt.Sprintf(", and ptxas: %v", err)
	}
	f.regs = arch.DefaultRegsPerThread
	if !r.regsSaid {
		r.regsSaid = true
		r.say("%s: registers a thread taken as %d (%s); occupancy and cudaFuncGetAttributes' numRegs assume them", f.name, f.regs, why)
	}
	return f.regs
}

// smLimits are the per-SM limits a kernel's blocks share, with the shared memory its
// carve-out preference leaves them: the largest carve-out when it has none (what the
// driver sizes occupancy with: 16 blocks of 128 threads and 20000 B on an H100), else the
// smallest carve-out holding that percentage of the largest (50% gives the H100's 132
// KB carve-out: 6 such blocks), and never less than one block of shared bytes needs.
func (r *Runtime) smLimits(f *function, shared int) arch.SMLimits {
	lim := r.gpu.MaxCarveoutLimits()
	if f.carveout >= 0 {
		want := (lim.SharedBytes*f.carveout + 99) / 100
		carve, _ := r.gpu.SharedCarveout(max(want, lim.SharedPerCTA(shared)))
		lim.SharedBytes = min(carve, lim.SharedBytes)
	}
	return lim
}

// OccupancyMaxActiveBlocks is cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags:
// how many blocks of blockSize threads and dynShared bytes of dynamic shared memory fit
// on one multiprocessor at once. As on the H100, a block over the GPU's thread limit or
// over the kernel's dynamic shared memory limit gives 0 blocks, not an error, and a
// block over the kernel's __launch_bounds__ is counted like any other (257 threads of a
// kernel bounded at 256 give 7 blocks: examples/cuda/bounds.cu); a block size below 1
// and an unknown flag are invalid values.
func (r *Runtime) OccupancyMaxActiveBlocks(stub uintptr, blockSize int, dynShared uint64, flags uint) (int, error) {
	const call = "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
	f, err := r.function(call, stub)
	if err != nil {
		return 0, err
	}
	if blockSize < 1 {
		return 0, fail(InvalidValue, "%s(%s): a block of %d threads; want at least 1", call, f.name, blockSize)
	}
	if flags != OccupancyDefault && flags != OccupancyDisableCachingOverride {
		return 0, fail(InvalidValue, "%s(%s): flags %#x (want cudaOccupancyDefault or cudaOccupancyDisableCachingOverride)", call, f.name, flags)
	}
	info, maxDyn, err := f.sharedLimits()
	if err != nil {
		return 0, err
	}
	regs := r.regs(f)
	if blockSize > r.maxThreads(regs) || dynShared > maxDyn {
		return 0, nil
	}
	shared := int(info.StaticShared) + int(dynShared)
	occ, err := arch.Occupancy(r.smLimits(f, shared), blockSize, regs, shared)
	if err != nil {
		return 0, nil // does not fit at all
	}
	return occ.CTAsPerSM, nil
}

// OccupancyAvailableDynamicShared is cudaOccupancyAvailableDynamicSMemPerBlock: the
// dynamic shared memory each of numBlocks blocks of blockSize threads may have for all
// of them to fit on one multiprocessor. It is what the H100 answers: the largest
// carve-out split numBlocks ways, rounded down to the allocation unit, less the
// kernel's static shared memory, at most the kernel's dynamic limit. The H100 does not
// take the 1 KB it reserves per block from it (7 blocks of 256 threads: 33280 B each,
// where the occupancy API then fits 6 such blocks, not 7). Blocks that cannot fit for
// their threads, their count or their registers are an invalid value.
func (r *Runtime) OccupancyAvailableDynamicShared(stub uintptr, numBlocks, blockSize int) (uint64, error) {
	const call = "cudaOccupancyAvailableDynamicSMemPerBlock"
	f, err := r.function(call, stub)
	if err != nil {
		return 0, err
	}
	info, maxDyn, err := f.sharedLimits()
	if err != nil {
		return 0, err
	}
	lim := r.smLimits(f, 0)
	if numBlocks < 1 {
		return 0, fail(InvalidValue, "%s(%s): %d blocks; want at least 1", call, f.name, numBlocks)
	}
	regs := r.regs(f)
	if blockSize < 1 || blockSize > r.maxThreads(regs) {
		return 0, fail(InvalidValue, "%s(%s): a block of %d threads; want 1 to %d", call, f.name, blockSize, r.maxThreads(regs))
	}
	if occ, err := arch.Occupancy(lim, blockSize, regs, 0); err != nil || occ.CTAsPerSM < numBlocks {
		return 0, fail(InvalidValue, "%s(%s): %d blocks of %d threads do not fit on one %s multiprocessor", call, f.name, numBlocks, blockSize, r.gpu.GPU)
	}
	unit := max(lim.SharedAllocUnit, 1)
	each := lim.SharedBytes / numBlocks / unit * unit
	return min(uint64(max(each-int(info.StaticShared), 0)), maxDyn), nil
}

// FuncCheck is cudaFuncSetCacheConfig and cudaFuncSetSharedMemConfig: a preference the
// replay's architecture decides on; the call only checks that stub is a kernel.
func (r *Runtime) FuncCheck(call string, stub uintptr) error {
	if _, ok := r.funcs[stub]; !ok {
		return fail(InvalidDeviceFunc, "%s: %#x is no registered kernel", call, stub)
	}
	return nil
}
