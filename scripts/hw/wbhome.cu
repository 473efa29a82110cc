// wbhome.cu: whether the L2's write-backs slow only the reads homed in their own L2
// partition (issue 11; hw-facts section 18, scripts/hw/copylat.cu: light reads wait
// longer while the L2 writes back, more the more it writes, and most reads pay some).
// scripts/hw/probe.sh wbhome runs it without a profiler and under ncu.
//
//   wbhome [once]
//
// An H200's L2 homes each 4 KB block in one of two partitions by the XOR of address bits
// 12, 13, 15, 17 and 19 and of where its 2 MB page lies (hw-facts section 16). So within
// one page, the blocks of one parity of those five bits share a home and the others have
// the other. Every warp runs 1000 rounds of: a load of one sector of a random line in a
// parity-0 block (j < 128 of the page's 256 parity-0 blocks) of a random page of a 1 GB
// buffer, whose value (zeros) feeds the next address, then `nst` stores of whole new
// lines, in order:
//   apart      to the parity-1 blocks of the pages: homed in the other partition
//   together   to parity-0 blocks j >= 128: homed in the reads' partition
//   kept       to the first 1 MB of apart's lines, the same every round: the L2 keeps
//              them, no DRAM writes
// and the same three with only the blocks on SMs of odd number storing (splitapart,
// splittogether, splitkept: do other SMs' write-backs slow a read?), at nst = 1 and 2
// and k = 1, 2 and 4 blocks of 256 threads an SM. Caches are flushed (by reading 256
// MB) before each timed run. Prints
//   id,kind,stores,blocks_per_sm,warps,iters,mhz,ms,write_gbps,round,p10,p50,p90,
//   reader_round,writer_round
// (reader_round and writer_round: the mean round of the warps that do not store and of
// those that do). Then, by the rate of write-backs (kernel paced: splitapart and
// splitkept at one block an SM, one store every 1 to 64 rounds):
//   #pace,id,kind,every,iters,ms,write_gbps,reader_round,writer_round
// (round in SM cycles: a warp's clock64 span over iters, the mean over warps; mhz from
// clock64 against %globaltimer over block 0's thread 0; ms the median of three runs;
// write_gbps the bytes the stores ask for over ms). "once": one untimed run each, for
// ncu, whose ID is the launch's id.
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"

static const size_t MB = 1 << 20;

#include "launch_clock.cuh"

// block is the 4 KB block number within a 2 MB page of the j-th block (j < 256) whose
// address bits 12, 13, 15, 17 and 19 (block bits 0, 1, 3, 5, 7) XOR to p.
__device__ __forceinline__ unsigned block(unsigned j, unsigned p)
{
	unsigned b = j << 1;
	return b | (p ^ (__popc(b & 0xAAu) & 1));
}

// where: 0 apart, 1 together, 2 kept. With split, only the blocks on SMs of odd number
// store; role[w] is 1 for a warp that stores, 0 for one that does not.
__global__ void rounds(unsigned *buf, int nst, int where, int split, int iters, long long *cyc, unsigned *role,
	unsigned long long *meta, unsigned *sink)
{
	unsigned smid;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
	if (split && !(smid & 1))
		nst = 0;
	launchStamp stamp = launchStart();
	const size_t pages = 512, wordsPerLine = 32;
	int lane = threadIdx.x & 31;
	size_t warps = (size_t)gridDim.x * (blockDim.x >> 5), w = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
	unsigned v = 0, acc = 0;
	long long start = clock64();
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		size_t r = ((size_t)w * iters + it) * 2654435761u; // a random read
		size_t page = (r >> 7) % pages, j = (r >> 16) & 127, line = (r >> 23) & 31;
		size_t addr = page * (2 * MB / 4) + block((unsigned)j, 0) * 1024 + line * wordsPerLine;
		v = __ldcg(&buf[addr + v]);
		for (int s = 0; s < nst; s++) {
			size_t n = ((size_t)it * warps + w) * nst + s; // this store's line, in order
			if (where == 2)
				n &= 8191; // 1 MB
			size_t wp = (n >> 12) % pages, wj = (n >> 5) & 127, wl = n & 31;
			size_t wb = where == 1 ? block((unsigned)(wj + 128), 0) : block((unsigned)wj, 1);
			buf[wp * (2 * MB / 4) + wb * 1024 + wl * wordsPerLine + lane] = v + s;
		}
		acc += v;
	}
	long long end = clock64() + (acc >> 31);
	if (lane == 0) {
		cyc[w] = end - start;
		role[w] = nst > 0;
	}
	if (acc == 0x9e3779b9u)
		sink[0] = acc;
	launchEnd(stamp, meta);
}

// paced: rounds' split kinds with one store every `every` rounds (the odd-numbered SMs'
// blocks store, the others only read), to apart's lines (where 0) or kept's (2). A
// warp's span is timed over its second half of rounds, past the stores' first 20 MB
// that the L2 takes in before it writes any back.
__global__ void paced(unsigned *buf, int where, int every, int iters, long long *cyc, unsigned *role,
	unsigned *sink)
{
	unsigned smid;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
	bool stores = smid & 1;
	const size_t pages = 512, wordsPerLine = 32;
	int lane = threadIdx.x & 31;
	size_t warps = (size_t)gridDim.x * (blockDim.x >> 5), w = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
	unsigned v = 0, acc = 0;
	long long start = 0;
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		if (it == iters / 2)
			start = clock64() + (acc >> 31);
		size_t r = ((size_t)w * iters + it) * 2654435761u; // a random read
		size_t page = (r >> 7) % pages, j = (r >> 16) & 127, line = (r >> 23) & 31;
		size_t addr = page * (2 * MB / 4) + block((unsigned)j, 0) * 1024 + line * wordsPerLine;
		v = __ldcg(&buf[addr + v]);
		if (stores && it % every == 0) {
			size_t n = (size_t)it / every * warps + w; // this store's line, in order
			if (where == 2)
				n &= 8191; // 1 MB
			size_t wp = (n >> 12) % pages, wj = (n >> 5) & 127, wl = n & 31;
			buf[wp * (2 * MB / 4) + block((unsigned)wj, 1) * 1024 + wl * wordsPerLine + lane] = v;
		}
		acc += v;
	}
	long long end = clock64() + (acc >> 31);
	if (lane == 0) {
		cyc[w] = end - start;
		role[w] = stores;
	}
	if (acc == 0x9e3779b9u)
		sink[0] = acc;
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const int iters = 1000, kmax = 4, block = 256;
	unsigned *buf, *junk, *sink, *role;
	long long *cyc;
	unsigned long long *meta;
	CK(cudaMalloc(&buf, 1024 * MB));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMalloc(&sink, 8));
	CK(cudaMalloc(&cyc, (size_t)sms * kmax * block / 32 * 8));
	CK(cudaMalloc(&meta, 4 * 8));
	CK(cudaMalloc(&role, (size_t)sms * kmax * block / 32 * 4));
	CK(cudaMemset(buf, 0, 1024 * MB));
	CK(cudaMemset(junk, 0, 256 * MB));
	auto flush = [&] {
		sweep<<<4 * sms, 1024>>>((const uint4 *)junk, 256 * MB / 16, sink);
		CK(cudaGetLastError());
	};
	const char *names[] = {"apart", "together", "kept", "splitapart", "splittogether", "splitkept"};
	printf("id,kind,stores,blocks_per_sm,warps,iters,mhz,ms,write_gbps,round,p10,p50,p90,reader_round,writer_round\n");
	int id = 0;
	for (int k : {1, 2, kmax})
		for (int nst : {1, 2})
			for (int kind = 0; kind < 6; kind++) {
				int where = kind % 3, split = kind / 3;
				int grid = k * sms, warps = grid * block / 32;
				float ms = timeLaunch(once, [&] { rounds<<<grid, block>>>(buf, nst, where, split, iters, cyc, role, meta, sink); },
					flush);
				std::vector<long long> c(warps);
				std::vector<unsigned> rl(warps);
				unsigned long long m[4];
				CK(cudaMemcpy(c.data(), cyc, 8 * warps, cudaMemcpyDeviceToHost));
				CK(cudaMemcpy(rl.data(), role, 4 * warps, cudaMemcpyDeviceToHost));
				CK(cudaMemcpy(m, meta, sizeof m, cudaMemcpyDeviceToHost));
				double mhz = m[2] > m[0] ? (double)(m[3] - m[1]) / (double)(m[2] - m[0]) * 1000 : 0;
				std::vector<double> r(warps);
				double mean = 0, by[2] = {0, 0};
				int n[2] = {0, 0};
				for (int w = 0; w < warps; w++) {
					r[w] = (double)c[w] / iters;
					mean += r[w] / warps;
					by[rl[w]] += r[w];
					n[rl[w]]++;
				}
				double gbps = ms > 0 ? (double)n[1] * iters * nst * 128 / (ms * 1e6) : 0;
				printf("%d,%s,%d,%d,%d,%d,%.0f,%.4f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", id++, names[kind], nst, k, warps,
					iters, mhz, ms, gbps, mean, at(r, .1), at(r, .5), at(r, .9), n[0] ? by[0] / n[0] : 0,
					n[1] ? by[1] / n[1] : 0);
				fflush(stdout);
			}
	// The wait by the rate of write-backs: split apart and kept at one block an SM, one
	// store every 1 to 64 rounds, 2000 stores a storing warp (the spans over the second
	// half of the rounds).
	for (int every : {1, 2, 4, 8, 16, 32, 64})
		for (int where : {0, 2}) {
			int grid = sms, warps = grid * block / 32, it = 2000 * every;
			float ms = timeLaunch(once, [&] { paced<<<grid, block>>>(buf, where, every, it, cyc, role, sink); }, flush);
			std::vector<long long> c(warps);
			std::vector<unsigned> rl(warps);
			CK(cudaMemcpy(c.data(), cyc, 8 * warps, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(rl.data(), role, 4 * warps, cudaMemcpyDeviceToHost));
			double by[2] = {0, 0};
			int n[2] = {0, 0};
			for (int w = 0; w < warps; w++) {
				by[rl[w]] += (double)c[w] / (it - it / 2);
				n[rl[w]]++;
			}
			double gbps = ms > 0 ? (double)n[1] * (it / every) * 128 / (ms * 1e6) : 0;
			printf("#pace,%d,%s,%d,%d,%.4f,%.1f,%.1f,%.1f\n", id++, where ? "splitkept" : "splitapart", every, it, ms, gbps,
				n[0] ? by[0] / n[0] : 0, n[1] ? by[1] / n[1] : 0);
			fflush(stdout);
		}
	return 0;
}
