// gtrace_simd.h: the CUDA Math API's SIMD intrinsics (__vadd2 … __vsubus4: two 16-bit
// or four 8-bit integers per 32-bit word), for clang-14 without a CUDA SDK.
// gtrace_cuda_runtime.h includes it.
//
// The values are CUDA's, checked on an H100 for all 82 (TestSIMDIntrinsics); the work
// is what an sm_90 GPU does. Where its SASS has a SIMD instruction (VIADD.16x2 adds and
// subtracts halves, VIMNMX.16x2 takes their minimum and maximum, VABSDIFF4 the bytes'
// absolute differences and their sum) the header uses the PTX video instruction that
// becomes it (vadd2, vmax2, vabsdiff4 …, PTX ISA "Video Instructions"); everything else
// is carry-free integer arithmetic on the whole word, as CUDA's SASS is (element masks
// from PRMT's sign replication, compares from halved sums). TestSIMDCost holds each
// function's instructions within a factor of 3 of the H100's SASS per call
// (scripts/hw/simdcost.sh, traces/hw/h100-2026-11-27-simdcost/).
#ifndef GTRACE_SIMD_H
#define GTRACE_SIMD_H

// Each element's top bit: GTRACE_SIMD_H2 for halves, GTRACE_SIMD_H4 for bytes. The
// helpers take it as h (a constant once inlined) and work on every element at once:
// an element's low bits are kept below its top bit, so that no carry or borrow crosses
// into its neighbour, and the top bit is computed apart.
#define GTRACE_SIMD_H2 0x80008000u
#define GTRACE_SIMD_H4 0x80808080u

// __gt_vlow is each element's lowest bit; __gt_vsign each element all ones where its top
// bit is set (prmt's sign replication: bytes 1 and 3 of a half's, each byte's own).
GTRACE_D unsigned int __gt_vlow(unsigned int h) { return h == GTRACE_SIMD_H2 ? h >> 15 : h >> 7; }
// (inline PTX, so that the selector and the zero stay immediates: clang's __nvvm_prmt
// moves each into a register first, two instructions SASS does not have.)
GTRACE_D unsigned int __gt_vsign(unsigned int x, unsigned int h)
{
	unsigned int d;
	if (h == GTRACE_SIMD_H2)
		asm("prmt.b32 %0, %1, 0, 0xbb99;" : "=r"(d) : "r"(x));
	else
		asm("prmt.b32 %0, %1, 0, 0xba98;" : "=r"(d) : "r"(x));
	return d;
}
// __gt_vtop1 moves each element's top bit to its lowest (a __vset result).
GTRACE_D unsigned int __gt_vtop1(unsigned int x, unsigned int h) { return x >> (h == GTRACE_SIMD_H2 ? 15 : 7); }

// GTRACE_SIMD_VIDEO(NAME, OP) defines NAME(a, b) as the video instruction OP d, a, b, c
// with c zero: the halves' adds, subtracts, minima and maxima, and the bytes' absolute
// differences, which sm_90 runs as one SASS instruction each. c is a register, as
// ptxas requires ("Incorrect video selector" for an immediate), though SASS reads RZ.
#define GTRACE_SIMD_VIDEO(NAME, OP)                                                    \
	GTRACE_D unsigned int NAME(unsigned int a, unsigned int b)                     \
	{                                                                              \
		unsigned int d;                                                        \
		asm(OP " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0u));        \
		return d;                                                              \
	}
GTRACE_SIMD_VIDEO(__gt_vadd2v, "vadd2.u32.u32.u32")
GTRACE_SIMD_VIDEO(__gt_vsub2v, "vsub2.u32.u32.u32")
GTRACE_SIMD_VIDEO(__vmaxs2, "vmax2.s32.s32.s32")
GTRACE_SIMD_VIDEO(__vmaxu2, "vmax2.u32.u32.u32")
GTRACE_SIMD_VIDEO(__vmins2, "vmin2.s32.s32.s32")
GTRACE_SIMD_VIDEO(__vminu2, "vmin2.u32.u32.u32")
GTRACE_SIMD_VIDEO(__vabsdiffu4, "vabsdiff4.u32.u32.u32")
GTRACE_SIMD_VIDEO(__gt_vsad4v, "vabsdiff4.u32.u32.u32.add")
#undef GTRACE_SIMD_VIDEO

// a + b and a - b per element, modulo its width.
GTRACE_D unsigned int __gt_vadd(unsigned int a, unsigned int b, unsigned int h)
{
	if (h == GTRACE_SIMD_H2)
		return __gt_vadd2v(a, b);
	return ((a & ~h) + (b & ~h)) ^ ((a ^ b) & h);
}
GTRACE_D unsigned int __gt_vsub(unsigned int a, unsigned int b, unsigned int h)
{
	if (h == GTRACE_SIMD_H2)
		return __gt_vsub2v(a, b);
	return ((a | h) - (b & ~h)) ^ (~(a ^ b) & h);
}
// The halving add (a + b) >> 1 and the rounding average (a + b + 1) >> 1, unsigned:
// the common bits plus half the differing ones, or all the bits less half the
// differing ones, each element's low bit cleared before the shift.
GTRACE_D unsigned int __gt_vhadd(unsigned int a, unsigned int b, unsigned int h)
{
	return (a & b) + (((a ^ b) & ~__gt_vlow(h)) >> 1);
}
GTRACE_D unsigned int __gt_vavgu(unsigned int a, unsigned int b, unsigned int h)
{
	return (a | b) - (((a ^ b) & ~__gt_vlow(h)) >> 1);
}
// The signed average rounds half away from zero, as CUDA's does: the halving add of
// a and b offset by half the range (top bits flipped), less that offset, plus one where
// the sum is odd and not negative.
GTRACE_D unsigned int __gt_vavgs(unsigned int a, unsigned int b, unsigned int h)
{
	unsigned int f = __gt_vhadd(a ^ h, b ^ h, h) ^ h;
	return f + ((a ^ b) & ~__gt_vtop1(f, h) & __gt_vlow(h));
}
// Comparisons, true in each element's top bit. a > b (unsigned) when a + ~b reaches the
// element's range, so its halved sum has the top bit; a >= b when a + ~b + 1 does. The
// signed forms compare a and b offset by half the range (top bits flipped); a != b
// where a ^ b has its top bit or a carry out of its low bits.
GTRACE_D unsigned int __gt_vgtu(unsigned int a, unsigned int b, unsigned int h) { return __gt_vhadd(a, ~b, h) & h; }
GTRACE_D unsigned int __gt_vgeu(unsigned int a, unsigned int b, unsigned int h) { return __gt_vavgu(a, ~b, h) & h; }
GTRACE_D unsigned int __gt_vgts(unsigned int a, unsigned int b, unsigned int h) { return __gt_vgtu(a ^ h, b ^ h, h); }
GTRACE_D unsigned int __gt_vges(unsigned int a, unsigned int b, unsigned int h) { return __gt_vgeu(a ^ h, b ^ h, h); }
GTRACE_D unsigned int __gt_vne(unsigned int a, unsigned int b, unsigned int h)
{
	unsigned int x = a ^ b;
	return (((x & ~h) + ~h) | x) & h;
}
// The carry out of each element of a + b = sum, and the borrow out of a - b = diff.
GTRACE_D unsigned int __gt_vcarry(unsigned int a, unsigned int b, unsigned int sum, unsigned int h)
{
	return ((a & b) | ((a | b) & ~sum)) & h;
}
GTRACE_D unsigned int __gt_vborrow(unsigned int a, unsigned int b, unsigned int diff, unsigned int h)
{
	return ((~a & b) | (~(a ^ b) & diff)) & h;
}
// __gt_vsat replaces the elements of r whose top bit is set in ov (a signed overflow)
// by the limit of a's sign: the largest value for a >= 0, the least for a < 0.
GTRACE_D unsigned int __gt_vsat(unsigned int r, unsigned int ov, unsigned int a, unsigned int h)
{
	return r ^ ((r ^ __gt_vsign(a, h) ^ ~h) & __gt_vsign(ov, h));
}
GTRACE_D unsigned int __gt_vaddss(unsigned int a, unsigned int b, unsigned int h)
{
	unsigned int sum = __gt_vadd(a, b, h);
	return __gt_vsat(sum, (sum ^ a) & (sum ^ b) & h, a, h);
}
GTRACE_D unsigned int __gt_vsubss(unsigned int a, unsigned int b, unsigned int h)
{
	unsigned int diff = __gt_vsub(a, b, h);
	return __gt_vsat(diff, (a ^ b) & (a ^ diff) & h, a, h);
}
// |a| per element: a's ones' complement where negative, plus one (it cannot carry out:
// the most is the top bit alone, for the least value); the saturated form takes one
// from that case.
GTRACE_D unsigned int __gt_vabs(unsigned int a, unsigned int h)
{
	unsigned int s = __gt_vsign(a, h);
	return (a ^ s) + (s & __gt_vlow(h));
}
// min and max through the comparison's mask.
GTRACE_D unsigned int __gt_vpick(unsigned int a, unsigned int b, unsigned int gt, unsigned int h)
{
	return b ^ ((a ^ b) & __gt_vsign(gt, h));
}

// GTRACE_SIMD_CMP(N, NAME, TOP) defines __vsetNAME##N (1 per element where TOP, a
// comparison of a and b in each element's top bit, holds) and __vcmpNAME##N (all ones).
#define GTRACE_SIMD_CMP(N, NAME, TOP)                                                                                 \
	GTRACE_D unsigned int __vset##NAME##N(unsigned int a, unsigned int b) { return __gt_vtop1(TOP, GTRACE_SIMD_H##N); } \
	GTRACE_D unsigned int __vcmp##NAME##N(unsigned int a, unsigned int b) { return __gt_vsign(TOP, GTRACE_SIMD_H##N); }
// GTRACE_SIMD_N(N) defines every intrinsic of N elements that is not a video
// instruction of its own.
#define GTRACE_SIMD_N(N, H)                                                                                           \
	GTRACE_D unsigned int __vaddss##N(unsigned int a, unsigned int b) { return __gt_vaddss(a, b, H); }              \
	GTRACE_D unsigned int __vsubss##N(unsigned int a, unsigned int b) { return __gt_vsubss(a, b, H); }              \
	GTRACE_D unsigned int __vaddus##N(unsigned int a, unsigned int b)                                               \
	{                                                                                                               \
		unsigned int sum = __gt_vadd(a, b, H);                                                                  \
		return sum | __gt_vsign(__gt_vcarry(a, b, sum, H), H);                                                  \
	}                                                                                                               \
	GTRACE_D unsigned int __vsubus##N(unsigned int a, unsigned int b)                                               \
	{                                                                                                               \
		unsigned int diff = __gt_vsub(a, b, H);                                                                 \
		return diff & ~__gt_vsign(__gt_vborrow(a, b, diff, H), H);                                              \
	}                                                                                                               \
	GTRACE_D unsigned int __vavgu##N(unsigned int a, unsigned int b) { return __gt_vavgu(a, b, H); }                \
	GTRACE_D unsigned int __vavgs##N(unsigned int a, unsigned int b) { return __gt_vavgs(a, b, H); }                \
	GTRACE_D unsigned int __vhaddu##N(unsigned int a, unsigned int b) { return __gt_vhadd(a, b, H); }               \
	GTRACE_D unsigned int __vabs##N(unsigned int a) { return __gt_vabs(a, H); }                                     \
	GTRACE_D unsigned int __vabsss##N(unsigned int a)                                                               \
	{                                                                                                               \
		unsigned int r = __gt_vabs(a, H);                                                                       \
		return r - __gt_vtop1(r & H, H);                                                                        \
	}                                                                                                               \
	GTRACE_D unsigned int __vneg##N(unsigned int a) { return __gt_vsub(0, a, H); }                                  \
	GTRACE_D unsigned int __vnegss##N(unsigned int a) { return __gt_vsubss(0, a, H); }                              \
	GTRACE_SIMD_CMP(N, eq, __gt_vne(a, b, H) ^ H)                                                                   \
	GTRACE_SIMD_CMP(N, ne, __gt_vne(a, b, H))                                                                       \
	GTRACE_SIMD_CMP(N, gtu, __gt_vgtu(a, b, H))                                                                     \
	GTRACE_SIMD_CMP(N, geu, __gt_vgeu(a, b, H))                                                                     \
	GTRACE_SIMD_CMP(N, ltu, __gt_vgtu(b, a, H))                                                                     \
	GTRACE_SIMD_CMP(N, leu, __gt_vgeu(b, a, H))                                                                     \
	GTRACE_SIMD_CMP(N, gts, __gt_vgts(a, b, H))                                                                     \
	GTRACE_SIMD_CMP(N, ges, __gt_vges(a, b, H))                                                                     \
	GTRACE_SIMD_CMP(N, lts, __gt_vgts(b, a, H))                                                                     \
	GTRACE_SIMD_CMP(N, les, __gt_vges(b, a, H))
GTRACE_SIMD_N(2, GTRACE_SIMD_H2)
GTRACE_SIMD_N(4, GTRACE_SIMD_H4)

// The rest: adds and subtracts of bytes, and minima and maxima through a comparison's
// mask. The absolute difference of unsigned halves is their difference, negated where
// it borrowed; of signed halves the larger less the smaller; of signed bytes, that of
// unsigned ones offset by half the range. A sum of absolute differences adds the
// differences' elements.
GTRACE_D unsigned int __vadd2(unsigned int a, unsigned int b) { return __gt_vadd2v(a, b); }
GTRACE_D unsigned int __vsub2(unsigned int a, unsigned int b) { return __gt_vsub2v(a, b); }
GTRACE_D unsigned int __vadd4(unsigned int a, unsigned int b) { return __gt_vadd(a, b, GTRACE_SIMD_H4); }
GTRACE_D unsigned int __vsub4(unsigned int a, unsigned int b) { return __gt_vsub(a, b, GTRACE_SIMD_H4); }
GTRACE_D unsigned int __vmaxu4(unsigned int a, unsigned int b) { return __gt_vpick(a, b, __gt_vgtu(a, b, GTRACE_SIMD_H4), GTRACE_SIMD_H4); }
GTRACE_D unsigned int __vminu4(unsigned int a, unsigned int b) { return __gt_vpick(b, a, __gt_vgtu(a, b, GTRACE_SIMD_H4), GTRACE_SIMD_H4); }
GTRACE_D unsigned int __vmaxs4(unsigned int a, unsigned int b) { return __gt_vpick(a, b, __gt_vgts(a, b, GTRACE_SIMD_H4), GTRACE_SIMD_H4); }
GTRACE_D unsigned int __vmins4(unsigned int a, unsigned int b) { return __gt_vpick(b, a, __gt_vgts(a, b, GTRACE_SIMD_H4), GTRACE_SIMD_H4); }
GTRACE_D unsigned int __vabsdiffu2(unsigned int a, unsigned int b)
{
	unsigned int d = __gt_vsub2v(a, b), m = __gt_vsign(__gt_vborrow(a, b, d, GTRACE_SIMD_H2), GTRACE_SIMD_H2);
	return (d ^ m) + (m & __gt_vlow(GTRACE_SIMD_H2));
}
GTRACE_D unsigned int __vabsdiffs2(unsigned int a, unsigned int b) { return __gt_vsub2v(__vmaxs2(a, b), __vmins2(a, b)); }
GTRACE_D unsigned int __vabsdiffs4(unsigned int a, unsigned int b)
{
	return __vabsdiffu4(a ^ GTRACE_SIMD_H4, b ^ GTRACE_SIMD_H4);
}
GTRACE_D unsigned int __vsadu2(unsigned int a, unsigned int b)
{
	unsigned int d = __vabsdiffu2(a, b);
	return (d & 0xffffu) + (d >> 16);
}
GTRACE_D unsigned int __vsads2(unsigned int a, unsigned int b)
{
	unsigned int d = __vabsdiffs2(a, b);
	return (d & 0xffffu) + (d >> 16);
}
GTRACE_D unsigned int __vsadu4(unsigned int a, unsigned int b) { return __gt_vsad4v(a, b); }
GTRACE_D unsigned int __vsads4(unsigned int a, unsigned int b)
{
	return __gt_vsad4v(a ^ GTRACE_SIMD_H4, b ^ GTRACE_SIMD_H4);
}

#undef GTRACE_SIMD_CMP
#undef GTRACE_SIMD_N

#endif // GTRACE_SIMD_H
