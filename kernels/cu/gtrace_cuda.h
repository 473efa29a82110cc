// gtrace_cuda.h: the little that the reference kernels need from the CUDA
// headers, so that they compile with clang-14 -nocudainc -nocudalib (no CUDA
// SDK installed) as well as with nvcc, from the same source.
//
// Under nvcc, cuda_runtime.h already defines all of this; only the texture
// helper at the end is ours in both cases, so both producers emit the same
// tex instruction.
#ifndef GTRACE_CUDA_H
#define GTRACE_CUDA_H

#if !defined(__NVCC__) && !defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
// clang -nocudainc: no CUDA headers at all. These are the attributes that
// cuda_runtime.h would define as macros.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
// threadIdx, blockIdx, blockDim, gridDim, warpSize.
#include "__clang_cuda_builtin_vars.h"

// CUDA's int4 is a 16-byte aligned struct. Clang copies such a struct as two
// 8-byte halves; an ext_vector_type keeps the single 16-byte access
// (ld.global.nc.v4.u32) that the seed's copy4 is about, as nvcc emits it, and
// still has .x .y .z .w.
typedef int int4 __attribute__((ext_vector_type(4)));

// __syncthreads is a clang builtin for NVPTX (bar.sync 0). The rest map to the
// NVVM builtins that clang's own __clang_cuda_device_functions.h uses.
static __device__ __forceinline__ void __threadfence(void) { __nvvm_membar_gl(); }
static __device__ __forceinline__ int atomicCAS(int *p, int compare, int val)
{
	return __nvvm_atom_cas_gen_i(p, compare, val);
}
static __device__ __forceinline__ int atomicExch(int *p, int val)
{
	return __nvvm_atom_xchg_gen_i(p, val);
}
#endif

// tex2D_f32 reads texel (x, y) of a 2D texture object holding one float per
// texel, with integer (unnormalised) coordinates: point sampling, clamp at the
// border. It stands in for CUDA's tex2D<float>(tex, x, y), which clang without
// the CUDA headers does not have; nvcc compiles the same asm, so both corpora
// carry the same instruction. Only the first of the four returned components
// is meaningful for a one-channel texture.
#ifdef __NVCC__
// nvcc warns that g, b and a below are set but not used; they are the tex
// instruction's other outputs, which a one-channel texture leaves unused.
#pragma nv_diag_suppress 550
#endif
static __device__ __forceinline__ float tex2D_f32(unsigned long long tex, int x, int y)
{
	float r, g, b, a;
	asm("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
	    : "=f"(r), "=f"(g), "=f"(b), "=f"(a)
	    : "l"(tex), "r"(x), "r"(y));
	return r;
}

#endif
