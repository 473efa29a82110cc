// rounds.cu: what a round of short CTAs costs (issue 11: copy@n takes the H100 1.5-1.8x
// the engine's time at every size, one CTA round or 124). scripts/hw/probe.sh rounds
// runs it without a profiler and under ncu.
//
//   rounds [once]
//
// Every launch is R rounds of k CTAs an SM (grid = SMs * k * R, 256 threads a CTA),
// each thread touching one 4 B element at its global index, coalesced:
//   empty  nothing
//   load   reads a[i] (the value is never 7, so nothing is stored)
//   store  writes b[i]
//   copy   b[i] = a[i]
// with k = 1 (a CTA at a time on each SM: R CTA lifetimes one after another) and k = 8
// (all an SM holds at once; at k = 1 the GPU still puts up to 8 on an SM once R > 8).
// Caches are flushed before each timed run. Prints id,kind,blocks_per_sm,rounds,ctas,ms
// (ms: the median of three runs; "once": one untimed run each, for ncu, whose ID is the
// launch's id).
//
// Then the same four kinds once more at 128 CTAs an SM, stamped: lane 0 of every warp
// reads the SM's clock64 on entry and after its last instruction (after the load's value
// has arrived), and its %smid. Per SM, CTAs sorted by start, leaving out each SM's first
// and last 16: a CTA's life (its first warp's start to its last warp's end, SM cycles)
// and the gap between two CTAs' starts; eight slots an SM, so a slot is held 8 gaps, and
// what a slot holds beyond a life is the cost of starting and retiring a CTA. Prints
// #stamp,kind,ctas,ms,sms,life_cycles,gap_cycles,hold_cycles (medians over SMs).
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"
#include "cta_life.h"

static const size_t MB = 1 << 20;

#include "rounds_kernels.cu"

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const int block = 256, kmax = 8, rmax = 16;
	size_t n = (size_t)sms * kmax * rmax * block;
	unsigned *a, *b, *junk;
	CK(cudaMalloc(&a, n * 4));
	CK(cudaMalloc(&b, n * 4));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMemset(a, 1, n * 4));
	CK(cudaMemset(b, 0, n * 4));
	auto flush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	printf("id,kind,blocks_per_sm,rounds,ctas,ms\n");
	int id = 0;
	const char *kinds[] = {"empty", "load", "store", "copy"};
	for (int k : {1, kmax})
		for (int r : {1, 4, rmax})
			for (int kind = 0; kind < 4; kind++) {
				int grid = sms * k * r;
				float ms = timeLaunch(once, [&] {
					switch (kind) {
					case 0: empty<<<grid, block>>>(); break;
					case 1: load<<<grid, block>>>(a, b); break;
					case 2: store<<<grid, block>>>(b); break;
					default: copy<<<grid, block>>>(a, b);
					}
				}, flush);
				printf("%d,%s,%d,%d,%d,%.4f\n", id++, kinds[kind], k, r, grid, ms);
				fflush(stdout);
			}
	int grid = sms * kmax * rmax, warps = grid * block / 32, wpc = block / 32;
	long long *t0, *t1;
	unsigned *sm;
	CK(cudaMalloc(&t0, 8 * warps));
	CK(cudaMalloc(&t1, 8 * warps));
	CK(cudaMalloc(&sm, 4 * warps));
	std::vector<long long> h0(warps), h1(warps);
	std::vector<unsigned> hs(warps);
	for (int kind = 0; kind < 4; kind++) {
		float ms = timeLaunch(once, [&] { stamped<<<grid, block>>>(a, b, kind, t0, t1, sm); }, flush);
		id++;
		if (once)
			continue;
		CK(cudaMemcpy(h0.data(), t0, 8 * warps, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(h1.data(), t1, 8 * warps, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hs.data(), sm, 4 * warps, cudaMemcpyDeviceToHost));
		double life, gap;
		size_t n = ctaLife(h0, h1, hs, grid, wpc, sms, &life, &gap);
		printf("#stamp,%s,%d,%.4f,%zu,%.0f,%.1f,%.0f\n", kinds[kind], grid, ms, n, life, gap, 8 * gap);
		fflush(stdout);
	}
	return 0;
}
