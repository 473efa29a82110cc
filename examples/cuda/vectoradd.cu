// vectoradd: the smallest whole CUDA program. Adds two vectors on the device, copies
// the sum back and checks it against the host's. Built with nvcc -cudart shared, it runs
// unmodified on a GPU or under gtrace run (cudart/libcudart, docs/own-code.md).
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000;
	size_t bytes = n * sizeof(float);
	float *ha = (float *)malloc(bytes), *hb = (float *)malloc(bytes), *hc = (float *)malloc(bytes);
	for (int i = 0; i < n; i++) {
		ha[i] = i * 0.5f;
		hb[i] = (n - i) * 0.25f;
	}
	float *a, *b, *c;
	CHECK(cudaMalloc(&a, bytes));
	CHECK(cudaMalloc(&b, bytes));
	CHECK(cudaMalloc(&c, bytes));
	CHECK(cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemset(c, 0, bytes));
	int block = 256;
	add<<<(n + block - 1) / block, block>>>(a, b, c, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(hc, c, bytes, cudaMemcpyDeviceToHost));
	int bad = 0;
	double sum = 0;
	for (int i = 0; i < n; i++) {
		if (hc[i] != ha[i] + hb[i])
			bad++;
		sum += hc[i];
	}
	printf("vectoradd: %d elements, sum %.2f, %d wrong: %s\n", n, sum, bad, bad ? "FAILED" : "PASSED");
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
	free(ha), free(hb), free(hc);
	return bad != 0;
}
