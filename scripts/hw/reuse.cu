// reuse.cu: which lines the L2 keeps when lines read again share it with lines read
// once (issue 11: the L2's replacement policy, between LRU and SRRIP).
// scripts/hw/probe.sh reuse runs it without a profiler (times, each launch after a read
// of 192 MB that leaves the L2 clean) and under Nsight Compute (--cache-control all).
//
//   reuse [order|order2|skew|warps] [once]
//
// Every SM runs 8 CTAs of 256 threads. A warp reads one whole 128-byte line (32 lanes,
// 4 B each, ld.global.cg), so the L2's fetch size does not matter. In each pass warp w
// (a grid-stride loop over the H/128 hot lines) reads hot line perm(w, lines) (kind
// hot and warm) or line w (kind seq), then, past the first `warm` passes, r cold lines
// that no other read touches (a stream, in order, r*H bytes a pass).
// perm(i, m) = (i * 2654435761 + 12345) % m, a bijection of 0..m-1 for the m here
// (2654435761 is prime and no m is a multiple of it).
// DRAM reads are H + passes*r*H when every hot line stays after its first pass,
// (warm+passes)*H + passes*r*H when none does. Under LRU a hot line stays when (1+r)*H
// fits in what the L2 keeps; under SRRIP (hit priority) a line that was hit outlives
// lines read once, so once the warm passes have hit them (kind warm: 2 passes of hot
// lines alone first) the hot lines stay while H alone fits, whatever r is. Kind hot
// gives the streams from the first pass, before any hot line was hit; kind seq reads
// the same lines in address order (as writeback.cu's rd2_seq does).
// Footprints H = 8 to 96 MB.
// Prints id,kind,bytes,blocks,threads,ms,r,warm,passes (bytes: H; ms: the median of
// three timed runs; with "once", one untimed run each, for ncu, whose ID is the
// launch's id).
//
// With "order" (hw-facts section 21: why shuffled lines stay past 40 MB and lines in
// order do not), kernel reuse_order reads H = 16 to 64 MB of hot lines 4 passes, r = 0,
// in one of these orders (warp w of the grid-stride loop reads line L(w) each pass):
//   hot      perm(w, lines), as above          seq      w, as above
//   seqperm  w, but perm(w, lines) computed and discarded: seq at hot's instruction rate
//   blk      4 KB blocks shuffled, lines in order within: perm(w/32, blocks)*32 + w%32
//   inblk    blocks in order, the 32 lines of each shuffled within it
//   strided  w%blocks*32 + w/blocks: consecutive warps 4 KB apart, each block in order
// each on 8 CTAs an SM (suffix 1: one CTA an SM), and hot and seq also on the SMs of
// one L2 partition only (suffix p: the others' CTAs return at once; the rest take
// their place in the loop by an atomic rank). Which partition an SM is in comes from
// kernel where first: each warp times dependent reads of cold lines of one 2 MB page
// whose 4 KB blocks share a home partition (bits 12, 13, 15, 17, 19 XOR to 0, section
// 16), near in about 580 cycles and far in about 760; the SMs of the faster half are
// "partition 0" (stderr lists every SM). Prints the columns above and part (-1: every
// SM) and ranked (the CTAs that took part, by the atomic count).
// "order2" sets the rate and the warps an SM apart at 48 and 64 MB: seq with s
// dependent multiply-adds before each read (seqsS), hot and seqperm at 1 to 8 CTAs an SM
// (suffix: CTAs an SM), seqs32 at 4 and 2 (seqs32x4, seqs32x2).
// "skew" times each warp's passes (clock64 from its start to the end of each, after
// its reads have returned) and prints one row a pass of each launch:
// id,kind,bytes,blocks,threads,ms,pass,p1,p10,p50,p90,p99,corr (the quantiles of the
// warps' cycles in the pass; corr, of those cycles with each warp's in the pass before).
// "warps" prints one row a warp of hot, seqperm, seqs32, seq and hot1 at 48 MB:
// id,kind,bytes,warp,block,slot (warp in its CTA),smid and c0..c3, the cycles from
// its start to the end of each pass.
#include <cstdint>
#include <cmath>
#include <cstring>
#include <functional>
#include <cuda_runtime.h>
#include "probe.h"

static const size_t MB = 1 << 20;

__device__ __forceinline__ size_t perm(size_t i, size_t m) { return (i * 2654435761ull + 12345) % m; }

__global__ void reuse(const unsigned *h, const unsigned *c, size_t lines, int r, int warm, int passes, bool seq, unsigned *sink)
{
	size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32, warps = (size_t)gridDim.x * blockDim.x / 32;
	unsigned lane = threadIdx.x % 32, s = 0;
	for (int pass = 0; pass < warm + passes; pass++)
		for (size_t w = warp; w < lines; w += warps) {
			s += __ldcg(&h[(seq ? w : perm(w, lines)) * 32 + lane]);
			for (int j = 0; pass >= warm && j < r; j++)
				s += __ldcg(&c[(((size_t)(pass - warm) * r + j) * lines + w) * 32 + lane]);
		}
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

enum { HOT, SEQ, SEQPERM, BLK, INBLK, STRIDED };

// lineOf is hot line number of warp w's read in order o; zero is 0 at run time (so
// seqperm's perm cannot be dropped by the compiler).
__device__ __forceinline__ size_t lineOf(int o, size_t w, size_t lines, size_t zero)
{
	size_t blocks = lines / 32;
	switch (o) {
	case HOT:
		return perm(w, lines);
	case SEQPERM:
		return w + (perm(w, lines) & zero);
	case BLK:
		return perm(w / 32, blocks) * 32 + w % 32;
	case INBLK:
		return (w & ~(size_t)31) | ((w * 13 + 7) & 31);
	case STRIDED:
		return w % blocks * 32 + w / blocks;
	}
	return w;
}

// reuse_order reads lines hot lines in order o, passes times. With want >= 0 only the
// CTAs on SMs with part[smid] == want read, ranked by rank (active of them at most).
// spin dependent multiply-adds before each read delay it (their result, times zero, is
// added to the line).
// With stamp, lane 0 of each warp writes the cycles from its start to the end of each
// pass to stamp[warp * (passes + 1) + pass], and its SM and CTA (smid + blockIdx.x << 32)
// to stamp[warp * (passes + 1) + passes].
__global__ void reuse_order(const unsigned *h, size_t lines, int o, int spin, int passes, const signed char *part, int want,
	unsigned *rank, unsigned active, size_t zero, long long *stamp, unsigned *sink)
{
	__shared__ unsigned me;
	if (want >= 0) {
		unsigned id;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
		if (part[id] != want)
			return;
		if (threadIdx.x == 0)
			me = atomicAdd(rank, 1);
		__syncthreads();
		if (me >= active)
			return;
	} else {
		me = blockIdx.x, active = gridDim.x;
	}
	size_t warp = (me * (size_t)blockDim.x + threadIdx.x) / 32, warps = (size_t)active * blockDim.x / 32;
	unsigned lane = threadIdx.x % 32, s = 0;
	long long start = clock64();
	for (int pass = 0; pass < passes; pass++) {
		for (size_t w = warp; w < lines; w += warps) {
			size_t x = w;
#pragma unroll 1
			for (int k = 0; k < spin; k++)
				x = x * 2654435761u + 12345;
			s += __ldcg(&h[(lineOf(o, w, lines, zero) + (x & zero)) * 32 + lane]);
		}
		if (stamp && lane == 0)
			stamp[warp * (passes + 1) + pass] = clock64() - start + (s & zero);
	}
	if (stamp && lane == 0) {
		unsigned id;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
		stamp[warp * (passes + 1) + passes] = id + ((long long)blockIdx.x << 32);
	}
	if (s == 0x9e3779b9u)
		sink[0] = s;
}

// where: one warp a CTA; lane 0 reads 17 cold lines of the first 2 MB page of buf, one
// after another (each address waits on the last value), from 4 KB blocks whose home
// bits XOR to 0, and writes its SM and the cycles of the last 16 to out[2*block].
__global__ void where(const unsigned *buf, unsigned *out)
{
	if (threadIdx.x != 0)
		return;
	unsigned id, v = 0;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	long long t0 = 0;
	for (unsigned i = 0; i < 17; i++) {
		if (i == 1)
			t0 = clock64();
		unsigned k = blockIdx.x * 17 + i, j = k / 32, b = j << 1; // j-th block of parity 0
		b |= __popc(b & 0xAAu) & 1;
		v = __ldcg(&buf[(size_t)b * 1024 + (k % 32) * 32 + v]);
	}
	out[2 * blockIdx.x] = id;
	out[2 * blockIdx.x + 1] = (unsigned)(clock64() - t0) + v;
}

// partitions runs where on 3 CTAs an SM after a flush and returns part[smid]: 0 for
// the SMs whose reads were faster than the midpoint of the slowest and fastest SM's
// mean, 1 for the others; it lists every SM on stderr.
static std::vector<signed char> partitions(int sms, const unsigned *buf, std::function<void()> flush)
{
	int blocks = 3 * sms; // 17 lines each: 6732 of the page's 8192 on 132 SMs
	unsigned *out;
	CK(cudaMalloc(&out, 8 * blocks));
	flush();
	where<<<blocks, 32>>>(buf, out);
	CK(cudaDeviceSynchronize());
	std::vector<unsigned> o(2 * blocks);
	CK(cudaMemcpy(o.data(), out, 8 * blocks, cudaMemcpyDeviceToHost));
	CK(cudaFree(out));
	std::vector<double> sum(sms), n(sms);
	for (int b = 0; b < blocks; b++)
		if (o[2 * b] < (unsigned)sms)
			sum[o[2 * b]] += o[2 * b + 1] / 16.0, n[o[2 * b]]++;
	double lo = 1e30, hi = 0;
	for (int i = 0; i < sms; i++)
		if (n[i] > 0)
			lo = std::min(lo, sum[i] / n[i]), hi = std::max(hi, sum[i] / n[i]);
	std::vector<signed char> part(sms, -1);
	for (int i = 0; i < sms; i++) {
		if (n[i] > 0)
			part[i] = sum[i] / n[i] < (lo + hi) / 2 ? 0 : 1;
		fprintf(stderr, "#sm,%d,%.0f,%.0f,%d\n", i, n[i], n[i] > 0 ? sum[i] / n[i] : 0, part[i]);
	}
	return part;
}

// skewRows prints, for each pass of a launch, the quantiles of the warps' cycles in it
// and the correlation of each warp's cycles in it with its cycles in the pass before;
// with perWarp, one row a warp instead: id,kind,bytes,warp,block,slot,smid and the
// cycles from its start to the end of each pass.
static void skewRows(int id, const char *kind, size_t bytes, dim3 grid, dim3 block, float ms, const long long *dstamp, int warps,
	int passes, bool perWarp)
{
	std::vector<long long> st((size_t)warps * (passes + 1));
	CK(cudaMemcpy(st.data(), dstamp, 8 * st.size(), cudaMemcpyDeviceToHost));
	const long long *at0 = st.data();
	auto c = [&](int w, int p) { return p < 0 ? 0 : at0[(size_t)w * (passes + 1) + p]; };
	if (perWarp) {
		for (int w = 0; w < warps; w++) {
			long long where = c(w, passes);
			printf("%d,%s,%zu,%d,%d,%d,%u", id, kind, bytes, w, (int)(where >> 32), w % (block.x / 32), (unsigned)where);
			for (int p = 0; p < passes; p++)
				printf(",%lld", c(w, p));
			printf("\n");
		}
		return;
	}
	for (int p = 0; p < passes; p++) {
		std::vector<double> d(warps), e(warps);
		for (int w = 0; w < warps; w++) {
			d[w] = c(w, p) - c(w, p - 1);
			e[w] = p > 0 ? c(w, p - 1) - c(w, p - 2) : 0;
		}
		double md = 0, me = 0, sde = 0, sdd = 0, cov = 0;
		for (int w = 0; w < warps; w++)
			md += d[w] / warps, me += e[w] / warps;
		for (int w = 0; w < warps; w++)
			cov += (d[w] - md) * (e[w] - me), sdd += (d[w] - md) * (d[w] - md), sde += (e[w] - me) * (e[w] - me);
		double corr = p > 0 && sdd > 0 && sde > 0 ? cov / sqrt(sdd * sde) : 0;
		printf("%d,%s,%zu,%d,%d,%.4f,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f\n", id, kind, bytes, grid.x, block.x, ms, p, at(d, 0.01),
		       at(d, 0.1), at(d, 0.5), at(d, 0.9), at(d, 0.99), corr);
	}
}

static int order(bool once, int set, int sms, unsigned *h, unsigned *sink, std::function<void()> flush)
{
	std::vector<signed char> part = partitions(sms, h, flush);
	int n0 = (int)std::count(part.begin(), part.end(), 0);
	fprintf(stderr, "partition 0: %d SMs, partition 1: %d\n", n0, (int)std::count(part.begin(), part.end(), 1));
	signed char *dpart;
	unsigned *rank;
	CK(cudaMalloc(&dpart, sms));
	CK(cudaMalloc(&rank, 4));
	CK(cudaMemcpy(dpart, part.data(), sms, cudaMemcpyHostToDevice));
	struct kind {
		const char *name;
		int o, perSM, want, spin;
		std::vector<size_t> sizes;
	};
	std::vector<kind> kinds = {{"hot", HOT, 8, -1, 0, {40, 48, 64}}, {"seq", SEQ, 8, -1, 0, {40, 48, 64}},
		{"seqperm", SEQPERM, 8, -1, 0, {40, 48, 64}}, {"blk", BLK, 8, -1, 0, {40, 48, 64}},
		{"inblk", INBLK, 8, -1, 0, {40, 48, 64}}, {"strided", STRIDED, 8, -1, 0, {40, 48, 64}},
		{"hot1", HOT, 1, -1, 0, {40, 48, 64}}, {"seq1", SEQ, 1, -1, 0, {40, 48, 64}},
		{"hotp", HOT, 8, 0, 0, {16, 24, 32, 40, 48, 64}}, {"seqp", SEQ, 8, 0, 0, {16, 24, 32, 40, 48, 64}}};
	if (set == 2) // order2: the rate and the warps an SM apart (seq slowed by spin; hot at 1-8 CTAs an SM)
		kinds = {{"seq", SEQ, 8, -1, 0, {48, 64}}, {"seqs8", SEQ, 8, -1, 8, {48, 64}},
			{"seqs16", SEQ, 8, -1, 16, {48, 64}}, {"seqs32", SEQ, 8, -1, 32, {48, 64}},
			{"seqs64", SEQ, 8, -1, 64, {48, 64}}, {"seqs128", SEQ, 8, -1, 128, {48, 64}},
			{"hot1", HOT, 1, -1, 0, {48, 64}}, {"hot2", HOT, 2, -1, 0, {48, 64}},
			{"hot4", HOT, 4, -1, 0, {48, 64}}, {"hot", HOT, 8, -1, 0, {48, 64}},
			{"seqperm2", SEQPERM, 2, -1, 0, {48, 64}}, {"seqperm4", SEQPERM, 4, -1, 0, {48, 64}},
			{"seqs32x4", SEQ, 4, -1, 32, {48, 64}}, {"seqs32x2", SEQ, 2, -1, 32, {48, 64}}};
	if (set == 3) // skew: how evenly the warps go, at 48 MB
		kinds = {{"hot", HOT, 8, -1, 0, {48}}, {"hot4", HOT, 4, -1, 0, {48}}, {"hot1", HOT, 1, -1, 0, {48}},
			{"seq", SEQ, 8, -1, 0, {48}}, {"seqperm", SEQPERM, 8, -1, 0, {48}}, {"seqs32", SEQ, 8, -1, 32, {48}},
			{"seqs32x2", SEQ, 2, -1, 32, {48}}, {"hot", HOT, 8, -1, 0, {16}}, {"seq", SEQ, 8, -1, 0, {16}}};
	if (set == 4) // warps: each warp's passes
		kinds = {{"hot", HOT, 8, -1, 0, {48}}, {"seqperm", SEQPERM, 8, -1, 0, {48}}, {"seqs32", SEQ, 8, -1, 32, {48}},
			{"seq", SEQ, 8, -1, 0, {48}}, {"hot1", HOT, 1, -1, 0, {48}}};
	long long *stamp = nullptr;
	const int passes = 4;
	if (set >= 3)
		CK(cudaMalloc(&stamp, 8 * (size_t)sms * 8 * 8 * (passes + 1)));
	if (set == 3)
		printf("id,kind,bytes,blocks,threads,ms,pass,p1,p10,p50,p90,p99,corr\n");
	else if (set == 4)
		printf("id,kind,bytes,warp,block,slot,smid,c0,c1,c2,c3\n");
	else
		printf("id,kind,bytes,blocks,threads,ms,r,warm,passes,part,ranked\n");
	int id = 0;
	for (const kind &k : kinds)
		for (size_t f : k.sizes) {
			size_t lines = f * MB / 128;
			dim3 grid(sms * (k.want >= 0 ? 8 : k.perSM)), block(256);
			unsigned active = k.want >= 0 ? 8 * n0 : grid.x, ranked = 0;
			float ms = timeLaunch(once, [&] {
				CK(cudaMemsetAsync(rank, 0, 4));
				reuse_order<<<grid, block>>>(h, lines, k.o, k.spin, passes, dpart, k.want, rank, active, 0, stamp, sink);
			}, flush);
			CK(cudaMemcpy(&ranked, rank, 4, cudaMemcpyDeviceToHost));
			if (stamp) {
				skewRows(id++, k.name, f * MB, grid, block, ms, stamp, grid.x * block.x / 32, passes, set == 4);
				continue;
			}
			printf("%d,%s,%zu,%d,%d,%.4f,0,0,4,%d,%u\n", id++, k.name, f * MB, grid.x, block.x, ms, k.want,
			       k.want >= 0 ? ranked : grid.x);
			fflush(stdout);
		}
	return 0;
}

int main(int argc, char **argv)
{
	bool once = false;
	int set = 0;
	const char *sets[] = {"", "order", "order2", "skew", "warps"};
	for (int i = 1; i < argc; i++) {
		once |= !strcmp(argv[i], "once");
		for (int j = 1; j < 5; j++)
			if (!strcmp(argv[i], sets[j]))
				set = j;
	}
	int sms = smCount();
	const size_t sizes[] = {8, 16, 24, 32, 40, 48, 64, 96};
	struct kind {
		const char *name;
		int r, warm, passes;
	} kinds[] = {{"hot", 0, 0, 4}, {"hot", 1, 0, 4}, {"hot", 3, 0, 4}, {"warm", 1, 2, 4}, {"warm", 3, 2, 4},
		     {"seq", 0, 0, 4}, {"seq", 0, 0, 2}, {"hot", 0, 0, 2}};
	const size_t maxHot = 96 * MB, maxCold = 4 * 3 * maxHot, flushBytes = 192 * MB;
	unsigned *h, *c, *sink;
	uint4 *scratch;
	CK(cudaMalloc(&h, maxHot));
	CK(cudaMalloc(&c, maxCold));
	CK(cudaMalloc(&sink, 64));
	CK(cudaMalloc(&scratch, flushBytes));
	CK(cudaMemset(h, 0, maxHot));
	CK(cudaMemset(c, 0, maxCold));
	CK(cudaMemset(scratch, 0, flushBytes));
	dim3 grid(sms * 8), block(256);
	auto flush = [&] { sweep<<<grid, block>>>(scratch, flushBytes / 16, sink); };
	if (set > 0)
		return order(once, set, sms, h, sink, flush);

	printf("id,kind,bytes,blocks,threads,ms,r,warm,passes\n");
	int id = 0;
	for (kind k : kinds)
		for (size_t f : sizes) {
			size_t lines = f * MB / 128;
			bool seq = !strcmp(k.name, "seq");
			float ms = timeLaunch(once, [&] { reuse<<<grid, block>>>(h, c, lines, k.r, k.warm, k.passes, seq, sink); }, flush);
			printf("%d,%s,%zu,%d,%d,%.4f,%d,%d,%d\n", id++, k.name, f * MB, grid.x, block.x, ms, k.r, k.warm, k.passes);
			fflush(stdout);
		}
	return 0;
}
