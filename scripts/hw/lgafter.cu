// lgafter.cu: what a global store waits for on the H200, the other way round from
// lgstore.cu's behind part (docs/issue-11.md item 28 and "Next, in order"), and
// whether a CTA's room on its SM waits for its stores. Two parts, each stamping the
// SM's clock (sm_stamp.cuh: in program order; SASS in the log):
//
// after: warps 1-31 of a 32-warp CTA each issue N operations of a kind (AHEAD) at
// the start; warp 0 waits 200 cycles, stamps t1, issues one store of 32 words
// (store_kinds.cuh: line, one line of 4 sectors; lines, 32 lines of 4 bytes), stamps
// t2, then a membar.gl and tend once the store is acknowledged. AHEAD: none;
// shconf, a shared load of a word a lane with a 32-way bank conflict (32 wavefronts);
// shfree, a shared load with none; lgline, a global load of a word a lane from 32
// lines in the L2 (transpose v1's load; lgqueue.cu: the L1 works them off at about
// 1.25 cycles a line). N = 1, 4, 16; 4 CTAs (one on each of 4 SMs) and one on every
// SM. Each launch runs twice, the second is printed. Does a store wait at issue
// (t2 - t1) or in the queue (tend - t2) behind loads of the same SM?
// room: 3 CTAs an SM of 1024 threads, each with 150 KB of shared memory so that one
// fits at a time; every warp stamps t0 at its start and t1 after N stores of a kind
// (N = 0, 4, 16), then exits. Rows for SMs 0-3 only. Does the next CTA on an SM start
// later after a CTA that stores (its first t0 against the last t1 of the one before)?
//
//   nvcc -O3 -arch=sm_90 -o lgafter scripts/hw/lgafter.cu && ./lgafter > lgafter.csv
//
// stdout: part,ahead,kind,n,ctas,block,warp,smid,t0,t1,t2,tend (unused stamps 0).
#include "probe.h"
#include "sm_stamp.cuh"
#include "store_kinds.cuh"
#include <cstdint>

#define MAXN 16
#define ROW 5 // smid, t0, t1, t2, tend

enum { NONE, SHCONF, SHFREE, LGLINE };
static const char *aheadName[] = {"none", "shconf", "shfree", "lgline"};

template <int AHEAD, int N, int KIND>
__global__ void after(unsigned *buf, const unsigned *lines, long long *out, unsigned *sink)
{
	__shared__ unsigned sh[1024];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	sh[threadIdx.x] = threadIdx.x;
	__syncthreads();
	long long t0 = smClock();
	if (warp != 0) {
		unsigned x = 0;
#pragma unroll
		for (int j = 0; j < N; j++) {
			switch (AHEAD) {
			case SHCONF: // every lane in bank warp % 32, 32 rows
				x += ldShared(&sh[lane * 32 + warp]);
				break;
			case SHFREE:
				x += ldShared(&sh[(warp * 32 + lane + j) % 1024]);
				break;
			case LGLINE: // the same 16384 lines in every CTA: 2 MB, in the L2
				x += ldOrdered(lines + ((size_t)(warp * MAXN + j) * 32 + lane) * 32);
				break;
			}
		}
		if (x == 0x9e3779b9u)
			sink[0] = x;
		return;
	}
	while (smClock() - t0 < 200)
		;
	long long t1 = smClock();
	st(storePtr<KIND>(buf, blockIdx.x), lane);
	long long t2 = smClock();
	asm volatile("membar.gl;" ::: "memory");
	long long tend = smClock();
	if (lane == 0) {
		long long *o = out + ROW * blockIdx.x;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = t2, o[4] = tend;
	}
}

template <int N, int KIND>
__global__ void room(unsigned *buf, long long *out)
{
	extern __shared__ unsigned big[];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * 32 + warp;
	long long t0 = smClock();
	if (threadIdx.x == 0)
		big[0] = t0; // the shared memory is the launch's, not the compiler's to drop
#pragma unroll
	for (int j = 0; j < N; j++)
		st(storePtr<KIND>(buf, gw * MAXN + j), lane + j);
	long long t1 = smClock();
	if (lane == 0) {
		long long *o = out + ROW * gw;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = 0, o[4] = 0;
	}
}

static void print(const char *part, const char *ahead, const char *kind, int n, int ctas, int warps, const std::vector<long long> &h, size_t rows, int maxSM)
{
	for (size_t r = 0; r < rows; r++) {
		const long long *o = &h[(size_t)ROW * r];
		if (o[0] >= maxSM)
			continue;
		printf("%s,%s,%s,%d,%d,%zu,%zu,%lld", part, ahead, kind, n, ctas, r / warps, r % warps, o[0]);
		for (int j = 1; j < ROW; j++)
			printf(",%lld", o[j]);
		printf("\n");
	}
}

template <int AHEAD, int N, int KIND>
static void runAfter(unsigned *buf, const unsigned *lines, long long *out, unsigned *sink, int ctas)
{
	for (int rep = 0; rep < 2; rep++) {
		after<AHEAD, N, KIND><<<ctas, 1024>>>(buf, lines, out, sink);
		CK(cudaDeviceSynchronize());
	}
	std::vector<long long> h((size_t)ctas * ROW);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("after", aheadName[AHEAD], kindName[KIND], N, ctas, 1, h, ctas, ctas > 4 ? 4 : 1 << 30);
}

template <int AHEAD, int N>
static void runAfterKinds(unsigned *buf, const unsigned *lines, long long *out, unsigned *sink, int ctas)
{
	runAfter<AHEAD, N, LINE>(buf, lines, out, sink, ctas);
	runAfter<AHEAD, N, LINES>(buf, lines, out, sink, ctas);
}

template <int N, int KIND>
static void runRoom(unsigned *buf, long long *out, int sms)
{
	const int shared = 150 << 10;
	CK(cudaFuncSetAttribute(room<N, KIND>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
	int ctas = 3 * sms;
	CK(cudaMemset(out, 0, (size_t)ctas * 32 * ROW * 8));
	for (int rep = 0; rep < 2; rep++) {
		room<N, KIND><<<ctas, 1024, shared>>>(buf, out);
		CK(cudaDeviceSynchronize());
	}
	std::vector<long long> h((size_t)ctas * 32 * ROW);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	print("room", "none", kindName[KIND], N, ctas, 32, h, (size_t)ctas * 32, 4);
}

int main()
{
	int sms = smCount();
	unsigned *buf, *lines, *sink;
	long long *out;
	size_t words = (size_t)3 * sms * 32 * MAXN * 32 * 32; // room's stores of 32 lines
	CK(cudaMalloc(&buf, words * 4));
	CK(cudaMemset(buf, 1, words * 4));
	CK(cudaMalloc(&lines, (size_t)32 * MAXN * 32 * 128));
	CK(cudaMemset(lines, 1, (size_t)32 * MAXN * 32 * 128));
	CK(cudaMalloc(&out, (size_t)3 * sms * 32 * ROW * 8));
	CK(cudaMalloc(&sink, 8));
	printf("part,ahead,kind,n,ctas,block,warp,smid,t0,t1,t2,tend\n");
	for (int ctas : {4, sms}) {
		runAfterKinds<NONE, 1>(buf, lines, out, sink, ctas);
		runAfterKinds<SHCONF, 1>(buf, lines, out, sink, ctas);
		runAfterKinds<SHCONF, 4>(buf, lines, out, sink, ctas);
		runAfterKinds<SHCONF, 16>(buf, lines, out, sink, ctas);
		runAfterKinds<SHFREE, 16>(buf, lines, out, sink, ctas);
		runAfterKinds<LGLINE, 1>(buf, lines, out, sink, ctas);
		runAfterKinds<LGLINE, 4>(buf, lines, out, sink, ctas);
		runAfterKinds<LGLINE, 16>(buf, lines, out, sink, ctas);
	}
	runRoom<0, LINE>(buf, out, sms);
	runRoom<4, LINE>(buf, out, sms);
	runRoom<16, LINE>(buf, out, sms);
	runRoom<4, LINES>(buf, out, sms);
	runRoom<16, LINES>(buf, out, sms);
	return 0;
}
