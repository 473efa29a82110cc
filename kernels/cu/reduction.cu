// Parallel reduction V1-V5.2 of the coalescing seed
// (cuda-performance-coalescing-banks-reduction). Each kernel is one pass: block
// b writes the sum of its part of the input to d_odata[b]. The seed runs the
// pass again on those partial sums; gtrace captures the first, large pass.
//
// The seed shows only the part of each version that changes ("step 1 and 2
// ..."). Steps are cumulative, as in the seed: V4.1 adds two elements on load,
// V4.2 adds TILE; V5.1 and V5.2 keep V4.2's load and change only step 3. For
// the adds on load, step 1 has each block start at blockIdx.x * blockDim.x *
// (elements per thread), which the seed leaves out.
//
// All versions leave smem[threadIdx.x] unset when idx >= n, as the seed does,
// so n must be a multiple of the elements one block consumes.
#include "gtrace_cuda.h"

#define TILE 8

// Dynamic allocation of shared memory: blockDim.x floats, set at launch.
extern __shared__ float smem[];

// V1: interleaved addressing with %: divergent in every warp.
extern "C" __global__ void reduce_v1(const float *d_idata, float *d_odata, int n)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;

	if (idx < n) {
		smem[threadIdx.x] = d_idata[idx];
	}
	__syncthreads();

	for (int c = 1; c < blockDim.x; c *= 2) {
		if (threadIdx.x % (2 * c) == 0) {
			smem[threadIdx.x] += smem[threadIdx.x + c];
		}
		__syncthreads();
	}

	if (threadIdx.x == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

// V2: strided index; no divergence except in the last warps, but bank
// conflicts.
extern "C" __global__ void reduce_v2(const float *d_idata, float *d_odata, int n)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;

	if (idx < n) {
		smem[threadIdx.x] = d_idata[idx];
	}
	__syncthreads();

	for (int c = 1; c < blockDim.x; c *= 2) {
		int index = threadIdx.x * 2 * c;
		if (index < blockDim.x) {
			smem[index] += smem[index + c];
		}
		__syncthreads();
	}

	if (threadIdx.x == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

// V3: sequential addressing.
extern "C" __global__ void reduce_v3(const float *d_idata, float *d_odata, int n)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;

	if (idx < n) {
		smem[threadIdx.x] = d_idata[idx];
	}
	__syncthreads();

	for (int c = blockDim.x / 2; c > 0; c >>= 1) {
		if (threadIdx.x < c) {
			smem[threadIdx.x] += smem[threadIdx.x + c];
		}
		__syncthreads();
	}

	if (threadIdx.x == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

// V4.1: V3 with one add on load; each block consumes 2 * blockDim.x elements.
extern "C" __global__ void reduce_v4_1(const float *d_idata, float *d_odata, int n)
{
	int idx = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

	if (idx < n) {
		smem[threadIdx.x] = d_idata[idx];
		// Copy and add block data into shared memory
		if (idx + blockDim.x < n) {
			smem[threadIdx.x] += d_idata[idx + blockDim.x];
		}
	}
	__syncthreads();

	for (int c = blockDim.x / 2; c > 0; c >>= 1) {
		if (threadIdx.x < c) {
			smem[threadIdx.x] += smem[threadIdx.x + c];
		}
		__syncthreads();
	}

	if (threadIdx.x == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

// Step 2 of V4.2, V5.1 and V5.2: TILE adds on load; each block consumes
// TILE * blockDim.x elements.
static __device__ __forceinline__ void loadTile(const float *d_idata, int n)
{
	int idx = blockIdx.x * (blockDim.x * TILE) + threadIdx.x;

	if (idx < n) {
		smem[threadIdx.x] = 0; // Start with identity
		for (int c = 0; c < TILE; c++) {
			// Copy and add block data with block offset into shared memory
			if (idx + c * blockDim.x < n) {
				smem[threadIdx.x] += d_idata[idx + c * blockDim.x];
			}
		}
	}
	__syncthreads();
}

// V4.2: V3 with TILE adds on load.
extern "C" __global__ void reduce_v4_2(const float *d_idata, float *d_odata, int n)
{
	loadTile(d_idata, n);

	for (int c = blockDim.x / 2; c > 0; c >>= 1) {
		if (threadIdx.x < c) {
			smem[threadIdx.x] += smem[threadIdx.x + c];
		}
		__syncthreads();
	}

	if (threadIdx.x == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

// The last warp, unrolled. volatile keeps every load and store in shared
// memory, in order: the lanes of the warp rely on running in lockstep.
static __device__ __forceinline__ void warpReduce(volatile float *smem, int tid)
{
	smem[tid] += smem[tid + 32];
	smem[tid] += smem[tid + 16];
	smem[tid] += smem[tid + 8];
	smem[tid] += smem[tid + 4];
	smem[tid] += smem[tid + 2];
	smem[tid] += smem[tid + 1];
}

// V5.1: V4.2 with the last warp unrolled (needs blockDim.x >= 64).
extern "C" __global__ void reduce_v5_1(const float *d_idata, float *d_odata, int n)
{
	loadTile(d_idata, n);

	for (int c = blockDim.x / 2; c > 32; c >>= 1) {
		if (threadIdx.x < c) {
			smem[threadIdx.x] += smem[threadIdx.x + c];
		}
		__syncthreads();
	}

	if (threadIdx.x < 32) {
		warpReduce(smem, threadIdx.x);
	}

	if (threadIdx.x == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

// V5.2: complete unroll for a block size known at compile time.
template <unsigned int blockSize>
static __device__ __forceinline__ void reduce_v5_2T(const float *d_idata, float *d_odata, int n)
{
	unsigned int tid = threadIdx.x;

	loadTile(d_idata, n);

	if (blockSize >= 1024) {
		if (tid < 512) { smem[tid] += smem[tid + 512]; } __syncthreads();
	}
	if (blockSize >= 512) {
		if (tid < 256) { smem[tid] += smem[tid + 256]; } __syncthreads();
	}
	if (blockSize >= 256) {
		if (tid < 128) { smem[tid] += smem[tid + 128]; } __syncthreads();
	}
	if (blockSize >= 128) {
		if (tid < 64) { smem[tid] += smem[tid + 64]; } __syncthreads();
	}

	if (tid < 32) {
		warpReduce(smem, tid);
	}

	if (tid == 0) {
		d_odata[blockIdx.x] = smem[0];
	}
}

extern "C" __global__ void reduce_v5_2(const float *d_idata, float *d_odata, int n)
{
	reduce_v5_2T<256>(d_idata, d_odata, n);
}
