// Divergence examples of the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces) and the warp-partitioning
// example of the coalescing seed (cuda-performance-coalescing-banks-reduction).
//
// A, B and C are __noinline__ device functions (.func in PTX), as in the
// seed's CRS-stack example where each is a call: a compiler would otherwise
// turn small branch bodies into predicated code or selects and there would be
// no divergent branch left to see.
#include "gtrace_cuda.h"

static __device__ __noinline__ void A(int *p) { *p = *p * 3 + 1; }
static __device__ __noinline__ void B(int *p) { *p = *p - 7; }
static __device__ __noinline__ void C(int *p) { *p = *p ^ 0x55; }

// "if (threadIdx.x & 0x4) A(); else B(); C();": lanes 4-7, 12-15, ... take A,
// the others B, and all reconverge for C.
extern "C" __global__ void divergence_if_else(int *out)
{
	int *p = &out[blockIdx.x * blockDim.x + threadIdx.x];
	if (threadIdx.x & 0x4) {
		A(p);
	} else {
		B(p);
	}
	C(p);
}

// Example 2, nested: the seed's second listing, a bounds test around an
// even/odd branch. The seed shows that the compiler predicates the inner
// branch instead of jumping.
extern "C" __global__ void divergence_nested(int *out, int N)
{
	unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < N) {
		if (tid % 2 == 0)
			out[tid] = out[tid] + 2;
		else
			out[tid] = out[tid] - 8;
	}
}

// Warp partitioning, on blocks of 64 threads: "threadIdx.x > 15" splits the
// first warp of each block in two, "threadIdx.x > warpSize - 1" splits the
// block on a warp boundary, so no warp diverges.
extern "C" __global__ void divergence_half_warp(int *out)
{
	int *p = &out[blockIdx.x * blockDim.x + threadIdx.x];
	if (threadIdx.x > 15) {
		A(p);
	}
	C(p);
}

extern "C" __global__ void divergence_warp_aligned(int *out)
{
	int *p = &out[blockIdx.x * blockDim.x + threadIdx.x];
	if (threadIdx.x > warpSize - 1) {
		A(p);
	}
	C(p);
}
