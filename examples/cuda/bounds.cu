// bounds: __launch_bounds__ on real kernels. It prints what cudaFuncGetAttributes and the
// occupancy API say of kernels whose block size is bounded, then launches each at its
// bound and one thread past it, and prints what each launch returns. Built with nvcc
// -cudart shared, it runs unmodified on a GPU or under gtrace run.
//
//   bounds N     adds 1 to N ints in launches of each kernel
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void __launch_bounds__(256) b256(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += 1;
}

__global__ void __launch_bounds__(128, 4) b128x4(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += 1;
}

__global__ void __launch_bounds__(96) b96(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += 1;
}

__global__ void unbounded(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += 1;
}

typedef void (*kernel)(int *, int);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	int *d;
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	CHECK(cudaMemset(d, 0, n * sizeof(int)));
	struct {
		const char *name;
		kernel k;
		int bound;
	} ks[] = {{"b256", b256, 256}, {"b128x4", b128x4, 128}, {"b96", b96, 96}, {"unbounded", unbounded, 1024}};
	int launched = 0;
	for (auto &k : ks) {
		cudaFuncAttributes a;
		CHECK(cudaFuncGetAttributes(&a, (const void *)k.k));
		printf("%s: at most %d threads a block, registers %s\n", k.name, a.maxThreadsPerBlock,
		       a.numRegs > 0 && a.numRegs <= 32 ? "1 to 32" : "other");
		int sizes[] = {32, k.bound - 1, k.bound, k.bound + 1, 2 * k.bound};
		for (int b : sizes) {
			int nb = -1;
			cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k.k, b, 0);
			printf("%s, %d threads: %d blocks per multiprocessor (%s)\n", k.name, b, nb, cudaGetErrorName(e));
			cudaGetLastError();
		}
		int minGrid, block;
		CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, k.k, 0, 0));
		printf("%s: suggested %d threads a block\n", k.name, block);
		for (int b : {k.bound, k.bound + 1}) {
			k.k<<<(n + b - 1) / b, b>>>(d, n);
			cudaError_t e = cudaGetLastError();
			printf("%s<<<%d, %d>>>: %s\n", k.name, (n + b - 1) / b, b, cudaGetErrorName(e));
			launched += e == cudaSuccess;
		}
	}
	// Configurations no kernel may have, bounded or not: what each launch returns.
	struct {
		dim3 grid, block;
		size_t smem;
	} configs[] = {{1, dim3(1025), 0}, {1, dim3(33, 33), 0}, {1, dim3(1, 1, 65), 0}, {1, dim3(0), 0},
	           {dim3(0), 32, 0}, {dim3(1, 65536), 32, 0}, {dim3(1, 1, 65536), 32, 0}, {1, 32, 49153}, {1, 32, 232449}};
	for (auto &c : configs) {
		unbounded<<<c.grid, c.block, c.smem>>>(d, 0);
		printf("<<<(%u,%u,%u), (%u,%u,%u), %zu>>>: %s\n", c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
		       c.block.z, c.smem, cudaGetErrorName(cudaGetLastError()));
	}
	int *h = (int *)malloc(n * sizeof(int));
	CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += h[i] != launched;
	printf("%d launches ran; %s: %d of %d wrong\n", launched, bad ? "FAILED" : "PASSED", bad, n);
	return bad != 0;
}
