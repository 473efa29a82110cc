// ctasize.cu: what starting and retiring a CTA costs an H200's SM as the CTA grows
// (docs/issue-11.md item 31). rounds.cu measured CTAs of 256 threads only: each
// further CTA costs an SM about 79 ns, and holds its room about 207 ns beyond its
// warps' work (hw-facts section 15). shconf.cu's transpose-shaped CTAs of 1024 threads
// hold theirs 800-900 cycles after their last warp's last stamp.
//
//   nvcc -O3 -arch=sm_90 -o ctasize scripts/hw/ctasize.cu && ./ctasize > ctasize.csv
//
// For CTAs of T = 64, 128, 256, 512 and 1024 threads, the kernels of rounds_kernels.cu
// (empty: nothing; load: a coalesced word a thread) at 32 and 128 CTAs an SM (caches
// flushed before each timed run, median of three): each further CTA's cost is the
// difference over 96. Then stamped (its kind empty or load) at 128 CTAs an SM: per SM,
// CTAs sorted by start leaving out the first and last 16, a CTA's life (its first
// warp's start to its last warp's end) and the mean gap between two CTAs' starts; a SM
// holds R = min(32, 2048 / T) at once, so a room is held R gaps, and what it holds
// beyond a life is starting and retiring a CTA.
//
// stdout: rows "time,kind,threads,ctas_per_sm,ctas,ms" and
// "stamp,kind,threads,rooms,ms,sms,life_cycles,gap_cycles,hold_cycles" (medians over SMs).
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"
#include "cta_life.h"

static const size_t MB = 1 << 20;

#include "rounds_kernels.cu"

int main()
{
	int sms = smCount();
	const int most = 128;
	size_t n = (size_t)sms * most * 1024;
	unsigned *a, *b, *junk;
	CK(cudaMalloc(&a, n * 4));
	CK(cudaMalloc(&b, n * 4));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMemset(a, 1, n * 4));
	CK(cudaMemset(b, 0, n * 4));
	auto flush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	const char *kinds[] = {"empty", "load"};
	long long *t0, *t1;
	unsigned *sm;
	size_t warps = n / 32;
	CK(cudaMalloc(&t0, 8 * warps));
	CK(cudaMalloc(&t1, 8 * warps));
	CK(cudaMalloc(&sm, 4 * warps));
	std::vector<long long> h0(warps), h1(warps);
	std::vector<unsigned> hs(warps);
	for (int block : {64, 128, 256, 512, 1024}) {
		for (int kind = 0; kind < 2; kind++)
			for (int k : {32, most}) {
				int grid = sms * k;
				float ms = timeLaunch(false, [&] {
					if (kind == 0)
						empty<<<grid, block>>>();
					else
						load<<<grid, block>>>(a, b);
				}, flush);
				printf("time,%s,%d,%d,%d,%.4f\n", kinds[kind], block, k, grid, ms);
				fflush(stdout);
			}
		int grid = sms * most, wpc = block / 32, nw = grid * wpc, rooms = std::min(32, 2048 / block);
		for (int kind = 0; kind < 2; kind++) {
			float ms = timeLaunch(false, [&] { stamped<<<grid, block>>>(a, b, kind, t0, t1, sm); }, flush);
			CK(cudaMemcpy(h0.data(), t0, 8 * nw, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(h1.data(), t1, 8 * nw, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(hs.data(), sm, 4 * nw, cudaMemcpyDeviceToHost));
			double life, gap;
			size_t n = ctaLife(h0, h1, hs, grid, wpc, sms, &life, &gap);
			printf("stamp,%s,%d,%d,%.4f,%zu,%.0f,%.1f,%.0f\n", kinds[kind], block, rooms, ms, n, life, gap, rooms * gap);
			fflush(stdout);
		}
	}
	return 0;
}
