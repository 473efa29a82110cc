// Matrix transpose V1-V4 of the coalescing seed
// (cuda-performance-coalescing-banks-reduction).
//
// The seed reads sizeX and sizeY from globals defined elsewhere; here they are
// kernel parameters. The seed's V1 and V2 index formulas are only consistent
// for square matrices (V2's output bounds test swaps sizeX and sizeY), so gtrace
// launches them with sizeX == sizeY, as the seed's benchmark does. V1 has no
// bounds test at all: the grid must cover the matrix exactly.
#include "gtrace_cuda.h"

#define BLOCK_SIZE_X 32
#define BLOCK_SIZE_Y 32

// V1: naive. One thread per element; the load is strided by sizeY (a column
// walk), the store is coalesced.
extern "C" __global__ void matrixTranspose(float *_A, float *_A_t, int sizeX, int sizeY)
{
	int row = blockDim.y * blockIdx.y + threadIdx.y;
	int col = blockDim.x * blockIdx.x + threadIdx.x;

	_A_t[row * sizeX + col] = _A[col * sizeY + row];
}

// V2: through a 32x32 shared tile, both global accesses coalesced; the column
// read of the tile is a 32-way bank conflict.
extern "C" __global__ void matrixTransposeShared(const float *a, float *b, int sizeX, int sizeY)
{
	__shared__ float mat[BLOCK_SIZE_Y][BLOCK_SIZE_X];
	int bx = blockIdx.x * BLOCK_SIZE_X;
	int by = blockIdx.y * BLOCK_SIZE_Y;
	int i = bx + threadIdx.x; // input
	int j = by + threadIdx.y; // input
	int ti = by + threadIdx.x; // output
	int tj = bx + threadIdx.y; // output

	if (i < sizeX && j < sizeY) {
		mat[threadIdx.y][threadIdx.x] = a[j * sizeX + i]; // read
	}

	__syncthreads(); // Wait for all data to be copied

	if (tj < sizeY && ti < sizeX) {
		b[tj * sizeY + ti] = mat[threadIdx.x][threadIdx.y]; // write
	}
}

// V3: V2 with the tile padded to 32x33, which removes the bank conflict.
extern "C" __global__ void matrixTransposeSharedPadded(const float *a, float *b, int sizeX, int sizeY)
{
	__shared__ float mat[BLOCK_SIZE_Y][BLOCK_SIZE_X + 1];
	int bx = blockIdx.x * BLOCK_SIZE_X;
	int by = blockIdx.y * BLOCK_SIZE_Y;
	int i = bx + threadIdx.x; // input
	int j = by + threadIdx.y; // input
	int ti = by + threadIdx.x; // output
	int tj = bx + threadIdx.y; // output

	if (i < sizeX && j < sizeY) {
		mat[threadIdx.y][threadIdx.x] = a[j * sizeX + i]; // read
	}

	__syncthreads(); // Wait for all data to be copied

	if (tj < sizeY && ti < sizeX) {
		b[tj * sizeY + ti] = mat[threadIdx.x][threadIdx.y]; // write
	}
}

// V4: padded tile, TILE/SIDE elements per thread with the loops unrolled;
// launched with TILE x SIDE threads per block.
template <int TILE, int SIDE>
static __device__ __forceinline__ void matrixTransposeUnrolledT(const float *a, float *b, int sizeX, int sizeY)
{
	// Allocate appropriate shared memory (avoid bank conflict)
	__shared__ float mat[TILE][TILE + 1];

	// Compute input index
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	// Copy data from input to shared memory. Multiple copies per thread.
#pragma unroll
	for (int k = 0; k < TILE; k += SIDE) {
		if (x < sizeX && y + k < sizeY) {
			mat[threadIdx.y + k][threadIdx.x] = a[((y + k) * sizeX) + x];
		}
	}

	__syncthreads();

	// Compute output index
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	// Copy data from shared memory to global memory. Multiple copies per thread.
#pragma unroll
	for (int k = 0; k < TILE; k += SIDE) {
		if (x < sizeY && y + k < sizeX) {
			b[(y + k) * sizeY + x] = mat[threadIdx.x][threadIdx.y + k];
		}
	}
}

extern "C" __global__ void matrixTransposeUnrolled(const float *a, float *b, int sizeX, int sizeY)
{
	matrixTransposeUnrolledT<32, 8>(a, b, sizeX, sizeY);
}
