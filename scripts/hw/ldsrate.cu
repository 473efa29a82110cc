// ldsrate.cu: how fast an H200's SM serves conflict-free shared loads from many warps,
// with no barrier in the way, and what a constant or texture read past a bar.sync waits
// for (docs/issue-11.md, "Next, in order" (0)). barrier.cu (hw-facts section 31) shows
// 32 warps' shared loads behind a barrier's release arriving 2 cycles apart, in groups of
// 4 warps; section 26 has the SM working conflicting loads at one wavefront a cycle. Is
// 2 cycles a warp the SM's usual rate for one-wavefront loads, or the release's?
//
// One CTA of W warps (W = 1, 2, 4, 8, 16, 32) on each of 4 SMs; every warp stamps the
// SM's clock in program order (sm_stamp.cuh; SASS in the log). Parts:
//   rate:    thread 0 sets a start 2000 cycles ahead, bar.sync, every warp spins until
//            then (the barrier long released), t1, k independent shared loads of a word a
//            lane (no conflict: one wavefront each), t2 once their sum has arrived
//            (k = 1, 2, 4, 8, 16).
//   rate128: the same with k loads of 16 bytes a lane (LDS.128: 512 B, 4 wavefronts).
//   sub:     rate with only warps 0, 4, 8, ... loading (one sub-partition's, if a warp's
//            sub-partition is its number mod 4): 1, 2, 4 or 8 loaders on one
//            sub-partition at W = 4, 8, 16, 32. Tells a warp's limit from its
//            sub-partition's.
//   late:    as barrier.cu's late part: t0, one warp (k even: warp 0, k odd: the last)
//            spins 3000 cycles, t1 (each warp's arrival), bar.sync, t2, then by k / 2:
//            0 a constant read at a lane-uniform address held in a register (LDC), t3 once
//            it has arrived; 1 a constant read at a different address a lane (LDC, 32
//            addresses); 2 a texture fetch of a word a lane (TEX over linear memory, in
//            the texture cache from the first run), t3 once it has arrived; 3 a
//            read-only global load (ld.global.nc, LDG.E.CONSTANT), t3 once arrived.
//            Each launch starts cold: the first run warms nothing for the second.
//   warm:    late with the same read once before t0, waited for, so the one after the
//            barrier hits.
//   nobar:   warm without the barrier: each kind's hit latency, to subtract.
// Each launch runs twice, the second is printed.
//
//   nvcc -O3 -arch=sm_90 -o ldsrate scripts/hw/ldsrate.cu && ./ldsrate > ldsrate.csv
//
// stdout: part,k,w,block,warp,smid,t0,...,t3.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define NS 4           // stamps t0..t3
#define ROW (NS + 1)   // smid, stamps
enum { RATE, RATE128, LATE, WARM, NOBAR, SUB };
static const char *partName[] = {"rate", "rate128", "late", "warm", "nobar", "sub"};

__constant__ unsigned ctab[1024];

__device__ __forceinline__ void bar() { asm volatile("bar.sync 0;" ::: "memory"); }

__device__ __forceinline__ unsigned addReg(unsigned a, unsigned b)
{
	unsigned v;
	asm volatile("add.u32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b) : "memory");
	return v;
}

// ldSharedAt and ldShared4At load a word and 16 bytes at shared address a plus the
// immediate offset off (bytes), so no address arithmetic comes between the loads.
template <int OFF>
__device__ __forceinline__ unsigned ldSharedOff(unsigned a)
{
	unsigned v;
	asm volatile("ld.volatile.shared.u32 %0, [%1+%2];" : "=r"(v) : "r"(a), "n"(OFF) : "memory");
	return v;
}

__device__ __forceinline__ unsigned ldSharedAt(unsigned a, int off)
{
	switch (off) {
	case 0:
		return ldSharedOff<0>(a);
	case 4096:
		return ldSharedOff<4096>(a);
	case 8192:
		return ldSharedOff<8192>(a);
	default:
		return ldSharedOff<12288>(a);
	}
}

template <int OFF>
__device__ __forceinline__ uint4 ldShared4Off(unsigned a)
{
	uint4 v;
	asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4+%5];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "r"(a), "n"(OFF)
		     : "memory");
	return v;
}

__device__ __forceinline__ uint4 ldShared4At(unsigned a, int off)
{
	return off == 0 ? ldShared4Off<0>(a) : ldShared4Off<8192>(a);
}

__device__ __forceinline__ unsigned ldConst(const unsigned *p)
{
	unsigned v;
	asm volatile("ld.const.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ unsigned ldNC(const unsigned *p)
{
	unsigned v;
	asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

// readKind is late's read, by kind: 0 a constant word, one address a warp; 1 a constant
// word a lane, 32 addresses; 2 a texture fetch, a word a lane; 3 a read-only global load,
// a word a lane. The index is offset by o, 0 at run time: warm's two reads get
// different parameters, so the compiler cannot merge them.
template <int KIND>
__device__ __forceinline__ unsigned readKind(const unsigned *buf, cudaTextureObject_t tex, unsigned o)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	if (KIND == 0)
		return ldConst(&ctab[o + warp]);
	if (KIND == 1)
		return ldConst(&ctab[o + lane * 32]);
	if (KIND == 2)
		return tex1Dfetch<unsigned>(tex, o + threadIdx.x);
	return ldNC(&buf[o + threadIdx.x]);
}

template <int PART, int K>
__global__ void probe(const unsigned *buf, cudaTextureObject_t tex, unsigned o1, unsigned o2, long long *out, unsigned *sink)
{
	__shared__ __align__(16) unsigned sh[4096];
	__shared__ long long start;
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
	for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x)
		sh[i] = i;
	__syncthreads();
	long long t[NS] = {};
	t[0] = smClock();
	if (PART == RATE || PART == RATE128 || PART == SUB) {
		if (threadIdx.x == 0)
			start = t[0] + 2000;
		bar();
		long long go = start;
		// shared addresses: word threadIdx.x (+ 1024 j), 16 B at threadIdx.x (+ 512 j)
		unsigned a = (unsigned)__cvta_generic_to_shared(&sh[threadIdx.x]);
		unsigned a4 = (unsigned)__cvta_generic_to_shared(&sh[(threadIdx.x * 4) % 2048]);
		while (smClock() < go)
			;
		t[1] = smClock();
		unsigned x = 0;
		if (PART == SUB && warp % 4 != 0) {
			// not a loader: t2 right after t1
		} else if (PART == RATE || PART == SUB) {
			unsigned v[K > 0 ? K : 1] = {};
#pragma unroll
			for (int j = 0; j < K; j++) // a word a lane, the warp's 128 B: one wavefront
				v[j] = ldSharedAt(a, (j % 4) * 4096);
			x = v[0];
#pragma unroll
			for (int j = 1; j < K; j++)
				x = addReg(x, v[j]);
		} else {
			uint4 v[K > 0 ? K : 1] = {};
#pragma unroll
			for (int j = 0; j < K; j++) // 16 B a lane, the warp's 512 B: four wavefronts
				v[j] = ldShared4At(a4, (j % 2) * 8192);
			x = v[0].x ^ v[0].w;
#pragma unroll
			for (int j = 1; j < K; j++)
				x = addReg(x, v[j].x ^ v[j].w);
		}
		t[2] = smClockAfter(x, sink);
	} else {
		if (PART != LATE) // the same read once first, waited for: the second one hits
			t[0] = smClockAfter(readKind<K / 2>(buf, tex, o1), sink);
		if (warp == ((K & 1) == 0 ? 0 : warps - 1))
			while (smClock() - t[0] < 3000)
				;
		t[1] = smClock();
		if (PART != NOBAR)
			bar();
		t[2] = smClock();
		t[3] = smClockAfter(readKind<K / 2>(buf, tex, o2), sink);
	}
	if (lane == 0) {
		long long *o = out + ROW * ((size_t)blockIdx.x * warps + warp);
		o[0] = smid();
		for (int j = 0; j < NS; j++)
			o[j + 1] = t[j];
	}
}

template <int PART, int K>
static void run(const unsigned *buf, cudaTextureObject_t tex, long long *out, unsigned *sink)
{
	runStamped(partName[PART], K, {1, 2, 4, 8, 16, 32}, out, ROW, [&](int w) { probe<PART, K><<<4, 32 * w>>>(buf, tex, 0, 0, out, sink); });
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
	unsigned h[1024];
	for (int i = 0; i < 1024; i++)
		h[i] = i;
	CK(cudaMemcpyToSymbol(ctab, h, sizeof h));
	cudaResourceDesc r = {};
	r.resType = cudaResourceTypeLinear;
	r.res.linear.devPtr = buf;
	r.res.linear.desc = cudaCreateChannelDesc<unsigned>();
	r.res.linear.sizeInBytes = 8192 * 4;
	cudaTextureDesc td = {};
	td.readMode = cudaReadModeElementType;
	cudaTextureObject_t tex = 0;
	CK(cudaCreateTextureObject(&tex, &r, &td, NULL));
	printStampHeader(NS);
	run<RATE, 1>(buf, tex, out, sink);
	run<RATE, 2>(buf, tex, out, sink);
	run<RATE, 4>(buf, tex, out, sink);
	run<RATE, 8>(buf, tex, out, sink);
	run<RATE, 16>(buf, tex, out, sink);
	run<RATE128, 1>(buf, tex, out, sink);
	run<RATE128, 4>(buf, tex, out, sink);
	run<LATE, 0>(buf, tex, out, sink);
	run<LATE, 1>(buf, tex, out, sink);
	run<LATE, 2>(buf, tex, out, sink);
	run<LATE, 3>(buf, tex, out, sink);
	run<LATE, 4>(buf, tex, out, sink);
	run<LATE, 5>(buf, tex, out, sink);
	run<LATE, 6>(buf, tex, out, sink);
	run<LATE, 7>(buf, tex, out, sink);
	run<WARM, 0>(buf, tex, out, sink);
	run<WARM, 1>(buf, tex, out, sink);
	run<WARM, 2>(buf, tex, out, sink);
	run<WARM, 3>(buf, tex, out, sink);
	run<WARM, 4>(buf, tex, out, sink);
	run<WARM, 5>(buf, tex, out, sink);
	run<WARM, 6>(buf, tex, out, sink);
	run<WARM, 7>(buf, tex, out, sink);
	run<NOBAR, 0>(buf, tex, out, sink);
	run<NOBAR, 2>(buf, tex, out, sink);
	run<NOBAR, 4>(buf, tex, out, sink);
	run<NOBAR, 6>(buf, tex, out, sink);
	run<SUB, 16>(buf, tex, out, sink);
	run<SUB, 4>(buf, tex, out, sink);
	return 0;
}
