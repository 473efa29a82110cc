// sumloop_kernels.cu: the loop scripts/hw/sumloop.cu times (see there), apart so that
// clang-14 and nvcc compile it to the PTX both the GPU (JIT) and the engine run
// (replay/testdata/sumloop.ptx and sumloop.nvcc.ptx):
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/sumloop.ptx \
//     scripts/hw/sumloop_kernels.cu
//   nvcc -ccbin clang-14 -arch=compute_80 -ptx -O3 -o replay/testdata/sumloop.nvcc.ptx \
//     scripts/hw/sumloop_kernels.cu
//
// Each kernel fills warps x bins words of shared memory with ones, then times with
// clock64 (every warp's lane 0) reps passes of hist_warp's summing loop
// (kernels/cu/histogram.cu): for each of its bins (a block-stride loop) the sum of
// the warps copies, added into hist[b] with an atomic (sum_red, hist_warp's own
// phase) or kept in a register (the others). sum_plain has warps and bins from its
// arguments as hist_warp does; sum_w8 takes 8 copies as a constant, so the copies'
// loop is straight code; sum_const takes 4096 bins too, so the 8 loads' addresses are
// one register and constant offsets.

// sumBins is the timed part: reps passes of the summing loop.
template <bool Atomic>
__device__ __forceinline__ void sumBins(unsigned warps, unsigned bins, int reps, unsigned *hist, unsigned *sink,
					long long *cyc)
{
	extern __shared__ unsigned bin[];
	for (unsigned b = threadIdx.x; b < bins * warps; b += blockDim.x)
		bin[b] = 1;
	__syncthreads();
	long long t0 = clock64();
	unsigned total = 0;
	for (int r = 0; r < reps; r++) {
		for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) {
			unsigned c = 0;
			for (unsigned w = 0; w < warps; w++)
				c += bin[w * bins + b];
			if (Atomic) {
				if (c != 0)
					atomicAdd(&hist[b], c);
			} else
				total += c;
		}
		asm volatile("" ::: "memory"); // every pass loads again
	}
	long long t1 = clock64();
	if (total == 0xffffffffu)
		sink[0] = total; // keeps the sums; never true here
	if (threadIdx.x % 32 == 0)
		cyc[threadIdx.x / 32] = t1 - t0;
}

extern "C" __global__ void sum_red(unsigned bins, unsigned warps, int reps, unsigned *hist, unsigned *sink,
				   long long *cyc)
{
	sumBins<true>(warps, bins, reps, hist, sink, cyc);
}

extern "C" __global__ void sum_plain(unsigned bins, unsigned warps, int reps, unsigned *hist, unsigned *sink,
				     long long *cyc)
{
	sumBins<false>(warps, bins, reps, hist, sink, cyc);
}

extern "C" __global__ void sum_w8(unsigned bins, unsigned warps, int reps, unsigned *hist, unsigned *sink,
				  long long *cyc)
{
	sumBins<false>(8, bins, reps, hist, sink, cyc);
}

extern "C" __global__ void sum_const(unsigned bins, unsigned warps, int reps, unsigned *hist, unsigned *sink,
				     long long *cyc)
{
	sumBins<false>(8, 4096, reps, hist, sink, cyc);
}
