// streams: copies and kernels on several streams, with page-locked host memory, events,
// and a kernel that opts in to more than 48 KiB of dynamic shared memory. Each stream
// copies its chunk in, reverses it tile by tile through shared memory and copies it
// back; the host checks every element. Built with nvcc -cudart shared, it runs
// unmodified on a GPU or under gtrace run.
#include <cstdio>
#include <cstdlib>

#include "check.h"

#define TILE 16384 // floats per block: 64 KiB of shared memory

// reverse writes each TILE-element tile of in, reversed, to out.
__global__ void reverse(const float *in, float *out)
{
	extern __shared__ float tile[];
	const float *src = in + (size_t)blockIdx.x * TILE;
	float *dst = out + (size_t)blockIdx.x * TILE;
	for (int i = threadIdx.x; i < TILE; i += blockDim.x)
		tile[i] = src[i];
	__syncthreads();
	for (int i = threadIdx.x; i < TILE; i += blockDim.x)
		dst[i] = tile[TILE - 1 - i];
}

int main(int argc, char **argv)
{
	int streams = argc > 1 ? atoi(argv[1]) : 4, tiles = argc > 2 ? atoi(argv[2]) : 2;
	size_t chunk = (size_t)tiles * TILE, n = chunk * streams, bytes = n * sizeof(float);
	float *hin, *hout, *in, *out;
	CHECK(cudaMallocHost(&hin, bytes));
	CHECK(cudaHostAlloc(&hout, bytes, cudaHostAllocDefault));
	for (size_t i = 0; i < n; i++)
		hin[i] = (float)(i % 10007);
	CHECK(cudaMalloc(&in, bytes));
	CHECK(cudaMalloc(&out, bytes));
	const int shared = TILE * sizeof(float);
	reverse<<<1, 256, shared>>>(in, out);
	cudaError_t before = cudaGetLastError();
	CHECK(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
	cudaStream_t *s = (cudaStream_t *)malloc(streams * sizeof *s);
	cudaEvent_t start, stop;
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	CHECK(cudaEventRecord(start, 0));
	for (int k = 0; k < streams; k++) {
		CHECK(cudaStreamCreate(&s[k]));
		size_t off = k * chunk;
		CHECK(cudaMemcpyAsync(in + off, hin + off, chunk * sizeof(float), cudaMemcpyHostToDevice, s[k]));
		reverse<<<tiles, 256, shared, s[k]>>>(in + off, out + off);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpyAsync(hout + off, out + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
	}
	CHECK(cudaEventRecord(stop, 0));
	for (int k = 0; k < streams; k++)
		CHECK(cudaStreamSynchronize(s[k]));
	CHECK(cudaEventSynchronize(stop));
	float ms = -1;
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		size_t t = i / TILE * TILE;
		bad += hout[i] != hin[t + TILE - 1 - (i - t)];
	}
	printf("streams: %d streams of %d tiles, 64 KiB of shared memory without opt-in: %s, timed: %s, %zu wrong: %s\n",
	       streams, tiles, cudaGetErrorName(before), ms >= 0 ? "yes" : "no", bad, bad ? "FAILED" : "PASSED");
	for (int k = 0; k < streams; k++)
		CHECK(cudaStreamDestroy(s[k]));
	CHECK(cudaEventDestroy(start));
	CHECK(cudaEventDestroy(stop));
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
	CHECK(cudaFreeHost(hin));
	CHECK(cudaFreeHost(hout));
	free(s);
	return bad != 0;
}
