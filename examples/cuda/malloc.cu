// malloc: device-side malloc and free, and the heap they share. Run as
//
//   malloc N     sets the heap to 1 MiB; N threads each malloc 4 to 32 ints, fill
//                them and keep the pointer; a second kernel sums each thread's block
//                and frees it; a third asks for more than the heap and for 0 bytes.
//                Then the host tries what CUDA refuses: resizing the heap once a
//                kernel used it, and cudaFree and cudaMemcpy on malloc's memory.
//
// What it prints depends on no address, so it is the same on a GPU and under gtrace
// run. Built with nvcc -cudart shared, it runs unmodified on both.
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void build(int **blocks, int *lens, int *nulls, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int len = 4 * (1 + i % 8);
	int *p = (int *)malloc(len * sizeof(int));
	blocks[i] = p;
	lens[i] = len;
	if (p == NULL) {
		atomicAdd(nulls, 1);
		return;
	}
	for (int j = 0; j < len; j++)
		p[j] = i + j;
}

__global__ void sum(int **blocks, const int *lens, long long *sums, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int *p = blocks[i];
	long long s = -1;
	if (p != NULL) {
		s = 0;
		for (int j = 0; j < lens[i]; j++)
			s += p[j];
		free(p);
	}
	sums[i] = s;
}

__global__ void edges(size_t big, int *out, int **kept)
{
	void *p = malloc(big);
	out[0] = p == NULL;
	free(p);
	void *z = malloc(0);
	out[1] = z == NULL;
	free(z);
	int *k = (int *)malloc(64);
	out[2] = k == NULL;
	*kept = k;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
	size_t heap;
	CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
	printf("heap: %zu bytes\n", heap);

	int **blocks, *lens, *nulls, *out, **kept;
	long long *sums;
	CHECK(cudaMalloc(&blocks, n * sizeof(int *)));
	CHECK(cudaMalloc(&lens, n * sizeof(int)));
	CHECK(cudaMalloc(&sums, n * sizeof(long long)));
	CHECK(cudaMalloc(&nulls, sizeof(int)));
	CHECK(cudaMalloc(&out, 3 * sizeof(int)));
	CHECK(cudaMalloc(&kept, sizeof(int *)));
	CHECK(cudaMemset(nulls, 0, sizeof(int)));
	build<<<(n + 255) / 256, 256>>>(blocks, lens, nulls, n);
	CHECK(cudaGetLastError());
	sum<<<(n + 255) / 256, 256>>>(blocks, lens, sums, n);
	CHECK(cudaGetLastError());
	edges<<<1, 1>>>(heap + 1, out, kept);
	CHECK(cudaGetLastError());

	int h_nulls, h_out[3];
	long long *h_sums = (long long *)malloc(n * sizeof(long long));
	CHECK(cudaMemcpy(&h_nulls, nulls, sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(h_sums, sums, n * sizeof(long long), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
	long long total = 0, want = 0;
	int wrong = 0;
	for (int i = 0; i < n; i++) {
		long long len = 4 * (1 + i % 8), w = len * i + len * (len - 1) / 2;
		want += w;
		total += h_sums[i];
		wrong += h_sums[i] != w;
	}
	printf("%d threads: %d NULL, sum %lld (want %lld), %d wrong\n", n, h_nulls, total, want, wrong);
	printf("malloc(heap + 1) is NULL: %d; malloc(0) is NULL: %d; malloc(64) is NULL: %d\n", h_out[0], h_out[1], h_out[2]);

	printf("resize the heap after a launch: %s\n", cudaGetErrorName(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 << 20)));
	CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
	printf("heap: %zu bytes\n", heap);
	int *k;
	CHECK(cudaMemcpy(&k, kept, sizeof k, cudaMemcpyDeviceToHost));
	int v;
	printf("cudaMemcpy from malloc's memory: %s\n", cudaGetErrorName(cudaMemcpy(&v, k, sizeof v, cudaMemcpyDeviceToHost)));
	printf("cudaFree of malloc's memory: %s\n", cudaGetErrorName(cudaFree(k)));
	printf("then: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	free(h_sums);
	return 0;
}
