// gtrace_simd.h: the CUDA Math API's SIMD intrinsics (__vadd2 … __vsubus4: two 16-bit
// or four 8-bit integers per 32-bit word), for clang-14 without a CUDA SDK.
// gtrace_cuda_runtime.h includes it.
//
// Each is the PTX SIMD video instruction that computes it (vadd2, vabsdiff4, vset4 …,
// PTX ISA "Video Instructions"), or two where a comparison's 0/1 per element becomes
// an all-ones mask, and the halving add a few logic operations. The values are
// CUDA's, checked on an H100 for all 82 (TestSIMDIntrinsics). The cost is not: CUDA's
// libdevice computes most with 3 to 15 integer instructions and ptxas expands a
// video instruction into several, where the trace holds one warp-instruction per
// video instruction.
#ifndef GTRACE_SIMD_H
#define GTRACE_SIMD_H

// GTRACE_VIDEO(NAME, OP) defines NAME(a, b) as one video instruction OP d, a, b, 0.
#define GTRACE_VIDEO(NAME, OP)                                                         \
	GTRACE_D unsigned int NAME(unsigned int a, unsigned int b)                     \
	{                                                                              \
		unsigned int d;                                                        \
		asm(OP " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0u));        \
		return d;                                                              \
	}
// GTRACE_VIDEO_NEG(NAME, OP) defines NAME(a) as OP d, 0, a, 0 (0 - a per element);
// GTRACE_VIDEO_ABS(NAME, OP) as OP d, a, 0, 0 (|a - 0| per element).
#define GTRACE_VIDEO_NEG(NAME, OP)                                                     \
	GTRACE_D unsigned int NAME(unsigned int a)                                     \
	{                                                                              \
		unsigned int d;                                                        \
		asm(OP " %0, %1, %2, %1;" : "=r"(d) : "r"(0u), "r"(a));                \
		return d;                                                              \
	}
#define GTRACE_VIDEO_ABS(NAME, OP)                                                     \
	GTRACE_D unsigned int NAME(unsigned int a)                                     \
	{                                                                              \
		unsigned int d;                                                        \
		asm(OP " %0, %1, %2, %2;" : "=r"(d) : "r"(a), "r"(0u));                \
		return d;                                                              \
	}
// GTRACE_VIDEO_CMP(N, CMP, T, ONES) defines __vsetCMP…N (1 per element where a CMP b)
// and __vcmpCMP…N (all ones there) for operands of type T (s or u in the name).
#define GTRACE_VIDEO_CMP(N, NAME, CMP, T, ONES)                                        \
	GTRACE_VIDEO(__vset##NAME##N, "vset" #N "." #T "." #T "." #CMP)                \
	GTRACE_D unsigned int __vcmp##NAME##N(unsigned int a, unsigned int b) { return __vset##NAME##N(a, b) * ONES; }
#define GTRACE_VIDEO_N(N, ONES)                                                        \
	GTRACE_VIDEO(__vadd##N, "vadd" #N ".u32.u32.u32")                              \
	GTRACE_VIDEO(__vaddss##N, "vadd" #N ".s32.s32.s32.sat")                        \
	GTRACE_VIDEO(__vaddus##N, "vadd" #N ".u32.u32.u32.sat")                        \
	GTRACE_VIDEO(__vsub##N, "vsub" #N ".u32.u32.u32")                              \
	GTRACE_VIDEO(__vsubss##N, "vsub" #N ".s32.s32.s32.sat")                        \
	GTRACE_VIDEO(__vsubus##N, "vsub" #N ".u32.u32.u32.sat")                        \
	GTRACE_VIDEO(__vavgs##N, "vavrg" #N ".s32.s32.s32")                            \
	GTRACE_VIDEO(__vavgu##N, "vavrg" #N ".u32.u32.u32")                            \
	GTRACE_VIDEO(__vabsdiffs##N, "vabsdiff" #N ".u32.s32.s32")                     \
	GTRACE_VIDEO(__vabsdiffu##N, "vabsdiff" #N ".u32.u32.u32")                     \
	GTRACE_VIDEO(__vsads##N, "vabsdiff" #N ".u32.s32.s32.add")                     \
	GTRACE_VIDEO(__vsadu##N, "vabsdiff" #N ".u32.u32.u32.add")                     \
	GTRACE_VIDEO(__vmaxs##N, "vmax" #N ".s32.s32.s32")                             \
	GTRACE_VIDEO(__vmaxu##N, "vmax" #N ".u32.u32.u32")                             \
	GTRACE_VIDEO(__vmins##N, "vmin" #N ".s32.s32.s32")                             \
	GTRACE_VIDEO(__vminu##N, "vmin" #N ".u32.u32.u32")                             \
	GTRACE_VIDEO_NEG(__vneg##N, "vsub" #N ".u32.u32.u32")                          \
	GTRACE_VIDEO_NEG(__vnegss##N, "vsub" #N ".s32.s32.s32.sat")                    \
	GTRACE_VIDEO_ABS(__vabs##N, "vabsdiff" #N ".s32.s32.s32")                      \
	GTRACE_VIDEO_ABS(__vabsss##N, "vabsdiff" #N ".s32.s32.s32.sat")                \
	GTRACE_VIDEO_CMP(N, eq, eq, u32, ONES)                                         \
	GTRACE_VIDEO_CMP(N, ne, ne, u32, ONES)                                         \
	GTRACE_VIDEO_CMP(N, ges, ge, s32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, geu, ge, u32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, gts, gt, s32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, gtu, gt, u32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, les, le, s32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, leu, le, u32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, lts, lt, s32, ONES)                                        \
	GTRACE_VIDEO_CMP(N, ltu, lt, u32, ONES)
GTRACE_VIDEO_N(2, 0xffffu)
GTRACE_VIDEO_N(4, 0xffu)

// __vhaddu2 and __vhaddu4 halve each element's sum, rounding down (no video
// instruction does): the common bits plus half the differing ones, the low bit of each
// element cleared so that none shifts into its neighbour.
GTRACE_D unsigned int __vhaddu2(unsigned int a, unsigned int b) { return (a & b) + (((a ^ b) & 0xfffefffeu) >> 1); }
GTRACE_D unsigned int __vhaddu4(unsigned int a, unsigned int b) { return (a & b) + (((a ^ b) & 0xfefefefeu) >> 1); }

#undef GTRACE_VIDEO
#undef GTRACE_VIDEO_NEG
#undef GTRACE_VIDEO_ABS
#undef GTRACE_VIDEO_CMP
#undef GTRACE_VIDEO_N

#endif // GTRACE_SIMD_H
