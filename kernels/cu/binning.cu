// Input binning and cutoff binning, the optimisation-techniques seed's
// "Binning" and "Cutoff Binning" (optimization-techniques-layout-scatter-tiling;
// UIUC ECE 508 lectures 5 and 6, and Kirk and Hwu's cutoff Coulomb summation,
// PMPP ch. 15 and 17).
//
// A plane of cells x cells square bins, each CELL x CELL lattice points; the
// lattice is W x W points, W = cells * CELL. Atoms carry a charge q of 0 to 3
// and lie on lattice points. A lattice point's energy is the sum, over the atoms
// closer than the cutoff radius CELL (d^2 < CELL^2), of q (CELL^2 - d^2): an
// integer, so every summation order gives the same answer, and the atoms a point
// feels lie in its own bin and the eight around it.
//
// The binned layout is what bin_atoms writes and the cutoff kernels read: bin b
// (row-major, b = by * cells + bx) owns cap consecutive words, one atom each,
// packed as its offsets in the bin and its charge: x & 7 | (y & 7) << 3 | q << 6.
// An unused slot is 0: an atom of charge 0, the dummy atoms Kirk and Hwu pad
// their bins with. So the cutoff kernels read any array of words as binned
// atoms (rand:S's values below 1000 included).
//
// cutoff_direct is the data-unscalable form: every lattice point visits every
// atom slot (cells^2 cap of them), O(W^4) for a density that stays the same.
// cutoff_binned visits the 3 x 3 bins around its own, 9 cap slots: O(W^2).
// cutoff_binned_shared is the same with the block's 9 bins staged in shared
// memory first (one block is one bin's CELL x CELL points, so they all read the
// same atoms): 9 cap words from global memory per block instead of per warp.
//
// bin_atoms is the binning itself, a scatter: atom i of a plain list (x[i],
// y[i], q[i]; the box is periodic, so a coordinate is taken modulo W) takes a
// slot of its bin with an atomicAdd on the bin's count; an atom that finds its
// bin full goes to the overflow list (Kirk and Hwu hand those to the CPU). Which
// atoms of a bin get its slots depends on the order the atomics ran in.
#include "gtrace_cuda.h"

#define CELL 8
#define CUTOFF2 (CELL * CELL)

// contribution is what one packed atom of bin (bx, by) gives lattice point (px, py).
static __device__ __forceinline__ int contribution(unsigned a, int bx, int by, int px, int py)
{
	int dx = bx * CELL + (int)(a & 7) - px;
	int dy = by * CELL + (int)((a >> 3) & 7) - py;
	int d2 = dx * dx + dy * dy;
	return d2 < CUTOFF2 ? (int)((a >> 6) & 3) * (CUTOFF2 - d2) : 0;
}

// The cutoff kernels run one thread per lattice point, one CELL x CELL block per
// bin: grid (cells, cells), block (CELL, CELL).
extern "C" __global__ void cutoff_direct(const unsigned *atoms, int *energy, int cells, int cap)
{
	int px = blockIdx.x * CELL + threadIdx.x, py = blockIdx.y * CELL + threadIdx.y;
	int e = 0;
	for (int s = 0; s < cells * cells * cap; s++) {
		int b = s / cap;
		e += contribution(atoms[s], b % cells, b / cells, px, py);
	}
	energy[py * cells * CELL + px] = e;
}

extern "C" __global__ void cutoff_binned(const unsigned *atoms, int *energy, int cells, int cap)
{
	int px = blockIdx.x * CELL + threadIdx.x, py = blockIdx.y * CELL + threadIdx.y;
	int e = 0;
	for (int by = max((int)blockIdx.y - 1, 0); by <= min((int)blockIdx.y + 1, cells - 1); by++)
		for (int bx = max((int)blockIdx.x - 1, 0); bx <= min((int)blockIdx.x + 1, cells - 1); bx++)
			for (int s = 0; s < cap; s++)
				e += contribution(atoms[(by * cells + bx) * cap + s], bx, by, px, py);
	energy[py * cells * CELL + px] = e;
}

// Dynamic shared memory: 9 cap words.
extern __shared__ unsigned near_atoms[];

extern "C" __global__ void cutoff_binned_shared(const unsigned *atoms, int *energy, int cells, int cap)
{
	int t = threadIdx.y * CELL + threadIdx.x;
	// Bin k of the 3 x 3 neighbourhood is (blockIdx.x - 1 + k % 3, blockIdx.y - 1 + k / 3);
	// one outside the plane is staged as empty slots.
	for (int i = t; i < 9 * cap; i += CELL * CELL) {
		int k = i / cap;
		int bx = (int)blockIdx.x - 1 + k % 3, by = (int)blockIdx.y - 1 + k / 3;
		bool in = bx >= 0 && bx < cells && by >= 0 && by < cells;
		near_atoms[i] = in ? atoms[(by * cells + bx) * cap + i % cap] : 0u;
	}
	__syncthreads();
	int px = blockIdx.x * CELL + threadIdx.x, py = blockIdx.y * CELL + threadIdx.y;
	int e = 0;
	for (int k = 0; k < 9; k++) {
		int bx = (int)blockIdx.x - 1 + k % 3, by = (int)blockIdx.y - 1 + k / 3;
		for (int s = 0; s < cap; s++)
			e += contribution(near_atoms[k * cap + s], bx, by, px, py);
	}
	energy[py * cells * CELL + px] = e;
}

// bin_atoms: one thread per atom, 1D.
extern "C" __global__ void bin_atoms(const int *x, const int *y, const int *q, int n, unsigned *bins,
				     int *counts, int cells, int cap, int *overflow, int *noverflow)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int w = cells * CELL;
	int ax = (x[i] % w + w) % w, ay = (y[i] % w + w) % w;
	int b = (ay / CELL) * cells + ax / CELL;
	int slot = atomicAdd(&counts[b], 1);
	if (slot < cap)
		bins[b * cap + slot] = (unsigned)(ax & 7) | (unsigned)(ay & 7) << 3 | (unsigned)(q[i] & 3) << 6;
	else
		overflow[atomicAdd(noverflow, 1)] = i;
}
