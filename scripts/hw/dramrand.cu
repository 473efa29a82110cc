// dramrand.cu: how fast DRAM serves reads of random blocks, against a stream (issue 11:
// the timing engine's DRAM channels). scripts/hw/probe.sh dramrand runs it without a
// profiler and under Nsight Compute.
//
//   dramrand [once]
//
// Every launch reads a 1 GB buffer (far past the L2, so every block is a miss) with
// ld.global.cg, 8 CTAs of 256 threads per SM:
//   stream     each thread reads 16 B at a time in order (grid-stride): the peak
//   rand B     blocks of B bytes (32, 64, 128, 256) in a shuffled order, each block read
//              by B/4 lanes together, 4 independent loads a thread in flight; every
//              block of the buffer once (a permutation of the blocks)
// and, after those (ids from 5), how DRAM mixes reads with writes:
//   wstream    each thread writes 16 B at a time in order over the 1 GB
//   copy       the first half of the buffer copied to the second, 16 B a thread at a time
//   rw N       a stream that reads N of every 8 16-byte pieces and writes the others
//              (N = 2, 4, 6), so reads and writes interleave finely
// and (ids from 10) what makes those mixes slow, each a stream over the 1 GB through
// part(), which reads the pieces of a 64-piece (8-line) window its read mask names
// and writes those its write mask names:
//   rhalf      sectors 0-1 of every 128-byte line read, nothing written
//   rquarter   sector 0 of every line read
//   whalf      sectors 2-3 of every line written, nothing read
//   wquarter   sector 3 of every line written
//   split      sectors 0-1 of every line of the first half read, sectors 0-1 of the
//              second half's lines written: rw4's sizes, in two regions as copy's
//   rwline     lines read and written in turn, 4 whole lines each: copy's sizes, in
//              one region as rw4's
//   rw4part    rw 4 again through part(), to tie part() to rw
//   wrand B    blocks of B bytes (4: one word of each 32-byte sector; 32: a whole
//              sector) written in a shuffled order, as test_scattered's stores
// Prints id,kind,block,bytes,blocks,threads,ms (ms: the median of three runs, caches
// flushed before each; "once": one untimed run each, for ncu, whose ID is the launch's id).
#include <cstring>
#include <string>
#include <cuda_runtime.h>
#include "probe.h"

static const size_t MB = 1 << 20;

// perm is a bijection of the k-bit numbers (multiplications by odd numbers and
// xor-shifts, modulo 2^k): 32-bit operations only, so the loop stays cheaper than the
// DRAM it waits for (a 64-bit modulo made the first run of this probe issue-bound).
__device__ __forceinline__ unsigned perm(unsigned i, int k)
{
	unsigned m = (1u << k) - 1, x = i * 0x9e3779b1u & m;
	x ^= x >> (k / 2);
	x = x * 0x85ebca6bu & m;
	x ^= x >> (k / 3 + 1);
	return x;
}

__global__ void stream(const uint4 *a, size_t n, unsigned *sink)
{
	unsigned s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = __ldcg(&a[i]);
		s += v.x ^ v.y ^ v.z ^ v.w;
	}
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

// rand_blocks reads block perm(g) of the 2^k blocks for each group g of words lanes (B/4
// lanes a block): a warp's load reads 128/B blocks, and a thread has 4 loads in flight.
__global__ void rand_blocks(const unsigned *a, int k, int words, unsigned *sink)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
	unsigned lane = threadIdx.x % words, groups = nt / words, nb = 1u << k;
	unsigned s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	// perm keeps k bits, so the last round's loads past nb stay in the buffer: they
	// read up to 4 * groups blocks a second time (under 1% of them).
	for (unsigned g = t / words; g < nb; g += 4 * groups) {
		s0 += __ldcg(&a[(size_t)perm(g, k) * words + lane]);
		s1 += __ldcg(&a[(size_t)perm(g + groups, k) * words + lane]);
		s2 += __ldcg(&a[(size_t)perm(g + 2 * groups, k) * words + lane]);
		s3 += __ldcg(&a[(size_t)perm(g + 3 * groups, k) * words + lane]);
	}
	if ((s0 ^ s1 ^ s2 ^ s3) == 0x9e3779b9u)
		sink[0] = s0;
}

__global__ void wstream(uint4 *a, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		a[i] = make_uint4(i, i, i, i);
}

__global__ void copy(const uint4 *in, uint4 *out, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		out[i] = __ldcg(&in[i]);
}

// rw reads piece i when i % 8 < reads and writes it otherwise.
__global__ void rw(uint4 *a, size_t n, int reads, unsigned *sink)
{
	unsigned s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		if ((int)(i % 8) < reads) {
			uint4 v = __ldcg(&a[i]);
			s += v.x ^ v.w;
		} else
			a[i] = make_uint4(i, 0, 0, i);
	}
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

// part reads piece i of r when bit i % 64 of rmask is set and writes piece i of w
// when that bit of wmask is.
__global__ void part(const uint4 *r, uint4 *w, size_t n, unsigned long long rmask, unsigned long long wmask, unsigned *sink)
{
	unsigned s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		if (rmask >> (i % 64) & 1) {
			uint4 v = __ldcg(&r[i]);
			s += v.x ^ v.w;
		}
		if (wmask >> (i % 64) & 1)
			w[i] = make_uint4(i, 0, 0, i);
	}
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

// rand_writes writes words 0 to words-1 of sector perm(g) of the 2^k 32-byte sectors,
// one word a lane, for each group g of words lanes (words 1: one word of each sector,
// words 8: the whole sector); every sector of the buffer once.
__global__ void rand_writes(unsigned *a, int k, int words)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
	unsigned lane = threadIdx.x % words, groups = nt / words, nb = 1u << k;
	for (unsigned g = t / words; g < nb; g += groups)
		a[(size_t)perm(g, k) * 8 + lane] = g;
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const size_t bytes = 1024 * MB;
	unsigned *a, *sink, *junk;
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&sink, 4));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMemset(a, 1, bytes));
	// What flushes the L2 between timed runs: writing more than it holds.
	auto flush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	dim3 grid(8 * sms), block(256);
	printf("id,kind,block,bytes,blocks,threads,ms\n");
	int id = 0;
	float ms = timeLaunch(once, [&] { stream<<<grid, block>>>((const uint4 *)a, bytes / 16, sink); }, flush);
	printf("%d,stream,16,%zu,%d,%d,%.4f\n", id++, bytes, grid.x, block.x, ms);
	for (int b : {32, 64, 128, 256}) {
		int words = b / 4, k = 0;
		while ((size_t)b << k < bytes)
			k++;
		// A block of 256 B is read by 64 lanes, two warps' loads.
		ms = timeLaunch(once, [&] { rand_blocks<<<grid, block>>>(a, k, words, sink); }, flush);
		printf("%d,rand,%d,%zu,%d,%d,%.4f\n", id++, b, bytes, grid.x, block.x, ms);
		fflush(stdout);
	}
	ms = timeLaunch(once, [&] { wstream<<<grid, block>>>((uint4 *)a, bytes / 16); }, flush);
	printf("%d,wstream,16,%zu,%d,%d,%.4f\n", id++, bytes, grid.x, block.x, ms);
	ms = timeLaunch(once, [&] { copy<<<grid, block>>>((const uint4 *)a, (uint4 *)a + bytes / 32, bytes / 32); }, flush);
	printf("%d,copy,16,%zu,%d,%d,%.4f\n", id++, bytes, grid.x, block.x, ms);
	for (int reads : {2, 4, 6}) {
		ms = timeLaunch(once, [&] { rw<<<grid, block>>>((uint4 *)a, bytes / 16, reads, sink); }, flush);
		printf("%d,rw%d,16,%zu,%d,%d,%.4f\n", id++, reads, bytes, grid.x, block.x, ms);
		fflush(stdout);
	}
	// Masks over 64 pieces (8 lines): 0x0f per line is its first two sectors.
	const unsigned long long lo = 0x0f0f0f0f0f0f0f0full, q0 = 0x0303030303030303ull;
	const unsigned long long hi = ~lo, q3 = q0 << 6, lines4 = 0xffffffffull;
	struct {
		const char *kind;
		unsigned long long r, w;
		bool split;
	} parts[] = {{"rhalf", lo, 0, false}, {"rquarter", q0, 0, false}, {"whalf", 0, hi, false}, {"wquarter", 0, q3, false},
		{"split", lo, lo, true}, {"rwline", lines4, ~lines4, false}, {"rw4part", lo, hi, false}};
	for (auto p : parts) {
		uint4 *w = (uint4 *)a + (p.split ? bytes / 32 : 0);
		size_t n = p.split ? bytes / 32 : bytes / 16;
		ms = timeLaunch(once, [&] { part<<<grid, block>>>((const uint4 *)a, w, n, p.r, p.w, sink); }, flush);
		printf("%d,%s,16,%zu,%d,%d,%.4f\n", id++, p.kind, bytes, grid.x, block.x, ms);
		fflush(stdout);
	}
	// Shuffled writes: one word of each 32-byte sector (4 B), or whole sectors (32 B).
	for (int b : {4, 32}) {
		int words = b / 4, k = 0;
		while ((size_t)32 << k < bytes)
			k++;
		ms = timeLaunch(once, [&] { rand_writes<<<grid, block>>>(a, k, words); }, flush);
		printf("%d,wrand,%d,%zu,%d,%d,%.4f\n", id++, b, bytes, grid.x, block.x, ms);
		fflush(stdout);
	}
	return 0;
}
