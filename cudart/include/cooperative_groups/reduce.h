// cooperative_groups/reduce.h: cg::reduce over a tile or a coalesced group, and its
// operators, on gtrace's device-side header. Every thread of the group gets the
// result, as the Programming Guide specifies. For 32-bit integers with plus, less,
// greater, bit_and, bit_or and bit_xor on sm_80 and later it is one redux.sync, as
// CUDA's own cg::reduce compiles there; otherwise a tile reduces by a butterfly of
// shfl_xor and a coalesced group by a tree of shfl_down and a broadcast from rank 0,
// whose order of combining floating-point values CUDA leaves unspecified.
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

namespace details {
// redux<Op, T>::ok says whether one redux.sync reduces T with Op; apply does it over the
// warp lanes of mask.
template <class Op, class T> struct redux {
	static constexpr bool ok = false;
};
#if __CUDA_ARCH__ >= 800
#define GTRACE_CG_REDUX(OP, T, F, A)                                                                  \
	template <> struct redux<OP<T>, T> {                                                       \
		static constexpr bool ok = true;                                                   \
		static __device__ __forceinline__ T apply(unsigned int m, T v) { return (T)F(m, (A)v); } \
	};
GTRACE_CG_REDUX(plus, int, __reduce_add_sync, int)
GTRACE_CG_REDUX(plus, unsigned int, __reduce_add_sync, unsigned int)
GTRACE_CG_REDUX(less, int, __reduce_min_sync, int)
GTRACE_CG_REDUX(less, unsigned int, __reduce_min_sync, unsigned int)
GTRACE_CG_REDUX(greater, int, __reduce_max_sync, int)
GTRACE_CG_REDUX(greater, unsigned int, __reduce_max_sync, unsigned int)
GTRACE_CG_REDUX(bit_and, int, __reduce_and_sync, unsigned int)
GTRACE_CG_REDUX(bit_and, unsigned int, __reduce_and_sync, unsigned int)
GTRACE_CG_REDUX(bit_or, int, __reduce_or_sync, unsigned int)
GTRACE_CG_REDUX(bit_or, unsigned int, __reduce_or_sync, unsigned int)
GTRACE_CG_REDUX(bit_xor, int, __reduce_xor_sync, unsigned int)
GTRACE_CG_REDUX(bit_xor, unsigned int, __reduce_xor_sync, unsigned int)
#undef GTRACE_CG_REDUX
#endif

template <unsigned int N, class T, class Op>
static __device__ __forceinline__ T shuffled(const thread_block_tile<N> &g, T v, Op op)
{
	for (unsigned int m = N / 2; m > 0; m /= 2)
		v = op(v, g.shfl_xor(v, m));
	return v;
}
template <class T, class Op> static __device__ __forceinline__ T shuffled(const coalesced_group &g, T v, Op op)
{
	unsigned int r = g.thread_rank(), n = g.size();
	for (unsigned int d = 1; d < n; d *= 2) {
		T o = g.shfl_down(v, d);
		if (r + d < n)
			v = op(v, o);
	}
	return g.shfl(v, 0);
}

// reduce_by<true> takes redux.sync, reduce_by<false> the shuffles (C++14: no if constexpr).
template <bool Redux> struct reduce_by {
	template <class G, class T, class Op> static __device__ __forceinline__ T run(const G &g, T v, Op op)
	{
		return shuffled(g, v, op);
	}
};
template <> struct reduce_by<true> {
	template <class G, class T, class Op> static __device__ __forceinline__ T run(const G &g, T v, Op)
	{
		return redux<Op, T>::apply(g.mask(), v);
	}
};
} // namespace details

template <unsigned int N, class T, class Op>
static __device__ __forceinline__ T reduce(const thread_block_tile<N> &g, T v, Op op)
{
	return details::reduce_by<details::redux<Op, T>::ok>::run(g, v, op);
}
template <class T, class Op> static __device__ __forceinline__ T reduce(const coalesced_group &g, T v, Op op)
{
	return details::reduce_by<details::redux<Op, T>::ok>::run(g, v, op);
}
} // namespace cooperative_groups

#endif // !__NVCC__ && !__CLANG_CUDA_RUNTIME_WRAPPER_H__
#endif // GTRACE_COOPERATIVE_GROUPS_REDUCE_H
