// streamlat.cu: how long one streaming load waits, by how many lines it asks for and how
// many warps an SM holds (issue 11: a grid-stride copy's round takes the H100 441-502 ns
// where a pointer chase under the same DRAM load takes 358-404; the engine gives both the
// chase's time). scripts/hw/probe.sh streamlat runs it without a profiler and under ncu.
//
//   streamlat [once]
//
// Every warp runs one loop (streamlat_kernels.cu, a kernel a kind) of `iters` rounds, each a single load
// whose value (the buffers hold zeros) is added to the next round's address: one request
// in flight a warp, so a round is its load's latency plus the loop's own instructions.
// Lane 0 reads clock64 before the first round and after the last. Two roles:
//   probe    warp 0 of the first SMs blocks: lane 0 alone loads one word (one sector) of a
//            line of its own 256 MB buffer, a new line each round
//   stream   every other warp: a request through a 1 GB buffer, grid-stride, new lines
//            every round (all but l1hit, L2 only: ld.global.cg):
//              sector  lane 0 alone, one word     (1 line, 1 sector)
//              line    4 B a lane                 (1 line, 4 sectors)
//              line2   8 B a lane                 (2 lines, 8 sectors)
//              line4   16 B a lane                (4 lines, 16 sectors)
//              scatter 4 B a lane, 32 MB apart    (32 lines, 32 sectors)
//              l1hit   4 B a lane, the same line every round, through L1 (the loop's own
//                      time: a round less an L1 hit)
//              line4ca line4 through L1 (ld.global, as a plain copy loop loads)
//              w64     8 B a lane, lanes 16 apart on one word (1 line, 4 sectors)
//              w128    16 B a lane, lanes 8 apart on one word (1 line, 4 sectors)
//              s2      4 B a lane, 8 B apart      (2 lines, 8 sectors)
//              s4      4 B a lane, 16 B apart     (4 lines, 16 sectors)
//              l1w64   l1hit's line, 8 B a lane, lanes 16 apart on one word
//              l1w128  l1hit's line, 16 B a lane, lanes 8 apart on one word
//              l1line4 16 B a lane, the same 4 lines every round, through L1
// at k = 1, 2, 4 and 8 blocks of 256 threads an SM, and once with one 32-thread block an SM
// (probes alone: the unloaded latency). Caches are flushed before each timed run. Prints
//   id,kind,lines,blocks_per_sm,warps,iters,mhz,ms,stream_gbps,probe_round,stream_round,
//   stream_p10,stream_p50,stream_p90
// (rounds in SM cycles: a warp's span over iters, the mean over the role's warps, and the
// stream warps' 10th, 50th and 90th percentiles; mhz from clock64 against %globaltimer
// over block 0's thread 0; ms the median of three runs; stream_gbps the bytes of the stream
// warps' sectors over ms). "once": one untimed run each, for ncu, whose ID is the
// launch's id. Then the stream kinds but sector, line4ca and the l1* kinds over 1 MB the L2
// holds (warmed by a run, not flushed), 1 to 64 warps an SM, no probes:
//   #l2,id,kind,lines,warps_per_sm,mhz,ms,round,p10,p50,p90   (ncu IDs follow the first table's)
// Then, without "once", each round's time of probe warps alone (kernel each):
//   #each,cycles,count              (8-cycle bins by their lower edge, nonzero bins only)
// and of pairs of lines one bit of the line number apart (kernel pairs), each round's
// two reads classed near (500-655 cycles) or far (680-839) at 1980 MHz:
//   #pair,bit,pairs,same_class,first_far   (pairs where both reads have a class)
//   #smid,block,smid
//   #pt,block,round,slot0,slot1   (slot 1: round's first read; next round's slot 0: its second)
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"

static const size_t MB = 1 << 20;

#include "streamlat_kernels.cu"

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	const size_t bytes = 1024 * MB, words = bytes / 4;
	const int iters = 1000, kmax = 8, block = 256;
	unsigned *probe, *a, *junk, *sink;
	long long *cyc;
	unsigned long long *meta;
	CK(cudaMalloc(&probe, 256 * MB));
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&junk, 256 * MB));
	CK(cudaMalloc(&sink, 8));
	CK(cudaMalloc(&cyc, (size_t)sms * kmax * block / 32 * 8));
	CK(cudaMalloc(&meta, 4 * 8));
	CK(cudaMemset(probe, 0, 256 * MB));
	CK(cudaMemset(a, 0, bytes));
	auto flush = [&] { CK(cudaMemset(junk, 0, 256 * MB)); };
	typedef void (*kernel)(const unsigned *, const unsigned *, size_t, int, int, long long *, unsigned long long *,
		unsigned *);
	struct kind {
		const char *name;
		kernel f;
		int lines, bytes; // the bytes of the sectors a stream request reads from the L2
	} kinds[] = {{"sector", sector, 1, 32}, {"line", line, 1, 128}, {"line2", line2, 2, 256}, {"line4", line4, 4, 512},
		{"scatter", scatter, 32, 1024}, {"l1hit", l1hit, 1, 0}, {"line4ca", line4ca, 4, 512}, {"w64", w64, 1, 128},
		{"w128", w128, 1, 128}, {"s2", s2, 2, 256}, {"s4", s4, 4, 512}, {"l1w64", l1w64, 1, 0},
		{"l1w128", l1w128, 1, 0}, {"l1line4", l1line4, 4, 0}};
	struct run {
		kind kd;
		int k, block;
	};
	std::vector<run> runs = {{kinds[0], 1, 32}};
	for (int k : {1, 2, 4, kmax})
		for (auto kd : kinds)
			runs.push_back({kd, k, block});
	// rounds reads the latest launch's per-warp spans as cycles a round, and its clock.
	auto rounds = [&](int warps, double *mhz) {
		std::vector<long long> c(warps);
		unsigned long long m[4];
		CK(cudaMemcpy(c.data(), cyc, 8 * warps, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(m, meta, sizeof m, cudaMemcpyDeviceToHost));
		*mhz = m[2] > m[0] ? (double)(m[3] - m[1]) / (double)(m[2] - m[0]) * 1000 : 0;
		std::vector<double> r(warps);
		for (int w = 0; w < warps; w++)
			r[w] = (double)c[w] / iters;
		return r;
	};
	printf("id,kind,lines,blocks_per_sm,warps,iters,mhz,ms,stream_gbps,probe_round,stream_round,stream_p10,stream_p50,"
	       "stream_p90\n");
	int id = 0;
	for (auto r : runs) {
		int grid = r.k * sms, warps = grid * r.block / 32, wpb = r.block / 32;
		float ms = timeLaunch(once, [&] {
			r.kd.f<<<grid, r.block>>>(probe, a, words, iters, sms, cyc, meta, sink);
		}, flush);
		double mhz;
		std::vector<double> all = rounds(warps, &mhz), pr, st;
		for (int w = 0; w < warps; w++)
			(w % wpb == 0 && w / wpb < sms ? pr : st).push_back(all[w]);
		double pm = 0, sm = 0;
		for (double x : pr)
			pm += x / pr.size();
		for (double x : st)
			sm += x / st.size();
		double gbps = ms > 0 ? st.size() * (double)iters * r.kd.bytes / (ms * 1e6) : 0;
		printf("%d,%s,%d,%d,%d,%d,%.0f,%.4f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", id++, r.block == 32 ? "alone" : r.kd.name,
			r.kd.lines, r.block == 32 ? 0 : r.k, warps, iters, mhz, ms, gbps, pm, sm, at(st, .1), at(st, .5),
			at(st, .9));
		fflush(stdout);
	}
	// The same loops over 1 MB that the L2 holds (warmed by one untimed run instead of a
	// flush, no probe warps): the SM-to-L2 path's time a round by lines a request and
	// warps an SM.
	const size_t l2words = 256 * 1024;
	int l2id = 0;
	for (int kd = 1; kd < (int)(sizeof kinds / sizeof kinds[0]); kd++) {
		if (kd == 6 || !strncmp(kinds[kd].name, "l1", 2)) // line4ca and the L1 kinds
			continue;
		for (int shape = 0; shape < 7; shape++) { // 1, 2, 4 warps an SM in one block, then 1 to 8 blocks of 8
			int block = shape < 3 ? 32 << shape : 256, grid = (shape < 3 ? 1 : 1 << (shape - 3)) * sms;
			int warps = grid * block / 32;
			auto launch = [&] { kinds[kd].f<<<grid, block>>>(probe, a, l2words, iters, 0, cyc, meta, sink); };
			float ms = timeLaunch(once, launch, launch);
			double mhz, mean = 0;
			std::vector<double> st = rounds(warps, &mhz);
			for (double x : st)
				mean += x / warps;
			printf("#l2,%d,%s,%d,%d,%.0f,%.4f,%.1f,%.1f,%.1f,%.1f\n", l2id++, kinds[kd].name, kinds[kd].lines,
				warps / sms, mhz, ms, mean, at(st, .1), at(st, .5), at(st, .9));
			fflush(stdout);
		}
	}
	// Each round's time of a probe warp alone (one a block, a block an SM), the first 16
	// left out, in 8-cycle bins by their lower edge.
	if (!once) {
		unsigned *dt, *ids; // each: a time a round; pairs: two a round
		CK(cudaMalloc(&dt, (size_t)sms * iters * 8));
		CK(cudaMalloc(&ids, sms * 4));
		flush();
		each<<<sms, 32>>>(probe, iters, dt, sink);
		CK(cudaDeviceSynchronize());
		std::vector<unsigned> h((size_t)sms * iters);
		CK(cudaMemcpy(h.data(), dt, h.size() * 4, cudaMemcpyDeviceToHost));
		std::vector<unsigned long long> bins(1024);
		for (size_t i = 0; i < h.size(); i++)
			if (i % iters >= 16)
				bins[std::min<size_t>(h[i] / 8, bins.size() - 1)]++;
		for (size_t b = 0; b < bins.size(); b++)
			if (bins[b])
				printf("#each,%zu,%llu\n", b * 8, bins[b]);
		// Pairs of lines one bit apart: near or far by round time (each's two peaks),
		// the share of pairs of one class, by the bit.
		flush();
		pairs<<<sms, 32>>>(probe, iters, dt, ids, sink);
		CK(cudaDeviceSynchronize());
		std::vector<unsigned> p((size_t)sms * iters * 2), smid(sms);
		CK(cudaMemcpy(p.data(), dt, p.size() * 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(smid.data(), ids, sms * 4, cudaMemcpyDeviceToHost));
		// class: 0 near, 1 far, -1 neither (below, between or above the peaks)
		auto cls = [](unsigned c) { return c >= 500 && c < 656 ? 0 : c >= 680 && c < 840 ? 1 : -1; };
		std::vector<int> same(21), both(21), far0(21);
		for (int b = 0; b < sms; b++)
			for (int it = 1; it + 1 < iters; it++) {
				// a clock read follows each load's issue, so the time of round it's
				// first read is slot 1 and of its second the next round's slot 0
				size_t i = 2 * ((size_t)b * iters + it);
				int c0 = cls(p[i + 1]), c1 = cls(p[i + 2]);
				if (c0 < 0 || c1 < 0)
					continue;
				both[it % 21]++;
				same[it % 21] += c0 == c1;
				far0[it % 21] += c0;
			}
		for (int k = 0; k < 21; k++)
			printf("#pair,%d,%d,%d,%d\n", k, both[k], same[k], far0[k]);
		for (int b = 0; b < sms; b++)
			printf("#smid,%d,%u\n", b, smid[b]);
		// every pair's two times, for the analysis in the docs: #pt,block,round,t0,t1
		for (int b = 0; b < sms; b++)
			for (int it = 0; it < iters; it++)
				printf("#pt,%d,%d,%u,%u\n", b, it, p[2 * ((size_t)b * iters + it)], p[2 * ((size_t)b * iters + it) + 1]);
	}
	return 0;
}
