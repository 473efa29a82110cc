// lgbuffer.cu: how many stores an H200 SM holds while they wait in its LSU queue
// (docs/issue-11.md item 29). lgafter.cu found a store acknowledged only after the
// loads queued before it, yet in transpose v1 a warp issues its store about 66 cycles
// after its data arrive while some 2000 line lookups are queued (lgstore.cu): so the SM
// holds many stores waiting. Each store's data must be somewhere from its issue until
// its lines leave; this probe finds how many stores fit before a store waits to issue.
//
// fill: warps 0-15 of a 32-warp CTA each issue L loads of a word a lane from 32 lines
// in the L2 (L = 0, 1, 2, 4: 0 to 2048 lookups, about 1.25 cycles each, queued at the
// start); warps 16-31 wait 100 cycles, stamp t0, then each issues 16 stores of a kind
// back to back (store_kinds.cuh: line, one line of 4 sectors; quarter, 4 lines of a
// sector; lines, 32 lines of 4 bytes), stamping after each (t1..t16), then a membar.gl
// and tend. 4 CTAs (one on each of 4 SMs); line also with one CTA on every SM. Each
// launch runs twice, the second is printed. The stores issued before the first long
// wait are what the SM holds.
//
//   nvcc -O3 -arch=sm_90 -o lgbuffer scripts/hw/lgbuffer.cu && ./lgbuffer > lgbuffer.csv
//
// stdout: part,kind,l,ctas,block,warp,smid,t0,t1,...,t16,tend; warps 16-31 only, and
// with every SM running, SMs 0-3 only.
#include "probe.h"
#include "sm_stamp.cuh"
#include "store_kinds.cuh"
#include <cstdint>

#define MAXN 16
#define ROW (MAXN + 3)

template <int L, int KIND>
__global__ void fill(unsigned *buf, const unsigned *lines, long long *out, unsigned *sink)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * 32 + warp;
	__syncthreads();
	long long t0 = smClock();
	if (warp < 16) {
		unsigned x = 0;
#pragma unroll
		for (int j = 0; j < L; j++) // the same 2048 lines in every CTA: 256 KB, in the L2
			x += ldOrdered(lines + ((size_t)(warp * 4 + j) * 32 + lane) * 32);
		if (x == 0x9e3779b9u)
			sink[0] = x;
		return;
	}
	while (smClock() - t0 < 100)
		;
	// store_kinds.cuh's storeStamps, written out: through it ptxas schedules this
	// kernel's SASS differently from the committed run's.
	long long t[MAXN + 1];
	t[0] = smClock();
#pragma unroll
	for (int j = 0; j < MAXN; j++) {
		st(storePtr<KIND>(buf, gw * MAXN + j), lane + j);
		t[j + 1] = smClock();
	}
	asm volatile("membar.gl;" ::: "memory");
	long long tend = smClock();
	if (lane == 0) {
		long long *o = out + ROW * gw;
		o[0] = smid();
		for (int j = 0; j <= MAXN; j++)
			o[1 + j] = t[j];
		o[MAXN + 2] = tend;
	}
}

template <int L, int KIND>
static void runFill(unsigned *buf, const unsigned *lines, long long *out, unsigned *sink, int ctas)
{
	for (int rep = 0; rep < 2; rep++) {
		fill<L, KIND><<<ctas, 1024>>>(buf, lines, out, sink);
		CK(cudaDeviceSynchronize());
	}
	std::vector<long long> h((size_t)ctas * 32 * ROW);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	for (size_t r = 0; r < (size_t)ctas * 32; r++) {
		const long long *o = &h[(size_t)ROW * r];
		if (r % 32 < 16 || (ctas > 4 && o[0] >= 4)) // SMs 0-3 only when every SM runs
			continue;
		printf("fill,%s,%d,%d,%zu,%zu,%lld", kindName[KIND], L, ctas, r / 32, r % 32, o[0]);
		for (int j = 1; j < ROW; j++)
			printf(",%lld", o[j]);
		printf("\n");
	}
}

template <int KIND>
static void runLoads(unsigned *buf, const unsigned *lines, long long *out, unsigned *sink, int ctas)
{
	runFill<0, KIND>(buf, lines, out, sink, ctas);
	runFill<1, KIND>(buf, lines, out, sink, ctas);
	runFill<2, KIND>(buf, lines, out, sink, ctas);
	runFill<4, KIND>(buf, lines, out, sink, ctas);
}

int main()
{
	int sms = smCount();
	unsigned *buf, *lines, *sink;
	long long *out;
	size_t words = (size_t)sms * 32 * MAXN * 32 * 32; // stores of 32 lines
	CK(cudaMalloc(&buf, words * 4));
	CK(cudaMemset(buf, 1, words * 4));
	CK(cudaMalloc(&lines, (size_t)2048 * 128));
	CK(cudaMemset(lines, 1, (size_t)2048 * 128));
	CK(cudaMalloc(&out, (size_t)sms * 32 * ROW * 8));
	CK(cudaMemset(out, 0, (size_t)sms * 32 * ROW * 8));
	CK(cudaMalloc(&sink, 8));
	printf("part,kind,l,ctas,block,warp,smid,t0");
	for (int j = 1; j <= MAXN; j++)
		printf(",t%d", j);
	printf(",tend\n");
	runLoads<LINE>(buf, lines, out, sink, 4);
	runLoads<QUARTER>(buf, lines, out, sink, 4);
	runLoads<LINES>(buf, lines, out, sink, 4);
	runLoads<LINE>(buf, lines, out, sink, sms);
	return 0;
}
