// Stream compaction and an algorithm-cascading reduction, from the
// optimisation-techniques seed (optimization-techniques-layout-scatter-tiling:
// "Compaction", "Algorithm Cascading").
//
// compact_atomic and compact_warp copy the elements of in below `below` to the
// front of out, in no particular order, and leave their number in *count.
// compact_atomic takes one slot per kept element with its own atomicAdd on the
// one counter: every kept lane of a warp adds to the same word. compact_warp
// aggregates per warp: a ballot of the kept lanes, one atomicAdd of its popcount
// by the first kept lane, the base shuffled to the warp, and each kept lane's
// slot the count of kept lanes below it (NVIDIA's "Optimized filtering with
// warp-aggregated atomics"). The order of the kept elements in out depends on
// the order the atomics ran in; what every order keeps is the set.
//
// reduce_cascade is a reduction cascaded as in PMPP 3rd ed. 8.5 and the UIUC
// 408 reduction lecture: each thread first adds its elements sequentially (a
// grid-stride loop over n, so a small grid reads everything), then the block
// adds its 256 sums in a shared-memory tree with sequential addressing
// (reduction.cu's V3). The grid is a size, so that the sequential share per
// thread is what a launch varies: few blocks, long loops and one tree each.
#include "gtrace_cuda.h"

extern "C" __global__ void compact_atomic(const int *__restrict in, int *out, int *count, int n, int below)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int v = in[i];
		if (v < below)
			out[atomicAdd(count, 1)] = v;
	}
}

extern "C" __global__ void compact_warp(const int *__restrict in, int *out, int *count, int n, int below)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = 0;
	if (i < n)
		v = in[i];
	bool keep = i < n && v < below;
	// Every lane of the warp gets here (blockDim.x is a multiple of 32).
	unsigned int kept = __ballot_sync(0xffffffffu, keep);
	if (kept == 0)
		return;
	int lane = threadIdx.x & 31;
	int leader = __ffs(kept) - 1;
	int base = 0;
	if (lane == leader)
		base = atomicAdd(count, __popc(kept));
	base = __shfl_sync(0xffffffffu, base, leader);
	if (keep)
		out[base + __popc(kept & ((1u << lane) - 1u))] = v;
}

extern __shared__ float partial[];

extern "C" __global__ void reduce_cascade(const float *in, float *out, int n)
{
	float s = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		s += in[i];
	partial[threadIdx.x] = s;
	__syncthreads();
	for (int c = blockDim.x / 2; c > 0; c >>= 1) {
		if (threadIdx.x < c)
			partial[threadIdx.x] += partial[threadIdx.x + c];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = partial[0];
}
