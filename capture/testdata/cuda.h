// Minimal CUDA definitions so that clang-14 compiles the test kernels without the CUDA
// SDK (-nocudainc -nocudalib). See gen.sh for the exact command.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#include "__clang_cuda_builtin_vars.h"
#define __syncthreads() __nvvm_bar_sync(0)
#define __syncwarp() __nvvm_bar_warp_sync(0xffffffff)
#define __threadfence() __nvvm_membar_gl()
#define atomicCAS(p, c, v) __nvvm_atom_cas_gen_i((int *)(p), (c), (v))
#define atomicExch(p, v) __nvvm_atom_xchg_gen_i((int *)(p), (v))
#define atomicAdd(p, v) __nvvm_atom_add_gen_i((int *)(p), (v))
#define atomicAddF(p, v) __nvvm_atom_add_gen_f((float *)(p), (v))
#define __shfl_down_sync(m, v, d) __nvvm_shfl_sync_down_i32((m), (v), (d), 0x1f)
#define __shfl_idx_sync(m, v, l) __nvvm_shfl_sync_idx_i32((m), (v), (l), 0x1f)
#define __ballot_sync(m, p) __nvvm_vote_ballot_sync((m), (p))
#define __all_sync(m, p) __nvvm_vote_all_sync((m), (p))
extern "C" __device__ int vprintf(const char *, const char *);
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ void __assertfail(const char *, const char *, unsigned, const char *, unsigned long);
