// store_kinds.cuh: the global stores lgstore.cu, lgafter.cu and lgbuffer.cu time: a
// pinned store of a word, four kinds of a warp's store of 32 words by how many lines it
// touches, and a warp's run of stores with a clock stamp after each (sm_stamp.cuh).
#pragma once
#include "sm_stamp.cuh"

__device__ __forceinline__ void st(unsigned *p, unsigned v)
{
	asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Store kinds: how many lines a warp's store of 32 words touches, and how many
// sectors of each. LINE: one line, 4 sectors; HALF: 2 lines of 2 sectors; QUARTER: 4
// lines of one whole sector each; LINES: 32 lines, 4 bytes of one sector each.
enum { LINE, HALF, QUARTER, LINES };
static const char *kindName[] = {"line", "half", "quarter", "lines"};

// storePtr: lane's word of store s (numbered by the caller). The stores' lines are
// contiguous: store s touches lines s * k to s * k + k - 1 for a kind of k lines (a
// stride of 32 lines a store, 4 KB, puts every store of an SM in a few L2 slices: 60
// cycles a store whatever its kind).
template <int KIND>
__device__ __forceinline__ unsigned *storePtr(unsigned *buf, size_t s)
{
	unsigned lane = threadIdx.x & 31;
	switch (KIND) {
	case LINE:
		return buf + s * 32 + lane;
	case HALF:
		return buf + (s * 2 + lane / 16) * 32 + lane % 16;
	case QUARTER:
		return buf + (s * 4 + lane / 8) * 32 + lane % 8;
	default:
		return buf + (s * 32 + lane) * 32;
	}
}

// storeStamps issues warp gw's N stores of a kind back to back (store s = gw * MAXN +
// j), stamping the clock before the first and after each, then a membar.gl and a last
// stamp once they are acknowledged; lane 0 writes the SM, the MAXN + 1 stamps (those
// past N 0) and the last to o.
template <int N, int KIND, int MAXN>
__device__ __forceinline__ void storeStamps(unsigned *buf, size_t gw, long long *o)
{
	unsigned lane = threadIdx.x & 31;
	long long t[MAXN + 1];
	t[0] = smClock();
#pragma unroll
	for (int j = 0; j < N; j++) {
		st(storePtr<KIND>(buf, gw * MAXN + j), lane + j);
		t[j + 1] = smClock();
	}
	asm volatile("membar.gl;" ::: "memory");
	long long tend = smClock();
	if (lane == 0) {
		o[0] = smid();
		for (int j = 0; j <= MAXN; j++)
			o[1 + j] = j <= N ? t[j] : 0;
		o[MAXN + 2] = tend;
	}
}
