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

// conv1d_mask_global and conv1d_mask_const are one 7-point integer convolution,
// out[j] = sum over k of mask[k] * in[j + k - 3], with the mask where a first
// version puts it, in a global buffer the host passes, and where the seed's
// lesson puts it, in __constant__ memory: "small amounts of read-only data such
// as coefficients/parameters where, at every point, all threads always need to
// access the same data element". Every lane of a warp reads the same mask[k], so
// the global version spends one global load request per warp and weight, which
// the constant cache serves instead. The mask is a plain pointer (a __restrict
// one would become ld.global.nc, the read-only path; the advice is the same).
#define MASK 7

__constant__ int c_mask[MASK];

extern "C" __global__ void conv1d_mask_global(const int *in, const int *mask, int *out, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	int s = 0;
#pragma unroll
	for (int k = 0; k < MASK; k++) {
		int i = j + k - MASK / 2;
		if (i >= 0 && i < n)
			s += mask[k] * in[i];
	}
	out[j] = s;
}

extern "C" __global__ void conv1d_mask_const(const int *in, int *out, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	int s = 0;
#pragma unroll
	for (int k = 0; k < MASK; k++) {
		int i = j + k - MASK / 2;
		if (i >= 0 && i < n)
			s += c_mask[k] * in[i];
	}
	out[j] = s;
}
