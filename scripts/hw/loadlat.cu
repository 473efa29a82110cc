// loadlat.cu: how long a DRAM read takes while other warps keep DRAM busy (issue 11: a
// copy of whole lines, one line in flight a warp, takes the H100 longer than DRAM's rate
// explains). scripts/hw/probe.sh loadlat runs it without a profiler and under ncu.
//
//   loadlat [once]
//
// Every launch is one kernel: block 0 is one thread that chases pointers through a
// 256 MB buffer, a shuffled cycle of 128 B lines (every hop a DRAM read: the L2 holds a
// fifth of it), timed with %globaltimer; blocks 1 to k * SMs (256 threads) meanwhile
// stream through a 1 GB buffer, 16 B a thread at a time, grid-stride, long enough to
// outlast the chase:
//   chase      no streamers: the unloaded latency
//   read k     streamers that read (k = 1, 2, 4, 8 blocks per SM)
//   copy k     streamers that copy the first half of the buffer to the second
//   write k    streamers that write
// Prints id,kind,blocks_per_sm,hops,ns_per_hop,stream_bytes,ms (ms: the median of three
// runs of the whole kernel, caches flushed before each; ns_per_hop from the last of
// them; "once": one untimed run each, for ncu, whose ID is the launch's id).
#include <cstring>
#include <numeric>
#include <cuda_runtime.h>
#include "probe.h"
#include "loadlat_stream.cuh"

static const size_t MB = 1 << 20;

__device__ __forceinline__ unsigned long long globaltimer()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// kind: 0 read, 1 copy, 2 write. chain[i * 32] is the line after line i.
__global__ void loaded(const unsigned *chain, int hops, uint4 *a, size_t n, int iters, int kind,
	unsigned long long *ns, unsigned *sink)
{
	if (blockIdx.x == 0) {
		if (threadIdx.x != 0)
			return;
		unsigned i = 0;
		unsigned long long t0 = globaltimer();
		for (int h = 0; h < hops; h++)
			i = __ldcg(&chain[(size_t)i * 32]);
		unsigned long long t1 = globaltimer();
		ns[0] = t1 - t0;
		sink[0] = i;
		return;
	}
	streamers(a, n, iters, kind, sink);
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const size_t chainBytes = 256 * MB, bytes = 1024 * MB;
	const unsigned lines = chainBytes / 128;
	// A single shuffled cycle through every line: line order[j] leads to order[j+1].
	std::vector<unsigned> order(lines), host(chainBytes / 4, 0);
	std::iota(order.begin(), order.end(), 0u);
	unsigned long long x = 88172645463325252ull; // xorshift64: Fisher-Yates, line 0 first
	for (unsigned j = lines - 1; j > 1; j--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		std::swap(order[j], order[1 + x % j]);
	}
	for (unsigned j = 0; j < lines; j++)
		host[(size_t)order[j] * 32] = order[(j + 1) % lines];
	unsigned *chain, *sink, *junk;
	uint4 *a;
	unsigned long long *ns;
	CK(cudaMalloc(&chain, chainBytes));
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMalloc(&sink, 8));
	CK(cudaMalloc(&ns, 8));
	CK(cudaMemcpy(chain, host.data(), chainBytes, cudaMemcpyHostToDevice));
	CK(cudaMemset(a, 1, bytes));
	auto flush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	const int hops = 4000, block = 256;
	// Enough for the streamers to outlast the chase at 8 blocks an SM: 24 GB at 3 TB/s.
	const int iters = 6000;
	printf("id,kind,blocks_per_sm,hops,ns_per_hop,stream_bytes,ms\n");
	int id = 0;
	struct {
		const char *kind;
		int k, code;
	} runs[] = {{"chase", 0, 0}, {"read", 1, 0}, {"read", 2, 0}, {"read", 4, 0}, {"read", 8, 0},
		{"copy", 2, 1}, {"copy", 8, 1}, {"write", 8, 2}};
	for (auto r : runs) {
		int grid = 1 + r.k * sms;
		size_t streamBytes = (size_t)(grid - 1) * block * iters * 16 * (r.code == 1 ? 2 : 1);
		float ms = timeLaunch(once, [&] { loaded<<<grid, block>>>(chain, hops, a, bytes / 16, iters, r.code, ns, sink); }, flush);
		unsigned long long t = 0;
		CK(cudaMemcpy(&t, ns, 8, cudaMemcpyDeviceToHost));
		printf("%d,%s,%d,%d,%.1f,%zu,%.4f\n", id++, r.kind, r.k, hops, (double)t / hops, streamBytes, ms);
		fflush(stdout);
	}
	return 0;
}
