package host

import (
	"math"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/models/arch"
)

// DefaultGPU is the GPU preset a program sees when gtrace run is given none: the one
// whose answers the example programs are checked against (an H100 SXM5 80GB HBM3).
const DefaultGPU = "hopper/h100"

// Device attributes (cudaDeviceAttr, CUDA 11.8's numbers) that a launch is checked
// against (checkConfig). The rest of the table is in attributes.
const (
	attrMaxThreadsPerBlock = 1
	attrMaxBlockDimX       = 2 // then Y, Z
	attrMaxGridDimX        = 5 // then Y, Z
	attrMaxSharedOptin     = 97
	attrTextureAlignment   = 14
)

// attributes is every cudaDeviceGetAttribute value gtrace answers for the GPU preset c:
// what the preset models, with its source there (gtrace archs NAME), and the limits and
// capabilities every GPU of its compute capability has (CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability", and scripts/hw/deviceprops.sh on an
// H100, traces/hw/h100-2026-11-26-deviceprops). Texture and surface sizes are not
// modelled, and are not answered.
func attributes(c *arch.Config) map[int]int {
	major, minor := computeCapability(c.CC)
	cc := major*10 + minor
	gridX := 65535 // PG: 65535 blocks along x before cc 3.0, 2^31-1 from it
	if cc >= 30 {
		gridX = math.MaxInt32
	}
	maxCarveout := 0
	for _, s := range c.Shared.Carveouts {
		maxCarveout = max(maxCarveout, s)
	}
	ratio := 0
	if c.SM.DPLanes > 0 {
		ratio = c.SM.FP32Lanes / c.SM.DPLanes
	}
	return map[int]int{
		// The preset's values.
		attrMaxThreadsPerBlock: c.SM.MaxThreadsPerCTA,
		9:                      c.Const.Size,            // TotalConstantMemory
		10:                     c.SM.WarpSize,           // WarpSize
		12:                     c.SM.Registers,          // MaxRegistersPerBlock: a block may take all of an SM's (PG)
		13:                     c.SM.ClockMHz * 1000,    // ClockRate, kHz
		16:                     c.SM.Count,              // MultiProcessorCount
		36:                     c.MemoryClockKHz(),      // MemoryClockRate, kHz
		37:                     c.DRAM.BusBits,          // GlobalMemoryBusWidth
		38:                     c.L2.Size,               // L2CacheSize
		39:                     c.SM.MaxThreads,         // MaxThreadsPerMultiProcessor
		40:                     c.PCIe.CopyEngines,      // AsyncEngineCount
		75:                     major,                   // ComputeCapabilityMajor
		76:                     minor,                   // ComputeCapabilityMinor
		79:                     b2i(c.L1.CacheGlobal),   // GlobalL1CacheSupported
		81:                     maxCarveout,             // MaxSharedMemoryPerMultiprocessor: the largest carve-out
		82:                     c.SM.Registers,          // MaxRegistersPerMultiprocessor
		87:                     ratio,                   // SingleToDoublePrecisionPerfRatio: FP32 over FP64 lanes
		attrMaxSharedOptin:     c.Shared.MaxPerCTA,      // MaxSharedMemoryPerBlockOptin
		106:                    c.SM.MaxCTAs,            // MaxBlocksPerMultiprocessor
		111:                    c.Shared.ReservedPerCTA, // ReservedSharedMemoryPerBlock
		// Limits of every GPU from cc 2.0 on (PG technical specifications).
		attrMaxBlockDimX: 1024, 3: 1024, 4: 64, // MaxBlockDimX, Y, Z
		attrMaxGridDimX: gridX, 6: 65535, 7: 65535, // MaxGridDimX, Y, Z
		attrTextureAlignment: 512, 51: 32, // TextureAlignment (cudaBindTexture's), TexturePitchAlignment
		8:  48 << 10,      // MaxSharedMemoryPerBlock without opt-in
		11: math.MaxInt32, // MaxPitch
		30: 512,           // SurfaceAlignment
		// What gtrace's runtime offers, whatever the GPU.
		15: 1, 31: 1, 41: 1, // GpuOverlap, ConcurrentKernels, UnifiedAddressing
		19: 1, 99: 1, // CanMapHostMemory, HostRegisterSupported (cudaHostAlloc, cudaHostRegister)
		17: 0, 18: 0, 20: 0, // KernelExecTimeout, Integrated, ComputeMode (default)
		32: 0,                      // EccEnabled: gtrace models no ECC
		33: 0, 34: 0, 50: 0, 35: 0, // PCI bus, device and domain, TCC driver
		78: b2i(cc >= 35), 80: 1, // StreamPrioritiesSupported (cc 3.5 on), LocalL1CacheSupported
		83: 0, 89: 0, 101: 0, 88: 0, 100: 0, // no managed or pageable memory on the device
		84: 0, 85: 0, 86: 0, 91: 0, // one GPU on its board, no native host atomics, no host pointers
		90: b2i(cc >= 60), // ComputePreemptionSupported (Pascal on)
		95: 0, 96: 0,      // no cooperative launches
		108: 0, 109: 0, // no persisting L2 lines (cudaAccessPolicyWindow is not modelled)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// computeCapability reads a preset's "9.0".
func computeCapability(cc string) (major, minor int) {
	a, b, _ := strings.Cut(cc, ".")
	major, _ = strconv.Atoi(a)
	minor, _ = strconv.Atoi(b)
	return major, minor
}

// Attribute is cudaDeviceGetAttribute(attr, device).
func (r *Runtime) Attribute(attr, device int) (int, error) {
	const call = "cudaDeviceGetAttribute"
	if device != 0 {
		return 0, fail(InvalidDevice, "%s(%d, device %d): gtrace's runtime has one device, 0", call, attr, device)
	}
	v, ok := r.attrs[attr]
	if !ok {
		return 0, fail(InvalidValue, "%s: attribute %d is not one gtrace models for %s (texture and surface sizes are not; see cudart/host/device.go)", call, attr, r.gpu.GPU)
	}
	return v, nil
}

// Properties are what cudaGetDeviceProperties reports beyond the attributes.
type Properties struct {
	Name           string // the preset's name and gtrace's, e.g. "H100 SXM5 (gtrace hopper/h100)"
	TotalGlobalMem uint64 // dram.size
}

// Properties is cudaGetDeviceProperties(device): its name and memory here; the shim
// fills each other field from the attribute of that field.
func (r *Runtime) Properties(device int) (Properties, error) {
	if device != 0 {
		return Properties{}, fail(InvalidDevice, "cudaGetDeviceProperties(device %d): gtrace's runtime has one device, 0", device)
	}
	return Properties{Name: r.gpu.Name + " (gtrace " + gpuName(r.gpu) + ")", TotalGlobalMem: uint64(r.gpu.DRAM.Size)}, nil
}

// MemInfo is cudaMemGetInfo: the device memory not allocated, and all of it.
func (r *Runtime) MemInfo() (free, total uint64) {
	_, used := r.dev.Allocations()
	total = uint64(r.gpu.DRAM.Size)
	return total - min(used, total), total
}

// GPU is the preset the program sees.
func (r *Runtime) GPU() *arch.Config { return r.gpu }
