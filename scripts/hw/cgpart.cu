// cgpart.cu: what CUDA's cooperative groups give for labeled_partition and
// binary_partition (ranks, sizes, meta-group ranks and sizes) on a GPU, so that
// gtrace's header can follow it (issue 19). The kernel is the one gtrace's test runs,
// cudart/testdata/cg_partition.cuh. Build and run on a GPU machine:
//
//   nvcc -arch=sm_90 -o cgpart scripts/hw/cgpart.cu && ./cgpart > cgpart.csv
//
// prints one line per thread of a block of 128: the thread's rank, then its
// CG_PARTITION_SLOTS values (slot layout in cg_partition.cuh).
#include <cstdio>
#include <vector>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "probe.h"
#include "../../cudart/testdata/cg_partition.cuh"

int main()
{
	const int threads = 128, n = threads * CG_PARTITION_SLOTS;
	int *d;
	CK(cudaMalloc(&d, n * sizeof(int)));
	CK(cudaMemset(d, 0, n * sizeof(int)));
	cg_partition<<<1, threads>>>(d);
	CK(cudaGetLastError());
	std::vector<int> h(n);
	CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
	int v;
	CK(cudaRuntimeGetVersion(&v));
	printf("# CUDA runtime %d\n", v);
	for (int r = 0; r < threads; r++) {
		printf("%d", r);
		for (int k = 0; k < CG_PARTITION_SLOTS; k++)
			printf(",%d", h[r * CG_PARTITION_SLOTS + k]);
		printf("\n");
	}
	return 0;
}
