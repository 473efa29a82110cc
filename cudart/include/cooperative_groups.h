// cooperative_groups.h: the CUDA Programming Guide's "Cooperative Groups" for one
// thread block, on gtrace's device-side header: this_thread_block(), tiles of 1 to
// 32 threads (tiled_partition<N>) with their shuffles and votes, and
// coalesced_threads(), with match_any and match_all on both. Each member is the warp
// function or barrier the Guide defines it by; nothing here needs a CUDA SDK. Not
// here: grid_group and multi_grid_group (grid-wide sync needs a cooperative launch,
// which capture does not emulate), tiled_partition(g, n) with a size known only at
// run time, labeled_partition and binary_partition, and cluster groups; a use of one
// is a compile error.
#ifndef GTRACE_COOPERATIVE_GROUPS_H
#define GTRACE_COOPERATIVE_GROUPS_H

#include "gtrace_cuda_runtime.h"

#if !defined(__NVCC__) && !defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)

namespace cooperative_groups {
namespace details {
static __device__ __forceinline__ unsigned int laneid()
{
	unsigned int r;
	asm("mov.u32 %0, %%laneid;" : "=r"(r));
	return r;
}
static __device__ __forceinline__ unsigned int block_rank()
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
} // namespace details

// thread_block: the threads of this CTA.
class thread_block {
public:
	__device__ void sync() const { __syncthreads(); }
	__device__ unsigned long long thread_rank() const { return details::block_rank(); }
	__device__ unsigned long long num_threads() const { return (unsigned long long)blockDim.x * blockDim.y * blockDim.z; }
	__device__ unsigned long long size() const { return num_threads(); }
	__device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
	__device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
	__device__ dim3 dim_threads() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
	__device__ dim3 group_dim() const { return dim_threads(); }
};

static __device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }

// thread_block_tile<N>: N consecutive threads of the block's linear order (N a power
// of two up to 32), so each tile lies inside one warp; its members use that part of
// the warp's mask and the shuffles' width argument.
template <unsigned int N> class thread_block_tile {
	static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "gtrace: tile sizes are powers of two up to 32");

public:
	static constexpr unsigned int num_threads() { return N; }
	static constexpr unsigned int size() { return N; }
	__device__ unsigned int thread_rank() const { return details::block_rank() & (N - 1); }
	__device__ unsigned int meta_group_rank() const { return details::block_rank() / N; }
	__device__ unsigned int meta_group_size() const
	{
		return (unsigned int)((blockDim.x * blockDim.y * blockDim.z + N - 1) / N);
	}
	__device__ unsigned int mask() const
	{
		return N == 32 ? 0xffffffffu : ((1u << N) - 1) << (details::laneid() & ~(N - 1));
	}
	__device__ void sync() const { __syncwarp(mask()); }
	template <class T> __device__ T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
	template <class T> __device__ T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(mask(), v, d, N); }
	template <class T> __device__ T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(mask(), v, d, N); }
	template <class T> __device__ T shfl_xor(T v, unsigned int m) const { return __shfl_xor_sync(mask(), v, m, N); }
	// ballot's bit i is the tile's thread of rank i.
	__device__ unsigned int ballot(int pred) const
	{
		unsigned int b = __ballot_sync(mask(), pred);
		return N == 32 ? b : (b >> (details::laneid() & ~(N - 1))) & ((1u << N) - 1);
	}
	__device__ int any(int pred) const { return ballot(pred) != 0; }
	__device__ int all(int pred) const { return ballot(pred) == (N == 32 ? 0xffffffffu : (1u << N) - 1); }
	// match_any and match_all (sm_70): like ballot, bit i is the tile's thread of rank i.
	template <class T> __device__ unsigned int match_any(T v) const
	{
		return __match_any_sync(mask(), v) >> (details::laneid() & ~(N - 1));
	}
	template <class T> __device__ unsigned int match_all(T v, int &pred) const
	{
		return __match_all_sync(mask(), v, &pred) >> (details::laneid() & ~(N - 1));
	}
};

template <unsigned int N> static __device__ __forceinline__ thread_block_tile<N> tiled_partition(const thread_block &)
{
	return thread_block_tile<N>();
}
template <unsigned int N, unsigned int M>
static __device__ __forceinline__ thread_block_tile<N> tiled_partition(const thread_block_tile<M> &)
{
	static_assert(N <= M, "gtrace: a tile's partition must not be larger than the tile");
	return thread_block_tile<N>();
}

// coalesced_group: the threads of this warp that are active where it was made.
class coalesced_group {
	unsigned int m;

public:
	__device__ explicit coalesced_group(unsigned int mask) : m(mask) {}
	__device__ unsigned int num_threads() const { return __popc(m); }
	__device__ unsigned int size() const { return num_threads(); }
	__device__ unsigned int thread_rank() const { return __popc(m & __lanemask_lt()); }
	__device__ unsigned int meta_group_rank() const { return 0; }
	__device__ unsigned int meta_group_size() const { return 1; }
	__device__ void sync() const { __syncwarp(m); }
	// lane returns the warp lane of the group's thread of rank r.
	__device__ int lane(unsigned int r) const
	{
		unsigned int left = m;
		for (unsigned int i = 0; i < r; i++)
			left &= left - 1;
		return __ffs((int)left) - 1;
	}
	template <class T> __device__ T shfl(T v, unsigned int src) const { return __shfl_sync(m, v, lane(src)); }
	template <class T> __device__ T shfl_down(T v, unsigned int d) const
	{
		unsigned int r = thread_rank() + d;
		return __shfl_sync(m, v, lane(r < num_threads() ? r : thread_rank()));
	}
	template <class T> __device__ T shfl_up(T v, unsigned int d) const
	{
		unsigned int r = thread_rank();
		return __shfl_sync(m, v, lane(r >= d ? r - d : r));
	}
	// pack turns a mask of the warp's lanes into one of the group's ranks: bit i for the
	// group's thread of rank i.
	__device__ unsigned int pack(unsigned int lanes) const
	{
		unsigned int r = 0;
		for (unsigned int i = 0, k = 0; i < 32; i++)
			if (m & (1u << i)) {
				r |= ((lanes >> i) & 1u) << k;
				k++;
			}
		return r;
	}
	__device__ unsigned int ballot(int pred) const { return pack(__ballot_sync(m, pred)); }
	__device__ int any(int pred) const { return __ballot_sync(m, pred) != 0; }
	__device__ int all(int pred) const { return __ballot_sync(m, pred) == m; }
	template <class T> __device__ unsigned int match_any(T v) const { return pack(__match_any_sync(m, v)); }
	template <class T> __device__ unsigned int match_all(T v, int &pred) const { return pack(__match_all_sync(m, v, &pred)); }
	// mask is the group's lanes of the warp (what its warp functions pass as membermask).
	__device__ unsigned int mask() const { return m; }
};

static __device__ __forceinline__ coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <class G> static __device__ __forceinline__ void sync(const G &g) { g.sync(); }
template <class G> static __device__ __forceinline__ unsigned long long thread_rank(const G &g) { return g.thread_rank(); }
template <class G> static __device__ __forceinline__ unsigned long long num_threads(const G &g) { return g.num_threads(); }
} // namespace cooperative_groups

#endif // !__NVCC__ && !__CLANG_CUDA_RUNTIME_WRAPPER_H__
#endif // GTRACE_COOPERATIVE_GROUPS_H
