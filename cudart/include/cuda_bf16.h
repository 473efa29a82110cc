// cuda_bf16.h: __nv_bfloat16 and __nv_bfloat162 as the CUDA SDK's cuda_bf16.h
// declares them (the common part of its API), for clang-14 with no CUDA SDK.
//
// Device code uses what PTX ISA 7.0 has for bfloat16 on sm_80, as NVIDIA's header does
// for sm_80: cvt.rn.bf16.f32, fma.rn.bf16 (add is fma with 1.0, sub with -1.0, mul with
// -0.0), neg, abs, min, max; widening is a 16-bit shift; comparisons, division, the
// math functions and integer conversions go through float (an integer is first
// rounded to float toward zero with a sticky bit, round-to-odd, so that rounding
// again to bfloat16 is correct); atomicAdd is a compare-and-swap loop. Host code converts in software, rounding to nearest even.
//
// Under nvcc, or under clang with the real CUDA headers, the SDK's file is used.
#if defined(__NVCC__) || defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#include_next <cuda_bf16.h>
#else
#ifndef GTRACE_CUDA_BF16_H
#define GTRACE_CUDA_BF16_H

#include "cuda_fp16.h"

#ifdef __CUDA_ARCH__
#define GTRACE_ON_DEVICE(d, h) d
#else
#define GTRACE_ON_DEVICE(d, h) h
#endif
#define GTRACE_HD_MEMBER __host__ __device__ __forceinline__
#define GTRACE_D static __device__ __forceinline__
#define GTRACE_HD static __host__ __device__ __forceinline__

struct __align__(2) __nv_bfloat16 {
	unsigned short __x;
	__nv_bfloat16() = default;
	GTRACE_HD_MEMBER __nv_bfloat16(float f);
	GTRACE_HD_MEMBER __nv_bfloat16(double f);
	GTRACE_HD_MEMBER __nv_bfloat16(int i);
	GTRACE_HD_MEMBER __nv_bfloat16(unsigned int i);
	GTRACE_HD_MEMBER operator float() const;
};

struct __align__(4) __nv_bfloat162 {
	__nv_bfloat16 x, y;
	__nv_bfloat162() = default;
	GTRACE_HD_MEMBER __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};

typedef struct __nv_bfloat16 nv_bfloat16;
typedef struct __nv_bfloat162 nv_bfloat162;

GTRACE_HD __nv_bfloat16 __gtrace_b(unsigned short x)
{
	__nv_bfloat16 h;
	h.__x = x;
	return h;
}
GTRACE_HD __nv_bfloat162 __gtrace_b2(unsigned int x)
{
	return __nv_bfloat162(__gtrace_b((unsigned short)x), __gtrace_b((unsigned short)(x >> 16)));
}
GTRACE_HD unsigned int __gtrace_u(__nv_bfloat162 h) { return (unsigned int)h.x.__x | (unsigned int)h.y.__x << 16; }

// __gtrace_f2b rounds a float to the nearest bfloat16, ties to even; a NaN is 0x7fff.
GTRACE_HD unsigned short __gtrace_f2b(float f)
{
	unsigned int x = __builtin_bit_cast(unsigned int, f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return 0x7fff;
	unsigned int r = x >> 16, rem = x & 0xffffu;
	if (rem > 0x8000u || (rem == 0x8000u && (r & 1)))
		r++;
	return (unsigned short)r;
}

// ---- Conversions ----------------------------------------------------------------
GTRACE_HD float __bfloat162float(__nv_bfloat16 h) { return __builtin_bit_cast(float, (unsigned int)h.__x << 16); }
GTRACE_HD __nv_bfloat16 __float2bfloat16(float f)
{
	__nv_bfloat16 r;
	GTRACE_ON_DEVICE(asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.__x) : "f"(f)), r.__x = __gtrace_f2b(f));
	return r;
}
GTRACE_HD __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
GTRACE_D __nv_bfloat16 __float2bfloat16_rz(float f)
{
	__nv_bfloat16 r;
	asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(r.__x) : "f"(f));
	return r;
}
GTRACE_HD __nv_bfloat16 __double2bfloat16(double d)
{
	__nv_bfloat16 r;
	GTRACE_ON_DEVICE(asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r.__x) : "d"(d)), r.__x = __gtrace_f2b((float)d));
	return r;
}

// Integers: toward zero to float, with the lowest bit set when that was inexact (round
// to odd), then to nearest bfloat16: a float has more than 8+2 bits, so the two
// roundings give the correctly rounded result (Boldo and Melquiond, "Emulation of FMA
// and correctly rounded sums: proved algorithms using rounding to odd", 2008).
GTRACE_D float __gtrace_odd(float rz, bool inexact)
{
	return inexact ? __builtin_bit_cast(float, __builtin_bit_cast(unsigned int, rz) | 1u) : rz;
}
GTRACE_D __nv_bfloat16 __int2bfloat16_rn(int i)
{
	float rz;
	asm("cvt.rz.f32.s32 %0, %1;" : "=f"(rz) : "r"(i));
	return __float2bfloat16(__gtrace_odd(rz, (long long)rz != i));
}
GTRACE_D __nv_bfloat16 __uint2bfloat16_rn(unsigned int i)
{
	float rz;
	asm("cvt.rz.f32.u32 %0, %1;" : "=f"(rz) : "r"(i));
	return __float2bfloat16(__gtrace_odd(rz, (unsigned long long)rz != i));
}
GTRACE_D __nv_bfloat16 __short2bfloat16_rn(short i) { return __float2bfloat16((float)i); }
GTRACE_D __nv_bfloat16 __ushort2bfloat16_rn(unsigned short i) { return __float2bfloat16((float)i); }
GTRACE_D int __bfloat162int_rn(__nv_bfloat16 h) { return __float2int_rn(__bfloat162float(h)); }
GTRACE_D int __bfloat162int_rz(__nv_bfloat16 h) { return (int)__bfloat162float(h); }
GTRACE_D unsigned int __bfloat162uint_rz(__nv_bfloat16 h) { return (unsigned int)__bfloat162float(h); }

GTRACE_HD short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
GTRACE_HD unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
GTRACE_HD __nv_bfloat16 __short_as_bfloat16(short x) { return __gtrace_b((unsigned short)x); }
GTRACE_HD __nv_bfloat16 __ushort_as_bfloat16(unsigned short x) { return __gtrace_b(x); }

// Pairs: .x is the low half, .y the high (cvt.rn.bf16x2.f32 d, a, b puts a high).
GTRACE_HD __nv_bfloat162 __floats2bfloat162_rn(float lo, float hi)
{
	unsigned int r;
	GTRACE_ON_DEVICE(asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)),
			 r = __gtrace_f2b(lo) | (unsigned int)__gtrace_f2b(hi) << 16);
	return __gtrace_b2(r);
}
GTRACE_HD __nv_bfloat162 __float2bfloat162_rn(float f) { return __floats2bfloat162_rn(f, f); }
GTRACE_HD __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
GTRACE_HD __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi) { return __nv_bfloat162(lo, hi); }
GTRACE_HD __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return __nv_bfloat162(h, h); }
GTRACE_HD __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
GTRACE_HD __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
GTRACE_HD __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
GTRACE_HD __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 a) { return __nv_bfloat162(a.y, a.x); }
GTRACE_HD __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
GTRACE_HD __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
GTRACE_HD float __low2float(__nv_bfloat162 a) { return __bfloat162float(a.x); }
GTRACE_HD float __high2float(__nv_bfloat162 a) { return __bfloat162float(a.y); }
GTRACE_HD float2 __bfloat1622float2(__nv_bfloat162 a) { return make_float2(__bfloat162float(a.x), __bfloat162float(a.y)); }

GTRACE_HD_MEMBER __nv_bfloat16::__nv_bfloat16(float f) { *this = __float2bfloat16(f); }
GTRACE_HD_MEMBER __nv_bfloat16::__nv_bfloat16(double f) { *this = __double2bfloat16(f); }
GTRACE_HD_MEMBER __nv_bfloat16::__nv_bfloat16(int i) { *this = __float2bfloat16((float)i); }
GTRACE_HD_MEMBER __nv_bfloat16::__nv_bfloat16(unsigned int i) { *this = __float2bfloat16((float)i); }
GTRACE_HD_MEMBER __nv_bfloat16::operator float() const { return __bfloat162float(*this); }

// ---- Arithmetic (device): fma.rn.bf16 with a constant operand ----------------------------
#define GTRACE_B_FMA(NAME, A, B, C, K, K2)                                                    \
	GTRACE_D __nv_bfloat16 NAME(__nv_bfloat16 a, __nv_bfloat16 b)                       \
	{                                                                                   \
		__nv_bfloat16 r;                                                            \
		asm("{ .reg .b16 k; mov.b16 k, " K "; fma.rn.bf16 %0, " A ", " B ", " C "; }" \
		    : "=h"(r.__x) : "h"(a.__x), "h"(b.__x));                                \
		return r;                                                                   \
	}                                                                                   \
	GTRACE_D __nv_bfloat162 NAME##2(__nv_bfloat162 a, __nv_bfloat162 b)                 \
	{                                                                                   \
		unsigned int r;                                                             \
		asm("{ .reg .b32 k; mov.b32 k, " K2 "; fma.rn.bf16x2 %0, " A ", " B ", " C "; }" \
		    : "=r"(r) : "r"(__gtrace_u(a)), "r"(__gtrace_u(b)));                    \
		return __gtrace_b2(r);                                                      \
	}
GTRACE_B_FMA(__hadd, "%1", "k", "%2", "0x3f80", "0x3f803f80")
GTRACE_B_FMA(__hsub, "%2", "k", "%1", "0xbf80", "0xbf80bf80")
GTRACE_B_FMA(__hmul, "%1", "%2", "k", "0x8000", "0x80008000")
#undef GTRACE_B_FMA
#define GTRACE_B(n, NAME, NAME2, PTX) GTRACE_HALF_OP##n(__nv_bfloat16, __nv_bfloat162, __gtrace_b2, NAME, NAME2, PTX)
GTRACE_B(3, __hfma, __hfma2, "fma.rn.bf16")
GTRACE_B(3, __hfma_relu, __hfma2_relu, "fma.rn.relu.bf16")
GTRACE_B(2, __hmax, __hmax2, "max.bf16")
GTRACE_B(2, __hmin, __hmin2, "min.bf16")
GTRACE_B(2, __hmax_nan, __hmax2_nan, "max.NaN.bf16")
GTRACE_B(2, __hmin_nan, __hmin2_nan, "min.NaN.bf16")
GTRACE_B(1, __hneg, __hneg2, "neg.bf16")
GTRACE_B(1, __habs, __habs2, "abs.bf16")
#undef GTRACE_B

// Division and the math functions in float, rounded once (24 >= 2*8+2 significant
// bits: the double rounding is innocuous, Figueroa 1995).
GTRACE_D __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) / __bfloat162float(b)); }
GTRACE_D __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
#define GTRACE_B_MATH(NAME, F) GTRACE_HALF_MATH(__nv_bfloat16, __nv_bfloat162, __float2bfloat16, __bfloat162float, NAME, F)
GTRACE_B_MATH(sqrt, sqrtf)
GTRACE_B_MATH(rsqrt, rsqrtf)
GTRACE_B_MATH(rcp, 1.0f /)
GTRACE_B_MATH(exp, expf)
GTRACE_B_MATH(exp2, exp2f)
GTRACE_B_MATH(exp10, exp10f)
GTRACE_B_MATH(log, logf)
GTRACE_B_MATH(log2, log2f)
GTRACE_B_MATH(log10, log10f)
GTRACE_B_MATH(sin, sinf)
GTRACE_B_MATH(cos, cosf)
GTRACE_B_MATH(floor, floorf)
GTRACE_B_MATH(ceil, ceilf)
GTRACE_B_MATH(trunc, truncf)
GTRACE_B_MATH(rint, rintf)
#undef GTRACE_B_MATH

// ---- Comparisons (device, in float) -----------------------------------------------
#define GTRACE_B_CMP(NAME, EXPR)                                                            \
	GTRACE_D bool NAME(__nv_bfloat16 a, __nv_bfloat16 b)                                \
	{                                                                                   \
		float x = __bfloat162float(a), y = __bfloat162float(b);                     \
		return EXPR;                                                                \
	}                                                                                   \
	GTRACE_D __nv_bfloat162 NAME##2(__nv_bfloat162 a, __nv_bfloat162 b)                 \
	{                                                                                   \
		return __nv_bfloat162(__gtrace_b(NAME(a.x, b.x) ? 0x3f80 : 0), __gtrace_b(NAME(a.y, b.y) ? 0x3f80 : 0)); \
	}
GTRACE_B_CMP(__heq, x == y)
GTRACE_B_CMP(__hne, x < y || x > y)
GTRACE_B_CMP(__hlt, x < y)
GTRACE_B_CMP(__hle, x <= y)
GTRACE_B_CMP(__hgt, x > y)
GTRACE_B_CMP(__hge, x >= y)
GTRACE_B_CMP(__hequ, !(x < y || x > y))
GTRACE_B_CMP(__hneu, x != y)
GTRACE_B_CMP(__hltu, !(x >= y))
GTRACE_B_CMP(__hleu, !(x > y))
GTRACE_B_CMP(__hgtu, !(x <= y))
GTRACE_B_CMP(__hgeu, !(x < y))
#undef GTRACE_B_CMP
#define GTRACE_BB(NAME)                                                                     \
	GTRACE_D bool __hb##NAME##2(__nv_bfloat162 a, __nv_bfloat162 b)                     \
	{                                                                                   \
		return __h##NAME(a.x, b.x) && __h##NAME(a.y, b.y);                          \
	}
GTRACE_BB(eq)
GTRACE_BB(ne)
GTRACE_BB(lt)
GTRACE_BB(le)
GTRACE_BB(gt)
GTRACE_BB(ge)
GTRACE_BB(equ)
GTRACE_BB(neu)
GTRACE_BB(ltu)
GTRACE_BB(leu)
GTRACE_BB(gtu)
GTRACE_BB(geu)
#undef GTRACE_BB
GTRACE_D bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fff) > 0x7f80; }
GTRACE_D int __hisinf(__nv_bfloat16 a) { return a.__x == 0x7f80 ? 1 : a.__x == 0xff80 ? -1 : 0; }

// ---- Operators, shuffles, loads (GTRACE_HALF_COMMON, in cuda_fp16.h) and atomics ----
// atomicAdd: a compare-and-swap loop (atom.cas.b16, as NVIDIA's header for sm_80).
GTRACE_D __nv_bfloat16 atomicAdd(__nv_bfloat16 *p, __nv_bfloat16 v)
{
	unsigned short old = *(volatile unsigned short *)p, assumed;
	do {
		assumed = old;
		unsigned short n = __hadd(__gtrace_b(assumed), v).__x;
		asm volatile("atom.cas.b16 %0, [%1], %2, %3;" : "=h"(old) : "l"(p), "h"(assumed), "h"(n) : "memory");
	} while (old != assumed);
	return __gtrace_b(old);
}
GTRACE_D __nv_bfloat162 atomicAdd(__nv_bfloat162 *p, __nv_bfloat162 v)
{
	unsigned int *w = (unsigned int *)p, old = *w, assumed;
	do {
		assumed = old;
		old = atomicCAS(w, assumed, __gtrace_u(__hadd2(__gtrace_b2(assumed), v)));
	} while (old != assumed);
	return __gtrace_b2(old);
}
GTRACE_HALF_COMMON(__nv_bfloat16, __nv_bfloat162, __gtrace_b, __gtrace_b2)

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7f80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7fffU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7f7fU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3f80U)

#undef GTRACE_D
#undef GTRACE_HD
#undef GTRACE_HD_MEMBER
#undef GTRACE_ON_DEVICE

#endif // GTRACE_CUDA_BF16_H
#endif
