// A program that calls what gtrace's CUDA runtime does not run (a CUDA graph), echoes
// its arguments, and exits 3: gtrace run must answer cudaErrorNotSupported, name the
// call, pass the arguments untouched and the exit status on.
#include <cstdio>

__global__ void touch(int *p) { p[threadIdx.x] = threadIdx.x; }

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("arg %d: %s\n", i, argv[i]);
	cudaGraph_t g;
	cudaError_t e = cudaGraphCreate(&g, 0);
	printf("cudaGraphCreate: %s; last error: %s\n", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
	int *p;
	cudaMalloc(&p, 64 * sizeof(int));
	touch<<<2, 32>>>(p);
	printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
	return 3;
}
