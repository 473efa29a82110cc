// streamtime: how long a program's copies and kernels take on several streams, timed
// by its own events, for gtrace plan on the same program's gtrace run trace to be
// checked against (issue 19, docs/issue-19.md item 68). Built as a user builds for
// gtrace run (nvcc -cudart shared), it runs unmodified on a GPU and under gtrace run.
//
// For each case (streams S, chunk bytes B, kernel chain R) it does one round to warm
// up and one timed round, each: record start on the default stream; on each of S
// streams, copy B bytes in (pinned, cudaMemcpyAsync), run spin<<<1, 32>>> (a chain of
// R dependent FMAs: a kernel of known length that touches no memory beyond one
// word), copy B bytes back; record stop on the default stream, which waits for every
// stream (the legacy default stream), and wait for it. It prints one line per case:
//
//	case S B R MS
//
// MS is cudaEventElapsedTime(start, stop) of the timed round: what the GPU took from
// the first copy to the last, overlap included. Before the cases, "kernel R MS" times
// each chain alone between two events on the default stream. Under gtrace run MS is
// the host's time emulating, not a GPU's; the plan's time is the one to compare.
#include "../../examples/cuda/check.h"

// spin runs a chain of r dependent FMAs in each thread and writes its end to out[0]
// (thread 0), so that no compiler drops it.
__global__ void spin(float *out, int r)
{
	float x = threadIdx.x * 1e-3f, a = 0.999f, b = 1e-4f;
	for (int i = 0; i < r; i++)
		x = fmaf(x, a, b);
	if (threadIdx.x == 0)
		out[0] = x;
}

struct Case {
	int streams;
	size_t bytes;
	int chain;
};

int main()
{
	// Copies of 256 KB take about 12 us on PCIe 5.0 x16, of 4 MB about 83 us; the
	// chains are picked so that a kernel takes about as long as a copy, or twice as long.
	const Case cases[] = {
		{1, 4 << 20, 40000}, {2, 4 << 20, 40000}, {4, 4 << 20, 40000}, {4, 4 << 20, 80000},
		{2, 256 << 10, 6000}, {4, 256 << 10, 6000}, {8, 1 << 20, 10000},
	};
	const int ncases = sizeof cases / sizeof cases[0];
	size_t most = 0;
	int maxs = 0;
	for (int c = 0; c < ncases; c++) {
		most = cases[c].bytes * cases[c].streams > most ? cases[c].bytes * cases[c].streams : most;
		maxs = cases[c].streams > maxs ? cases[c].streams : maxs;
	}
	char *host, *dev;
	float *out;
	CHECK(cudaMallocHost(&host, most));
	CHECK(cudaMalloc(&dev, most));
	CHECK(cudaMalloc(&out, maxs * sizeof(float)));
	cudaStream_t *s = (cudaStream_t *)malloc(maxs * sizeof *s);
	for (int k = 0; k < maxs; k++)
		CHECK(cudaStreamCreate(&s[k]));
	cudaEvent_t start, stop;
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	// Each chain alone on the default stream, timed after a warm-up: the kernel's own
	// time, to tell the timing engine's error from the plan's.
	const int chains[] = {6000, 10000, 40000, 80000};
	for (int c = 0; c < 4; c++) {
		float ms = 0;
		for (int round = 0; round < 2; round++) {
			CHECK(cudaEventRecord(start, 0));
			spin<<<1, 32>>>(out, chains[c]);
			CHECK(cudaGetLastError());
			CHECK(cudaEventRecord(stop, 0));
			CHECK(cudaEventSynchronize(stop));
			CHECK(cudaEventElapsedTime(&ms, start, stop));
		}
		printf("kernel %d %.4f\n", chains[c], ms);
	}
	for (int c = 0; c < ncases; c++) {
		const Case &k = cases[c];
		float ms = 0;
		for (int round = 0; round < 2; round++) {
			CHECK(cudaEventRecord(start, 0));
			for (int i = 0; i < k.streams; i++) {
				size_t off = i * k.bytes;
				CHECK(cudaMemcpyAsync(dev + off, host + off, k.bytes, cudaMemcpyHostToDevice, s[i]));
				spin<<<1, 32, 0, s[i]>>>(out + i, k.chain);
				CHECK(cudaGetLastError());
				CHECK(cudaMemcpyAsync(host + off, dev + off, k.bytes, cudaMemcpyDeviceToHost, s[i]));
			}
			CHECK(cudaEventRecord(stop, 0));
			CHECK(cudaEventSynchronize(stop));
			CHECK(cudaEventElapsedTime(&ms, start, stop));
		}
		printf("case %d %zu %d %.4f\n", k.streams, k.bytes, k.chain, ms);
	}
	for (int k = 0; k < maxs; k++)
		CHECK(cudaStreamDestroy(s[k]));
	CHECK(cudaFreeHost(host));
	CHECK(cudaFree(dev));
	CHECK(cudaFree(out));
	free(s);
	return 0;
}
