// linewait.cu: what a request of several lines waits for from DRAM (issue 11, hw-facts
// section 16: on an H200 a request of four lines of 4 B a lane waits 74 cycles more
// than one of one line, from L2 only 11; the timing engine gives 24). Does it wait for the
// latest of n reads whose times are spread (each DRAM read takes one of two times by its
// line's L2 home, and some much longer), or do its lines queue one after another?
// scripts/hw/probe.sh linewait runs it without a profiler and under ncu.
//
//   linewait [once]
//
// Kernel `lines` (linewait_kernels.cu): every warp runs rounds of one request of n lines,
// lane i reading the first word of line base + i * stride of a 1 GB buffer, base a new
// 4 KB block each round; lane 0 times each round. Layouts by stride:
//   adj   1 line      the n lines side by side (one 4 KB block up to n = 32: one L2 home)
//   far   33 lines    each line in a 4 KB block of its own (homes mixed by the hash)
//   page  16385 lines each line in a 2 MB page of its own
// n = 1, 2, 4, 8, 32, one warp an SM (one block of 32 threads an SM) and eight (one block
// of 256), caches flushed before each timed run. Prints
//   n,layout,warps_per_sm,iters,mhz,ms,round,p10,p50,p90
// (round: the mean over every warp's rounds but its first 8, in SM cycles; mhz from the
// kernel's clock64 against its time) and, for one warp an SM, each round's time:
//   #hist,n,layout,cycles,count   (8-cycle bins by their lower edge, nonzero bins only)
// "once": one untimed run each, for ncu; ncu's ID is the row's place in the table.
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"

#include "linewait_kernels.cu"

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const size_t MB = 1 << 20, bytes = 1024 * MB, nlines = bytes / 128;
	const int iters = 400, skip = 8;
	unsigned *buf, *junk, *dt, *sink;
	CK(cudaMalloc(&buf, bytes));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMalloc(&sink, 8));
	CK(cudaMalloc(&dt, (size_t)sms * 8 * iters * 4));
	CK(cudaMemset(buf, 0, bytes));
	auto flush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	struct layout {
		const char *name;
		size_t stride;
	} layouts[] = {{"adj", 1}, {"far", 33}, {"page", 16385}};
	printf("n,layout,warps_per_sm,iters,mhz,ms,round,p10,p50,p90\n");
	for (int wps : {1, 8})
		for (auto l : layouts)
			for (int n : {1, 2, 4, 8, 32}) {
				int block = 32 * wps, warps = sms * wps;
				float ms = timeLaunch(once, [&] {
					lines<<<sms, block>>>(buf, nlines, n, l.stride, iters, dt, sink);
				}, flush);
				std::vector<unsigned> h((size_t)warps * iters);
				CK(cudaMemcpy(h.data(), dt, h.size() * 4, cudaMemcpyDeviceToHost));
				std::vector<unsigned> r;
				double sum = 0, total = 0;
				for (int w = 0; w < warps; w++) {
					for (int it = 0; it < iters; it++) {
						total += h[(size_t)w * iters + it];
						if (it >= skip) {
							r.push_back(h[(size_t)w * iters + it]);
							sum += r.back();
						}
					}
				}
				// every warp's rounds take the whole kernel: clock cycles over its time
				double mhz = ms > 0 ? total / warps / (ms * 1e3) : 0;
				std::sort(r.begin(), r.end());
				auto at = [&](double p) { return r[(size_t)(p * (r.size() - 1))]; };
				printf("%d,%s,%d,%d,%.0f,%.4f,%.1f,%u,%u,%u\n", n, l.name, wps, iters, mhz, ms, sum / r.size(), at(.1),
					at(.5), at(.9));
				if (wps == 1 && !once) {
					std::vector<unsigned long long> bins(1024);
					for (unsigned x : r)
						bins[std::min<size_t>(x / 8, bins.size() - 1)]++;
					for (size_t b = 0; b < bins.size(); b++)
						if (bins[b])
							printf("#hist,%d,%s,%zu,%llu\n", n, l.name, b * 8, bins[b]);
				}
				fflush(stdout);
			}
	return 0;
}
