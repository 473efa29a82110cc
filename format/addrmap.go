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
