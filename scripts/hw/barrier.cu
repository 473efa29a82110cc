// barrier.cu: how an H200's SM lets a CTA's warps go from a bar.sync (docs/issue-11.md,
// "Next, in order" (0)). s2r.cu's stamps (hw-facts section 30) show 32 warps leaving a
// bar.sync over about 75 cycles, one sub-partition's warps after another's; the
// timing engine lets them all go in the cycle the last one arrives.
//
// One CTA of W warps (W = 1, 2, 4, 8, 16, 32) on each of 4 SMs; every warp stamps the
// SM's clock in program order (sm_stamp.cuh; SASS in the log). Parts:
//   plain:  t0, bar.sync, t1, t2, t3 (three stamps back to back after the barrier).
//   late:   t0, one warp (k even: warp 0, k odd: the last) spins 3000 cycles, t1 (each
//           warp's arrival), bar.sync, t2, then by k / 2: 0 t3; 1 an S2R (%lanemask_le),
//           t3 once it has arrived; 2 a shared load (a word a lane, no conflict), t3
//           once it has arrived; 3 8 dependent adds on t2 (ptxas folds them into one
//           IADD3), t3 once done; 4 bar.sync, t3; 5 a global load (a word a lane,
//           in the L1 from the first run), t3 once it has arrived; 6 a global store of a
//           word a lane, t3.
//           The release measured from the last arrival: the warps issue past a
//           BAR.SYNC.DEFER_BLOCKING (t2 of run 1), so what waits for the release?
//   alu:    t0, bar.sync, t1, 8 dependent adds, t2 once they are done.
//   behind: t0, k shared loads of a word a lane with a 32-way bank conflict (k = 1, 4),
//           t1, bar.sync, t2, t3 once the loads' sum has arrived.
//   twobar: t0, bar.sync, t1, bar.sync, t2, bar.sync, t3.
// Each launch runs twice, the second is printed.
//
//   nvcc -O3 -arch=sm_90 -o barrier scripts/hw/barrier.cu && ./barrier > barrier.csv
//
// stdout: part,k,w,block,warp,smid,t0,...,t3.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define NS 4           // stamps t0..t3
#define ROW (NS + 1)   // smid, stamps
enum { PLAIN, LATE, ALU, BEHIND, TWOBAR };
static const char *partName[] = {"plain", "late", "alu", "behind", "twobar"};

__device__ __forceinline__ void bar() { asm volatile("bar.sync 0;" ::: "memory"); }

// addReg is an ALU add the compiler keeps in place.
__device__ __forceinline__ unsigned addReg(unsigned a, unsigned b)
{
	unsigned v;
	asm volatile("add.u32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b) : "memory");
	return v;
}

__device__ __forceinline__ unsigned laneMaskLE()
{
	unsigned v;
	asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(v)::"memory");
	return v;
}

template <int PART, int K>
__global__ void probe(unsigned *buf, long long *out, unsigned *sink)
{
	__shared__ unsigned sh[1024];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
	for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x)
		sh[i] = i;
	__syncthreads();
	long long t[NS] = {};
	t[0] = smClock();
	if (PART == PLAIN) {
		bar();
		t[1] = smClock();
		t[2] = smClock();
		t[3] = smClock();
	} else if (PART == LATE) {
		if (warp == ((K & 1) == 0 ? 0 : warps - 1))
			while (smClock() - t[0] < 3000)
				;
		t[1] = smClock();
		bar();
		t[2] = smClock();
		switch (K >> 1) {
		case 0: // a second clock read
			t[3] = smClock();
			break;
		case 1: // an S2R
			t[3] = smClockAfter(laneMaskLE(), sink);
			break;
		case 2: // a shared load, a word a lane, no conflict
			t[3] = smClockAfter(ldShared(&sh[threadIdx.x]), sink);
			break;
		case 3: { // 8 dependent adds (on t2, so they stay after the barrier)
			unsigned a = (unsigned)t[2];
#pragma unroll
			for (int j = 0; j < 8; j++)
				a = addReg(a, j);
			t[3] = smClockAfter(a, sink);
			break;
		}
		case 4: // a second barrier
			bar();
			t[3] = smClock();
			break;
		case 5: // a global load, a word a lane (a line a warp, in the L1 from the first run)
			t[3] = smClockAfter(ldOrdered(&buf[threadIdx.x]), sink);
			break;
		default: // a global store, a word a lane, t3 once it has issued
			asm volatile("st.global.u32 [%0], %1;" ::"l"(buf + 4096 + threadIdx.x), "r"(lane) : "memory");
			t[3] = smClock();
		}
	} else if (PART == ALU) {
		bar();
		t[1] = smClock();
		unsigned a = lane;
#pragma unroll
		for (int j = 0; j < 8; j++)
			a = addReg(a, j);
		t[2] = smClockAfter(a, sink);
	} else if (PART == BEHIND) {
		unsigned v[K > 0 ? K : 1];
#pragma unroll
		for (int j = 0; j < K; j++) // lane l: bank (l + j + warp) % 32 of row l, 32-way
			v[j] = ldShared(&sh[lane * 32 + (j + warp) % 32]);
		t[1] = smClock();
		bar();
		t[2] = smClock();
		unsigned x = v[0]; // summed in place after t2, so t1 does not wait for the loads
#pragma unroll
		for (int j = 1; j < K; j++)
			x = addReg(x, v[j]);
		t[3] = smClockAfter(x, sink);
	} else {
		bar();
		t[1] = smClock();
		bar();
		t[2] = smClock();
		bar();
		t[3] = smClock();
	}
	if (lane == 0) {
		long long *o = out + ROW * ((size_t)blockIdx.x * warps + warp);
		o[0] = smid();
		for (int j = 0; j < NS; j++)
			o[j + 1] = t[j];
	}
}

template <int PART, int K>
static void run(unsigned *buf, long long *out, unsigned *sink)
{
	runStamped(partName[PART], K, {1, 2, 4, 8, 16, 32}, out, ROW, [&](int w) { probe<PART, K><<<4, 32 * w>>>(buf, out, sink); });
}

int main()
{
	smCount();
	unsigned *buf, *sink;
	long long *out;
	CK(cudaMalloc(&buf, 8192 * 4));
	CK(cudaMemset(buf, 0, 8192 * 4));
	CK(cudaMalloc(&sink, 128));
	CK(cudaMalloc(&out, (size_t)4 * 32 * ROW * 8));
	printStampHeader(NS);
	run<PLAIN, 0>(buf, out, sink);
	run<LATE, 0>(buf, out, sink);
	run<LATE, 1>(buf, out, sink);
	run<LATE, 2>(buf, out, sink);
	run<LATE, 3>(buf, out, sink);
	run<LATE, 4>(buf, out, sink);
	run<LATE, 5>(buf, out, sink);
	run<LATE, 6>(buf, out, sink);
	run<LATE, 7>(buf, out, sink);
	run<LATE, 8>(buf, out, sink);
	run<LATE, 9>(buf, out, sink);
	run<LATE, 10>(buf, out, sink);
	run<LATE, 11>(buf, out, sink);
	run<LATE, 12>(buf, out, sink);
	run<LATE, 13>(buf, out, sink);
	run<ALU, 0>(buf, out, sink);
	run<BEHIND, 1>(buf, out, sink);
	run<BEHIND, 4>(buf, out, sink);
	run<TWOBAR, 0>(buf, out, sink);
	return 0;
}
