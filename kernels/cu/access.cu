// Access patterns of the held-out validation set of issue 11 (kernels.HeldOut):
// kernels the models were never tuned on, each with a size that sweeps what
// the hardware has to handle.
//
// gather reads in a scattered order and writes in order; scatter reads in
// order and writes scattered. The order is i * 2654435761 mod n (Knuth's
// multiplicative hash), a permutation when n is a power of two, so every
// element moves exactly once. strided reads every stride-th element.
// shared_sweep fills and reads back a dynamic shared-memory array of any size
// up to the per-CTA maximum. constant_lanes reads __constant__ memory at
// `distinct` different addresses per warp (1 to 32), each in its own 128-byte
// line.
#include "gtrace_cuda.h"

__constant__ float c_table[1024];

__device__ __forceinline__ unsigned hashed(int i, int n) { return ((unsigned)i * 2654435761u) & (unsigned)(n - 1); }

extern "C" __global__ void gather(const float *__restrict in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[hashed(i, n)];
}

extern "C" __global__ void scatter(const float *__restrict in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[hashed(i, n)] = in[i];
}

extern "C" __global__ void strided(const float *__restrict in, float *out, int n, int stride)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[(long long)i * stride];
}

extern "C" __global__ void shared_sweep(unsigned *out, int words)
{
	extern __shared__ unsigned sweep[];
	for (int i = threadIdx.x; i < words; i += blockDim.x)
		sweep[i] = 3u * i + blockIdx.x;
	__syncthreads();
	unsigned acc = 0;
	for (int i = threadIdx.x; i < words; i += blockDim.x)
		acc += sweep[words - 1 - i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void constant_lanes(float *out, int distinct, int iters)
{
	int base = (threadIdx.x % 32 % distinct) * 32;
	float acc = 0.0f;
	for (int k = 0; k < iters; k++)
		acc += c_table[(base + k) & 1023];
	out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
