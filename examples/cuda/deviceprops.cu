// deviceprops: sizes a grid-stride launch from the device's properties, as real programs
// do (two blocks per multiprocessor), and prints the properties gtrace run models from
// its GPU preset (gtrace run --gpu). cudaDeviceGetAttribute must agree with
// cudaGetDeviceProperties, and cudaMemGetInfo with totalGlobalMem.
//
//   deviceprops N     scales N floats by 2 and prints their sum
#include <cstdio>
#include <cstdlib>
#include "check.h"

__global__ void scale(const float *in, float *out, int n, float a) {
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = a * in[i];
}

// Each attribute beside the property it must equal.
static int attributes_agree(const cudaDeviceProp &p, int dev) {
	struct {
		cudaDeviceAttr attr;
		long long want;
		const char *name;
	} rows[] = {
		{cudaDevAttrComputeCapabilityMajor, p.major, "major"},
		{cudaDevAttrComputeCapabilityMinor, p.minor, "minor"},
		{cudaDevAttrMultiProcessorCount, p.multiProcessorCount, "multiProcessorCount"},
		{cudaDevAttrWarpSize, p.warpSize, "warpSize"},
		{cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock, "maxThreadsPerBlock"},
		{cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0], "maxThreadsDim[0]"},
		{cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2], "maxThreadsDim[2]"},
		{cudaDevAttrMaxGridDimX, p.maxGridSize[0], "maxGridSize[0]"},
		{cudaDevAttrMaxGridDimY, p.maxGridSize[1], "maxGridSize[1]"},
		{cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock, "sharedMemPerBlock"},
		{cudaDevAttrMaxSharedMemoryPerBlockOptin, (long long)p.sharedMemPerBlockOptin, "sharedMemPerBlockOptin"},
		{cudaDevAttrMaxSharedMemoryPerMultiprocessor, (long long)p.sharedMemPerMultiprocessor, "sharedMemPerMultiprocessor"},
		{cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock, "regsPerBlock"},
		{cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor, "regsPerMultiprocessor"},
		{cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor, "maxThreadsPerMultiProcessor"},
		{cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor, "maxBlocksPerMultiProcessor"},
		{cudaDevAttrTotalConstantMemory, (long long)p.totalConstMem, "totalConstMem"},
		{cudaDevAttrL2CacheSize, p.l2CacheSize, "l2CacheSize"},
		{cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth, "memoryBusWidth"},
		{cudaDevAttrAsyncEngineCount, p.asyncEngineCount, "asyncEngineCount"},
		{cudaDevAttrReservedSharedMemoryPerBlock, (long long)p.reservedSharedMemPerBlock, "reservedSharedMemPerBlock"},
	};
	int bad = 0;
	for (auto &r : rows) {
		int v;
		CHECK(cudaDeviceGetAttribute(&v, r.attr, dev));
		if (v != r.want) {
			printf("attribute %d is %d, %s is %lld\n", (int)r.attr, v, r.name, r.want);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	int dev;
	CHECK(cudaGetDevice(&dev));
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, dev));
	int khz; // CUDA 13 drops cudaDeviceProp's clockRate: the attribute is the one way in both
	CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
	printf("compute capability %d.%d, %d multiprocessors at %d MHz\n", p.major, p.minor,
	       p.multiProcessorCount, khz / 1000);
	printf("per block: %d threads, %zu B shared (%zu opt-in, %zu reserved), %d registers\n",
	       p.maxThreadsPerBlock, p.sharedMemPerBlock, p.sharedMemPerBlockOptin,
	       p.reservedSharedMemPerBlock, p.regsPerBlock);
	printf("per multiprocessor: %d threads, %d blocks, %zu B shared, %d registers\n",
	       p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.sharedMemPerMultiprocessor,
	       p.regsPerMultiprocessor);
	printf("block dims %d x %d x %d, grid dims %d x %d x %d, warp %d\n", p.maxThreadsDim[0],
	       p.maxThreadsDim[1], p.maxThreadsDim[2], p.maxGridSize[0], p.maxGridSize[1],
	       p.maxGridSize[2], p.warpSize);
	printf("constant memory %zu B, L2 %d B, %d copy engines\n", p.totalConstMem, p.l2CacheSize,
	       p.asyncEngineCount);
	printf("global memory %zu B\n", p.totalGlobalMem);
	size_t free0, total;
	CHECK(cudaMemGetInfo(&free0, &total));
	printf("cudaMemGetInfo total %s totalGlobalMem\n", total == p.totalGlobalMem ? "==" : "!=");

	int bad = attributes_agree(p, dev);
	printf("%s\n", bad ? "attributes disagree" : "attributes agree with the properties");

	float *h = (float *)malloc(n * sizeof(float)), *in, *out;
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 100);
	CHECK(cudaMalloc(&in, n * sizeof(float)));
	CHECK(cudaMalloc(&out, n * sizeof(float)));
	size_t free1;
	CHECK(cudaMemGetInfo(&free1, &total));
	printf("cudaMemGetInfo free %s after two allocations\n", free1 < free0 ? "fell" : "did not fall");
	CHECK(cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice));
	int blocks = 2 * p.multiProcessorCount;
	scale<<<blocks, 256>>>(in, out, n, 2.0f);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost));
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += h[i];
	printf("scaled %d floats with 2 blocks per multiprocessor: sum %.0f\n", n, sum);
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
	free(h);
	return bad != 0;
}
