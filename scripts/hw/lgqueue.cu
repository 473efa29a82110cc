// lgqueue.cu: how many global loads an SM takes before a warp waits to issue one
// (lg_throttle), and how fast it works them off: the depth of the LG queue in
// instructions or in lines, and its rate. docs/issue-11.md item 27.
//
// Each warp of a CTA issues one load of K distinct 128-byte lines (K = 1, 4 or 32: 32/K
// lanes a line, no line shared between warps), stamping the SM's clock before the load
// (t0), right after the load issues (t1: the clock does not wait for the data) and
// after its data arrives (t2). The lines are in the L2 (a launch before reads them) and
// not in the L1 (each launch reads its own lines for the first time on its SM), so every
// line is an L1 miss and an L2 hit. W warps a CTA (1 to 32), one CTA an SM (grid = SM
// count), or two (grid = twice the SM count, W = 32: 64 warps an SM), or 4 CTAs in all
// (the L1's own rate, with the L2 and the fabric nearly idle).
//
//   nvcc -O3 -arch=sm_90 -o lgqueue scripts/hw/lgqueue.cu && ./lgqueue > lgqueue.csv
//
// The same with the lines in DRAM (from = dram: the L2 flushed by a sweep of 256 MB).
//
// stdout: from,k,warps,ctas_per_sm,block,warp,smid,t0,t1,t2 for the warps on SMs 0-3
// (every warp of a launch of 4 CTAs, ctas_per_sm 0); stderr: the device.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

// lg: each warp loads K lines at buf + line0 + warp*K lines; lanes 32/K a line.
template <int K>
__global__ void lg(const unsigned *buf, size_t line0, long long *out, unsigned *sink)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t gw = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
	size_t line = line0 + gw * K + lane / (32 / K);
	const unsigned *p = buf + line * 32 + lane % (32 / K);
	long long t0 = smClock();
	unsigned v = ldOrdered(p);
	long long t1 = smClock();
	long long t2 = smClockAfter(v, sink);
	if (lane == 0) {
		long long *o = out + 4 * gw;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = t2;
	}
}

static uint4 *flush;                     // a buffer larger than the L2, for cold runs
static const size_t flushN = (size_t)1 << 24; // 256 MB of uint4

template <int K>
static void run(const unsigned *buf, size_t lines, long long *out, unsigned *sink, int sms, int warps, int per, int blocks,
	bool cold = false)
{
	size_t need = (size_t)blocks * warps * K;
	if (2 * need > lines) {
		fprintf(stderr, "buffer too small\n");
		exit(1);
	}
	// warm: the same lines into the L2. The L1s do not keep global lines from one
	// launch to the next (t2 - t1 of a one-line load is then an L2 hit's latency: check
	// it in the output).
	// cold: the lines from DRAM instead, the L2 holding the flush buffer's clean lines.
	if (cold)
		sweep<<<4 * sms, 1024>>>(flush, flushN, sink);
	else
		lg<K><<<blocks, warps * 32>>>(buf, need, out, sink);
	CK(cudaDeviceSynchronize());
	lg<K><<<blocks, warps * 32>>>(buf, need, out, sink);
	CK(cudaDeviceSynchronize());
	std::vector<long long> h((size_t)blocks * warps * 4);
	CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
	for (int b = 0; b < blocks; b++)
		for (int w = 0; w < warps; w++) {
			const long long *o = &h[4 * ((size_t)b * warps + w)];
			if (o[0] >= 4 && blocks > 16)
				continue;
			printf("%s,%d,%d,%d,%d,%d,%lld,%lld,%lld,%lld\n", cold ? "dram" : "l2", K, warps, per, b, w, o[0], o[1], o[2], o[3]);
		}
}

int main()
{
	int sms = smCount();
	size_t lines = (size_t)1 << 20; // 128 MB
	unsigned *buf, *sink;
	long long *out;
	CK(cudaMalloc(&buf, lines * 128));
	CK(cudaMemset(buf, 1, lines * 128));
	CK(cudaMalloc(&out, (size_t)2 * sms * 32 * 4 * 8));
	CK(cudaMalloc(&sink, 4));
	CK(cudaMalloc(&flush, flushN * 16));
	CK(cudaMemset(flush, 0, flushN * 16));
	printf("from,k,warps,ctas_per_sm,block,warp,smid,t0,t1,t2\n");
	for (int warps : {1, 4, 8, 16, 32}) {
		run<1>(buf, lines, out, sink, sms, warps, 1, sms);
		run<4>(buf, lines, out, sink, sms, warps, 1, sms);
		run<32>(buf, lines, out, sink, sms, warps, 1, sms);
	}
	// two CTAs an SM: 64 warps
	run<1>(buf, lines, out, sink, sms, 32, 2, 2 * sms);
	run<4>(buf, lines, out, sink, sms, 32, 2, 2 * sms);
	run<32>(buf, lines, out, sink, sms, 32, 2, 2 * sms);
	// a few SMs only (4 CTAs, one an SM): the L1's rate without the L2's load
	for (int warps : {8, 32}) {
		run<1>(buf, lines, out, sink, sms, warps, 0, 4);
		run<4>(buf, lines, out, sink, sms, warps, 0, 4);
		run<32>(buf, lines, out, sink, sms, warps, 0, 4);
	}
	// from DRAM: one and two CTAs an SM, and 4 CTAs in all
	for (int per : {1, 2}) {
		run<1>(buf, lines, out, sink, sms, 32, per, per * sms, true);
		run<32>(buf, lines, out, sink, sms, 32, per, per * sms, true);
	}
	run<32>(buf, lines, out, sink, sms, 32, 0, 4, true);
	return 0;
}
