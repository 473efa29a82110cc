// loopcost.cu: what a loop's trip costs on a real GPU besides its body's own latency
// (issue 11: hist_warp's zeroing loop takes 33 cycles a trip on an H100 where gtrace's
// timing engine gives 21, scripts/hw/histphase.cu). scripts/hw/loopcost.sh runs it.
//
// Three loops, each timed by every warp's lane 0 with clock64 around it:
//   count  for (i = tid; i < n; i += blockDim.x) with nothing else: IADD, ISETP, BRA
//   sts    hist_warp's zeroing loop (kernels/cu/histogram.cu), reps times over n words
//          of shared memory (up to its 32768 at 4096 bins): IMAD, IADD, STS, ISETP, BRA
//   fma    count's loop with a chain of 8 dependent FFMAs in its body
// on one block of W warps (one SM), W = 1, 4, 8, 16, 32, at two trip counts, so the
// difference divided by the difference in trips is a trip's cycles without the
// loop's entry and exit.
// Prints loop,warps,trips,cycles_min,cycles_max: the least and greatest loop cycles
// over the block's warps.
#include "probe.h"

#include "loopcost_kernels.cu"

int main()
{
	smCount();
	int *out;
	long long *cyc;
	CK(cudaMalloc(&out, 4 * 1024));
	CK(cudaMalloc(&cyc, 8 * 32));
	const int words = 32768; // hist_warp@bins=4096's 8 warps x 4096 bins
	CK(cudaFuncSetAttribute(loop_sts, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * words));
	printf("loop,warps,trips,cycles_min,cycles_max\n");
	for (int loop = 0; loop < 3; loop++)
		for (int w : {1, 4, 8, 16, 32})
			for (int trips : {256, 512}) {
				int threads = 32 * w;
				for (int rep = 0; rep < 2; rep++) { // the first warms the instruction cache
					if (loop == 0)
						loop_count<<<1, threads>>>(trips * threads, out, cyc);
					else if (loop == 1) // reps x (n / threads) trips
						loop_sts<<<1, threads, 4 * words>>>(std::min(words, trips * threads),
										    trips * threads / std::min(words, trips * threads), out, cyc);
					else
						loop_fma<<<1, threads>>>(trips * threads, 0.999f, (float *)out, cyc);
					CK(cudaDeviceSynchronize());
				}
				long long lo, hi;
				warpCycles(cyc, w, &lo, &hi);
				printf("%s,%d,%d,%lld,%lld\n", loop == 0 ? "count" : loop == 1 ? "sts" : "fma", w, trips, lo, hi);
			}
	return 0;
}
