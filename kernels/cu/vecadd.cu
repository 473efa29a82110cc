// Vector add: the first kernel of the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces), launched there with 512 threads
// per block and ceil(N/512) blocks.
#include "gtrace_cuda.h"

extern "C" __global__ void add_vectors_kernel(float *c, const float *a, const float *b, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
		c[i] = a[i] + b[i];
}
