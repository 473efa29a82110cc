// simd.cu: what CUDA's SIMD intrinsics (__vadd2 … __vsubus4, all 82 of the Math API)
// compute on a GPU, so that gtrace's header can be checked against them (issue 19).
// The kernel is the one gtrace's test runs, cudart/testdata/simd.cuh. Build and run on
// a GPU machine:
//
//   nvcc -arch=sm_90 -o simd scripts/hw/simd.cu && ./simd simd.bin
//
// writes SIMD_THREADS records of SIMD_FUNCTIONS + 2 little-endian 32-bit words (a, b,
// then each function's result in simd.cuh's order).
#include <cstdio>
#include <vector>
#include "probe.h"
#include "../../cudart/testdata/simd.cuh"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: simd OUT.bin\n");
		return 2;
	}
	const int n = SIMD_THREADS * (SIMD_FUNCTIONS + 2);
	unsigned int *d;
	CK(cudaMalloc(&d, n * sizeof(unsigned int)));
	simd<<<SIMD_THREADS / 128, 128>>>(d);
	CK(cudaGetLastError());
	std::vector<unsigned int> h(n);
	CK(cudaMemcpy(h.data(), d, n * sizeof(unsigned int), cudaMemcpyDeviceToHost));
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(h.data(), sizeof(unsigned int), n, f) != (size_t)n || fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	int v;
	CK(cudaRuntimeGetVersion(&v));
	printf("CUDA runtime %d, %d threads, %d functions\n", v, SIMD_THREADS, SIMD_FUNCTIONS);
	return 0;
}
