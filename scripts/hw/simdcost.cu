// simdcost.cu: how many instructions a GPU runs for each of CUDA's SIMD intrinsics
// (__vadd2 … __vsubus4), so that gtrace's header can be held near it (issue 19). Each
// kernel simdc_NAME of cudart/testdata/simd.cuh (the same ones gtrace's test captures)
// runs once over 8192 threads (256 warps); scripts/hw/simdcost.sh runs this under ncu.
//
//   nvcc -O3 -arch=sm_90 -o simdcost scripts/hw/simdcost.cu && ./simdcost
//
// prints name,arity per launch, in launch order (the ncu IDs).
#include <cstdio>
#include <vector>
#include "probe.h"
#include "../../cudart/testdata/simd.cuh"

int main()
{
	const int threads = 8192;
	std::vector<unsigned int> h(2 * threads);
	for (int i = 0; i < 2 * threads; i++)
		h[i] = 0x9e3779b9u * (i + 1) ^ (i >> 3); // any words: the kernels do not branch
	unsigned int *in, *out;
	CK(cudaMalloc(&in, h.size() * sizeof(unsigned int)));
	CK(cudaMalloc(&out, threads * sizeof(unsigned int)));
	CK(cudaMemcpy(in, h.data(), h.size() * sizeof(unsigned int), cudaMemcpyHostToDevice));
	printf("name,arity\n");
#define RUN(k, name, arity)                                 \
	k<<<threads / 256, 256>>>(in, out);                 \
	CK(cudaGetLastError());                             \
	CK(cudaDeviceSynchronize());                        \
	printf("%s,%d\n", name, arity);
#define RUN1(f) RUN(simdc##f, #f, 1)
#define RUN2(f) RUN(simdc##f, #f, 2)
	RUN(simdc_not, "not", 1)
	RUN(simdc_xor, "xor", 2)
	SIMD_UNARY(RUN1)
	SIMD_BINARY(RUN2)
	return 0;
}
