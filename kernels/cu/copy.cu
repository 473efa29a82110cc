// Copy kernels of the hardware-mapping seed's "vector loads / stores" part
// (cuda-hardware-mapping-simt-memory-spaces): a grid-stride scalar copy,
// the same copy with __restrict (so the loads become non-coherent,
// ld.global.nc, the seed's LDG.E.CONSTANT), and copy4, which moves an int4
// (16 bytes) per load and store.
#include "gtrace_cuda.h"

extern "C" __global__ void device_copy_scalar_kernel(int *d_in, int *d_out, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	for (int i = idx; i < N; i += blockDim.x * gridDim.x) {
		d_out[i] = d_in[i];
	}
}

extern "C" __global__ void copy(int *__restrict d_out, const int *__restrict d_in, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;

	for (int i = idx; i < N; i += blockDim.x * gridDim.x)
		d_out[i] = d_in[i];
}

extern "C" __global__ void copy4(int4 *__restrict d_out, const int4 *__restrict d_in, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;

	for (int i = idx; i < N / 4; i += blockDim.x * gridDim.x)
		d_out[i] = d_in[i];
}
