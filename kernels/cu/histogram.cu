// Histograms, the privatisation example of the optimisation-techniques seed
// (optimization-techniques-layout-scatter-tiling): every thread adds one to the
// bin of its input element. They are part of the held-out validation set of
// issue 11 (kernels.HeldOut): bins from 1 (every atomic of the grid on one word)
// to 4096.
//
// hist_global adds with atomics whose result is never read: ptxas makes RED of
// them and ncu counts op_red. hist_global_ret keeps each old value (a ticket),
// so its atomics return: ATOM, op_atom. hist_shared privatises: each block
// counts into a shared-memory copy of the bins (dynamic shared memory, 4 bytes
// a bin), then adds its non-zero bins to the global histogram. hist_warp
// privatises further: each warp counts into its own copy (4 bytes a bin a warp),
// so the shared atomics of different warps never meet on one word, and the block
// sums the copies before its one global atomicAdd per non-zero bin.
#include "gtrace_cuda.h"

extern "C" __global__ void hist_global(const unsigned *__restrict in, unsigned *hist, int n, unsigned bins)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&hist[in[i] & (bins - 1)], 1u);
}

extern "C" __global__ void hist_global_ret(const unsigned *__restrict in, unsigned *hist, unsigned *ticket, int n,
					   unsigned bins)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		ticket[i] = atomicAdd(&hist[in[i] & (bins - 1)], 1u);
}

extern "C" __global__ void hist_shared(const unsigned *__restrict in, unsigned *hist, int n, unsigned bins)
{
	extern __shared__ unsigned bin[];
	for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
		bin[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&bin[in[i] & (bins - 1)], 1u);
	__syncthreads();
	for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
		if (bin[b] != 0)
			atomicAdd(&hist[b], bin[b]);
}

extern "C" __global__ void hist_warp(const unsigned *__restrict in, unsigned *hist, int n, unsigned bins)
{
	extern __shared__ unsigned bin[];
	unsigned warps = blockDim.x / 32;
	unsigned *mine = bin + (threadIdx.x / 32) * bins;
	for (unsigned b = threadIdx.x; b < bins * warps; b += blockDim.x)
		bin[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&mine[in[i] & (bins - 1)], 1u);
	__syncthreads();
	for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) {
		unsigned c = 0;
		for (unsigned w = 0; w < warps; w++)
			c += bin[w * bins + b];
		if (c != 0)
			atomicAdd(&hist[b], c);
	}
}
