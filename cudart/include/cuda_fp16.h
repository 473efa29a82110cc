// cuda_fp16.h: __half and __half2 as the CUDA SDK's cuda_fp16.h declares them (the
// common part of its API), for clang-14 with no CUDA SDK.
//
// Device code runs the PTX half instructions through inline PTX, as NVIDIA's header
// does (cvt.rn.f16.f32, add.f16, fma.rn.f16x2, setp.lt.f16, atom.add.noftz.f16, ...),
// so that a trace holds what a GPU executes; only instructions of PTX ISA 7.0 for
// sm_80 are used, the version clang-14 writes. Division and the math functions
// (hsqrt, hexp, ...) go through float, correctly rounded: NVIDIA's own sequences
// differ in instruction count. Host code converts in software, rounding to nearest
// even, and NaNs become the canonical 0x7fff as on the GPU.
//
// Under nvcc, or under clang with the real CUDA headers, the SDK's file is used.
#if defined(__NVCC__) || defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#include_next <cuda_fp16.h>
#else
#ifndef GTRACE_CUDA_FP16_H
#define GTRACE_CUDA_FP16_H

#include "gtrace_cuda_runtime.h"

// GTRACE_ON_DEVICE(d, h) is d in the device pass and h in the host pass: a host and
// device function's inline PTX must not reach the host compiler at all.
#ifdef __CUDA_ARCH__
#define GTRACE_ON_DEVICE(d, h) d
#else
#define GTRACE_ON_DEVICE(d, h) h
#endif
#define GTRACE_HD_MEMBER __host__ __device__ __forceinline__
#define GTRACE_D static __device__ __forceinline__
#define GTRACE_HD static __host__ __device__ __forceinline__

struct __align__(2) __half {
	unsigned short __x;
	__half() = default;
	GTRACE_HD_MEMBER __half(float f);
	GTRACE_HD_MEMBER __half(double f);
	GTRACE_HD_MEMBER __half(int i);
	GTRACE_HD_MEMBER __half(unsigned int i);
	GTRACE_HD_MEMBER __half(short i);
	GTRACE_HD_MEMBER __half(unsigned short i);
	GTRACE_HD_MEMBER __half(long long i);
	GTRACE_HD_MEMBER __half(unsigned long long i);
	GTRACE_HD_MEMBER operator float() const;
};

struct __align__(4) __half2 {
	__half x, y;
	__half2() = default;
	GTRACE_HD_MEMBER __half2(__half a, __half b) : x(a), y(b) {}
};

typedef struct __half half;
typedef struct __half2 half2;
typedef struct __half __nv_half;
typedef struct __half2 __nv_half2;

// Bits and values, in software: the host's conversions, and the device's where no
// instruction is needed.
GTRACE_HD __half __gtrace_h(unsigned short x)
{
	__half h;
	h.__x = x;
	return h;
}
GTRACE_HD __half2 __gtrace_h2(unsigned int x) { return __half2(__gtrace_h((unsigned short)x), __gtrace_h((unsigned short)(x >> 16))); }
GTRACE_HD unsigned int __gtrace_u(__half2 h) { return (unsigned int)h.x.__x | (unsigned int)h.y.__x << 16; }

// __gtrace_f2h rounds a float to the nearest half, ties to even; a NaN is 0x7fff.
GTRACE_HD unsigned short __gtrace_f2h(float f)
{
	unsigned int x = __builtin_bit_cast(unsigned int, f);
	unsigned int sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u)
		return 0x7fff;
	if (ax >= 0x477ff000u) // 65520 and above: infinity
		return (unsigned short)(sign | 0x7c00u);
	if (ax < 0x38800000u) { // below 2^-14: a subnormal half or zero
		if (ax < 0x33000000u)
			return (unsigned short)sign;
		unsigned int m = (ax & 0x7fffffu) | 0x800000u, sh = 126 - (ax >> 23);
		unsigned int r = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (r & 1)))
			r++;
		return (unsigned short)(sign | r);
	}
	unsigned int r = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (r & 1)))
		r++;
	return (unsigned short)(sign | r);
}

// __gtrace_h2f is a half's value as a float (exact); a NaN is the canonical 0x7fffffff.
GTRACE_HD float __gtrace_h2f(unsigned short h)
{
	unsigned int sign = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	if (e == 31)
		return __builtin_bit_cast(float, m ? 0x7fffffffu : (sign | 0x7f800000u));
	if (e == 0) {
		float f = (float)m * (1.0f / 16777216.0f);
		return sign ? -f : f;
	}
	return __builtin_bit_cast(float, sign | ((e + 112) << 23) | (m << 13));
}

// ---- Conversions ----------------------------------------------------------------
#define GTRACE_CVT_TO_HALF(NAME, T, PTX, C)                                                 \
	GTRACE_HD __half NAME(T v)                                                          \
	{                                                                                   \
		__half r;                                                                   \
		GTRACE_ON_DEVICE(asm(PTX " %0, %1;" : "=h"(r.__x) : C(v)),                  \
				 r = __gtrace_h(__gtrace_f2h((float)v)));                   \
		return r;                                                                   \
	}
GTRACE_CVT_TO_HALF(__float2half, float, "cvt.rn.f16.f32", "f")
GTRACE_CVT_TO_HALF(__float2half_rn, float, "cvt.rn.f16.f32", "f")
GTRACE_CVT_TO_HALF(__double2half, double, "cvt.rn.f16.f64", "d")
GTRACE_CVT_TO_HALF(__int2half_rn, int, "cvt.rn.f16.s32", "r")
GTRACE_CVT_TO_HALF(__uint2half_rn, unsigned int, "cvt.rn.f16.u32", "r")
GTRACE_CVT_TO_HALF(__ll2half_rn, long long, "cvt.rn.f16.s64", "l")
GTRACE_CVT_TO_HALF(__ull2half_rn, unsigned long long, "cvt.rn.f16.u64", "l")
#undef GTRACE_CVT_TO_HALF
GTRACE_D __half __short2half_rn(short v) { return __int2half_rn(v); }
GTRACE_D __half __ushort2half_rn(unsigned short v) { return __uint2half_rn(v); }
#define GTRACE_CVT_F2H_MODE(NAME, MODE)                                                     \
	GTRACE_D __half NAME(float v)                                                       \
	{                                                                                   \
		__half r;                                                                   \
		asm("cvt." MODE ".f16.f32 %0, %1;" : "=h"(r.__x) : "f"(v));                 \
		return r;                                                                   \
	}
GTRACE_CVT_F2H_MODE(__float2half_rz, "rz")
GTRACE_CVT_F2H_MODE(__float2half_rd, "rm")
GTRACE_CVT_F2H_MODE(__float2half_ru, "rp")
#undef GTRACE_CVT_F2H_MODE

GTRACE_HD float __half2float(__half h)
{
	float f;
	GTRACE_ON_DEVICE(asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.__x)), f = __gtrace_h2f(h.__x));
	return f;
}
#define GTRACE_CVT_FROM_HALF(NAME, T, PTX, C)                                               \
	GTRACE_D T NAME(__half h)                                                           \
	{                                                                                   \
		T r;                                                                        \
		asm(PTX " %0, %1;" : "=" C(r) : "h"(h.__x));                                \
		return r;                                                                   \
	}
GTRACE_CVT_FROM_HALF(__half2int_rn, int, "cvt.rni.s32.f16", "r")
GTRACE_CVT_FROM_HALF(__half2int_rz, int, "cvt.rzi.s32.f16", "r")
GTRACE_CVT_FROM_HALF(__half2int_rd, int, "cvt.rmi.s32.f16", "r")
GTRACE_CVT_FROM_HALF(__half2int_ru, int, "cvt.rpi.s32.f16", "r")
GTRACE_CVT_FROM_HALF(__half2uint_rn, unsigned int, "cvt.rni.u32.f16", "r")
GTRACE_CVT_FROM_HALF(__half2uint_rz, unsigned int, "cvt.rzi.u32.f16", "r")
GTRACE_CVT_FROM_HALF(__half2ll_rz, long long, "cvt.rzi.s64.f16", "l")
GTRACE_CVT_FROM_HALF(__half2ull_rz, unsigned long long, "cvt.rzi.u64.f16", "l")
GTRACE_CVT_FROM_HALF(__half2double, double, "cvt.f64.f16", "d")
#undef GTRACE_CVT_FROM_HALF
GTRACE_D short __half2short_rz(__half h) { return (short)__half2int_rz(h); }
GTRACE_D unsigned short __half2ushort_rz(__half h) { return (unsigned short)__half2uint_rz(h); }

GTRACE_HD short __half_as_short(__half h) { return (short)h.__x; }
GTRACE_HD unsigned short __half_as_ushort(__half h) { return h.__x; }
GTRACE_HD __half __short_as_half(short x) { return __gtrace_h((unsigned short)x); }
GTRACE_HD __half __ushort_as_half(unsigned short x) { return __gtrace_h(x); }

// Pairs: .x is the low half, .y the high (cvt.rn.f16x2.f32 d, a, b puts a high).
GTRACE_HD __half2 __floats2half2_rn(float lo, float hi)
{
	unsigned int r;
	GTRACE_ON_DEVICE(asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)),
			 r = __gtrace_f2h(lo) | (unsigned int)__gtrace_f2h(hi) << 16);
	return __gtrace_h2(r);
}
GTRACE_HD __half2 __float2half2_rn(float f) { return __floats2half2_rn(f, f); }
GTRACE_HD __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
GTRACE_HD __half2 __half2half2(__half h) { return __half2(h, h); }
GTRACE_HD __half2 make_half2(__half x, __half y) { return __half2(x, y); }
GTRACE_HD __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
GTRACE_HD __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
GTRACE_HD __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }
GTRACE_HD __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
GTRACE_HD __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
GTRACE_HD __half __low2half(__half2 a) { return a.x; }
GTRACE_HD __half __high2half(__half2 a) { return a.y; }
GTRACE_HD float __low2float(__half2 a) { return __half2float(a.x); }
GTRACE_HD float __high2float(__half2 a) { return __half2float(a.y); }
GTRACE_HD float2 __half22float2(__half2 a) { return make_float2(__half2float(a.x), __half2float(a.y)); }
GTRACE_HD __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }

GTRACE_HD_MEMBER __half::__half(float f) { *this = __float2half(f); }
GTRACE_HD_MEMBER __half::__half(double f) { *this = __double2half(f); }
GTRACE_HD_MEMBER __half::__half(int i) { *this = __int2half_rn(i); }
GTRACE_HD_MEMBER __half::__half(unsigned int i) { *this = __uint2half_rn(i); }
GTRACE_HD_MEMBER __half::__half(short i) { *this = __int2half_rn(i); }
GTRACE_HD_MEMBER __half::__half(unsigned short i) { *this = __uint2half_rn(i); }
GTRACE_HD_MEMBER __half::__half(long long i) { *this = __ll2half_rn(i); }
GTRACE_HD_MEMBER __half::__half(unsigned long long i) { *this = __ull2half_rn(i); }
GTRACE_HD_MEMBER __half::operator float() const { return __half2float(*this); }

// ---- Arithmetic (device) -----------------------------------------------------------
// Inline-PTX wrappers, shared with cuda_bf16.h: GTRACE_HALF_OPn(T, T2, MK2, NAME, NAME2,
// PTX) defines NAME on two T of n operands as the instruction PTX and NAME2 on two
// pairs T2 as PTX "x2" (MK2 makes a pair of its 32 bits).
#define GTRACE_HALF_OP1(T, T2, MK2, NAME, NAME2, PTX)                                       \
	GTRACE_D T NAME(T a)                                                                \
	{                                                                                   \
		T r;                                                                        \
		asm(PTX " %0, %1;" : "=h"(r.__x) : "h"(a.__x));                             \
		return r;                                                                   \
	}                                                                                   \
	GTRACE_D T2 NAME2(T2 a)                                                             \
	{                                                                                   \
		unsigned int r;                                                             \
		asm(PTX "x2 %0, %1;" : "=r"(r) : "r"(__gtrace_u(a)));                       \
		return MK2(r);                                                              \
	}
#define GTRACE_HALF_OP2(T, T2, MK2, NAME, NAME2, PTX)                                       \
	GTRACE_D T NAME(T a, T b)                                                           \
	{                                                                                   \
		T r;                                                                        \
		asm(PTX " %0, %1, %2;" : "=h"(r.__x) : "h"(a.__x), "h"(b.__x));             \
		return r;                                                                   \
	}                                                                                   \
	GTRACE_D T2 NAME2(T2 a, T2 b)                                                       \
	{                                                                                   \
		unsigned int r;                                                             \
		asm(PTX "x2 %0, %1, %2;" : "=r"(r) : "r"(__gtrace_u(a)), "r"(__gtrace_u(b))); \
		return MK2(r);                                                              \
	}
#define GTRACE_HALF_OP3(T, T2, MK2, NAME, NAME2, PTX)                                       \
	GTRACE_D T NAME(T a, T b, T c)                                                      \
	{                                                                                   \
		T r;                                                                        \
		asm(PTX " %0, %1, %2, %3;" : "=h"(r.__x) : "h"(a.__x), "h"(b.__x), "h"(c.__x)); \
		return r;                                                                   \
	}                                                                                   \
	GTRACE_D T2 NAME2(T2 a, T2 b, T2 c)                                                 \
	{                                                                                   \
		unsigned int r;                                                             \
		asm(PTX "x2 %0, %1, %2, %3;"                                                \
		    : "=r"(r)                                                               \
		    : "r"(__gtrace_u(a)), "r"(__gtrace_u(b)), "r"(__gtrace_u(c)));          \
		return MK2(r);                                                              \
	}
#define GTRACE_H(n, NAME, NAME2, PTX) GTRACE_HALF_OP##n(__half, __half2, __gtrace_h2, NAME, NAME2, PTX)
GTRACE_H(2, __hadd, __hadd2, "add.f16")
GTRACE_H(2, __hsub, __hsub2, "sub.f16")
GTRACE_H(2, __hmul, __hmul2, "mul.f16")
GTRACE_H(2, __hadd_sat, __hadd2_sat, "add.sat.f16")
GTRACE_H(2, __hsub_sat, __hsub2_sat, "sub.sat.f16")
GTRACE_H(2, __hmul_sat, __hmul2_sat, "mul.sat.f16")
GTRACE_H(2, __hmax, __hmax2, "max.f16")
GTRACE_H(2, __hmin, __hmin2, "min.f16")
GTRACE_H(2, __hmax_nan, __hmax2_nan, "max.NaN.f16")
GTRACE_H(2, __hmin_nan, __hmin2_nan, "min.NaN.f16")
GTRACE_H(3, __hfma, __hfma2, "fma.rn.f16")
GTRACE_H(3, __hfma_sat, __hfma2_sat, "fma.rn.sat.f16")
GTRACE_H(3, __hfma_relu, __hfma2_relu, "fma.rn.relu.f16")
GTRACE_H(1, __hneg, __hneg2, "neg.f16")
GTRACE_H(1, __habs, __habs2, "abs.f16")
GTRACE_H(1, htanh_approx, h2tanh_approx, "tanh.approx.f16")
#undef GTRACE_H

// Division and the math functions: in float, then rounded once to half. A float
// quotient rounded again to half is the correctly rounded half quotient (24 >= 2*11+2
// significant bits: Figueroa, "When is double rounding innocuous?", 1995).
GTRACE_D __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
GTRACE_D __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
// GTRACE_HALF_MATH(T, T2, TO, FROM, NAME, F): hNAME and h2NAME through float's F,
// FROM and TO converting (cuda_bf16.h uses it too).
#define GTRACE_HALF_MATH(T, T2, TO, FROM, NAME, F)                                          \
	GTRACE_D T h##NAME(T a) { return TO(F(FROM(a))); }                                  \
	GTRACE_D T2 h2##NAME(T2 a) { return T2(h##NAME(a.x), h##NAME(a.y)); }
#define GTRACE_H_MATH(NAME, F) GTRACE_HALF_MATH(__half, __half2, __float2half, __half2float, NAME, F)
GTRACE_H_MATH(sqrt, sqrtf)
GTRACE_H_MATH(rsqrt, rsqrtf)
GTRACE_H_MATH(rcp, 1.0f /)
GTRACE_H_MATH(exp, expf)
GTRACE_H_MATH(exp2, exp2f)
GTRACE_H_MATH(exp10, exp10f)
GTRACE_H_MATH(log, logf)
GTRACE_H_MATH(log2, log2f)
GTRACE_H_MATH(log10, log10f)
GTRACE_H_MATH(sin, sinf)
GTRACE_H_MATH(cos, cosf)
#undef GTRACE_H_MATH
#define GTRACE_H_ROUND(NAME, MODE)                                                          \
	GTRACE_D __half h##NAME(__half a)                                                   \
	{                                                                                   \
		__half r;                                                                   \
		asm("cvt." MODE ".f16.f16 %0, %1;" : "=h"(r.__x) : "h"(a.__x));             \
		return r;                                                                   \
	}                                                                                   \
	GTRACE_D __half2 h2##NAME(__half2 a) { return __half2(h##NAME(a.x), h##NAME(a.y)); }
GTRACE_H_ROUND(floor, "rmi")
GTRACE_H_ROUND(ceil, "rpi")
GTRACE_H_ROUND(trunc, "rzi")
GTRACE_H_ROUND(rint, "rni")
#undef GTRACE_H_ROUND

// ---- Comparisons (device) ----------------------------------------------------------
#define GTRACE_H_CMP(NAME, CMP)                                                             \
	GTRACE_D bool NAME(__half a, __half b)                                              \
	{                                                                                   \
		unsigned short r;                                                           \
		asm("{ .reg .pred p; setp." CMP ".f16 p, %1, %2; selp.u16 %0, 1, 0, p; }"   \
		    : "=h"(r) : "h"(a.__x), "h"(b.__x));                                    \
		return r != 0;                                                              \
	}                                                                                   \
	GTRACE_D bool NAME##2_both_(__half2 a, __half2 b)                                   \
	{                                                                                   \
		unsigned short r;                                                           \
		asm("{ .reg .pred p, q; setp." CMP ".f16x2 p|q, %1, %2; and.pred p, p, q;"   \
		    " selp.u16 %0, 1, 0, p; }"                                              \
		    : "=h"(r) : "r"(__gtrace_u(a)), "r"(__gtrace_u(b)));                    \
		return r != 0;                                                              \
	}                                                                                   \
	GTRACE_D __half2 NAME##2(__half2 a, __half2 b)                                      \
	{                                                                                   \
		return __half2(__gtrace_h(NAME(a.x, b.x) ? 0x3c00 : 0), __gtrace_h(NAME(a.y, b.y) ? 0x3c00 : 0)); \
	}
GTRACE_H_CMP(__heq, "eq")
GTRACE_H_CMP(__hne, "ne")
GTRACE_H_CMP(__hlt, "lt")
GTRACE_H_CMP(__hle, "le")
GTRACE_H_CMP(__hgt, "gt")
GTRACE_H_CMP(__hge, "ge")
GTRACE_H_CMP(__hequ, "equ")
GTRACE_H_CMP(__hneu, "neu")
GTRACE_H_CMP(__hltu, "ltu")
GTRACE_H_CMP(__hleu, "leu")
GTRACE_H_CMP(__hgtu, "gtu")
GTRACE_H_CMP(__hgeu, "geu")
#undef GTRACE_H_CMP
#define GTRACE_HB(NAME) \
	GTRACE_D bool __hb##NAME##2(__half2 a, __half2 b) { return __h##NAME##2_both_(a, b); }
GTRACE_HB(eq)
GTRACE_HB(ne)
GTRACE_HB(lt)
GTRACE_HB(le)
GTRACE_HB(gt)
GTRACE_HB(ge)
GTRACE_HB(equ)
GTRACE_HB(neu)
GTRACE_HB(ltu)
GTRACE_HB(leu)
GTRACE_HB(gtu)
GTRACE_HB(geu)
#undef GTRACE_HB
GTRACE_D bool __hisnan(__half a) { return __hequ(a, a) && !__heq(a, a); }
GTRACE_D __half2 __hisnan2(__half2 a) { return __half2(__gtrace_h(__hisnan(a.x) ? 0x3c00 : 0), __gtrace_h(__hisnan(a.y) ? 0x3c00 : 0)); }
GTRACE_D int __hisinf(__half a) { return a.__x == 0x7c00 ? 1 : a.__x == 0xfc00 ? -1 : 0; }

// ---- Operators, atomics, shuffles and loads (device) ----------------------------------
// GTRACE_HALF_COMMON(T, T2, MK, MK2) is what __half and __nv_bfloat16 share, written
// with each type's own __hadd, __heq, ... and its bits-to-value functions MK (16 bits)
// and MK2 (a pair's 32): the operators (device, as in CUDA 11), the warp shuffles and
// __ldg of the type and of its pair. cuda_bf16.h uses it too.
#define GTRACE_HALF_COMMON(T, T2, MK, MK2)                                                  \
	GTRACE_D T operator+(const T &a, const T &b) { return __hadd(a, b); }               \
	GTRACE_D T operator-(const T &a, const T &b) { return __hsub(a, b); }               \
	GTRACE_D T operator*(const T &a, const T &b) { return __hmul(a, b); }               \
	GTRACE_D T operator/(const T &a, const T &b) { return __hdiv(a, b); }               \
	GTRACE_D T &operator+=(T &a, const T &b) { return a = __hadd(a, b); }               \
	GTRACE_D T &operator-=(T &a, const T &b) { return a = __hsub(a, b); }               \
	GTRACE_D T &operator*=(T &a, const T &b) { return a = __hmul(a, b); }               \
	GTRACE_D T &operator/=(T &a, const T &b) { return a = __hdiv(a, b); }               \
	GTRACE_D T operator-(const T &a) { return __hneg(a); }                              \
	GTRACE_D T operator+(const T &a) { return a; }                                      \
	GTRACE_D bool operator==(const T &a, const T &b) { return __heq(a, b); }            \
	GTRACE_D bool operator!=(const T &a, const T &b) { return __hneu(a, b); }           \
	GTRACE_D bool operator<(const T &a, const T &b) { return __hlt(a, b); }             \
	GTRACE_D bool operator<=(const T &a, const T &b) { return __hle(a, b); }            \
	GTRACE_D bool operator>(const T &a, const T &b) { return __hgt(a, b); }             \
	GTRACE_D bool operator>=(const T &a, const T &b) { return __hge(a, b); }            \
	GTRACE_D T2 operator+(const T2 &a, const T2 &b) { return __hadd2(a, b); }           \
	GTRACE_D T2 operator-(const T2 &a, const T2 &b) { return __hsub2(a, b); }           \
	GTRACE_D T2 operator*(const T2 &a, const T2 &b) { return __hmul2(a, b); }           \
	GTRACE_D T2 operator/(const T2 &a, const T2 &b) { return __h2div(a, b); }           \
	GTRACE_D T2 &operator+=(T2 &a, const T2 &b) { return a = __hadd2(a, b); }           \
	GTRACE_D T2 &operator-=(T2 &a, const T2 &b) { return a = __hsub2(a, b); }           \
	GTRACE_D T2 &operator*=(T2 &a, const T2 &b) { return a = __hmul2(a, b); }           \
	GTRACE_D T2 &operator/=(T2 &a, const T2 &b) { return a = __h2div(a, b); }           \
	GTRACE_D T2 operator-(const T2 &a) { return __hneg2(a); }                           \
	GTRACE_D bool operator==(const T2 &a, const T2 &b) { return __hbeq2(a, b); }        \
	GTRACE_D bool operator!=(const T2 &a, const T2 &b) { return __hbneu2(a, b); }       \
	GTRACE_HALF_SHFL(T, T2, MK, MK2, __shfl_sync)                                       \
	GTRACE_HALF_SHFL(T, T2, MK, MK2, __shfl_up_sync)                                    \
	GTRACE_HALF_SHFL(T, T2, MK, MK2, __shfl_down_sync)                                  \
	GTRACE_HALF_SHFL(T, T2, MK, MK2, __shfl_xor_sync)                                   \
	GTRACE_D T __ldg(const T *p) { return MK(__ldg((const unsigned short *)p)); }       \
	GTRACE_D T2 __ldg(const T2 *p) { return MK2(__ldg((const unsigned int *)p)); }
#define GTRACE_HALF_SHFL(T, T2, MK, MK2, NAME)                                              \
	GTRACE_D T NAME(unsigned int m, T v, int lane, int width = 32)                      \
	{                                                                                   \
		return MK((unsigned short)NAME(m, (unsigned int)v.__x, lane, width));       \
	}                                                                                   \
	GTRACE_D T2 NAME(unsigned int m, T2 v, int lane, int width = 32)                    \
	{                                                                                   \
		return MK2(NAME(m, __gtrace_u(v), lane, width));                            \
	}

GTRACE_D __half atomicAdd(__half *p, __half v)
{
	__half r;
	asm volatile("atom.add.noftz.f16 %0, [%1], %2;" : "=h"(r.__x) : "l"(p), "h"(v.__x) : "memory");
	return r;
}
GTRACE_D __half2 atomicAdd(__half2 *p, __half2 v)
{
	unsigned int r;
	asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(__gtrace_u(v)) : "memory");
	return __gtrace_h2(r);
}
GTRACE_HALF_COMMON(__half, __half2, __gtrace_h, __gtrace_h2)

// Values of CUDA's cuda_fp16.h.
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7c00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7fffU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7bffU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3c00U)

#undef GTRACE_D
#undef GTRACE_HD
#undef GTRACE_HD_MEMBER
#undef GTRACE_ON_DEVICE

#endif // GTRACE_CUDA_FP16_H
#endif
