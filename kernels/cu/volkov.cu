// Volkov, "Better Performance at Lower Occupancy" (GTC 2010; seed
// volkov-better-performance-at-lower-occupancy), and the tiled matrix multiply
// with boundary checks of the tiling seed (memory-types-and-tiling).
#include "gtrace_cuda.h"

// CUDA's float2 and float4 under nvcc; under clang -nocudainc an
// ext_vector_type keeps the single 8- and 16-byte access (ld.global.v2/v4.f32),
// as gtrace_cuda.h does for int4.
#ifdef __NVCC__
typedef float2 float2v;
typedef float4 float4v;
#else
typedef float float2v __attribute__((ext_vector_type(2)));
typedef float float4v __attribute__((ext_vector_type(4)));
#endif

// Part I: arithmetic latency hidden by ILP. Each thread runs ILP independent
// chains of a = a * b + c (one fma each), 16 per chain per trip of the outer
// loop, unrolled; b and c are parameters so the compiler cannot fold them.
#define ILP_BODY(X) X = X * b + c;

extern "C" __global__ void volkov_ilp1(float *out, float b, float c, int iters)
{
	float a = threadIdx.x;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < 16; j++) {
			ILP_BODY(a)
		}
	}
	out[threadIdx.x] = a;
}

extern "C" __global__ void volkov_ilp2(float *out, float b, float c, int iters)
{
	float a = threadIdx.x, d = threadIdx.x + 1;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < 16; j++) {
			ILP_BODY(a)
			ILP_BODY(d)
		}
	}
	out[threadIdx.x] = a + d;
}

extern "C" __global__ void volkov_ilp3(float *out, float b, float c, int iters)
{
	float a = threadIdx.x, d = threadIdx.x + 1, e = threadIdx.x + 2;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < 16; j++) {
			ILP_BODY(a)
			ILP_BODY(d)
			ILP_BODY(e)
		}
	}
	out[threadIdx.x] = a + d + e;
}

extern "C" __global__ void volkov_ilp4(float *out, float b, float c, int iters)
{
	float a = threadIdx.x, d = threadIdx.x + 1, e = threadIdx.x + 2, f = threadIdx.x + 3;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < 16; j++) {
			ILP_BODY(a)
			ILP_BODY(d)
			ILP_BODY(e)
			ILP_BODY(f)
		}
	}
	out[threadIdx.x] = a + d + e + f;
}

// Part II: memory latency hidden by more loads in flight per thread. Thread t
// of block k copies N elements of type T, blockDim.x apart, from its block's
// N*blockDim.x span: all loads first, then all stores (Volkov's memcpy, with
// gridDim.x where the slide has blockDim.x in the block index).
template <typename T, int N> static __device__ __forceinline__ void copyN(T *dst, const T *src)
{
	int iblock = blockIdx.x + blockIdx.y * gridDim.x;
	int index = threadIdx.x + N * iblock * blockDim.x;
	T a[N];
#pragma unroll
	for (int i = 0; i < N; i++)
		a[i] = src[index + i * blockDim.x];
#pragma unroll
	for (int i = 0; i < N; i++)
		dst[index + i * blockDim.x] = a[i];
}

extern "C" __global__ void volkov_memcpy_f1(float *dst, const float *src) { copyN<float, 1>(dst, src); }
extern "C" __global__ void volkov_memcpy_f2(float *dst, const float *src) { copyN<float, 2>(dst, src); }
extern "C" __global__ void volkov_memcpy_f4(float *dst, const float *src) { copyN<float, 4>(dst, src); }
extern "C" __global__ void volkov_memcpy_f8(float *dst, const float *src) { copyN<float, 8>(dst, src); }
extern "C" __global__ void volkov_memcpy_float2x8(float2v *dst, const float2v *src) { copyN<float2v, 8>(dst, src); }
extern "C" __global__ void volkov_memcpy_float4x8(float4v *dst, const float4v *src) { copyN<float4v, 8>(dst, src); }

// Part IV: the CUDA SDK matrix multiply at BLOCK_SIZE 32, computing OUT outputs
// per thread: blocks of 32 x 32/OUT threads, thread (tx, ty) owns rows ty,
// ty + 32/OUT, ... of the block's 32 x 32 tile of C. C = A B with A wA wide and
// B wB wide; both multiples of 32.
#define BS 32
template <int OUT> static __device__ __forceinline__ void matmulN(float *C, const float *A, const float *B, int wA, int wB)
{
	int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int aBegin = wA * BS * by, aEnd = aBegin + wA - 1, aStep = BS;
	int bBegin = BS * bx, bStep = BS * wB;
	float Csub[OUT];
#pragma unroll
	for (int i = 0; i < OUT; i++)
		Csub[i] = 0;
	for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
		__shared__ float As[BS][BS];
		__shared__ float Bs[BS][BS];
#pragma unroll
		for (int i = 0; i < OUT; i++) {
			As[ty + i * (BS / OUT)][tx] = A[a + wA * (ty + i * (BS / OUT)) + tx];
			Bs[ty + i * (BS / OUT)][tx] = B[b + wB * (ty + i * (BS / OUT)) + tx];
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < BS; ++k) {
#pragma unroll
			for (int i = 0; i < OUT; i++)
				Csub[i] += As[ty + i * (BS / OUT)][k] * Bs[k][tx];
		}
		__syncthreads();
	}
	int c = wB * BS * by + BS * bx;
#pragma unroll
	for (int i = 0; i < OUT; i++)
		C[c + wB * (ty + i * (BS / OUT)) + tx] = Csub[i];
}

extern "C" __global__ void matmul_sdk_1(float *C, const float *A, const float *B, int wA, int wB) { matmulN<1>(C, A, B, wA, wB); }
extern "C" __global__ void matmul_sdk_2(float *C, const float *A, const float *B, int wA, int wB) { matmulN<2>(C, A, B, wA, wB); }
extern "C" __global__ void matmul_sdk_4(float *C, const float *A, const float *B, int wA, int wB) { matmulN<4>(C, A, B, wA, wB); }
extern "C" __global__ void matmul_sdk_8(float *C, const float *A, const float *B, int wA, int wB) { matmulN<8>(C, A, B, wA, wB); }

// The tiling seed's P = M N for Width x Width matrices of any Width, with
// TILE_WIDTH 16 tiles and zero padding at the borders.
#define TILE_WIDTH 16
extern "C" __global__ void tiled_matmul_bounds(const float *M, const float *N, float *P, int Width)
{
	__shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
	__shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
	int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int Row = by * TILE_WIDTH + ty;
	int Col = bx * TILE_WIDTH + tx;
	float Pvalue = 0;
	for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ph++) {
		if (Row < Width && ph * TILE_WIDTH + tx < Width)
			Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
		else
			Mds[ty][tx] = 0.0f;
		if (ph * TILE_WIDTH + ty < Width && Col < Width)
			Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
		else
			Nds[ty][tx] = 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE_WIDTH; ++k)
			Pvalue += Mds[ty][k] * Nds[k][tx];
		__syncthreads();
	}
	if (Row < Width && Col < Width)
		P[Row * Width + Col] = Pvalue;
}

// For the timing replay's divergence test: the seed's if/else shape, where each
// path loads from its own array, so a path's memory wait is its own. A stack
// arch waits for A's load, then for B's; an ITS arch overlaps the two.
static __device__ __noinline__ int pathA(const int *a, int i) { return a[i] * 3 + 1; }
static __device__ __noinline__ int pathB(const int *b, int i) { return b[i] - 7; }

extern "C" __global__ void divergence_two_loads(int *out, const int *a, const int *b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v;
	if (threadIdx.x & 0x4)
		v = pathA(a, i);
	else
		v = pathB(b, i);
	out[i] = v ^ 0x55;
}
