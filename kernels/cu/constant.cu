// The constant-memory example of the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces), whose comments give the latency
// each load measured. The seed's kernel discards the values; here their sum
// goes to out, so the compiler keeps every load.
//
// The seed declares d_array "float* __restrict" and still sees L2 (plain)
// loads from nvcc. Clang marks any __restrict kernel pointer that the kernel
// only reads as non-coherent (ld.global.nc), so d_array is a plain pointer
// here, which keeps the seed's distinction: d_array plain, dc_array through
// the read-only path.
#include "gtrace_cuda.h"

__constant__ float c_array[128];

extern "C" __global__ void constant_access(float *d_array, const float *__restrict dc_array, float *out)
{
	float a = c_array[0];            // const cache 24cyc
	float b = c_array[blockIdx.x];   // const cache 24cyc
	float c = c_array[threadIdx.x];  // const cache 35cyc
	float d = d_array[blockIdx.x];   // L2 cache 24cyc
	float e = d_array[threadIdx.x];  // L2 cache 28cyc
	float f = dc_array[blockIdx.x];  // L1 cache 23cyc
	float g = dc_array[threadIdx.x]; // L1 cache 24cyc
	out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d + e + f + g;
}
