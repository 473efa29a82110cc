// writeback.cu: what the L2 keeps and writes back during a kernel, and what crosses
// between its two partitions (issue 11: L2 capacity and dirty write-backs).
// scripts/hw/probe.sh writeback runs it without a profiler (times, each launch after a
// read of 192 MB that leaves the L2 clean) and under Nsight Compute (--cache-control all:
// the caches are flushed before each launch).
//
//   writeback [once]
//
// Every SM runs 8 CTAs of 256 threads, each thread a grid-stride loop over a footprint of
// F bytes (1 to 96 MB) of 4-byte words. Kinds (n = F/4 words, ns = n/8 sectors,
// perm(i, m) = (i * 2654435761 + 12345) % m, a bijection of 0..m-1):
//   wr_seq       a[i] = i: whole sectors, in order
//   wr_word      a[perm(i, n)] = i: every word once, each warp's 32 stores in 32
//                sectors; a sector is whole only once all 8 of its words came
//   wr_sector    8 lanes fill one sector, sectors in perm(., ns) order: whole sectors,
//                scattered
//   wr_half      words 0-3 of every sector, in order: sectors never whole
//   wr_half_rand words 0-3 of every sector, sectors in perm(., ns) order
//   rd2_seq      two passes of a[i] (each thread its own pass twice): what a second
//                pass finds in the L2 when all SMs read
//   rd2_sector   two passes, sectors in perm(., ns) order
//   chase1/2     one thread, a random cycle of 128-byte lines (ld.global.cg), one or two
//                passes (F = 16, 44, 100 MB): the second pass's counters are the
//                difference, one SM's view (and its ltcfabric traffic)
// With "sm", instead: for each SM s, one CTA on s alone (the first of 4 per SM to find
// itself on s; the others exit) does
//   smchase     one pass of the 16 MB chase, cold: which partition serves SM s's misses
//   smwrite     1024 threads store 8 MB in order: where SM s's writes go
// Prints id,kind,bytes,blocks,threads,ms (ms: the median of three timed runs; with
// "once", one untimed run each, for ncu, whose ID is the launch's id); the per-SM part
// prints the SM in the blocks column.
#include <cstdint>
#include <cstring>
#include <string>
#include <cuda_runtime.h>
#include "probe.h"

static const size_t MB = 1 << 20;

__device__ __forceinline__ size_t perm(size_t i, size_t m) { return (i * 2654435761ull + 12345) % m; }
__device__ __forceinline__ size_t tid() { return blockIdx.x * (size_t)blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t nthreads() { return (size_t)gridDim.x * blockDim.x; }

__global__ void wr_seq(unsigned *a, size_t n)
{
	for (size_t i = tid(); i < n; i += nthreads())
		a[i] = (unsigned)i;
}

__global__ void wr_word(unsigned *a, size_t n)
{
	for (size_t i = tid(); i < n; i += nthreads())
		a[perm(i, n)] = (unsigned)i;
}

__global__ void wr_sector(unsigned *a, size_t n)
{
	for (size_t i = tid(); i < n; i += nthreads())
		a[perm(i / 8, n / 8) * 8 + i % 8] = (unsigned)i;
}

__global__ void wr_half(unsigned *a, size_t n)
{
	for (size_t i = tid(); i < n / 2; i += nthreads())
		a[i / 4 * 8 + i % 4] = (unsigned)i;
}

__global__ void wr_half_rand(unsigned *a, size_t n)
{
	for (size_t i = tid(); i < n / 2; i += nthreads())
		a[perm(i / 4, n / 8) * 8 + i % 4] = (unsigned)i;
}

__global__ void rd2_seq(const unsigned *a, size_t n, unsigned *sink)
{
	unsigned s = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = tid(); i < n; i += nthreads())
			s += __ldcg(&a[i]);
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

__global__ void rd2_sector(const unsigned *a, size_t n, unsigned *sink)
{
	unsigned s = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = tid(); i < n; i += nthreads())
			s += __ldcg(&a[perm(i / 8, n / 8) * 8 + i % 8]);
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

__global__ void chase(uint64_t start, size_t hops, int passes, unsigned *sink)
{
	uint64_t q = start;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < hops; i++)
			asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(q) : "l"(q));
	if (q == 1)
		sink[0] = 1;
}

__device__ __forceinline__ bool elected(int sm, int *flag)
{
	__shared__ int won;
	if (threadIdx.x == 0) {
		int me;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(me));
		won = me == sm && atomicCAS(flag, 0, 1) == 0;
	}
	__syncthreads();
	return won;
}

__global__ void smchase(int sm, int *flag, uint64_t start, size_t hops, unsigned *sink)
{
	if (!elected(sm, flag) || threadIdx.x != 0)
		return;
	uint64_t q = start;
	for (size_t i = 0; i < hops; i++)
		asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(q) : "l"(q));
	if (q == 1)
		sink[0] = 1;
}

__global__ void smwrite(int sm, int *flag, unsigned *a, size_t n)
{
	if (!elected(sm, flag))
		return;
	for (size_t i = threadIdx.x; i < n; i += blockDim.x)
		a[i] = (unsigned)i;
}

__global__ void flush_rd(const uint4 *a, size_t n, unsigned *sink)
{
	unsigned s = 0;
	for (size_t i = tid(); i < n; i += nthreads())
		s += a[i].x ^ a[i].w;
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

// chaseCycle writes a random cycle of the 128-byte lines of bytes bytes at a (one
// pointer in each line) and returns the number of lines; rng carries the xorshift64 state.
static size_t chaseCycle(uint64_t *a, size_t bytes, uint64_t &rng)
{
	size_t lines = bytes / 128;
	std::vector<uint32_t> order(lines);
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 1; i--) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		std::swap(order[i], order[1 + rng % i]);
	}
	std::vector<uint64_t> h(bytes / 8, 0);
	for (size_t i = 0; i < lines; i++)
		h[(size_t)order[i] * 16] = (uint64_t)a + (size_t)order[(i + 1) % lines] * 128;
	CK(cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice));
	return lines;
}

int main(int argc, char **argv)
{
	bool once = false, perSM = false;
	for (int i = 1; i < argc; i++) {
		once |= !strcmp(argv[i], "once");
		perSM |= !strcmp(argv[i], "sm");
	}
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	int sms = prop.multiProcessorCount;
	fprintf(stderr, "%s, %d SMs, L2 %d bytes\n", prop.name, sms, prop.l2CacheSize);
	const size_t sizes[] = {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 64, 96};
	const size_t maxBytes = 100 * MB, flushBytes = 192 * MB;
	unsigned *a, *sink;
	uint4 *scratch;
	CK(cudaMalloc(&a, maxBytes));
	CK(cudaMalloc(&sink, 64));
	CK(cudaMalloc(&scratch, flushBytes));
	CK(cudaMemset(a, 0, maxBytes));
	CK(cudaMemset(scratch, 0, flushBytes));
	dim3 grid(sms * 8), block(256);
	auto flush = [&] { flush_rd<<<grid, block>>>(scratch, flushBytes / 16, sink); };

	printf("id,kind,bytes,blocks,threads,ms\n");
	int id = 0;
	uint64_t rng = 88172645463325252ull; // xorshift64, as footprint.cu
	if (perSM) {
		int *flag;
		CK(cudaMalloc(&flag, sizeof(int)));
		size_t bytes = 16 * MB, lines = chaseCycle((uint64_t *)a, bytes, rng);
		uint64_t *chaseAt = (uint64_t *)a;
		unsigned *wrAt = a + bytes / 4; // the writes' 8 MB lie past the chase's 16
		for (int sm = 0; sm < sms; sm++) {
			auto reset = [&] { CK(cudaMemset(flag, 0, sizeof(int))); };
			reset();
			float ms = timeLaunch(once, [&] { smchase<<<4 * sms, 32>>>(sm, flag, (uint64_t)chaseAt, lines, sink); }, [&] { flush(); reset(); });
			printf("%d,smchase,%zu,%d,1,%.4f\n", id++, bytes, sm, ms);
			reset();
			ms = timeLaunch(once, [&] { smwrite<<<4 * sms, 1024>>>(sm, flag, wrAt, 8 * MB / 4); }, [&] { flush(); reset(); });
			printf("%d,smwrite,%zu,%d,1024,%.4f\n", id++, 8 * MB, sm, ms);
			fflush(stdout);
		}
		return 0;
	}
	const char *kinds[] = {"wr_seq", "wr_word", "wr_sector", "wr_half", "wr_half_rand", "rd2_seq", "rd2_sector"};
	for (size_t f : sizes)
		for (const char *k : kinds) {
			size_t n = f * MB / 4;
			std::string s = k;
			float ms = timeLaunch(
				once,
				[&] {
					if (s == "wr_seq")
						wr_seq<<<grid, block>>>(a, n);
					else if (s == "wr_word")
						wr_word<<<grid, block>>>(a, n);
					else if (s == "wr_sector")
						wr_sector<<<grid, block>>>(a, n);
					else if (s == "wr_half")
						wr_half<<<grid, block>>>(a, n);
					else if (s == "wr_half_rand")
						wr_half_rand<<<grid, block>>>(a, n);
					else if (s == "rd2_seq")
						rd2_seq<<<grid, block>>>(a, n, sink);
					else
						rd2_sector<<<grid, block>>>(a, n, sink);
				},
				flush);
			printf("%d,%s,%zu,%d,%d,%.4f\n", id++, k, f * MB, grid.x, block.x, ms);
			fflush(stdout);
		}
	for (size_t f : {16, 44, 100}) {
		size_t bytes = f * MB, lines = chaseCycle((uint64_t *)a, bytes, rng);
		for (int passes = 1; passes <= 2; passes++) {
			float ms = timeLaunch(once, [&] { chase<<<1, 1>>>((uint64_t)a, lines, passes, sink); }, flush);
			printf("%d,chase%d,%zu,1,1,%.4f\n", id++, passes, bytes, ms);
			fflush(stdout);
		}
	}
	return 0;
}
