// sticky.cu: which CUDA runtime calls return a kernel's fault after it (the error is
// "sticky"), and whether cudaDeviceReset clears it. gtrace's stand-in (cudart/host)
// follows what this prints on a real GPU. Build and run on a GPU machine:
//
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 -o sticky scripts/hw/sticky.cu && ./sticky
#include <cstdio>

__constant__ int c[4];

__global__ void fault(int *nowhere) { *nowhere = 1; }
__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }

static void says(const char *call, cudaError_t e)
{
	printf("%s: %s\n", call, cudaGetErrorName(e));
	cudaGetLastError(); // each line tells of its own call only
}

int main()
{
	int *p, h[32] = {0};
	cudaMalloc(&p, sizeof h);
	fault<<<1, 32>>>((int *)16);
	says("cudaDeviceSynchronize", cudaDeviceSynchronize());
	says("cudaPeekAtLastError", cudaPeekAtLastError());
	cudaDeviceProp prop;
	says("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
	int v, n;
	says("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
	says("cudaGetDeviceCount", cudaGetDeviceCount(&n));
	says("cudaSetDevice", cudaSetDevice(0));
	says("cudaGetDevice", cudaGetDevice(&n));
	size_t f, t;
	says("cudaMemGetInfo", cudaMemGetInfo(&f, &t));
	cudaEvent_t ev;
	says("cudaEventCreate", cudaEventCreate(&ev));
	says("cudaFuncSetAttribute", cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
	says("cudaFuncSetCacheConfig", cudaFuncSetCacheConfig(fill, cudaFuncCachePreferL1));
	void *ph;
	says("cudaMallocHost", cudaMallocHost(&ph, 64));
	says("cudaMemcpyToSymbol", cudaMemcpyToSymbol(c, h, sizeof c));
	says("cudaMemset", cudaMemset(p, 0, sizeof h));
	says("cudaStreamSynchronize", cudaStreamSynchronize(0));
	says("cudaDeviceReset", cudaDeviceReset());
	says("cudaMalloc after the reset", cudaMalloc(&p, sizeof h));
	fill<<<1, 32>>>(p);
	says("a launch after the reset", cudaGetLastError());
	says("cudaMemcpy after the reset", cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost));
	printf("h[31] = %d\n", h[31]);
	return 0;
}
