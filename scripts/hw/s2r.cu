// s2r.cu: what reading a special register (S2R: %tid, %ctaid, %laneid, %smid...) costs
// an H200's SM, and what it waits for (docs/issue-11.md item 33). On the H200 a
// CTA's warps take their first clock stamp 150-600 cycles apart when another CTA on
// the SM has shared loads or stores queued (lgdrain.cu, hw-facts section 27), 65 on an
// idle SM; the SASS reads %tid.x and %ctaid.x with S2R before that stamp. The engine
// takes such a read for an ALU move.
//
// One CTA of W warps (W = 1, 32) on each of 4 SMs; every warp stamps the SM's clock in
// program order (sm_stamp.cuh; SASS in the log). Parts:
//   lat:    8 reads of distinct special registers, a stamp once each has arrived
//           (t1..t8); alu: the same with a register add in place of each read.
//   burst:  8 such reads back to back, one stamp once their sum has arrived (t1).
//   behind: K shared loads of a word a lane with a 32-way bank conflict (K = 0, 1, 4,
//           16), t1 (ptxas hoists an S2R above the loads unless a clock read is
//           between them), a read of %lanemask_le, t2 once it has arrived, t3 once the
//           loads' sum has too.
//   behindst: K global stores of a line (K = 0, 4, 16), t1, the read, t2.
// Each launch runs twice, the second is printed.
//
//   nvcc -O3 -arch=sm_90 -o s2r scripts/hw/s2r.cu && ./s2r > s2r.csv
//
// stdout: part,k,w,block,warp,smid,t0,...,t8 (unused stamps 0).
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define NS 9           // stamps t0..t8
#define ROW (NS + 1)   // smid, stamps
enum { LAT, ALU, BURST, BEHIND, BEHINDST };
static const char *partName[] = {"lat", "alu", "burst", "behind", "behindst"};

// sreg reads special register R (0-7), each a distinct S2R in the SASS (not %laneid:
// ptxas knows it is below 32 and drops smClockAfter's test, and with it the read).
template <int R>
__device__ __forceinline__ unsigned sreg()
{
	unsigned v;
	switch (R) {
	case 0:
		asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(v)::"memory");
		break;
	case 1:
		asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v)::"memory");
		break;
	case 2:
		asm volatile("mov.u32 %0, %%tid.y;" : "=r"(v)::"memory");
		break;
	case 3:
		asm volatile("mov.u32 %0, %%tid.z;" : "=r"(v)::"memory");
		break;
	case 4:
		asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v)::"memory");
		break;
	case 5:
		asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(v)::"memory");
		break;
	case 6:
		asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(v)::"memory");
		break;
	default:
		asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(v)::"memory");
	}
	return v;
}

// addReg is an ALU add the compiler keeps in place, alu's stand-in for a read.
__device__ __forceinline__ unsigned addReg(unsigned a, unsigned b)
{
	unsigned v;
	asm volatile("add.u32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b) : "memory");
	return v;
}

__device__ __forceinline__ void put(long long *out, const long long *t)
{
	if ((threadIdx.x & 31) == 0) {
		long long *o = out + ROW * ((size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
		o[0] = smid();
		for (int j = 0; j < NS; j++)
			o[j + 1] = t[j];
	}
}

#define EACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

template <int PART, int K>
__global__ void probe(unsigned *buf, long long *out, unsigned *sink)
{
	__shared__ unsigned sh[1024];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x)
		sh[i] = i;
	__syncthreads();
	long long t[NS] = {};
	t[0] = smClock();
	if (PART == LAT) {
#define ONE(j) t[j + 1] = smClockAfter(sreg<j>(), sink);
		EACH(ONE)
#undef ONE
	} else if (PART == ALU) {
		unsigned a = lane;
#define ONE(j) a = addReg(a, j), t[j + 1] = smClockAfter(a, sink);
		EACH(ONE)
#undef ONE
	} else if (PART == BURST) {
		unsigned s = 0;
#define ONE(j) s += sreg<j>();
		EACH(ONE)
#undef ONE
		t[1] = smClockAfter(s, sink);
	} else if (PART == BEHIND) {
		unsigned x = 0;
#pragma unroll
		for (int j = 0; j < K; j++) // lane l: bank (l + j + warp) % 32 of row l, 32-way
			x += ldShared(&sh[lane * 32 + (j + warp) % 32]);
		t[1] = smClock(); // ptxas keeps the read below it
		t[2] = smClockAfter(sreg<0>(), sink);
		t[3] = smClockAfter(x, sink);
	} else {
		size_t g = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
#pragma unroll
		for (int j = 0; j < K; j++)
			asm volatile("st.global.u32 [%0], %1;" ::"l"(buf + (g * 16 + j) * 32 + lane), "r"(j) : "memory");
		t[1] = smClock();
		t[2] = smClockAfter(sreg<0>(), sink);
	}
	put(out, t);
}

template <int PART, int K>
static void run(unsigned *buf, long long *out, unsigned *sink)
{
	runStamped(partName[PART], K, {1, 32}, out, ROW, [&](int w) { probe<PART, K><<<4, 32 * w>>>(buf, out, sink); });
}

int main()
{
	smCount();
	unsigned *buf, *sink;
	long long *out;
	CK(cudaMalloc(&buf, (size_t)4 * 32 * 16 * 128));
	CK(cudaMalloc(&sink, 128));
	CK(cudaMalloc(&out, (size_t)4 * 32 * ROW * 8));
	printStampHeader(NS);
	run<LAT, 0>(buf, out, sink);
	run<ALU, 0>(buf, out, sink);
	run<BURST, 0>(buf, out, sink);
	run<BEHIND, 0>(buf, out, sink);
	run<BEHIND, 1>(buf, out, sink);
	run<BEHIND, 4>(buf, out, sink);
	run<BEHIND, 16>(buf, out, sink);
	run<BEHINDST, 0>(buf, out, sink);
	run<BEHINDST, 4>(buf, out, sink);
	run<BEHINDST, 16>(buf, out, sink);
	return 0;
}
