// probe.h: what every hardware probe under scripts/hw/ shares: the CUDA error check, the
// device's SM count, the median of three timed runs, a percentile, and a flush that
// leaves the L2 holding clean lines.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                 \
	do {                                                                                  \
		cudaError_t e = (x);                                                          \
		if (e != cudaSuccess) {                                                       \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

// smCount names device 0 on stderr and returns its SM count.
static int smCount()
{
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	fprintf(stderr, "%s, %d SMs\n", prop.name, prop.multiProcessorCount);
	return prop.multiProcessorCount;
}

// timeLaunch runs launch() three times between CUDA events (before() first each time, if
// given, outside the timed part) and returns the median in ms; with once, it runs it a
// single time untimed and without before() (for ncu, which profiles each launch once and
// whose --cache-control does what before() would) and returns 0.
template <typename L, typename B>
static float timeLaunch(bool once, L launch, B before)
{
	static cudaEvent_t e0, e1;
	if (!e0) {
		CK(cudaEventCreate(&e0));
		CK(cudaEventCreate(&e1));
	}
	std::vector<float> ms;
	for (int rep = 0; rep < (once ? 1 : 3); rep++) {
		if (!once)
			before();
		CK(cudaEventRecord(e0));
		launch();
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaGetLastError());
		float t;
		CK(cudaEventElapsedTime(&t, e0, e1));
		ms.push_back(t);
	}
	if (once)
		return 0;
	std::sort(ms.begin(), ms.end());
	return ms[ms.size() / 2];
}

template <typename L>
static float timeLaunch(bool once, L launch)
{
	return timeLaunch(once, launch, [] {});
}

// warpCycles reads the first warps entries of cyc (a kernel's per-warp clock64
// differences on the device) and returns their least and greatest in lo and hi.
static void warpCycles(const long long *cyc, int warps, long long *lo, long long *hi)
{
	std::vector<long long> t(warps);
	CK(cudaMemcpy(t.data(), cyc, 8 * warps, cudaMemcpyDeviceToHost));
	*lo = *std::min_element(t.begin(), t.end());
	*hi = *std::max_element(t.begin(), t.end());
}

// printWarpStamps copies blocks * warps rows of row numbers (an SM id and a warp's clock
// stamps, sm_stamp.cuh) from out on the device and prints each as
// "part,k,warps,block,warp," and its row.
static void printWarpStamps(const char *part, int k, int blocks, int warps, const long long *out, int row)
{
	std::vector<long long> h((size_t)blocks * warps * row);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	for (size_t r = 0; r < (size_t)blocks * warps; r++) {
		printf("%s,%d,%d,%zu,%zu", part, k, warps, r / warps, r % warps);
		for (int j = 0; j < row; j++)
			printf(",%lld", h[row * r + j]);
		printf("\n");
	}
}

// printStampHeader prints the CSV header of printWarpStamps's rows with stamps stamps.
static void printStampHeader(int stamps)
{
	printf("part,k,w,block,warp,smid");
	for (int j = 0; j < stamps; j++)
		printf(",t%d", j);
	printf("\n");
}

// runStamped, for each w of widths, runs launch(w) (one CTA of w warps on each of 4
// SMs) twice and prints the second run's warp stamps (printWarpStamps, rows of row
// numbers in out) as part, k: the stamped probes' loop over CTA widths.
template <typename L>
static void runStamped(const char *part, int k, std::initializer_list<int> widths, const long long *out, int row, L launch)
{
	for (int w : widths) {
		for (int rep = 0; rep < 2; rep++) {
			launch(w);
			CK(cudaDeviceSynchronize());
		}
		printWarpStamps(part, k, 4, w, out, row);
	}
}

// at is the p-th quantile (0 to 1) of v, by rank; 0 for none.
template <typename T>
static T at(std::vector<T> v, double p)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))];
}

// sweep reads n uint4 of p through L2 only: launched over a buffer larger than the L2,
// a flush that leaves it holding clean lines (a memset would leave it holding dirty ones,
// which the next kernel's misses write back).
static __global__ void sweep(const uint4 *p, size_t n, unsigned *sink)
{
	unsigned x = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = __ldcg(&p[i]);
		x ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (x == 0x9e3779b9u)
		sink[0] = x;
}
