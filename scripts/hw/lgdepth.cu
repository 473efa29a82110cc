// lgdepth.cu: where the H200's LG queue does hold a warp at issue, and whether a shared
// load waits behind it. docs/issue-11.md item 27; scripts/hw/lgqueue.cu found no
// throttle with one load of 32 lines a warp and 64 warps an SM.
//
// depth: each of W warps a CTA issues N loads of 32 distinct lines each (L1 misses,
// L2 hits: a launch before reads the same lines), back to back, stamping the SM's
// clock after each issue (asm volatile keeps the order: SASS in the log), then once
// more after all the data is back. N = 1, 2, 4, 8, 16; W = 32; 4 CTAs (one on each of
// 4 SMs) and one CTA on every SM.
// hit: the same loads of K lines again after a barrier, L1 hits now (K = 1, 4, 32).
// shared: warp 0 of a 32-warp CTA waits 200 cycles, then loads one word of shared
// memory a lane (no conflict) and stamps the clock when it has the data; the other 31
// warps each issue N loads of 32 lines at the start (N = 0: none; 1, 4, 16). Does the
// shared load wait for the LG backlog?
//
//   nvcc -O3 -arch=sm_90 -o lgdepth scripts/hw/lgdepth.cu && ./lgdepth > lgdepth.csv
//
// stdout: part,n,ctas,block,warp,smid,t0,t1,...,t16,tend (unused stamps 0); for the
// shared part t1 is when warp 0's shared load began, tend when its data arrived; for
// the hit part t1 is after the barrier, tend when the hit's data arrived.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define MAXN 16

// lines: warp gw's load j reads lines (gw * MAXN + j) * 32 + lane from line0 on.
__device__ __forceinline__ const unsigned *linePtr(const unsigned *buf, size_t line0, size_t gw, int j)
{
	unsigned lane = threadIdx.x & 31;
	return buf + (line0 + (gw * MAXN + j) * 32 + lane) * 32;
}

template <int N>
__global__ void depth(const unsigned *buf, size_t line0, long long *out, unsigned *sink)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
	long long t[MAXN + 2];
	unsigned v[N];
	t[0] = smClock();
#pragma unroll
	for (int j = 0; j < N; j++) {
		v[j] = ldOrdered(linePtr(buf, line0, gw, j));
		t[j + 1] = smClock();
	}
	unsigned s = 0;
#pragma unroll
	for (int j = 0; j < N; j++)
		asm volatile("add.u32 %0, %0, %1;" : "+r"(s) : "r"(v[j]));
	long long tend = smClock();
	if (s == 0x12345678)
		sink[0] = s;
	if (lane == 0) {
		long long *o = out + (MAXN + 3) * gw;
		o[0] = smid();
		for (int j = 0; j <= MAXN; j++)
			o[1 + j] = j <= N ? t[j] : 0;
		o[MAXN + 2] = tend;
	}
}

template <int N>
__global__ void behind(const unsigned *buf, size_t line0, long long *out, unsigned *sink)
{
	__shared__ unsigned sh[1024];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
	sh[threadIdx.x] = threadIdx.x;
	__syncthreads();
	long long t0 = smClock();
	if (warp != 0) {
		unsigned s = 0;
#pragma unroll
		for (int j = 0; j < N; j++)
			s += ldOrdered(linePtr(buf, line0, gw, j));
		if (s == 0x12345678)
			sink[0] = s;
		return;
	}
	while (smClock() - t0 < 200)
		;
	long long t1 = smClock();
	unsigned v;
	asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(&sh[lane])) : "memory");
	long long tend = smClockAfter(v, sink);
	if (lane == 0) {
		long long *o = out + (MAXN + 3) * blockIdx.x;
		for (int j = 0; j < MAXN + 3; j++)
			o[j] = 0;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[MAXN + 2] = tend;
	}
}

// hit: each warp loads K lines (32/K lanes a line, its own lines), waits for them, and
// after a barrier loads the same lines again, now L1 hits: t1 after the barrier, tend
// when the second load's data is back. The spread of tend over the 32 warps is the
// L1's time for 32 x K hit lines.
template <int K>
__global__ void hit(const unsigned *buf, size_t line0, long long *out, unsigned *sink)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
	const unsigned *p = buf + (line0 + gw * K + lane / (32 / K)) * 32 + lane % (32 / K);
	long long t0 = smClock();
	unsigned v = ldOrdered(p), u;
	asm volatile("add.u32 %0, %1, 1;" : "=r"(u) : "r"(v));
	if (u == 0x12345678) // the first load's data before the barrier
		sink[1] = u;
	__syncthreads();
	long long t1 = smClock();
	unsigned v2 = ldOrdered(p), u2;
	asm volatile("add.u32 %0, %1, %2;" : "=r"(u2) : "r"(v2), "r"(u));
	long long tend = smClock();
	if (u2 == 0x12345678)
		sink[0] = u2;
	if (lane == 0) {
		long long *o = out + (MAXN + 3) * gw;
		for (int j = 0; j < MAXN + 3; j++)
			o[j] = 0;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[MAXN + 2] = tend;
	}
}

static void print(const char *part, int n, int ctas, int warps, const std::vector<long long> &h, int rows)
{
	for (int r = 0; r < rows; r++) {
		const long long *o = &h[(size_t)(MAXN + 3) * r];
		if (o[0] >= 4 && ctas > 4)
			continue; // SMs 0-3 only when every SM runs
		printf("%s,%d,%d,%d,%d,%lld", part, n, ctas, r / warps, r % warps, o[0]);
		for (int j = 1; j < MAXN + 3; j++)
			printf(",%lld", o[j]);
		printf("\n");
	}
}

template <int N>
static void runDepth(const unsigned *buf, long long *out, unsigned *sink, int ctas)
{
	depth<N><<<ctas, 1024>>>(buf, 0, out, sink); // the lines into the L2
	CK(cudaDeviceSynchronize());
	depth<N><<<ctas, 1024>>>(buf, 0, out, sink);
	CK(cudaDeviceSynchronize());
	std::vector<long long> h((size_t)ctas * 32 * (MAXN + 3));
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("depth", N, ctas, 32, h, ctas * 32);
}

template <int N>
static void runBehind(const unsigned *buf, long long *out, unsigned *sink, int ctas)
{
	behind<N><<<ctas, 1024>>>(buf, 0, out, sink);
	CK(cudaDeviceSynchronize());
	behind<N><<<ctas, 1024>>>(buf, 0, out, sink);
	CK(cudaDeviceSynchronize());
	std::vector<long long> h((size_t)ctas * (MAXN + 3));
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("shared", N, ctas, 1, h, ctas);
}

template <int K>
static void runHit(const unsigned *buf, long long *out, unsigned *sink, int ctas)
{
	hit<K><<<ctas, 1024>>>(buf, 0, out, sink);
	CK(cudaDeviceSynchronize());
	std::vector<long long> h((size_t)ctas * 32 * (MAXN + 3));
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("hit", K, ctas, 32, h, ctas * 32);
}

int main()
{
	int sms = smCount();
	unsigned *buf, *sink;
	long long *out;
	size_t lines = (size_t)sms * 32 * MAXN * 32 + 32;
	CK(cudaMalloc(&buf, lines * 128));
	CK(cudaMemset(buf, 1, lines * 128));
	CK(cudaMalloc(&out, (size_t)sms * 32 * (MAXN + 3) * 8));
	CK(cudaMalloc(&sink, 4));
	printf("part,n,ctas,block,warp,smid,t0");
	for (int j = 1; j <= MAXN; j++)
		printf(",t%d", j);
	printf(",tend\n");
	for (int ctas : {4, sms}) {
		runDepth<1>(buf, out, sink, ctas);
		runDepth<2>(buf, out, sink, ctas);
		runDepth<4>(buf, out, sink, ctas);
		runDepth<8>(buf, out, sink, ctas);
		runDepth<16>(buf, out, sink, ctas);
		runBehind<0>(buf, out, sink, ctas);
		runBehind<1>(buf, out, sink, ctas);
		runBehind<4>(buf, out, sink, ctas);
		runBehind<16>(buf, out, sink, ctas);
	}
	runHit<1>(buf, out, sink, 4);
	runHit<4>(buf, out, sink, 4);
	runHit<32>(buf, out, sink, 4);
	return 0;
}
