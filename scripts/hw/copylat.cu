// copylat.cu: how long a streaming read waits when the warp also stores (issue 11: the
// held-out copies take the H100 and H200 19-37% more time than the engine gives, while
// streams that only read come within 11% at every load, streamlat; loadlat found a
// chased read waits twice as long beside copying warps as beside reading ones).
// scripts/hw/probe.sh copylat runs it without a profiler and under ncu.
//
//   copylat [once]
//
// Every warp runs one loop (copylat_kernels.cu, a kernel a kind) of `iters` rounds, each
// one load of a new line of a 1 GB buffer, grid-stride, whose value (zeros) feeds the
// next round's address: one load in flight a warp, so a round is the load's wait plus
// the loop. Kinds (out: the buffer stores go to):
//   read        loads only
//   readdirty   read after a flush that leaves the L2 holding dirty lines (the others'
//               flush leaves it clean): its first misses write them back
//   copy        the loaded line stored to a new line of a second 1 GB buffer
//   copyfit     stored to 16 MB instead: new lines for the first 16 MB (121 rounds at
//               one block an SM), then the same again; less than the L2 keeps dirty,
//               so nothing is written back
//   copyl2      stored to 1 MB instead, the same lines every round (the L2 keeps them:
//               no DRAM writes until they are evicted)
//   copync      copy with the load through L1 (ld.global.nc)
//   store       stores alone to the 1 GB buffer, no load (a round: a store's issue)
//   storel2     stores alone to 1 MB
//   chase0      a random line of the 1 GB buffer a round (one sector: light reads,
//               no row hits), no stores
//   chaseN      chase0 and N stores of whole new lines a round (N = 1, 2, 4) to the
//               second 1 GB buffer: the L2 writes them back at the rate they come
//   chaseNl2    the same N stores to 1 MB: no DRAM writes
// at k = 1, 2, 4 and 8 blocks of 256 threads an SM. Caches are flushed before each timed
// run (by reading 256 MB, but for readdirty). Prints
//   id,kind,out_mb,blocks_per_sm,warps,iters,mhz,ms,read_gbps,write_gbps,round,p10,p50,p90
// (round in SM cycles: a warp's clock64 span over iters, the mean over warps, and the
// 10th, 50th and 90th percentiles; mhz from clock64 against %globaltimer over block 0's
// thread 0; ms the median of three runs; the GB/s are the bytes the loads and stores
// ask for over ms). "once": one untimed run each, for ncu, whose ID is the launch's id.
// Without "once", then each round's time of the probe warps (warp 0 of every block: its
// rounds are not in the means above) in the last timed run of each launch, the first 16
// rounds left out, in 8-cycle bins by their lower edge:
//   #hist,id,cycles,count
// and, in the same runs, the probe warps' mean round by ten rounds (the L2 takes in about
// the first 20 MB stored before it writes any back: about 150 rounds at one block an SM):
//   #trend,id,first_round,mean
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"

static const size_t MB = 1 << 20;

#include "copylat_kernels.cu"

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const size_t bytes = 1024 * MB, words = bytes / 4;
	const int iters = 1000, kmax = 8, block = 256;
	unsigned *a, *out, *junk, *sink, *dt;
	long long *cyc;
	unsigned long long *meta;
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&out, bytes));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMalloc(&sink, 8));
	CK(cudaMalloc(&cyc, (size_t)sms * kmax * block / 32 * 8));
	CK(cudaMalloc(&meta, 4 * 8));
	CK(cudaMalloc(&dt, (size_t)sms * kmax * iters * 4));
	CK(cudaMemset(a, 0, bytes));
	CK(cudaMemset(out, 0, bytes));
	// Two flushes: reading 256 MB leaves the L2 holding clean lines; writing it (a memset)
	// leaves it holding as many dirty lines as it keeps (hw-facts section 11: 25.5 MB),
	// which the next kernel's misses write back.
	auto flush = [&] {
		sweep<<<4 * sms, 1024>>>((const uint4 *)junk, 256 * MB / 16, sink);
		CK(cudaGetLastError());
	};
	auto dirtyFlush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	typedef void (*kernel)(const unsigned *, size_t, unsigned *, size_t, int, long long *, unsigned long long *,
		unsigned *, unsigned *);
	struct kind {
		const char *name;
		kernel f;
		size_t outMB;
		int rd, st; // bytes a warp asks to read and to write a round
		bool dirty;
	} kinds[] = {{"read", read, 1024, 128, 0, false}, {"readdirty", read, 1024, 128, 0, true},
		{"copy", copy, 1024, 128, 128, false}, {"copyfit", copy, 16, 128, 128, false},
		{"copyl2", copy, 1, 128, 128, false}, {"copync", copync, 1024, 128, 128, false},
		{"store", store, 1024, 0, 128, false}, {"storel2", store, 1, 0, 128, false},
		{"chase0", chase0, 1024, 32, 0, false}, {"chase1", chase1, 1024, 32, 128, false},
		{"chase1l2", chase1, 1, 32, 128, false}, {"chase2", chase2, 1024, 32, 256, false},
		{"chase2l2", chase2, 1, 32, 256, false}, {"chase4", chase4, 1024, 32, 512, false},
		{"chase4l2", chase4, 1, 32, 512, false}};
	printf("id,kind,out_mb,blocks_per_sm,warps,iters,mhz,ms,read_gbps,write_gbps,round,p10,p50,p90\n");
	int id = 0;
	std::vector<std::vector<unsigned long long>> hists;
	std::vector<std::vector<double>> trends;
	for (int k : {1, 2, 4, kmax})
		for (auto kd : kinds) {
			int grid = k * sms, warps = grid * block / 32;
			float ms = timeLaunch(once, [&] {
				kd.f<<<grid, block>>>(a, words, out, kd.outMB * MB / 4, iters, cyc, meta, dt, sink);
			}, [&] { kd.dirty ? dirtyFlush() : flush(); });
			std::vector<long long> c(warps);
			unsigned long long m[4];
			CK(cudaMemcpy(c.data(), cyc, 8 * warps, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(m, meta, sizeof m, cudaMemcpyDeviceToHost));
			double mhz = m[2] > m[0] ? (double)(m[3] - m[1]) / (double)(m[2] - m[0]) * 1000 : 0;
			std::vector<double> r;
			double mean = 0;
			for (int w = 0; w < warps; w++)
				if (w % (block / 32)) { // warp 0 of each block is a probe
					r.push_back((double)c[w] / iters);
					mean += r.back() / (warps - grid);
				}
			std::vector<unsigned> h((size_t)grid * iters);
			CK(cudaMemcpy(h.data(), dt, h.size() * 4, cudaMemcpyDeviceToHost));
			hists.emplace_back(1024);
			trends.emplace_back(iters / 10);
			for (size_t i = 0; i < h.size(); i++) {
				if (i % iters >= 16)
					hists.back()[std::min<size_t>(h[i] / 8, 1023)]++;
				trends.back()[i % iters / 10] += (double)h[i] / (10.0 * grid);
			}
			double gb = ms > 0 ? (double)warps * iters / (ms * 1e6) : 0; // GB/s a byte a warp a round
			printf("%d,%s,%zu,%d,%d,%d,%.0f,%.4f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", id++, kd.name, kd.outMB, k, warps,
				iters, mhz, ms, gb * kd.rd, gb * kd.st, mean, at(r, .1), at(r, .5), at(r, .9));
			fflush(stdout);
		}
	if (!once)
		for (size_t i = 0; i < hists.size(); i++)
			for (size_t b = 0; b < hists[i].size(); b++)
				if (hists[i][b])
					printf("#hist,%zu,%zu,%llu\n", i, b * 8, hists[i][b]);
	if (!once)
		for (size_t i = 0; i < trends.size(); i++)
			for (size_t b = 0; b < trends[i].size(); b++)
				printf("#trend,%zu,%zu,%.1f\n", i, b * 10, trends[i][b]);
	return 0;
}
