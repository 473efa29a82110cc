// inflight.cu: what a load's lookup costs the H200's L1 when the line's sectors are on
// their way, for lines of one sector and of four (docs/issue-11.md item 37). hw-facts
// section 22 measured a missing line at 1.25 cycles for one sector and 2.5-3.1 for
// four, and section 23 a lookup whose one sector is in flight at a miss's 1.25. The
// engine's keys (sm.lsu_miss_line_cycles 0.75 + sm.lsu_miss_sector_cycles 0.5 a sector)
// charge every lookup that does not hit at the miss's cost, so a lookup of four
// sectors in flight costs 2.75 cycles: with them particles_aos (six field loads of
// one 24 B struct a lane, the first misses, five find the sectors in flight) runs 58%
// too slow. Is a four-sector lookup in flight a miss's 2.75, or a one-sector 1.25?
//
// One CTA of 32 warps on each of 4 SMs (the L2 idle, as section 22), each warp one load
// of 32 sectors, t0, the LDG, t1, tend once its data is back (sm_stamp.cuh; SASS in the
// log). Kinds:
//   full:   lane l reads the first word of sector l % 4 of line l / 4: 8 lines of 4
//           sectors.
//   single: lane l reads a word of line l: 32 lines of one sector.
// S warps read the same lines (warps S*i .. S*i+S-1; the first lookup misses, the
// others find the sectors on their way), S = 1, 2, 4, 8, 32; for single the S warps
// read different words of the same sector. Lines in the L2 (a launch before reads
// them; ncu's flush not used) or, cold, not touched since a 256 MB sweep.
// Each launch runs twice, the second is printed (for cold: after a sweep).
//
//   nvcc -O3 -arch=sm_90 -o inflight scripts/hw/inflight.cu && ./inflight > inflight.csv
//
// stdout: kind,s,from,block,warp,smid,t0,t1,tend.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define ROW 4 // smid, t0, t1, tend
enum { FULL, SINGLE };
static const char *kindName[] = {"full", "single"};

// load: warp w of CTA b loads from line group g = b * 32 + w / S (32 lines a group).
template <int KIND>
__global__ void load(const unsigned *buf, size_t line0, int s, long long *out, unsigned *sink)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t g = line0 + ((size_t)blockIdx.x * 32 + warp / s) * 32; // the group's first line
	const unsigned *p;
	if (KIND == FULL)
		p = buf + (g + lane / 4) * 32 + (lane % 4) * 8;
	else
		p = buf + (g + lane) * 32 + warp % s; // word warp % s of sector 0
	long long t0 = smClock();
	unsigned v = ldOrdered(p);
	long long t1 = smClock();
	long long tend = smClockAfter(v, sink);
	if (lane == 0) {
		long long *o = out + ROW * ((size_t)blockIdx.x * 32 + warp);
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = tend;
	}
}

template <int KIND>
static void run(unsigned *buf, long long *out, unsigned *sink, bool cold)
{
	static size_t next = 0; // line groups used so far by cold runs
	static uint4 *big;
	const int ctas = 4;
	for (int s : {1, 2, 4, 8, 32}) {
		size_t line0 = 0;
		if (cold) {
			next += (size_t)ctas * 32 * 32;
			line0 = next;
			size_t n = (size_t)256 << 20;
			if (!big)
				CK(cudaMalloc(&big, n));
			sweep<<<1024, 256>>>(big, n / 16, sink);
		} else
			load<KIND><<<ctas, 1024>>>(buf, line0, s, out, sink);
		CK(cudaDeviceSynchronize());
		load<KIND><<<ctas, 1024>>>(buf, line0, s, out, sink);
		CK(cudaDeviceSynchronize());
		std::vector<long long> h((size_t)ctas * 32 * ROW);
		CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
		for (size_t r = 0; r < (size_t)ctas * 32; r++) {
			const long long *o = &h[ROW * r];
			printf("%s,%d,%s,%zu,%zu,%lld,%lld,%lld,%lld\n", kindName[KIND], s, cold ? "dram" : "l2", r / 32, r % 32, o[0], o[1], o[2], o[3]);
		}
	}
}

int main()
{
	smCount();
	unsigned *buf, *sink;
	long long *out;
	size_t groups = 64 * 4 * 32; // line groups the cold runs step through, and more
	CK(cudaMalloc(&buf, groups * 32 * 128));
	CK(cudaMemset(buf, 1, groups * 32 * 128));
	CK(cudaMalloc(&out, (size_t)4 * 32 * ROW * 8));
	CK(cudaMalloc(&sink, 8));
	printf("kind,s,from,block,warp,smid,t0,t1,tend\n");
	for (bool cold : {false, true}) {
		run<FULL>(buf, out, sink, cold);
		run<SINGLE>(buf, out, sink, cold);
	}
	return 0;
}
