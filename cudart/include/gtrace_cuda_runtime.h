// gtrace_cuda_runtime.h: the CUDA runtime's device side, for compiling CUDA with
// clang-14 -nocudainc -nocudalib, that is without a CUDA SDK. `gtrace capture --cu`
// force-includes it; `gtrace cuda-include` prints a folder holding it, so that
// clang-14 -I FOLDER -include gtrace_cuda_runtime.h does the same by hand. The files
// beside it named as the SDK's (cuda_runtime.h, device_launch_parameters.h, ...)
// include this one, so a program's own #include lines resolve.
//
// Everything here compiles to PTX that `gtrace capture` runs: each function is one
// PTX instruction or a short sequence of them, through the NVVM builtins of clang-14
// (the same builtins clang's own CUDA headers use) or a line of inline PTX. Nothing
// calls libdevice (__nv_*), which the emulator does not have: the precise math library
// (expf, logf, powf, sinf, tanhf, erff, ..., exp, log, exp2, log1p, sin, tan, cosh, cbrt,
// hypot, ..., and C++'s float overloads) is gtrace_math.h, written from published algorithms. Every
// function there has its double form, so a double call never takes a float overload
// on a narrowed argument.
//
// The host side holds declarations only: a device-only compile parses a program's
// host code (cudaMalloc, cudaMemcpy, kernel<<<grid, block>>>(...)) but never emits
// it, so whole .cu files compile as they are.
//
// Under nvcc, or under clang with the real CUDA headers, this file is empty: their
// definitions are the originals.
#ifndef GTRACE_CUDA_RUNTIME_H
#define GTRACE_CUDA_RUNTIME_H

#if !defined(__NVCC__) && !defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h> // clock_t, for the device clock() below

// Attributes that cuda_runtime.h defines as macros.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __device_builtin__
#define __builtin_align__(n) __align__(n)
#define __cudart_builtin__
#define CUDART_CB

// threadIdx, blockIdx, blockDim, gridDim, warpSize: clang's own declarations.
#include "__clang_cuda_builtin_vars.h"

#define GTRACE_D static __device__ __forceinline__
#define GTRACE_HD static __host__ __device__ __forceinline__

// The short names that Linux's <sys/types.h> gives and CUDA code takes for granted.
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;

// ---- Vector types -------------------------------------------------------------
// Types of 2 and 4 components are clang ext_vector_types: they have .x .y .z .w, the
// size and alignment of CUDA's (float4: 16 bytes, aligned 16), and clang loads and
// stores them in one vector access (ld.global.v4.f32) as nvcc does, where a struct
// aligned 16 would be copied in two 8-byte halves. Types of 1 and 3 components are
// structs: an ext_vector_type of 3 would be 16 bytes, not CUDA's 12.
#define GTRACE_VEC(T, N)                                                                  \
	struct __device_builtin__ N##1 { T x; };                                            \
	typedef T N##2 __attribute__((ext_vector_type(2)));                                 \
	struct __device_builtin__ N##3 { T x, y, z; };                                      \
	typedef T N##4 __attribute__((ext_vector_type(4)));                                 \
	typedef struct N##1 N##1;                                                           \
	typedef struct N##3 N##3;                                                           \
	GTRACE_HD N##1 make_##N##1(T x) { N##1 r; r.x = x; return r; }                      \
	GTRACE_HD N##2 make_##N##2(T x, T y) { N##2 r; r.x = x; r.y = y; return r; }        \
	GTRACE_HD N##3 make_##N##3(T x, T y, T z) { N##3 r; r.x = x; r.y = y; r.z = z; return r; } \
	GTRACE_HD N##4 make_##N##4(T x, T y, T z, T w)                                      \
	{                                                                                   \
		N##4 r;                                                                     \
		r.x = x; r.y = y; r.z = z; r.w = w;                                         \
		return r;                                                                   \
	}
GTRACE_VEC(signed char, char)
GTRACE_VEC(unsigned char, uchar)
GTRACE_VEC(short, short)
GTRACE_VEC(unsigned short, ushort)
GTRACE_VEC(int, int)
GTRACE_VEC(unsigned int, uint)
GTRACE_VEC(long, long)
GTRACE_VEC(unsigned long, ulong)
GTRACE_VEC(long long, longlong)
GTRACE_VEC(unsigned long long, ulonglong)
GTRACE_VEC(float, float)
GTRACE_VEC(double, double)
#undef GTRACE_VEC

struct __device_builtin__ dim3 {
	unsigned int x, y, z;
	__host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
		: x(vx), y(vy), z(vz) {}
	__host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
	__host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The conversions __clang_cuda_builtin_vars.h declares and leaves to the headers.
#define GTRACE_BUILTIN_CONV(V)                                                             \
	__device__ inline __cuda_builtin_##V##_t::operator dim3() const { return dim3(x, y, z); } \
	__device__ inline __cuda_builtin_##V##_t::operator uint3() const { return uint3{x, y, z}; }
GTRACE_BUILTIN_CONV(threadIdx)
GTRACE_BUILTIN_CONV(blockIdx)
GTRACE_BUILTIN_CONV(blockDim)
GTRACE_BUILTIN_CONV(gridDim)
#undef GTRACE_BUILTIN_CONV

// ---- System calls (PTX Writer's Guide to Interoperability, "System Calls") ------
// clang turns printf(fmt, ...) in device code into vprintf(fmt, buffer of the
// arguments); capture runs vprintf and prints on the host, as the driver does.
// <cassert>'s assert calls __assert_fail, which in device code is the __assertfail
// system call: capture ends the kernel with the line a GPU prints. malloc and free
// are the system calls of the same names: capture allocates in the launch's heap.
// Declared before <cstdlib>, whose using-declarations then make them std::'s too.
extern "C" {
__device__ int vprintf(const char *, const char *);
__device__ int printf(const char *, ...);
__device__ void free(void *) __attribute((nothrow));
__device__ void *malloc(size_t) __attribute((nothrow)) __attribute__((malloc));
__device__ void __assertfail(const char *__message, const char *__file, unsigned __line, const char *__function,
			     size_t __charSize);
__device__ static inline void __assert_fail(const char *__message, const char *__file, unsigned __line,
					    const char *__function)
{
	__assertfail(__message, __file, __line, __function, sizeof(char));
}
}

// ---- Synchronisation and fences ------------------------------------------------
// __syncthreads is a clang builtin for NVPTX (bar.sync 0).
GTRACE_D void __threadfence_block(void) { __nvvm_membar_cta(); }
GTRACE_D void __threadfence(void) { __nvvm_membar_gl(); }
GTRACE_D void __threadfence_system(void) { __nvvm_membar_sys(); }
GTRACE_D void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
// bar.red on barrier 0: the count of the CTA's threads whose predicate is non-zero,
// and whether all or any of them are.
GTRACE_D int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
GTRACE_D int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
GTRACE_D int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
GTRACE_D void __nanosleep(unsigned int ns) { asm volatile("nanosleep.u32 %0;" ::"r"(ns)); }
// The SM's cycle counter (Programming Guide, "Time Function"). Under capture it reads
// the warp's count of executed instructions (capture/doc.go); under the timing engine
// it costs what the S2R/CS2R it is costs, so a kernel that times itself replays.
GTRACE_D long long int clock64(void) { return __nvvm_read_ptx_sreg_clock64(); }
GTRACE_D clock_t clock(void) { return (clock_t)__nvvm_read_ptx_sreg_clock(); }
// __trap ends the kernel with an error; __brkpt stops it as at a breakpoint, which
// capture also reports as a fault (Programming Guide, "Trap Function" and "Breakpoint
// Function").
GTRACE_D void __trap(void) { asm volatile("trap;"); }
GTRACE_D void __brkpt(void) { asm volatile("brkpt;"); }

// ---- Atomics (CUDA Programming Guide, "Atomic Functions") ----------------------
// Each is one atom instruction on a generic address; a call whose result is unused
// becomes red in SASS, which capture records as such.
GTRACE_D int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
GTRACE_D unsigned int atomicAdd(unsigned int *p, unsigned int v) { return __nvvm_atom_add_gen_i((int *)p, (int)v); }
GTRACE_D unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
	return __nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
GTRACE_D float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
GTRACE_D double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
GTRACE_D int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
GTRACE_D unsigned int atomicSub(unsigned int *p, unsigned int v) { return __nvvm_atom_add_gen_i((int *)p, -(int)v); }
GTRACE_D int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
GTRACE_D unsigned int atomicExch(unsigned int *p, unsigned int v) { return __nvvm_atom_xchg_gen_i((int *)p, (int)v); }
GTRACE_D unsigned long long atomicExch(unsigned long long *p, unsigned long long v)
{
	return __nvvm_atom_xchg_gen_ll((long long *)p, (long long)v);
}
GTRACE_D float atomicExch(float *p, float v)
{
	return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)p, __builtin_bit_cast(int, v)));
}
GTRACE_D int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
GTRACE_D unsigned int atomicMin(unsigned int *p, unsigned int v) { return __nvvm_atom_min_gen_ui(p, v); }
GTRACE_D long long atomicMin(long long *p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
GTRACE_D unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { return __nvvm_atom_min_gen_ull(p, v); }
GTRACE_D int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
GTRACE_D unsigned int atomicMax(unsigned int *p, unsigned int v) { return __nvvm_atom_max_gen_ui(p, v); }
GTRACE_D long long atomicMax(long long *p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
GTRACE_D unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { return __nvvm_atom_max_gen_ull(p, v); }
GTRACE_D unsigned int atomicInc(unsigned int *p, unsigned int v) { return __nvvm_atom_inc_gen_ui(p, v); }
GTRACE_D unsigned int atomicDec(unsigned int *p, unsigned int v) { return __nvvm_atom_dec_gen_ui(p, v); }
GTRACE_D int atomicCAS(int *p, int compare, int v) { return __nvvm_atom_cas_gen_i(p, compare, v); }
GTRACE_D unsigned int atomicCAS(unsigned int *p, unsigned int compare, unsigned int v)
{
	return __nvvm_atom_cas_gen_i((int *)p, (int)compare, (int)v);
}
GTRACE_D unsigned long long atomicCAS(unsigned long long *p, unsigned long long compare, unsigned long long v)
{
	return __nvvm_atom_cas_gen_ll((long long *)p, (long long)compare, (long long)v);
}
GTRACE_D int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
GTRACE_D unsigned int atomicAnd(unsigned int *p, unsigned int v) { return __nvvm_atom_and_gen_i((int *)p, (int)v); }
GTRACE_D unsigned long long atomicAnd(unsigned long long *p, unsigned long long v)
{
	return __nvvm_atom_and_gen_ll((long long *)p, (long long)v);
}
GTRACE_D int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
GTRACE_D unsigned int atomicOr(unsigned int *p, unsigned int v) { return __nvvm_atom_or_gen_i((int *)p, (int)v); }
GTRACE_D unsigned long long atomicOr(unsigned long long *p, unsigned long long v)
{
	return __nvvm_atom_or_gen_ll((long long *)p, (long long)v);
}
GTRACE_D int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
GTRACE_D unsigned int atomicXor(unsigned int *p, unsigned int v) { return __nvvm_atom_xor_gen_i((int *)p, (int)v); }
GTRACE_D unsigned long long atomicXor(unsigned long long *p, unsigned long long v)
{
	return __nvvm_atom_xor_gen_ll((long long *)p, (long long)v);
}

// ---- Warp functions (Programming Guide, "Warp Shuffle Functions", "Warp Vote") ---
// shfl's c operand packs the clamp (bits 0-4) and the segment mask (bits 8-12) that
// a width below 32 makes (PTX ISA, shfl.sync).
#define GTRACE_SHFL(NAME, OP, CLAMP)                                                          \
	GTRACE_D int NAME(unsigned int m, int v, int lane, int width = 32)                      \
	{                                                                                       \
		return __nvvm_shfl_sync_##OP##_i32(m, v, lane, ((32 - width) << 8) | (CLAMP));  \
	}                                                                                       \
	GTRACE_D unsigned int NAME(unsigned int m, unsigned int v, int lane, int width = 32)    \
	{                                                                                       \
		return (unsigned int)NAME(m, (int)v, lane, width);                              \
	}                                                                                       \
	GTRACE_D float NAME(unsigned int m, float v, int lane, int width = 32)                  \
	{                                                                                       \
		return __nvvm_shfl_sync_##OP##_f32(m, v, lane, ((32 - width) << 8) | (CLAMP));  \
	}                                                                                       \
	GTRACE_D long long NAME(unsigned int m, long long v, int lane, int width = 32)          \
	{                                                                                       \
		int lo = NAME(m, (int)v, lane, width);                                          \
		int hi = NAME(m, (int)(v >> 32), lane, width);                                  \
		return (long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo); \
	}                                                                                       \
	GTRACE_D unsigned long long NAME(unsigned int m, unsigned long long v, int lane, int width = 32) \
	{                                                                                       \
		return (unsigned long long)NAME(m, (long long)v, lane, width);                  \
	}                                                                                       \
	GTRACE_D long NAME(unsigned int m, long v, int lane, int width = 32)                    \
	{                                                                                       \
		return (long)NAME(m, (long long)v, lane, width);                                \
	}                                                                                       \
	GTRACE_D unsigned long NAME(unsigned int m, unsigned long v, int lane, int width = 32)  \
	{                                                                                       \
		return (unsigned long)NAME(m, (long long)v, lane, width);                       \
	}                                                                                       \
	GTRACE_D double NAME(unsigned int m, double v, int lane, int width = 32)                \
	{                                                                                       \
		return __builtin_bit_cast(double, NAME(m, __builtin_bit_cast(long long, v), lane, width)); \
	}
GTRACE_SHFL(__shfl_sync, idx, 0x1f)
GTRACE_SHFL(__shfl_up_sync, up, 0)
GTRACE_SHFL(__shfl_down_sync, down, 0x1f)
GTRACE_SHFL(__shfl_xor_sync, bfly, 0x1f)
#undef GTRACE_SHFL

GTRACE_D unsigned int __ballot_sync(unsigned int m, int pred) { return __nvvm_vote_ballot_sync(m, pred); }
GTRACE_D int __all_sync(unsigned int m, int pred) { return __nvvm_vote_all_sync(m, pred); }
GTRACE_D int __any_sync(unsigned int m, int pred) { return __nvvm_vote_any_sync(m, pred); }
GTRACE_D int __uni_sync(unsigned int m, int pred) { return __nvvm_vote_uni_sync(m, pred); }
GTRACE_D unsigned int __activemask(void)
{
	unsigned int m;
	asm volatile("activemask.b32 %0;" : "=r"(m));
	return m;
}
GTRACE_D unsigned int __lanemask_lt(void)
{
	unsigned int m;
	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
	return m;
}

// Warp reductions and matches (Programming Guide, "Warp Reduce Functions" (sm_80) and
// "Warp Match Functions"): redux.sync and match.sync through clang's NVVM builtins,
// which are convergent as the warp functions must be.
GTRACE_D int __reduce_add_sync(unsigned int m, int v) { return __nvvm_redux_sync_add(v, m); }
GTRACE_D unsigned int __reduce_add_sync(unsigned int m, unsigned int v) { return (unsigned int)__nvvm_redux_sync_add((int)v, m); }
GTRACE_D int __reduce_min_sync(unsigned int m, int v) { return __nvvm_redux_sync_min(v, m); }
GTRACE_D unsigned int __reduce_min_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_umin(v, m); }
GTRACE_D int __reduce_max_sync(unsigned int m, int v) { return __nvvm_redux_sync_max(v, m); }
GTRACE_D unsigned int __reduce_max_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_umax(v, m); }
GTRACE_D unsigned int __reduce_and_sync(unsigned int m, unsigned int v) { return (unsigned int)__nvvm_redux_sync_and((int)v, m); }
GTRACE_D unsigned int __reduce_or_sync(unsigned int m, unsigned int v) { return (unsigned int)__nvvm_redux_sync_or((int)v, m); }
GTRACE_D unsigned int __reduce_xor_sync(unsigned int m, unsigned int v) { return (unsigned int)__nvvm_redux_sync_xor((int)v, m); }
// The 64-bit forms are inline PTX: clang-14's __nvvm_match_*_sync_i64 give the result
// 64 bits, which ptxas refuses (the mask of lanes is a .b32 for either type).
GTRACE_D unsigned int __gt_match_any64(unsigned int m, long long v)
{
	unsigned int d;
	asm("match.any.sync.b64 %0, %1, %2;" : "=r"(d) : "l"(v), "r"(m));
	return d;
}
GTRACE_D unsigned int __gt_match_all64(unsigned int m, long long v, int *pred)
{
	unsigned int d;
	int p;
	asm("{ .reg .pred p; match.all.sync.b64 %0|p, %2, %3; selp.s32 %1, 1, 0, p; }" : "=r"(d), "=r"(p) : "l"(v), "r"(m));
	*pred = p;
	return d;
}
#define GTRACE_MATCH(T, B, F, FP)                                                           \
	GTRACE_D unsigned int __match_any_sync(unsigned int m, T v)                         \
	{                                                                                   \
		return F(m, __builtin_bit_cast(B, v));                                      \
	}                                                                                   \
	GTRACE_D unsigned int __match_all_sync(unsigned int m, T v, int *pred)              \
	{                                                                                   \
		return FP(m, __builtin_bit_cast(B, v), pred);                               \
	}
#define GTRACE_MATCH32(T) GTRACE_MATCH(T, int, __nvvm_match_any_sync_i32, __nvvm_match_all_sync_i32p)
#define GTRACE_MATCH64(T) GTRACE_MATCH(T, long long, __gt_match_any64, __gt_match_all64)
GTRACE_MATCH32(int)
GTRACE_MATCH32(unsigned int)
GTRACE_MATCH32(float)
GTRACE_MATCH64(long)
GTRACE_MATCH64(unsigned long)
GTRACE_MATCH64(long long)
GTRACE_MATCH64(unsigned long long)
GTRACE_MATCH64(double)
#undef GTRACE_MATCH32
#undef GTRACE_MATCH64
#undef GTRACE_MATCH

// Address-space predicates (Programming Guide, "Address Space Predicate Functions").
GTRACE_D unsigned int __isGlobal(const void *p) { return __nvvm_isspacep_global(p); }
GTRACE_D unsigned int __isShared(const void *p) { return __nvvm_isspacep_shared(p); }
GTRACE_D unsigned int __isConstant(const void *p) { return __nvvm_isspacep_const(p); }
GTRACE_D unsigned int __isLocal(const void *p) { return __nvvm_isspacep_local(p); }

// A generic pointer's address in the shared window (Programming Guide, "Address Space
// Conversion Functions"): what cp.async, ldmatrix and inline PTX take.
GTRACE_D size_t __cvta_generic_to_shared(const void *p)
{
	size_t a;
	asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
	return a;
}

// ---- Loads and stores with cache hints (Programming Guide, "Read-Only Data Cache
// Load Function", "Load Functions Using Cache Hints", "Store Functions Using Cache
// Hints") -------------------------------------------------------------------------
#define GTRACE_LDG(T, B)                                                                 \
	GTRACE_D T __ldg(const T *p) { return __nvvm_ldg_##B(p); }
GTRACE_LDG(char, c)
GTRACE_LDG(short, s)
GTRACE_LDG(int, i)
GTRACE_LDG(long, l)
GTRACE_LDG(long long, ll)
GTRACE_LDG(unsigned char, uc)
GTRACE_LDG(unsigned short, us)
GTRACE_LDG(unsigned int, ui)
GTRACE_LDG(unsigned long, ul)
GTRACE_LDG(unsigned long long, ull)
GTRACE_LDG(float, f)
GTRACE_LDG(double, d)
GTRACE_LDG(int2, i2)
GTRACE_LDG(int4, i4)
GTRACE_LDG(uint2, ui2)
GTRACE_LDG(uint4, ui4)
GTRACE_LDG(float2, f2)
GTRACE_LDG(float4, f4)
GTRACE_LDG(double2, d2)
#undef GTRACE_LDG

// One inline PTX load or store per type and cache operator (PTX ISA, "Cache
// Operators"): loads .ca (all levels), .cg (L2 only), .cs (streaming), .lu (last use),
// .cv (volatile); stores .wb (write-back), .cg, .cs, .wt (write-through).
#define GTRACE_LD1(H, T, PT, C)                                                          \
	GTRACE_D T __ld##H(const T *p)                                                   \
	{                                                                                \
		T r;                                                                     \
		asm("ld.global." #H "." #PT " %0, [%1];" : "=" C(r) : "l"(p));           \
		return r;                                                                \
	}
#define GTRACE_LD2(H, T, PT, C)                                                          \
	GTRACE_D T __ld##H(const T *p)                                                   \
	{                                                                                \
		T r;                                                                     \
		asm("ld.global." #H ".v2." #PT " {%0, %1}, [%2];" : "=" C(r.x), "=" C(r.y) : "l"(p)); \
		return r;                                                                \
	}
#define GTRACE_LD4(H, T, PT, C)                                                          \
	GTRACE_D T __ld##H(const T *p)                                                   \
	{                                                                                \
		T r;                                                                     \
		asm("ld.global." #H ".v4." #PT " {%0, %1, %2, %3}, [%4];"                 \
		    : "=" C(r.x), "=" C(r.y), "=" C(r.z), "=" C(r.w) : "l"(p));           \
		return r;                                                                \
	}
#define GTRACE_ST1(H, T, PT, C) \
	GTRACE_D void __st##H(T *p, T v) { asm volatile("st.global." #H "." #PT " [%0], %1;" ::"l"(p), C(v) : "memory"); }
#define GTRACE_ST2(H, T, PT, C)                                                          \
	GTRACE_D void __st##H(T *p, T v)                                                 \
	{                                                                                \
		asm volatile("st.global." #H ".v2." #PT " [%0], {%1, %2};" ::"l"(p), C(v.x), C(v.y) : "memory"); \
	}
#define GTRACE_ST4(H, T, PT, C)                                                          \
	GTRACE_D void __st##H(T *p, T v)                                                 \
	{                                                                                \
		asm volatile("st.global." #H ".v4." #PT " [%0], {%1, %2, %3, %4};"         \
			     ::"l"(p), C(v.x), C(v.y), C(v.z), C(v.w) : "memory");         \
	}
// GTRACE_HINT(OP, H) defines OP (GTRACE_LD or GTRACE_ST) with operator H on each type.
#define GTRACE_HINT(OP, H)                            \
	OP##1(H, int, s32, "r")                       \
	OP##1(H, unsigned int, u32, "r")              \
	OP##1(H, long long, s64, "l")                 \
	OP##1(H, unsigned long long, u64, "l")        \
	OP##1(H, float, f32, "f")                     \
	OP##1(H, double, f64, "d")                    \
	OP##2(H, int2, s32, "r")                      \
	OP##2(H, uint2, u32, "r")                     \
	OP##2(H, float2, f32, "f")                    \
	OP##2(H, longlong2, s64, "l")                 \
	OP##2(H, ulonglong2, u64, "l")                \
	OP##2(H, double2, f64, "d")                   \
	OP##4(H, int4, s32, "r")                      \
	OP##4(H, uint4, u32, "r")                     \
	OP##4(H, float4, f32, "f")
GTRACE_HINT(GTRACE_LD, ca)
GTRACE_HINT(GTRACE_LD, cg)
GTRACE_HINT(GTRACE_LD, cs)
GTRACE_HINT(GTRACE_LD, lu)
GTRACE_HINT(GTRACE_LD, cv)
GTRACE_HINT(GTRACE_ST, wb)
GTRACE_HINT(GTRACE_ST, cg)
GTRACE_HINT(GTRACE_ST, cs)
GTRACE_HINT(GTRACE_ST, wt)
#undef GTRACE_HINT
#undef GTRACE_LD1
#undef GTRACE_LD2
#undef GTRACE_LD4
#undef GTRACE_ST1
#undef GTRACE_ST2
#undef GTRACE_ST4

// ---- Integer intrinsics (CUDA Math API, "Integer Intrinsics") ------------------
// popc, clz and brev as inline PTX: clz of 0 is 32 (64) there, where
// __builtin_clz(0) is undefined.
GTRACE_D int __popc(unsigned int x)
{
	int r;
	asm("popc.b32 %0, %1;" : "=r"(r) : "r"(x));
	return r;
}
GTRACE_D int __popcll(unsigned long long x)
{
	int r;
	asm("popc.b64 %0, %1;" : "=r"(r) : "l"(x));
	return r;
}
GTRACE_D int __clz(int x)
{
	int r;
	asm("clz.b32 %0, %1;" : "=r"(r) : "r"(x));
	return r;
}
GTRACE_D int __clzll(long long x)
{
	int r;
	asm("clz.b64 %0, %1;" : "=r"(r) : "l"(x));
	return r;
}
GTRACE_D unsigned int __brev(unsigned int x)
{
	unsigned int r;
	asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x));
	return r;
}
GTRACE_D unsigned long long __brevll(unsigned long long x)
{
	unsigned long long r;
	asm("brev.b64 %0, %1;" : "=l"(r) : "l"(x));
	return r;
}
GTRACE_D int __ffs(int x) { return x == 0 ? 0 : __clz((int)__brev((unsigned int)x)) + 1; }
GTRACE_D int __ffsll(long long x) { return x == 0 ? 0 : __clzll((long long)__brevll((unsigned long long)x)) + 1; }
GTRACE_D int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
GTRACE_D unsigned int __umulhi(unsigned int a, unsigned int b) { return __nvvm_mulhi_ui(a, b); }
GTRACE_D long long __mul64hi(long long a, long long b) { return __nvvm_mulhi_ll(a, b); }
GTRACE_D unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return __nvvm_mulhi_ull(a, b); }
GTRACE_D int __mul24(int a, int b) { return __nvvm_mul24_i(a, b); }
GTRACE_D unsigned int __umul24(unsigned int a, unsigned int b) { return __nvvm_mul24_ui(a, b); }
GTRACE_D unsigned int __byte_perm(unsigned int a, unsigned int b, unsigned int s) { return __nvvm_prmt(a, b, s); }
// Integer intrinsics that are one PTX instruction each (CUDA Math API, "Integer
// Intrinsics"): sad, dp4a, dp2a, fns.
GTRACE_D unsigned int __sad(int x, int y, unsigned int z)
{
	unsigned int r;
	asm("sad.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
	return r;
}
GTRACE_D unsigned int __usad(unsigned int x, unsigned int y, unsigned int z)
{
	unsigned int r;
	asm("sad.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
	return r;
}
#define GTRACE_DOT(NAME, INST, T, TC)                                      \
	GTRACE_D TC NAME(T a, T b, TC c)                                   \
	{                                                                  \
		TC r;                                                      \
		asm(INST " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
		return r;                                                  \
	}
GTRACE_DOT(__dp4a, "dp4a.s32.s32", int, int)
GTRACE_DOT(__dp4a, "dp4a.u32.u32", unsigned int, unsigned int)
GTRACE_DOT(__dp2a_lo, "dp2a.lo.s32.s32", int, int)
GTRACE_DOT(__dp2a_lo, "dp2a.lo.u32.u32", unsigned int, unsigned int)
GTRACE_DOT(__dp2a_hi, "dp2a.hi.s32.s32", int, int)
GTRACE_DOT(__dp2a_hi, "dp2a.hi.u32.u32", unsigned int, unsigned int)
#undef GTRACE_DOT
GTRACE_D int __dp4a(char4 a, char4 b, int c) { return __dp4a(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c); }
GTRACE_D unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c)
{
	return __dp4a(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}
GTRACE_D unsigned int __fns(unsigned int mask, unsigned int base, int offset)
{
	unsigned int r;
	asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(mask), "r"(base), "r"(offset));
	return r;
}
#define GTRACE_SHF(NAME, MODE)                                                            \
	GTRACE_D unsigned int NAME(unsigned int lo, unsigned int hi, unsigned int s)      \
	{                                                                                 \
		unsigned int r;                                                           \
		asm("shf." MODE ".b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s)); \
		return r;                                                                 \
	}
GTRACE_SHF(__funnelshift_l, "l.wrap")
GTRACE_SHF(__funnelshift_r, "r.wrap")
GTRACE_SHF(__funnelshift_lc, "l.clamp")
GTRACE_SHF(__funnelshift_rc, "r.clamp")
#undef GTRACE_SHF

// min and max as CUDA's device overloads.
#define GTRACE_MINMAX(T)                                  \
	GTRACE_D T min(T a, T b) { return a < b ? a : b; } \
	GTRACE_D T max(T a, T b) { return a > b ? a : b; }
GTRACE_MINMAX(int)
GTRACE_MINMAX(unsigned int)
GTRACE_MINMAX(long)
GTRACE_MINMAX(unsigned long)
GTRACE_MINMAX(long long)
GTRACE_MINMAX(unsigned long long)
#undef GTRACE_MINMAX
GTRACE_D float min(float a, float b) { return __nvvm_fmin_f(a, b); }
GTRACE_D float max(float a, float b) { return __nvvm_fmax_f(a, b); }
GTRACE_D double min(double a, double b) { return __nvvm_fmin_d(a, b); }
GTRACE_D double max(double a, double b) { return __nvvm_fmax_d(a, b); }
GTRACE_D unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
GTRACE_D unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
GTRACE_D long long llmin(long long a, long long b) { return a < b ? a : b; }
GTRACE_D long long llmax(long long a, long long b) { return a > b ? a : b; }
GTRACE_D int abs(int x) { return x < 0 ? -x : x; }
GTRACE_D long labs(long x) { return x < 0 ? -x : x; }
GTRACE_D long long llabs(long long x) { return x < 0 ? -x : x; }

// ---- Bit casts and conversions (CUDA Math API, "Type Casting Intrinsics") -------
GTRACE_D int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
GTRACE_D unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
GTRACE_D float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
GTRACE_D float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
GTRACE_D long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
GTRACE_D double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
GTRACE_D int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
GTRACE_D int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
GTRACE_D double __hiloint2double(int hi, int lo)
{
	return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);
}
GTRACE_D int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
GTRACE_D int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
GTRACE_D int __float2int_rd(float x) { return __nvvm_f2i_rm(x); }
GTRACE_D int __float2int_ru(float x) { return __nvvm_f2i_rp(x); }
GTRACE_D unsigned int __float2uint_rn(float x) { return __nvvm_f2ui_rn(x); }
GTRACE_D unsigned int __float2uint_rz(float x) { return __nvvm_f2ui_rz(x); }
GTRACE_D unsigned int __float2uint_rd(float x) { return __nvvm_f2ui_rm(x); }
GTRACE_D unsigned int __float2uint_ru(float x) { return __nvvm_f2ui_rp(x); }
GTRACE_D float __int2float_rn(int x) { return __nvvm_i2f_rn(x); }
GTRACE_D float __uint2float_rn(unsigned int x) { return __nvvm_ui2f_rn(x); }
GTRACE_D float __double2float_rn(double x) { return __nvvm_d2f_rn(x); }
GTRACE_D int __double2int_rn(double x) { return __nvvm_d2i_rn(x); }
GTRACE_D long long __float2ll_rn(float x) { return __nvvm_f2ll_rn(x); }
GTRACE_D long long __float2ll_rz(float x) { return __nvvm_f2ll_rz(x); }
GTRACE_D long long __double2ll_rn(double x) { return __nvvm_d2ll_rn(x); }
GTRACE_D long long __double2ll_rz(double x) { return __nvvm_d2ll_rz(x); }

// ---- Floating point: the functions that are one correctly rounded or exact PTX
// instruction (CUDA Math API: 0 ulp), and the intrinsics that the Programming
// Guide ("Intrinsic Functions") defines as the hardware's approximate instruction.
GTRACE_D float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
GTRACE_D double sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
GTRACE_D float fabsf(float x) { return __nvvm_fabs_f(x); }
GTRACE_D double fabs(double x) { return __nvvm_fabs_d(x); }
GTRACE_D float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
GTRACE_D float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
GTRACE_D double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
GTRACE_D double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
GTRACE_D float floorf(float x) { return __nvvm_floor_f(x); }
GTRACE_D float ceilf(float x) { return __nvvm_ceil_f(x); }
GTRACE_D float truncf(float x) { return __nvvm_trunc_f(x); }
// rintf: cvt.rni (to nearest, ties to even); clang-14's __nvvm_round_f is roundf's
// ties away from zero.
GTRACE_D float rintf(float x) { return __builtin_rintf(x); }
GTRACE_D float nearbyintf(float x) { return __builtin_rintf(x); }
GTRACE_D float roundf(float x) { return __nvvm_round_f(x); }
GTRACE_D double floor(double x) { return __nvvm_floor_d(x); }
GTRACE_D double ceil(double x) { return __nvvm_ceil_d(x); }
GTRACE_D double trunc(double x) { return __nvvm_trunc_d(x); }
GTRACE_D double rint(double x) { return __builtin_rint(x); }
GTRACE_D double round(double x) { return __nvvm_round_d(x); }
GTRACE_D float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
GTRACE_D double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
// A function of two operands that is one PTX instruction, written as inline PTX so
// that clang neither expands nor merges it: OPS orders the operands (%1 is a, %2 is b).
#define GTRACE_PTX2(T, NAME, C, INS, OPS) \
	GTRACE_D T NAME(T a, T b) \
	{ \
		T r; \
		asm(INS " %0, " OPS ";" : "=" C(r) : C(a), C(b)); \
		return r; \
	}
// copysign is one PTX instruction (d takes the sign of its first source, the
// magnitude of its second), where clang-14 writes an abs, a neg and a select on the sign.
GTRACE_PTX2(float, copysignf, "f", "copysign.f32", "%2, %1")
GTRACE_PTX2(double, copysign, "d", "copysign.f64", "%2, %1")
// __fadd_rn, __fmul_rn and the double forms are never merged into an fma (CUDA Math
// API). clang-14 folds __nvvm_add_rn_f/__nvvm_mul_rn_f into plain fadd/fmul, which it then
// contracts, so these are inline PTX.
GTRACE_PTX2(float, __fadd_rn, "f", "add.rn.f32", "%1, %2")
GTRACE_D float __fadd_rz(float a, float b) { return __nvvm_add_rz_f(a, b); }
GTRACE_PTX2(float, __fmul_rn, "f", "mul.rn.f32", "%1, %2")
GTRACE_D float __fmul_rz(float a, float b) { return __nvvm_mul_rz_f(a, b); }
GTRACE_D float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
GTRACE_D float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
GTRACE_D float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }
GTRACE_D float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
GTRACE_PTX2(double, __dadd_rn, "d", "add.rn.f64", "%1, %2")
GTRACE_PTX2(double, __dmul_rn, "d", "mul.rn.f64", "%1, %2")
GTRACE_D double __fma_rn(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
GTRACE_D double __dsqrt_rn(double x) { return __nvvm_sqrt_rn_d(x); }
GTRACE_D float __saturatef(float x) { return __nvvm_saturate_f(x); }
GTRACE_D float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
// rsqrtf: libdevice's __nv_rsqrtf is rsqrt.approx.f32 (2 ulp, CUDA Math API).
GTRACE_D float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
// __expf, __exp10f, __logf, __log2f, __log10f, __sinf, __cosf, __tanf, __powf: the
// Programming Guide's "Intrinsic Functions" table; ex2/lg2/sin/cos .approx.ftz.
GTRACE_D float __expf(float x) { return __nvvm_ex2_approx_ftz_f(x * 1.4426950408889634f); }
GTRACE_D float __exp10f(float x) { return __nvvm_ex2_approx_ftz_f(x * 3.3219280948873623f); }
GTRACE_D float __log2f(float x) { return __nvvm_lg2_approx_ftz_f(x); }
GTRACE_D float __logf(float x) { return __nvvm_lg2_approx_ftz_f(x) * 0.6931471805599453f; }
GTRACE_D float __log10f(float x) { return __nvvm_lg2_approx_ftz_f(x) * 0.3010299956639812f; }
GTRACE_D float __sinf(float x) { return __nvvm_sin_approx_ftz_f(x); }
GTRACE_D float __cosf(float x) { return __nvvm_cos_approx_ftz_f(x); }
GTRACE_D float __tanf(float x) { return __nvvm_div_approx_f(__nvvm_sin_approx_ftz_f(x), __nvvm_cos_approx_ftz_f(x)); }
GTRACE_D void __sincosf(float x, float *s, float *c)
{
	*s = __nvvm_sin_approx_ftz_f(x);
	*c = __nvvm_cos_approx_ftz_f(x);
}
GTRACE_D float __powf(float a, float b) { return __nvvm_ex2_approx_ftz_f(b * __nvvm_lg2_approx_ftz_f(a)); }

#include "gtrace_math.h"
#include "gtrace_simd.h"

// ---- Host side: declarations only (a device-only compile parses host code) -------
typedef enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 } cudaError_t;
enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
extern "C" {
__host__ cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
__host__ unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, void *stream = 0);
__host__ cudaError_t cudaMalloc(void **p, size_t size);
__host__ cudaError_t cudaMallocHost(void **p, size_t size);
__host__ cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int flags = 1);
__host__ cudaError_t cudaFree(void *p);
__host__ cudaError_t cudaFreeHost(void *p);
__host__ cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s = 0);
__host__ cudaError_t cudaMemset(void *p, int v, size_t n);
__host__ cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off = 0,
					enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
__host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off = 0,
					  enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
__host__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaDeviceReset(void);
__host__ cudaError_t cudaSetDevice(int dev);
__host__ cudaError_t cudaGetDevice(int *dev);
__host__ cudaError_t cudaGetDeviceCount(int *n);
__host__ cudaError_t cudaGetLastError(void);
__host__ cudaError_t cudaPeekAtLastError(void);
__host__ const char *cudaGetErrorString(cudaError_t err);
__host__ const char *cudaGetErrorName(cudaError_t err);
__host__ cudaError_t cudaStreamCreate(cudaStream_t *s);
__host__ cudaError_t cudaStreamDestroy(cudaStream_t s);
__host__ cudaError_t cudaStreamSynchronize(cudaStream_t s);
__host__ cudaError_t cudaEventCreate(cudaEvent_t *e);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t e);
__host__ cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t e);
__host__ cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
__host__ cudaError_t cudaFuncSetAttribute(const void *f, int attr, int value);
}
template <class T> static __host__ inline cudaError_t cudaMalloc(T **p, size_t size) { return cudaMalloc((void **)p, size); }
template <class T> static __host__ inline cudaError_t cudaMallocHost(T **p, size_t size)
{
	return cudaMallocHost((void **)p, size);
}
template <class T> static __host__ inline cudaError_t cudaMallocManaged(T **p, size_t size, unsigned int flags = 1)
{
	return cudaMallocManaged((void **)p, size, flags);
}
template <class T>
static __host__ inline cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n, size_t off = 0,
						      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
	return cudaMemcpyToSymbol((const void *)&sym, src, n, off, kind);
}
template <class T>
static __host__ inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
							enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
	return cudaMemcpyFromSymbol(dst, (const void *)&sym, n, off, kind);
}

#include "gtrace_texture.h"

#undef GTRACE_D
#undef GTRACE_HD

#endif // !__NVCC__ && !__CLANG_CUDA_RUNTIME_WRAPPER_H__
#endif // GTRACE_CUDA_RUNTIME_H
