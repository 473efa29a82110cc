// occupancy: what the occupancy API says about two kernels, and a launch sized from it,
// as real programs size theirs (cuda-samples' simpleOccupancy). It prints, for each block
// size and dynamic shared memory size, the blocks per multiprocessor that
// cudaOccupancyMaxActiveBlocksPerMultiprocessor gives (or its error), before and after
// the kernel opts in to more than 48 KiB; the attributes cudaFuncGetAttributes gives
// that do not depend on the compiler's register allocation; what
// cudaOccupancyAvailableDynamicSMemPerBlock and cudaOccupancyMaxPotentialBlockSize
// suggest; then runs a launch of the suggested size and checks its output. Both kernels
// use at most 32 registers a thread, too few to limit a block on any GPU since sm_30,
// so the answers are the GPU's, not its compiler's. Built with nvcc -cudart shared, it
// runs unmodified on a GPU or under gtrace run.
//
//   occupancy N     squares N floats in a launch sized by cudaOccupancyMaxPotentialBlockSize
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void square(const float *in, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = in[i] * in[i];
}

// tiled holds 4224 bytes of static shared memory and any dynamic shared memory it is given.
__global__ void tiled(float *out)
{
	__shared__ float tile[32][33];
	extern __shared__ float dyn[];
	tile[threadIdx.x % 32][threadIdx.x / 32 % 33] = threadIdx.x;
	dyn[threadIdx.x] = 1;
	__syncthreads();
	out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x % 32][0] + dyn[0];
}

__constant__ float coef[100];
__constant__ int unused[50];

// scaled reads one of 100 constant coefficients; the module's other constant array it
// never reads.
__global__ void scaled(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = coef[i % 100] * in[i];
}

static void blocks(const char *name, const void *f, int block, size_t smem, unsigned flags = 0)
{
	int n = -1;
	cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, block, smem, flags);
	if (e != cudaSuccess) {
		printf("%s, %d threads, %zu B: %s\n", name, block, smem, cudaGetErrorName(e));
		cudaGetLastError(); // each line tells of its own call only
		return;
	}
	printf("%s, %d threads, %zu B: %d blocks per multiprocessor\n", name, block, smem, n);
}

static void attributes(const char *name, const void *f)
{
	cudaFuncAttributes a;
	CHECK(cudaFuncGetAttributes(&a, f));
	printf("%s: static shared %zu B, const %zu B, local %zu B, at most %d threads, %d B of dynamic shared memory, "
	       "carve-out preference %d, PTX %d, registers %s\n",
	       name, a.sharedSizeBytes, a.constSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock,
	       a.maxDynamicSharedSizeBytes, a.preferredShmemCarveout, a.ptxVersion,
	       a.numRegs > 0 && a.numRegs <= 32 ? "1 to 32" : "other");
}

static void available(const char *name, const void *f, int nblocks, int block)
{
	size_t smem = 0;
	cudaError_t e = cudaOccupancyAvailableDynamicSMemPerBlock(&smem, f, nblocks, block);
	if (e != cudaSuccess) {
		printf("%s: %d blocks of %d threads: %s\n", name, nblocks, block, cudaGetErrorName(e));
		cudaGetLastError();
		return;
	}
	printf("%s: %d blocks of %d threads: %zu B of dynamic shared memory each\n", name, nblocks, block, smem);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	const void *sq = (const void *)square, *ti = (const void *)tiled;
	attributes("square", sq);
	attributes("tiled", ti);
	attributes("scaled", (const void *)scaled);
	int sizes[] = {1, 32, 33, 96, 128, 192, 256, 384, 512, 640, 768, 1000, 1024, 1025, 0, -1};
	for (int b : sizes)
		blocks("square", sq, b, 0);
	size_t smems[] = {1, 1024, 3000, 10000, 20000, 49152, 49153, 100000, 232448, 232449, 233472, 1 << 20};
	for (size_t s : smems) {
		blocks("square", sq, 128, s);
		blocks("tiled", ti, 256, s);
	}
	blocks("square", sq, 128, 0, 1); // cudaOccupancyDisableCachingOverride
	blocks("square", sq, 128, 0, 2);
	// The opt-in is for dynamic shared memory: static plus dynamic must stay within the
	// GPU's per-block maximum.
	int optin;
	CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
	int tries[] = {optin - 4224 + 1, optin - 4224, -1};
	for (int v : tries) {
		cudaError_t e = cudaFuncSetAttribute(ti, cudaFuncAttributeMaxDynamicSharedMemorySize, v);
		printf("tiled: opt in to the maximum %+d B: %s\n", v - (optin - 4224), cudaGetErrorName(e));
		cudaGetLastError();
	}
	CHECK(cudaFuncSetAttribute(sq, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
	attributes("square preferring a carve-out of 50%", sq);
	blocks("square preferring a carve-out of 50%", sq, 128, 20000);
	CHECK(cudaFuncSetAttribute(sq, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
	CHECK(cudaFuncSetAttribute(ti, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
	attributes("tiled after the opt-in", ti);
	for (size_t s : {49153ul, 100000ul, 100001ul, 200000ul})
		blocks("tiled after the opt-in", ti, 256, s);
	int avail[][2] = {{1, 128}, {2, 128}, {3, 256}, {7, 256}, {16, 64}, {32, 32}, {33, 32}, {2, 1024}, {3, 1024}, {1, 2048}, {0, 128}};
	for (auto &a : avail) {
		available("square", sq, a[0], a[1]);
		available("tiled", ti, a[0], a[1]);
	}
	int minGrid = 0, block = 0;
	CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, square, 0, 0));
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	printf("square: %d threads a block, a grid of %d blocks (%d per multiprocessor)\n", block, minGrid, minGrid / sms);
	int tgrid = 0, tblock = 0;
	CHECK(cudaOccupancyMaxPotentialBlockSize(&tgrid, &tblock, tiled, 40000, 0));
	printf("tiled with 40000 B: %d threads a block, %d blocks per multiprocessor\n", tblock, tgrid / sms);

	float *h = (float *)malloc(n * sizeof(float)), *din, *dout;
	for (int i = 0; i < n; i++)
		h[i] = i % 1000;
	CHECK(cudaMalloc(&din, n * sizeof(float)));
	CHECK(cudaMalloc(&dout, n * sizeof(float)));
	CHECK(cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice));
	square<<<minGrid / sms * sms, block>>>(din, dout, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += h[i] != (float)(i % 1000) * (i % 1000);
	printf("%s: %d of %d wrong\n", bad ? "FAILED" : "PASSED", bad, n);
	return bad != 0;
}
