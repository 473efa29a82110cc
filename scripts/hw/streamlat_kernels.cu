// streamlat_kernels.cu: the kernel scripts/hw/streamlat.cu launches (see there), apart so
// that gtrace captures it for the engine's side of the comparison
// (replay/testdata/streamlat.ptx, TestTimingStreamlatProbe):
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/streamlat.ptx \
//     scripts/hw/streamlat_kernels.cu

#include "launch_clock.cuh"

// One kernel a kind, so that no switch runs in the loop (ptxas turns one into a jump
// table: an indexed constant load and an indirect branch each round). Every warp runs
// `iters` rounds of one load whose value (the buffers hold zeros) is added to the next
// round's address, so one request is in flight a warp; MODE is the kind (streamlat.cu
// says what each loads). Warp 0 of the first `probes` blocks is a probe: lane 0 loads
// one word of a new line of `probe` (256 MB) each round. Lane 0 of every warp writes its
// rounds' clock64 span to cyc[warp]; block 0's thread 0 writes %globaltimer and clock64
// at its start and end to meta[0..3].
template <int MODE>
__device__ __forceinline__ void timed(const unsigned *probe, const unsigned *a, size_t words, int iters, int probes,
	long long *cyc, unsigned long long *meta, unsigned *sink)
{
	launchStamp stamp = launchStart();
	int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
	bool isProbe = wib == 0 && (int)blockIdx.x < probes;
	size_t warps = (size_t)gridDim.x * (blockDim.x >> 5), w = (size_t)blockIdx.x * (blockDim.x >> 5) + wib;
	unsigned v = 0, acc = 0;
	long long start = clock64();
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		size_t chunk = (size_t)it * warps + w;
		if (isProbe) {
			// a new line each round: (block * iters + it) * 4099 lines, mod 2 M lines
			size_t line = (((size_t)blockIdx.x * iters + it) * 4099) & ((1u << 21) - 1); // of 256 MB
			if (lane == 0)
				v = __ldcg(&probe[line * 32 + v]);
		} else if (MODE == 0) {
			if (lane == 0)
				v = __ldcg(&a[(chunk * 32 + v) & (words - 1)]);
		} else if (MODE == 1) {
			v = __ldcg(&a[(chunk * 32 + lane + v) & (words - 1)]);
		} else if (MODE == 2) {
			uint2 x = __ldcg((const uint2 *)&a[(chunk * 64 + lane * 2 + v) & (words - 1)]);
			v = x.x ^ x.y;
		} else if (MODE == 3) {
			uint4 x = __ldcg((const uint4 *)&a[(chunk * 128 + lane * 4 + v) & (words - 1)]);
			v = x.x ^ x.y ^ x.z ^ x.w;
		} else if (MODE == 4) {
			v = __ldcg(&a[(chunk * 32 + lane * (words / 32) + v) & (words - 1)]);
		} else if (MODE == 5) {
			v = a[(w * 32 + lane + v) & (words - 1)];
		} else if (MODE == 6) {
			uint4 x = *(const uint4 *)&a[(chunk * 128 + lane * 4 + v) & (words - 1)];
			v = x.x ^ x.y ^ x.z ^ x.w;
		} else if (MODE == 7) { // one line, 8 B a lane (lanes 16 apart share)
			uint2 x = __ldcg((const uint2 *)&a[(chunk * 32 + (lane & 15) * 2 + v) & (words - 1)]);
			v = x.x ^ x.y;
		} else if (MODE == 8) { // one line, 16 B a lane (lanes 8 apart share)
			uint4 x = __ldcg((const uint4 *)&a[(chunk * 32 + (lane & 7) * 4 + v) & (words - 1)]);
			v = x.x ^ x.y ^ x.z ^ x.w;
		} else if (MODE == 9) { // two lines, 4 B a lane 8 B apart
			v = __ldcg(&a[(chunk * 64 + lane * 2 + v) & (words - 1)]);
		} else if (MODE == 10) { // four lines, 4 B a lane 16 B apart
			v = __ldcg(&a[(chunk * 128 + lane * 4 + v) & (words - 1)]);
		} else if (MODE == 11) { // l1hit's line, 8 B a lane (lanes 16 apart share)
			uint2 x = *(const uint2 *)&a[(w * 32 + (lane & 15) * 2 + v) & (words - 1)];
			v = x.x ^ x.y;
		} else if (MODE == 12) { // l1hit's line, 16 B a lane (lanes 8 apart share)
			uint4 x = *(const uint4 *)&a[(w * 32 + (lane & 7) * 4 + v) & (words - 1)];
			v = x.x ^ x.y ^ x.z ^ x.w;
		} else { // four lines, the same every round, 16 B a lane, through L1
			uint4 x = *(const uint4 *)&a[(w * 128 + lane * 4 + v) & (words - 1)];
			v = x.x ^ x.y ^ x.z ^ x.w;
		}
		acc += v;
	}
	long long end = clock64() + (acc >> 31);
	if (lane == 0)
		cyc[w] = end - start;
	if (acc == 0x9e3779b9u)
		sink[0] = acc;
	launchEnd(stamp, meta);
}

#define STREAMLAT_KERNEL(NAME, MODE)                                                                      \
	extern "C" __global__ void NAME(const unsigned *probe, const unsigned *a, size_t words, int iters,  \
		int probes, long long *cyc, unsigned long long *meta, unsigned *sink)                       \
	{                                                                                                  \
		timed<MODE>(probe, a, words, iters, probes, cyc, meta, sink);                              \
	}
STREAMLAT_KERNEL(sector, 0)
STREAMLAT_KERNEL(line, 1)
STREAMLAT_KERNEL(line2, 2)
STREAMLAT_KERNEL(line4, 3)
STREAMLAT_KERNEL(scatter, 4)
STREAMLAT_KERNEL(l1hit, 5)
STREAMLAT_KERNEL(line4ca, 6)
STREAMLAT_KERNEL(w64, 7)
STREAMLAT_KERNEL(w128, 8)
STREAMLAT_KERNEL(s2, 9)
STREAMLAT_KERNEL(s4, 10)
STREAMLAT_KERNEL(l1w64, 11)
STREAMLAT_KERNEL(l1w128, 12)
STREAMLAT_KERNEL(l1line4, 13)

// each: one warp a block, lane 0 alone, the probe's loop with each round's time kept:
// dt[block * iters + it] is the clock64 difference between two rounds' reads (at the
// same place in the loop, so one load's latency plus the loop's instructions).
extern "C" __global__ void each(const unsigned *probe, int iters, unsigned *dt, unsigned *sink)
{
	if (threadIdx.x != 0)
		return;
	unsigned v = 0;
	long long last = clock64();
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		size_t line = (((size_t)blockIdx.x * iters + it) * 4099) & ((1u << 21) - 1); // of 256 MB
		v = __ldcg(&probe[line * 32 + v]);
		long long now = clock64() + (v >> 31);
		dt[(size_t)blockIdx.x * iters + it] = (unsigned)(now - last);
		last = now;
	}
	if (v == 0x9e3779b9u)
		sink[0] = v;
}

// pairs: which address bits decide whether a line is homed in the reader's L2 partition.
// One warp a block, lane 0: round r reads a new line L of `probe` (256 MB), then the line
// L ^ (1 << (r % 21)) (one bit of the line number flipped), both from DRAM, each timed
// as in each. Writes dt[2 * (block * iters + r) + 0 or 1] and smid[block].
extern "C" __global__ void pairs(const unsigned *probe, int iters, unsigned *dt, unsigned *smid, unsigned *sink)
{
	if (threadIdx.x != 0)
		return;
	unsigned v = 0, id = 0;
#ifndef GTRACE_CUDA_RUNTIME_H
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
#endif
	smid[blockIdx.x] = id;
	long long last = clock64();
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		// L: a line whose neighbours by any one bit are read by no other round
		size_t line = (((size_t)blockIdx.x * iters + it) * 40961) & ((1u << 21) - 1);
		v = __ldcg(&probe[line * 32 + v]);
		long long now = clock64() + (v >> 31);
		dt[2 * ((size_t)blockIdx.x * iters + it)] = (unsigned)(now - last);
		last = now;
		v = __ldcg(&probe[(line ^ (1u << (it % 21))) * 32 + v]);
		now = clock64() + (v >> 31);
		dt[2 * ((size_t)blockIdx.x * iters + it) + 1] = (unsigned)(now - last);
		last = now;
	}
	if (v == 0x9e3779b9u)
		sink[0] = v;
}
