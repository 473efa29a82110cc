// reuse.cu: which lines the L2 keeps when lines read again share it with lines read
// once (issue 11: the L2's replacement policy, between LRU and SRRIP).
// scripts/hw/probe.sh reuse runs it without a profiler (times, each launch after a read
// of 192 MB that leaves the L2 clean) and under Nsight Compute (--cache-control all).
//
//   reuse [once]
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
#include <cstdint>
#include <cstring>
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

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
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
