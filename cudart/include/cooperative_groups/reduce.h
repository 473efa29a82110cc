// cooperative_groups/reduce.h: cg::reduce over a tile, and its operators, on gtrace's
// device-side header. The reduction is a butterfly of shfl_xor, so every thread of
// the tile gets the result, as the Programming Guide specifies; the order in which
// it combines floating-point values is the butterfly's (CUDA leaves it unspecified).
#ifndef GTRACE_COOPERATIVE_GROUPS_REDUCE_H
#define GTRACE_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

#if !defined(__NVCC__) && !defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)

namespace cooperative_groups {
template <class T> struct plus {
	__device__ T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {
	__device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct greater {
	__device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
	__device__ T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
	__device__ T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
	__device__ T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned int N, class T, class Op>
static __device__ __forceinline__ T reduce(const thread_block_tile<N> &g, T v, Op op)
{
	for (unsigned int m = N / 2; m > 0; m /= 2)
		v = op(v, g.shfl_xor(v, m));
	return v;
}
} // namespace cooperative_groups

#endif // !__NVCC__ && !__CLANG_CUDA_RUNTIME_WRAPPER_H__
#endif // GTRACE_COOPERATIVE_GROUPS_REDUCE_H
