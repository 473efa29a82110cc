// constants: module variables. Evaluates two cubic polynomials whose coefficients the
// host copies to __constant__ memory, scales by an initialised __device__ variable and
// counts the positive results in a __device__ counter that the host resets through its
// address (cudaGetSymbolAddress, cudaMemset) and reads back (cudaMemcpyFromSymbol).
// Checks every value against the host's. Built with nvcc -cudart shared, it runs
// unmodified on a GPU or under gtrace run.
#include <cstdio>
#include <cstdlib>

#include "check.h"

__constant__ float coef[4];
__device__ float scale = 0.5f;
__device__ unsigned int positives;

__global__ void poly(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		float p = scale * (((coef[3] * v + coef[2]) * v + coef[1]) * v + coef[0]);
		y[i] = p;
		if (p > 0)
			atomicAdd(&positives, 1);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	size_t bytes = n * sizeof(float);
	float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
	for (int i = 0; i < n; i++)
		hx[i] = (float)(i % 64 - 32); // integers: every result below is exact
	float *x, *y;
	CHECK(cudaMalloc(&x, bytes));
	CHECK(cudaMalloc(&y, bytes));
	CHECK(cudaMemcpy(x, hx, bytes, cudaMemcpyHostToDevice));
	size_t size;
	CHECK(cudaGetSymbolSize(&size, coef));
	float hscale;
	CHECK(cudaMemcpyFromSymbol(&hscale, scale, sizeof hscale));
	unsigned int *counter;
	CHECK(cudaGetSymbolAddress((void **)&counter, positives));
	const float sets[2][4] = {{-6, 11, -6, 1}, {100, 0, -3, 0.5f}};
	unsigned int pos[2];
	int bad = size != sizeof sets[0];
	for (int s = 0; s < 2; s++) {
		CHECK(cudaMemcpyToSymbol(coef, sets[s], sizeof sets[s]));
		CHECK(cudaMemset(counter, 0, sizeof *counter));
		poly<<<(n + 255) / 256, 256>>>(x, y, n);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(hy, y, bytes, cudaMemcpyDeviceToHost));
		CHECK(cudaMemcpyFromSymbol(&pos[s], positives, sizeof pos[s]));
		const float *c = sets[s];
		unsigned int want = 0;
		for (int i = 0; i < n; i++) {
			float v = hx[i], p = hscale * (((c[3] * v + c[2]) * v + c[1]) * v + c[0]);
			bad += hy[i] != p;
			want += p > 0;
		}
		bad += pos[s] != want;
	}
	printf("constants: %d points, scale %.2f, %u and %u positive, %d wrong: %s\n", n, hscale, pos[0], pos[1], bad,
	       bad ? "FAILED" : "PASSED");
	CHECK(cudaFree(x));
	CHECK(cudaFree(y));
	free(hx), free(hy);
	return bad != 0;
}
