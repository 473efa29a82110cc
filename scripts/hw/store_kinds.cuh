// store_kinds.cuh: the global stores lgstore.cu and lgafter.cu time: a pinned store of
// a word, and four kinds of a warp's store of 32 words by how many lines it touches.
#pragma once

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
