// cooperative_groups.h: the CUDA Programming Guide's "Cooperative Groups" for one
// thread block, on gtrace's device-side header: this_thread_block(), tiles of 1 to
// 32 threads (tiled_partition<N>) with their shuffles and votes, and
// coalesced_threads(), with match_any and match_all on both, labeled_partition and
// binary_partition of either, and this_grid()'s ranks and sizes. Each member is the
// warp function or barrier the Guide defines it by; nothing here needs a CUDA SDK.
// Capture does not emulate a cooperative launch, so a grid group is not valid and its
// sync() traps, as on a GPU when the launch was not cooperative. Not here:
// multi_grid_group, tiled_partition(g, n) with a size known only at run time, and
// cluster groups; a use of one is a compile error.
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

// grid_group: every thread of the launch, ranked block by block (blocks in x, then y,
// then z; threads within a block as thread_block ranks them).
class grid_group {
public:
	__device__ bool is_valid() const { return false; }
	// sync needs a cooperative launch (cudaLaunchCooperativeKernel), which capture does
	// not emulate: CUDA's header traps when the group is not valid, and so does this one.
	__device__ void sync() const { __trap(); }
	__device__ unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
	__device__ unsigned long long block_rank() const
	{
		return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
	}
	__device__ unsigned long long num_threads() const { return num_blocks() * this_thread_block().num_threads(); }
	__device__ unsigned long long size() const { return num_threads(); }
	__device__ unsigned long long thread_rank() const
	{
		return block_rank() * this_thread_block().num_threads() + this_thread_block().thread_rank();
	}
	__device__ dim3 dim_blocks() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
	__device__ dim3 group_dim() const { return dim_blocks(); }
	__device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};

static __device__ __forceinline__ grid_group this_grid() { return grid_group(); }

// thread_block_tile<N>: N consecutive threads of the block's linear order (N a power
// of two up to 32), so each tile lies inside one warp; its members use that part of
// the warp's mask and the shuffles' width argument.
template <unsigned int N> class thread_block_tile {
	static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "gtrace: tile sizes are powers of two up to 32");
	// ranks has a bit for each of the tile's threads, by rank. A tile of 32 is the
	// whole warp: its members skip the shift by the first lane, which the compiler
	// cannot fold (%laneid is opaque to it).
	static constexpr unsigned int ranks = 0xffffffffu >> (32 - N);

public:
	static constexpr unsigned int num_threads() { return N; }
	static constexpr unsigned int size() { return N; }
	__device__ unsigned int thread_rank() const { return details::block_rank() & (N - 1); }
	__device__ unsigned int meta_group_rank() const { return details::block_rank() / N; }
	__device__ unsigned int meta_group_size() const
	{
		return (unsigned int)((blockDim.x * blockDim.y * blockDim.z + N - 1) / N);
	}
	__device__ unsigned int mask() const { return N == 32 ? ranks : ranks << (details::laneid() & ~(N - 1)); }
	__device__ void sync() const { __syncwarp(mask()); }
	template <class T> __device__ T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
	template <class T> __device__ T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(mask(), v, d, N); }
	template <class T> __device__ T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(mask(), v, d, N); }
	template <class T> __device__ T shfl_xor(T v, unsigned int m) const { return __shfl_xor_sync(mask(), v, m, N); }
	// ballot's bit i is the tile's thread of rank i.
	__device__ unsigned int ballot(int pred) const
	{
		unsigned int b = __ballot_sync(mask(), pred);
		return N == 32 ? b : (b >> (details::laneid() & ~(N - 1))) & ranks;
	}
	__device__ int any(int pred) const { return ballot(pred) != 0; }
	__device__ int all(int pred) const { return ballot(pred) == ranks; }
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

// coalesced_group: the threads of this warp that are active where it was made, or
// one part of a labeled_partition or binary_partition (its meta-group rank and size:
// which part, of how many; 0 of 1 otherwise).
class coalesced_group {
	unsigned int m, part, parts;

public:
	__device__ explicit coalesced_group(unsigned int mask, unsigned int metaRank = 0, unsigned int metaSize = 1)
	    : m(mask), part(metaRank), parts(metaSize)
	{
	}
	__device__ unsigned int num_threads() const { return __popc(m); }
	__device__ unsigned int size() const { return num_threads(); }
	__device__ unsigned int thread_rank() const { return __popc(m & __lanemask_lt()); }
	__device__ unsigned int meta_group_rank() const { return part; }
	__device__ unsigned int meta_group_size() const { return parts; }
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

// binary_partition and labeled_partition (sm_70) split a tile or a coalesced group into
// coalesced groups of the threads with the same predicate or label. A part's
// meta-group rank counts the parts whose lowest lane is below its own (for a binary
// partition: the false part 0, the true part 1, unless every thread agrees), as CUDA
// 13 computes it on an H100 (traces/hw/h100-2026-11-27-cgpart; CUDA 11.8's header
// gave the lowest lane's distance from the parent's instead). A bool label is a
// binary partition and a pointer label its address, as in CUDA 13.
namespace details {
static __device__ __forceinline__ coalesced_group binary_partition(unsigned int m, bool pred)
{
	unsigned int set = __ballot_sync(m, pred);
	if (set == m || set == 0)
		return coalesced_group(m);
	return coalesced_group(m & (pred ? set : ~set), pred ? 1 : 0, 2);
}
template <class T> static __device__ __forceinline__ coalesced_group labeled_partition(unsigned int m, T label)
{
	unsigned int part = __match_any_sync(m, label);
	unsigned int leader = __ffs((int)part) - 1;
	unsigned int leaders = __ballot_sync(m, leader == laneid());
	return coalesced_group(part, __popc(leaders & ((1u << leader) - 1)), __popc(leaders));
}
template <class T> static __device__ __forceinline__ coalesced_group labeled_partition(unsigned int m, T *label)
{
	return labeled_partition(m, (unsigned long long)label);
}
static __device__ __forceinline__ coalesced_group labeled_partition(unsigned int m, bool label)
{
	return binary_partition(m, label);
}
} // namespace details

static __device__ __forceinline__ coalesced_group binary_partition(const coalesced_group &g, bool pred)
{
	return details::binary_partition(g.mask(), pred);
}
template <unsigned int N>
static __device__ __forceinline__ coalesced_group binary_partition(const thread_block_tile<N> &g, bool pred)
{
	return details::binary_partition(g.mask(), pred);
}
template <class T> static __device__ __forceinline__ coalesced_group labeled_partition(const coalesced_group &g, T label)
{
	static_assert(__is_integral(T) || __is_pointer(T), "labeled_partition's label must be an integral or pointer type");
	return details::labeled_partition(g.mask(), label);
}
template <class T, unsigned int N>
static __device__ __forceinline__ coalesced_group labeled_partition(const thread_block_tile<N> &g, T label)
{
	static_assert(__is_integral(T) || __is_pointer(T), "labeled_partition's label must be an integral or pointer type");
	return details::labeled_partition(g.mask(), label);
}

template <class G> static __device__ __forceinline__ void sync(const G &g) { g.sync(); }
template <class G> static __device__ __forceinline__ unsigned long long thread_rank(const G &g) { return g.thread_rank(); }
template <class G> static __device__ __forceinline__ unsigned long long num_threads(const G &g) { return g.num_threads(); }
} // namespace cooperative_groups

#endif // !__NVCC__ && !__CLANG_CUDA_RUNTIME_WRAPPER_H__
#endif // GTRACE_COOPERATIVE_GROUPS_H
