// copylat_kernels.cu: the kernels scripts/hw/copylat.cu launches (see there), apart so
// that gtrace captures them for the engine's side of the comparison:
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o copylat.ptx scripts/hw/copylat_kernels.cu
//
// Every warp runs `iters` rounds; round it reads the line (it * warps + w) of `a` (4 B a
// lane, L2 only: ld.global.cg), grid-stride, and adds the value (the buffers hold zeros)
// to the next round's address, so one load is in flight a warp. MODE says what else a
// round does:
//   0 read     nothing (streamlat's `line`)
//   1 copy     stores the value to line (it * warps + w) of `out`, owords words long
//              (1 GB: every store a new line; 1 MB: the same lines every round, which the
//              L2 keeps)
//   2 copync   as copy, the load through L1 (ld.global.nc, as a __restrict copy loads)
//   3 store    no load: stores (it + lane) to the line copy would, one store a round
//   4-7 chase0, chase1, chase2, chase4: a random line of `a` instead (every lane the
//              same word: one sector), then 0, 1, 2 or 4 stores of whole new lines of
//              `out`: DRAM writes at a rate the warps set, beside light random reads
// Lane 0 of every warp writes its rounds' clock64 span to cyc[w]; block 0's thread 0
// writes %globaltimer and clock64 at its start and end to meta[0..3]. Lane 0 of each
// block's warp 0 (a probe warp) also writes each round's time to dt[block * iters + it]:
// the clock64 difference between two rounds' loads having their data (one load's wait
// plus the loop).

#include "launch_clock.cuh"

template <int MODE>
__device__ __forceinline__ void rounds(const unsigned *a, size_t words, unsigned *out, size_t owords, int iters,
	long long *cyc, unsigned long long *meta, unsigned *dt, unsigned *sink)
{
	launchStamp stamp = launchStart();
	int lane = threadIdx.x & 31;
	bool probe = threadIdx.x == 0;
	size_t warps = (size_t)gridDim.x * (blockDim.x >> 5), w = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
	unsigned v = 0, acc = 0;
	long long start = clock64(), last = start;
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		size_t chunk = (size_t)it * warps + w;
		if (MODE == 0) {
			v = __ldcg(&a[(chunk * 32 + lane + v) & (words - 1)]);
		} else if (MODE == 1) {
			v = __ldcg(&a[(chunk * 32 + lane + v) & (words - 1)]);
			out[(chunk * 32 + lane) & (owords - 1)] = v;
		} else if (MODE == 2) {
			v = __ldg(&a[(chunk * 32 + lane + v) & (words - 1)]);
			out[(chunk * 32 + lane) & (owords - 1)] = v;
		} else if (MODE == 3) {
			out[(chunk * 32 + lane) & (owords - 1)] = it + lane;
		} else {
			const int nst = MODE == 4 ? 0 : MODE == 5 ? 1 : MODE == 6 ? 2 : 4;
			size_t line = ((w * iters + it) * 4099) & (words / 32 - 1);
			v = __ldcg(&a[line * 32 + v]);
#pragma unroll
			for (int s = 0; s < nst; s++)
				out[((chunk * nst + s) * 32 + lane) & (owords - 1)] = v + s;
		}
		acc += v;
		if (probe) {
			long long now = clock64() + (v >> 31);
			dt[(size_t)blockIdx.x * iters + it] = (unsigned)(now - last);
			last = now;
		}
	}
	long long end = clock64() + (acc >> 31);
	if (lane == 0)
		cyc[w] = end - start;
	if (acc == 0x9e3779b9u)
		sink[0] = acc;
	launchEnd(stamp, meta);
}

#define COPYLAT_KERNEL(NAME, MODE)                                                                          \
	extern "C" __global__ void NAME(const unsigned *a, size_t words, unsigned *out, size_t owords, int iters, \
		long long *cyc, unsigned long long *meta, unsigned *dt, unsigned *sink)                         \
	{                                                                                                      \
		rounds<MODE>(a, words, out, owords, iters, cyc, meta, dt, sink);                               \
	}
COPYLAT_KERNEL(read, 0)
COPYLAT_KERNEL(copy, 1)
COPYLAT_KERNEL(copync, 2)
COPYLAT_KERNEL(store, 3)
COPYLAT_KERNEL(chase0, 4)
COPYLAT_KERNEL(chase1, 5)
COPYLAT_KERNEL(chase2, 6)
COPYLAT_KERNEL(chase4, 7)
