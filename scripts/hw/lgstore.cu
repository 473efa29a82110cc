// lgstore.cu: what holds transpose v1 on the H200 besides its loads. docs/issue-11.md
// item 27 found the LG queue deep enough (about 2000 line misses) that v1's strided
// loads never wait at issue, yet v1 takes 18% longer than the engine with that queue.
// Its stores (one line of four sectors a warp) and its loads' DRAM pattern (8 warps
// sharing each sector) were not measured. Four parts, each stamping the SM's clock
// (sm_stamp.cuh: asm volatile, in program order; SASS in the log):
//
// v1: transpose v1 (kernels/cu/transpose.cu) at n = 2048, 32x32 threads a CTA, with
// its load and store in asm volatile and four stamps a warp: t0 at the start, t1 after
// the LDG issues, t2 when its data is back, t3 after the STG issues. Also timed without
// stamps (stderr). Warps on SMs 0-15 only.
// pend: v1's loads alone (each sector read by 8 warps), from the L2 and from DRAM.
// store: each of the 32 warps of a CTA issues N stores back to back, stamping after
// each (t1..tN), then a membar.gl and tend once all are acknowledged. Kinds (what a
// warp's store of 32 words touches): line, one line of 4 sectors; half, 2 lines of 2
// sectors; quarter, 4 lines of one whole sector; lines, 32 lines of 4 bytes each.
// N = 1, 4, 16; 4 CTAs (one on each of 4 SMs) and one CTA on every SM. Each launch
// runs twice, the second is printed.
// behind: warp 0 of a 32-warp CTA waits 200 cycles, then loads one word of shared
// memory a lane (no conflict) and stamps when it has the data (t1 = when it began,
// tend = data); the other 31 warps each issue N stores of a kind at the start. Do
// stores hold the queue a shared load waits in, as lgdepth.cu's loads do?
//
//   nvcc -O3 -arch=sm_90 -o lgstore scripts/hw/lgstore.cu && ./lgstore > lgstore.csv
//
// stdout: part,kind,n,ctas,block,warp,smid,t0,t1,...,t16,tend (unused stamps 0).
#include "probe.h"
#include "sm_stamp.cuh"
#include "store_kinds.cuh"
#include <cstdint>

#define MAXN 16
#define ROW (MAXN + 3)

template <int N, int KIND>
__global__ void stores(unsigned *buf, long long *out)
{
	size_t gw = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	storeStamps<N, KIND, MAXN>(buf, gw, out + ROW * gw);
}

template <int N, int KIND>
__global__ void behind(unsigned *buf, long long *out, unsigned *sink)
{
	__shared__ unsigned sh[1024];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
	sh[threadIdx.x] = threadIdx.x;
	__syncthreads();
	long long t0 = smClock();
	if (warp != 0) {
#pragma unroll
		for (int j = 0; j < N; j++)
			st(storePtr<KIND>(buf, gw * MAXN + j), lane + j);
		return;
	}
	// As lgdepth.cu's behind, written out: a helper shared by the two moves ptxas's
	// schedule away from the committed runs' SASS.
	while (smClock() - t0 < 200)
		;
	long long t1 = smClock();
	unsigned v;
	asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(&sh[lane])) : "memory");
	long long tend = smClockAfter(v, sink);
	if (lane == 0) {
		long long *o = out + ROW * blockIdx.x;
		for (int j = 0; j < ROW; j++)
			o[j] = 0;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[MAXN + 2] = tend;
	}
}

// v1: kernels/cu/transpose.cu's transpose v1 with its load and store pinned between
// stamps (five 8-byte stores by lane 0 of each warp at its end: scripts/hw/phases.cu's
// cost).
template <bool STAMP>
__global__ void v1(const unsigned *a, unsigned *at, int n, long long *out, unsigned *sink)
{
	long long t0 = STAMP ? smClock() : 0;
	int row = blockDim.y * blockIdx.y + threadIdx.y;
	int col = blockDim.x * blockIdx.x + threadIdx.x;
	unsigned v = ldOrdered(&a[(size_t)col * n + row]);
	long long t1 = STAMP ? smClock() : 0;
	long long t2 = STAMP ? smClockAfter(v, sink) : 0;
	st(&at[(size_t)row * n + col], v);
	if (!STAMP)
		return;
	long long t3 = smClock();
	if ((threadIdx.x & 31) == 0) {
		size_t w = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 32 + (threadIdx.y * blockDim.x + threadIdx.x) / 32;
		long long *o = out + ROW * w; // the rest zeroed before the launch
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = t2, o[4] = t3;
	}
}

// pend: transpose v1's loads alone. Warp w of a CTA loads word w of the CTA's 32
// lines (so warps 8k..8k+7 read sector k of each line: the first misses, the other
// seven find the sector on its way), t1 after the LDG issues, tend when its data is
// back. The data's spread over the 32 warps is what a line costs the L1 when most
// lookups hit a sector still in flight (lgdepth.cu: 1.25 cycles a missing line, 1 a
// line present).
__global__ void pend(const unsigned *buf, size_t line0, long long *out, unsigned *sink)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * 32 + warp;
	const unsigned *p = buf + (line0 + (size_t)blockIdx.x * 32 + lane) * 32 + warp;
	long long t0 = smClock();
	unsigned v = ldOrdered(p);
	long long t1 = smClock();
	long long tend = smClockAfter(v, sink);
	if (lane == 0) {
		long long *o = out + ROW * gw;
		for (int j = 0; j < ROW; j++)
			o[j] = 0;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[MAXN + 2] = tend;
	}
}

static void print(const char *part, const char *kind, int n, int ctas, int warps, const std::vector<long long> &h, size_t rows, int maxSM)
{
	for (size_t r = 0; r < rows; r++) {
		const long long *o = &h[(size_t)ROW * r];
		if (o[0] >= maxSM)
			continue;
		printf("%s,%s,%d,%d,%zu,%zu,%lld", part, kind, n, ctas, r / warps, r % warps, o[0]);
		for (int j = 1; j < ROW; j++)
			printf(",%lld", o[j]);
		printf("\n");
	}
}

template <int N, int KIND>
static void runStores(unsigned *buf, long long *out, unsigned *sink, int ctas)
{
	std::vector<long long> h((size_t)ctas * 32 * ROW);
	for (int rep = 0; rep < 2; rep++) {
		stores<N, KIND><<<ctas, 1024>>>(buf, out);
		CK(cudaDeviceSynchronize());
	}
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	int maxSM = ctas > 4 ? 4 : 1 << 30; // SMs 0-3 only when every SM runs
	print("store", kindName[KIND], N, ctas, 32, h, (size_t)ctas * 32, maxSM);
	for (int rep = 0; rep < 2; rep++) {
		behind<N, KIND><<<ctas, 1024>>>(buf, out, sink);
		CK(cudaDeviceSynchronize());
	}
	CK(cudaMemcpy(h.data(), out, (size_t)ctas * ROW * 8, cudaMemcpyDeviceToHost));
	print("behind", kindName[KIND], N, ctas, 1, h, ctas, maxSM);
}

// runPend runs pend over lines in the L2 (a launch before reads them) or, cold, over
// lines no launch has touched since a sweep of 256 MB through the L2.
static void runPend(unsigned *buf, long long *out, unsigned *sink, int ctas, bool cold)
{
	static size_t next = 0; // lines used so far by cold runs
	size_t lines = (size_t)ctas * 32;
	size_t line0 = cold ? (next += lines) : 0;
	if (cold) {
		static uint4 *big;
		size_t n = (size_t)256 << 20;
		if (!big)
			CK(cudaMalloc(&big, n));
		sweep<<<1024, 256>>>(big, n / 16, sink);
	} else
		pend<<<ctas, 1024>>>(buf, line0, out, sink);
	CK(cudaDeviceSynchronize());
	pend<<<ctas, 1024>>>(buf, line0, out, sink);
	CK(cudaDeviceSynchronize());
	std::vector<long long> h((size_t)ctas * 32 * ROW);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("pend", cold ? "dram" : "l2", 1, ctas, 32, h, (size_t)ctas * 32, ctas > 4 ? 4 : 1 << 30);
}

int main()
{
	int sms = smCount();
	unsigned *buf, *sink;
	long long *out;
	const int n = 2048;
	size_t words = std::max((size_t)sms * 32 * MAXN * 32 * 32 + 1024, (size_t)2 * n * n);
	CK(cudaMalloc(&buf, words * 4));
	CK(cudaMemset(buf, 1, words * 4));
	size_t warps = (size_t)n * n / 32;
	CK(cudaMalloc(&out, std::max(warps, (size_t)sms * 32) * ROW * 8));
	CK(cudaMalloc(&sink, 8));
	printf("part,kind,n,ctas,block,warp,smid,t0");
	for (int j = 1; j <= MAXN; j++)
		printf(",t%d", j);
	printf(",tend\n");
	for (int ctas : {4, sms}) {
		runStores<1, LINE>(buf, out, sink, ctas);
		runStores<4, LINE>(buf, out, sink, ctas);
		runStores<16, LINE>(buf, out, sink, ctas);
		runStores<16, HALF>(buf, out, sink, ctas);
		runStores<16, QUARTER>(buf, out, sink, ctas);
		runStores<1, LINES>(buf, out, sink, ctas);
		runStores<4, LINES>(buf, out, sink, ctas);
		runStores<16, LINES>(buf, out, sink, ctas);
		runPend(buf, out, sink, ctas, false);
		runPend(buf, out, sink, ctas, true);
	}
	dim3 grid(n / 32, n / 32), block(32, 32);
	unsigned *a = buf, *at = buf + (size_t)n * n;
	auto plain = [&] { v1<false><<<grid, block>>>(a, at, n, out, sink); };
	auto stamped = [&] { v1<true><<<grid, block>>>(a, at, n, out, sink); };
	auto none = [] {};
	CK(cudaMemset(out, 0, warps * ROW * 8));
	float p = timeLaunch(false, plain, none), s = timeLaunch(false, stamped, none);
	fprintf(stderr, "v1: %.4f ms plain, %.4f ms stamped\n", p, s);
	std::vector<long long> h(warps * ROW);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("v1", "stamped", n, (int)(warps / 32), 32, h, warps, 16);
	return 0;
}
