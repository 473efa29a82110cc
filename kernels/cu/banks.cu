// Shared-memory bank examples.
//
// bank_linear, bank_same_word and bank_two_way are the three numbered examples
// of the coalescing seed (cuda-performance-coalescing-banks-reduction), on its
// __shared__ float tile[64], one warp per block. The seed assigns two of the
// reads to an int; here every read goes to a float output, which keeps the
// shared access and drops a conversion the lesson is not about.
//
// bank_sums_padded is the hardware-mapping seed's "bank conflict resolution"
// (cuda-hardware-mapping-simt-memory-spaces): a 32x33 tile, each thread sums
// one column (mydata[threadIdx.x + i*33]) and one row
// (mydata[threadIdx.x*33 + i]), both conflict-free. bank_sums_unpadded is the
// same on a 32x32 tile, where the row sum is a 32-way conflict.
//
// bank_double reads a __shared__ double per lane: 256 bytes for one warp,
// which is a 2-way conflict with 4-byte banks (lanes l and l+16 share a bank)
// and conflict-free in Kepler's 8-byte bank mode (coalescing seed, "Fermi vs
// Kepler & Newer").
#include "gtrace_cuda.h"

// Each block loads 64 floats into the tile, then each of its 32 threads
// writes one float.
static __device__ __forceinline__ void loadTile64(float *tile, const float *in)
{
	int tidx = threadIdx.x;
	tile[tidx] = in[blockIdx.x * 64 + tidx];
	tile[tidx + 32] = in[blockIdx.x * 64 + 32 + tidx];
	__syncthreads();
}

// 1. Different banks: conflict-free.
extern "C" __global__ void bank_linear(const float *in, float *out)
{
	__shared__ float tile[64];
	loadTile64(tile, in);
	int tidx = threadIdx.x;
	float foo = tile[tidx] - 3;
	out[blockIdx.x * 32 + tidx] = foo;
}

// 2. Pairs of lanes read the same word: a broadcast, conflict-free.
extern "C" __global__ void bank_same_word(const float *in, float *out)
{
	__shared__ float tile[64];
	loadTile64(tile, in);
	int tidx = threadIdx.x;
	float bar = tile[tidx - tidx % 2];
	out[blockIdx.x * 32 + tidx] = bar;
}

// 3. Odd lanes read 31 words further on, the bank of their even neighbour
// but a different word: a 2-way conflict.
extern "C" __global__ void bank_two_way(const float *in, float *out)
{
	__shared__ float tile[64];
	loadTile64(tile, in);
	int tidx = threadIdx.x;
	float bar = tile[tidx + tidx % 2 * 31];
	out[blockIdx.x * 32 + tidx] = bar;
}

// Each block of 32 threads loads a 32x32 block of in (row-major, coalesced),
// sums columns and rows, and writes 32 column sums then 32 row sums.
#define BANK_SUMS(NAME, STRIDE)                                               \
	extern "C" __global__ void NAME(const float *in, float *out)          \
	{                                                                     \
		__shared__ float mydata[32 * (STRIDE)];                       \
		for (unsigned i = 0; i < 32; ++i)                             \
			mydata[threadIdx.x + i * (STRIDE)] =                  \
				in[blockIdx.x * 1024 + i * 32 + threadIdx.x]; \
		__syncthreads();                                              \
		float sum = 0;                                                \
		for (unsigned i = 0; i < 32; ++i)                             \
			sum += mydata[threadIdx.x + i * (STRIDE)];            \
		out[blockIdx.x * 64 + threadIdx.x] = sum;                     \
		sum = 0;                                                      \
		for (unsigned i = 0; i < 32; ++i)                             \
			sum += mydata[threadIdx.x * (STRIDE) + i];            \
		out[blockIdx.x * 64 + 32 + threadIdx.x] = sum;                \
	}

BANK_SUMS(bank_sums_padded, 32 + 1)
BANK_SUMS(bank_sums_unpadded, 32)

// 8-byte words: 2-way conflict with 4-byte banks, none with 8-byte banks.
extern "C" __global__ void bank_double(const double *in, double *out)
{
	__shared__ double dtile[32];
	int tidx = threadIdx.x;
	dtile[tidx] = in[blockIdx.x * 32 + tidx];
	__syncthreads();
	out[blockIdx.x * 32 + tidx] = dtile[31 - tidx] * 2.0;
}
