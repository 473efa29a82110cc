// Global-memory coalescing.
//
// testCoalesced, testMixed, testOffset<2,4,8,32> and testScattered are the
// "granularity examples" of the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces), verbatim except that each
// template instantiation is its own extern "C" entry.
//
// The coalesce_* kernels are the rows of the coalescing table in the
// coalescing seed (cuda-performance-coalescing-banks-reduction): 32 threads
// of a warp each load one 4-byte float, and the pattern of the load is all
// that differs. The store is always sequential, so that the load stands out.
#include "gtrace_cuda.h"

extern "C" __global__ void testCoalesced(int *in, int *out, int elements)
{
	int block_offset = blockIdx.x * blockDim.x;
	int warp_offset = 32 * (threadIdx.x / 32);
	int laneid = threadIdx.x % 32;
	int id = (block_offset + warp_offset + laneid) % elements;

	out[id] = in[id];
}

extern "C" __global__ void testMixed(int *in, int *out, int elements)
{
	int block_offset = blockIdx.x * blockDim.x;
	int warp_offset = 32 * (threadIdx.x / 32);
	int elementid = (threadIdx.x * 7) % 32;
	int id = (block_offset + warp_offset + elementid) % elements;

	out[id] = in[id];
}

template <int offset>
static __device__ __forceinline__ void testOffset(int *in, int *out, int elements)
{
	int block_offset = blockIdx.x * blockDim.x;
	int warp_offset = 32 * (threadIdx.x / 32);
	int laneid = threadIdx.x % 32;
	int id = ((block_offset + warp_offset + laneid) * offset) % elements;

	out[id] = in[id];
}

extern "C" __global__ void testOffset_2(int *in, int *out, int elements) { testOffset<2>(in, out, elements); }
extern "C" __global__ void testOffset_4(int *in, int *out, int elements) { testOffset<4>(in, out, elements); }
extern "C" __global__ void testOffset_8(int *in, int *out, int elements) { testOffset<8>(in, out, elements); }
extern "C" __global__ void testOffset_32(int *in, int *out, int elements) { testOffset<32>(in, out, elements); }

extern "C" __global__ void testScattered(int *in, int *out, int elements)
{
	int block_offset = blockIdx.x * blockDim.x;
	int warp_offset = 32 * (threadIdx.x / 32);
	int elementid = threadIdx.x % 32;
	int id = ((block_offset + warp_offset + elementid) * 121) % elements;

	out[id] = in[id];
}

// Row 1: consecutive lanes read consecutive words of one aligned 128-byte
// line (L1: 1 line; L2: 4 sectors; bus use 100%).
extern "C" __global__ void coalesce_sequential(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}

// Row 2: the same 32 words, but lane l reads word 31-l: a permutation within
// one 128-byte line, which coalesces exactly as row 1.
extern "C" __global__ void coalesce_permuted(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x % 32;
	if (i < n)
		out[i] = in[i - lane + (31 - lane)];
}

// Rows 3 and 4: 32 consecutive words starting one word past a line boundary,
// so each warp spans two 128-byte lines (L1: 2 lines, 256 B, 50%) or five
// 32-byte sectors (L2: 160 B, 80%). in holds n+1 words.
extern "C" __global__ void coalesce_misaligned(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i + 1];
}

// Rows 5 and 6: all 32 lanes read the same word (L1: 128 B moved, 3.125%;
// L2: 32 B, 12.5%). Warp w reads word w.
extern "C" __global__ void coalesce_broadcast(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i / 32];
}

// Rows 7 and 8: each lane reads a scattered word (N lines or sectors for N
// distinct ones). The index is a multiplicative hash, (i * 2654435761) mod n:
// a permutation of 0..n-1 when n is a power of two, spread over the whole
// array within each warp.
extern "C" __global__ void coalesce_random(const float *in, float *out, int n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (unsigned)n)
		out[i] = in[(i * 2654435761u) % (unsigned)n];
}
