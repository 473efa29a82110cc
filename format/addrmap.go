package format

// The trace's address map. Capture places every space at fixed, documented addresses so
// that a record's addresses say which memory they touched, also for generic (flat)
// accesses, whose instruction names no space:
//
//	GlobalBase    device allocations (buf arguments, .global variables)
//	TextureBase   texture arrays, texels in a 2D block-linear order
//	LocalPhysBase local memory as the trace records a local access
//	SharedWindow  generic address SharedWindow+x is byte x of the CTA's shared memory
//	LocalWindow   generic window onto the thread's local memory
//	ConstWindow   generic window onto the constant bank
//
// Records of non-generic shared accesses carry the shared offset itself.
const (
	GlobalBase    uint64 = 0x10_0000_0000
	TextureBase   uint64 = 0x100_0000_0000
	LocalPhysBase uint64 = 0x200_0000_0000
	SharedWindow  uint64 = 0x1000_0000_0000
	LocalWindow   uint64 = 0x2000_0000_0000
	ConstWindow   uint64 = 0x3000_0000_0000
	WindowSize    uint64 = 1 << 32
)

// SpaceOfGeneric is the space a generic address falls in: shared, local or const inside
// their windows, global anywhere else.
func SpaceOfGeneric(addr uint64) Space {
	switch {
	case addr-SharedWindow < WindowSize:
		return SpaceShared
	case addr-LocalWindow < WindowSize:
		return SpaceLocal
	case addr-ConstWindow < WindowSize:
		return SpaceConst
	}
	return SpaceGlobal
}

// LocalAddr is where a trace places byte off of lane's local memory, for warp
// globalWarp (CTA id * warps per CTA + warp) of a launch whose threads have localBytes
// each. Local memory is interleaved by 4-byte words across the 32 lanes of a warp, as
// NVIDIA GPUs lay it out, so that lanes touching the same offset touch one 128-byte line:
//
//	LocalPhysBase + globalWarp*localBytes*32 + (off/4)*128 + lane*4 + off%4
func LocalAddr(globalWarp, localBytes uint64, lane int, off uint64) uint64 {
	return LocalPhysBase + globalWarp*localBytes*32 + off/4*128 + uint64(lane)*4 + off%4
}

// LocalOffset inverts LocalAddr for lane of warp globalWarp: the offset in the lane's
// local memory that addr holds, or false when addr is not in it.
func LocalOffset(addr, globalWarp, localBytes uint64, lane int) (uint64, bool) {
	x := addr - LocalPhysBase - globalWarp*localBytes*32
	if x >= localBytes*32 || x%128/4 != uint64(lane) {
		return 0, false
	}
	return x/128*4 + x%4, true
}
