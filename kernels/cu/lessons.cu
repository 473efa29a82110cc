// The optimisation-techniques seed (optimization-techniques-layout-scatter-tiling)
// and seed 004 (memory-types-and-tiling), kernels that the other files lack:
//
// conv1d_scatter and conv1d_gather compute the same 7-point integer convolution,
// out[j] = sum over k of w[k] * in[j + k - R]. Scatter is parallel over the input:
// thread i adds its element's 7 contributions to 7 outputs with atomics whose result
// is never read (RED). Gather is parallel over the output ("owner computes"): thread
// j reads its 7 inputs and writes its one output with a plain store, no atomics.
// Integer sums wrap the same in any order, so both match one Go reference exactly.
//
// saxpy_c1 .. saxpy_c8 are thread coarsening: y = a x + y with each thread doing
// C elements, C a compile-time factor, so the grid shrinks C-fold; block b covers
// 256 C contiguous elements and its threads' j-th elements are contiguous, so every
// load stays coalesced, and the unrolled loads are independent (ILP).
// saxpy_gridstride is the seed's grid-stride loop: any grid covers any n.
//
// matmul_naive is seed 004's matrix multiply with no tiling: every thread reads a
// row of M and a column of N from global memory, 2 loads (8 bytes) per fused
// multiply-add (2 FLOPs), 0.25 FLOP/B; tiled_matmul_bounds (volkov.cu) is the same
// computation with 16x16 shared-memory tiles, 4 FLOP/B.
#include "gtrace_cuda.h"

#define R 3

extern "C" __global__ void conv1d_scatter(const int *__restrict in, int *out, int n)
{
	const int w[2 * R + 1] = {1, 2, 3, 4, 3, 2, 1};
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int v = in[i];
#pragma unroll
	for (int k = 0; k <= 2 * R; k++) {
		int j = i - k + R;
		if (j >= 0 && j < n)
			atomicAdd(&out[j], w[k] * v);
	}
}

extern "C" __global__ void conv1d_gather(const int *__restrict in, int *out, int n)
{
	const int w[2 * R + 1] = {1, 2, 3, 4, 3, 2, 1};
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	int s = 0;
#pragma unroll
	for (int k = 0; k <= 2 * R; k++) {
		int i = j + k - R;
		if (i >= 0 && i < n)
			s += w[k] * in[i];
	}
	out[j] = s;
}

template <int C> static __device__ __forceinline__ void saxpyN(float a, const float *__restrict x, float *__restrict y, int n)
{
	int base = blockIdx.x * blockDim.x * C + threadIdx.x;
	float xv[C], yv[C];
#pragma unroll
	for (int j = 0; j < C; j++) {
		int i = base + j * blockDim.x;
		if (i < n) {
			xv[j] = x[i];
			yv[j] = y[i];
		}
	}
#pragma unroll
	for (int j = 0; j < C; j++) {
		int i = base + j * blockDim.x;
		if (i < n)
			y[i] = a * xv[j] + yv[j];
	}
}

extern "C" __global__ void saxpy_c1(float a, const float *__restrict x, float *__restrict y, int n) { saxpyN<1>(a, x, y, n); }
extern "C" __global__ void saxpy_c2(float a, const float *__restrict x, float *__restrict y, int n) { saxpyN<2>(a, x, y, n); }
extern "C" __global__ void saxpy_c4(float a, const float *__restrict x, float *__restrict y, int n) { saxpyN<4>(a, x, y, n); }
extern "C" __global__ void saxpy_c8(float a, const float *__restrict x, float *__restrict y, int n) { saxpyN<8>(a, x, y, n); }

extern "C" __global__ void saxpy_gridstride(float a, const float *__restrict x, float *__restrict y, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

extern "C" __global__ void matmul_naive(const float *M, const float *N, float *P, int Width)
{
	int Row = blockIdx.y * blockDim.y + threadIdx.y;
	int Col = blockIdx.x * blockDim.x + threadIdx.x;
	if (Row < Width && Col < Width) {
		float Pvalue = 0;
		for (int k = 0; k < Width; ++k)
			Pvalue += M[Row * Width + k] * N[k * Width + Col];
		P[Row * Width + Col] = Pvalue;
	}
}
