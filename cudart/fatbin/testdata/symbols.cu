// Module variables, for the symbol calls' tests (scripts/fatbin-fixtures.sh builds
// symbols.fatbin from it): a __constant__ array the host writes between launches, a
// __device__ counter the kernel adds to, and an initialised __device__ table.
#include <cstdio>

__constant__ float coef[4];
__device__ unsigned int hits;
__device__ float table[8] = {1, 2, 3, 4, 5, 6, 7, 8};

__global__ void poly(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = ((coef[3] * v + coef[2]) * v + coef[1]) * v + coef[0] + table[i % 8];
		if (y[i] > 0)
			atomicAdd(&hits, 1);
	}
}

int main()
{
	float c[4] = {1, 2, 3, 4}, *x, *y;
	unsigned int h = 0;
	cudaMalloc(&x, 256 * 4);
	cudaMalloc(&y, 256 * 4);
	cudaMemcpyToSymbol(coef, c, sizeof c);
	poly<<<1, 256>>>(x, y, 256);
	cudaMemcpyFromSymbol(&h, hits, sizeof h);
	printf("%u\n", h);
	return 0;
}
