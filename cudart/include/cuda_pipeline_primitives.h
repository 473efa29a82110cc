// cuda_pipeline_primitives.h: the pipeline primitives of the CUDA Programming Guide
// ("Pipeline Primitives Interface"), for sm_80 and later: asynchronous copies from global
// to shared memory (PTX cp.async) and their commit and wait. The forms are the ones nvcc
// 11.8's header makes: 16 bytes through .cg (L2 only), 4 and 8 through .ca, the bytes to
// copy always given as src-size = size_and_align - zfill.
//
// Under nvcc, or under clang with the real CUDA headers, the SDK's file is used.
#if defined(__NVCC__) || defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#include_next <cuda_pipeline_primitives.h>
#else
#ifndef GTRACE_CUDA_PIPELINE_PRIMITIVES_H
#define GTRACE_CUDA_PIPELINE_PRIMITIVES_H

#include "gtrace_cuda_runtime.h"

#define GTRACE_D static __device__ __forceinline__

// __pipeline_memcpy_async copies size_and_align bytes (4, 8 or 16, the alignment of
// both pointers) from src_global to dst_shared, the last zfill of them zeros.
GTRACE_D void __pipeline_memcpy_async(void *__restrict__ dst_shared, const void *__restrict__ src_global,
				      size_t size_and_align, size_t zfill = 0)
{
	unsigned int d = (unsigned int)__cvta_generic_to_shared(dst_shared);
	unsigned int n = (unsigned int)(size_and_align - zfill);
	switch (size_and_align) {
	case 16:
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src_global), "r"(n) : "memory");
		break;
	case 8:
		asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(d), "l"(src_global), "r"(n) : "memory");
		break;
	default:
		asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src_global), "r"(n) : "memory");
	}
}

// __pipeline_commit closes the batch of copies this thread issued since the last one.
GTRACE_D void __pipeline_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

// __pipeline_wait_prior waits until at most prior of this thread's batches are pending
// (cp.async.wait_group takes a constant: counts 0 to 4 are spelled out, and a larger
// one waits as 4 does, for more batches than asked, never for fewer).
GTRACE_D void __pipeline_wait_prior(size_t prior)
{
	switch (prior) {
	case 0:
		asm volatile("cp.async.wait_group 0;" ::: "memory");
		break;
	case 1:
		asm volatile("cp.async.wait_group 1;" ::: "memory");
		break;
	case 2:
		asm volatile("cp.async.wait_group 2;" ::: "memory");
		break;
	case 3:
		asm volatile("cp.async.wait_group 3;" ::: "memory");
		break;
	default:
		asm volatile("cp.async.wait_group 4;" ::: "memory");
	}
}

#undef GTRACE_D
#endif
#endif
