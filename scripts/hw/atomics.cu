// atomics.cu: what serialises global and shared atomics, and at what rate (issue 11).
// scripts/hw/atomics.sh runs it without a profiler (times) and under Nsight Compute
// (cycles and L2 counters at base clocks).
//
//   atomics [once]
//
// Every launch is one pattern of lanes to addresses, repeated iters times by every
// thread (inline PTX, so no compiler merges or aggregates them):
//   lane l -> line (l % L), word (l / L) % A of that line,
//   line i at base + i*stride (stride in 128-byte lines), plus warp*priv lines when
//   each warp has its own lines (priv > 0; 0 = every warp of the grid shares them).
// Kinds:
//   red    red.global.add.u32 (SASS RED), result unused
//   atom   atom.global.add.u32 (SASS ATOMG), results summed
//   chain  one thread, each atom's value depends on the last one's result: latency
//   sred   atom.shared.add.u32 on one block-wide array: lane l -> word (l % L) + 32 *
//          ((l / L) % A), so L distinct banks and A addresses in each bank
// Prints one CSV line per launch: id,kind,L,A,stride,priv,blocks,threads,iters,ops,ms
// (ms: the median of three timed runs; with "once", one untimed run each, for ncu).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "probe.h"


__device__ __forceinline__ unsigned *addr(unsigned *base, int L, int A, long stride, long priv)
{
	int lane = threadIdx.x & 31;
	long warp = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
	return base + (warp * priv + (lane % L) * stride) * 32 + (lane / L) % A;
}

__global__ void red_k(unsigned *base, int L, int A, long stride, long priv, int iters)
{
	unsigned *p = addr(base, L, A, stride, priv);
	for (int i = 0; i < iters; i++)
		asm volatile("red.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}

__global__ void atom_k(unsigned *base, int L, int A, long stride, long priv, int iters, unsigned *sink)
{
	unsigned *p = addr(base, L, A, stride, priv);
	unsigned s = 0, v;
	for (int i = 0; i < iters; i++) {
		asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(p) : "memory");
		s += v;
	}
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

__global__ void chain_k(unsigned *base, int iters, unsigned *sink)
{
	unsigned v = 0;
	for (int i = 0; i < iters; i++) {
		unsigned *p = base + (v & 0x80000000u); // depends on the last result, stays put
		asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(p) : "memory");
	}
	sink[0] = v;
}

__global__ void sred_k(int L, int A, int iters, unsigned *sink)
{
	__shared__ unsigned s[32 * 32];
	for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
		s[i] = 0;
	__syncthreads();
	int lane = threadIdx.x & 31;
	unsigned a = (unsigned)__cvta_generic_to_shared(&s[(lane % L) + 32 * ((lane / L) % A)]);
	unsigned t = 0, v;
	for (int i = 0; i < iters; i++) {
		asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(v) : "r"(a) : "memory");
		t += v;
	}
	if (t == 0x9e3779b9u)
		sink[0] = t;
}

struct Launch {
	const char *kind;
	int L, A;
	long stride, priv;
	int blocks, threads, iters;
};

static const long OPS = 4l << 20; // lane-operations per launch, about

static Launch grid(const char *kind, int L, int A, long stride, long priv, int sms)
{
	int blocks = 4 * sms, threads = 256;
	int iters = (int)std::max(1l, OPS / ((long)blocks * threads));
	return {kind, L, A, stride, priv, blocks, threads, iters};
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	int sms = prop.multiProcessorCount;
	fprintf(stderr, "%s, %d SMs, L2 %d bytes\n", prop.name, sms, prop.l2CacheSize);

	std::vector<Launch> ls;
	// A: every warp of the grid on the same L lines, A words in each.
	for (const char *k : {"red", "atom"})
		for (int L = 1; L <= 32; L *= 2)
			for (int A = 1; L * A <= 32; A *= 2)
				ls.push_back(grid(k, L, A, 1, 0, sms));
	// B: each warp its own lines.
	int priv[][2] = {{1, 1}, {1, 32}, {4, 1}, {8, 4}, {32, 1}};
	for (auto &p : priv)
		ls.push_back(grid("red", p[0], p[1], 1, 64, sms));
	// C: two lines k lines apart, 16 words each: do they share a serialising unit?
	for (long k : {1l, 2l, 3l, 4l, 5l, 6l, 7l, 8l, 9l, 10l, 11l, 12l, 13l, 14l, 15l, 16l, 24l, 32l, 48l,
		       64l, 96l, 128l, 256l, 512l, 1024l, 2048l, 4096l, 8192l, 16384l, 65536l})
		ls.push_back(grid("red", 2, 16, k, 0, sms));
	// D: L lines spread stride lines apart.
	for (int L : {8, 32})
		for (long s : {8l, 32l, 256l, 8191l})
			ls.push_back(grid("red", L, 32 / L, s, 0, sms));
	// E: how many warps one line needs to reach its rate.
	for (int L : {1, 32})
		for (int b : {1, sms, 4 * sms})
			for (int t : {32, 256}) {
				int iters = (int)std::min(4096l, std::max(1l, OPS / ((long)b * t)));
				ls.push_back({"red", L, 1, 1, 0, b, t, iters});
			}
	// F: one thread's dependent atomics.
	ls.push_back({"chain", 1, 1, 1, 0, 1, 1, 4096});
	// G: shared-memory atomics, every warp of a block on one array.
	for (int L = 1; L <= 32; L *= 2)
		ls.push_back(grid("sred", L, 1, 1, 0, sms));
	for (int A = 2; A <= 32; A *= 2)
		ls.push_back(grid("sred", 1, A, 1, 0, sms));
	for (int A = 2; A <= 16; A *= 2)
		ls.push_back(grid("sred", 32 / A, A, 1, 0, sms));

	size_t words = 0;
	for (auto &l : ls) {
		long warps = (long)l.blocks * l.threads / 32;
		size_t need = (size_t)(warps * l.priv + (l.L - 1) * l.stride + 1) * 32;
		words = std::max(words, need);
	}
	unsigned *base, *sink;
	CK(cudaMalloc(&base, words * 4));
	CK(cudaMalloc(&sink, 64));
	CK(cudaMemset(base, 0, words * 4));
	printf("id,kind,L,A,stride,priv,blocks,threads,iters,ops,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		float ms = timeLaunch(once, [&] {
			if (!strcmp(l.kind, "red"))
				red_k<<<l.blocks, l.threads>>>(base, l.L, l.A, l.stride, l.priv, l.iters);
			else if (!strcmp(l.kind, "atom"))
				atom_k<<<l.blocks, l.threads>>>(base, l.L, l.A, l.stride, l.priv, l.iters, sink);
			else if (!strcmp(l.kind, "chain"))
				chain_k<<<1, 1>>>(base, l.iters, sink);
			else
				sred_k<<<l.blocks, l.threads>>>(l.L, l.A, l.iters, sink);
		});
		long ops = (long)l.blocks * l.threads * l.iters;
		printf("%zu,%s,%d,%d,%ld,%ld,%d,%d,%d,%ld,%.4f\n", id, l.kind, l.L, l.A, l.stride, l.priv, l.blocks,
		       l.threads, l.iters, ops, ms);
	}
	return 0;
}
