// loopcost_kernels.cu: the loops scripts/hw/loopcost.cu times (see there), apart so
// that clang-14 compiles them for the engine's side of the comparison
// (replay/testdata/loopcost.ptx, TestTimingLoopProbe):
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/loopcost.ptx \
//     scripts/hw/loopcost_kernels.cu

extern "C" __global__ void loop_count(int n, int *out, long long *cyc)
{
	long long t0 = clock64();
	int i = threadIdx.x;
	for (; i < n; i += blockDim.x)
		asm volatile("" : "+r"(i));
	long long t1 = clock64();
	out[threadIdx.x] = i;
	if (threadIdx.x % 32 == 0)
		cyc[threadIdx.x / 32] = t1 - t0;
}

extern "C" __global__ void loop_sts(unsigned n, int reps, int *out, long long *cyc)
{
	extern __shared__ unsigned bin[];
	long long t0 = clock64();
	for (int r = 0; r < reps; r++) {
		for (unsigned b = threadIdx.x; b < n; b += blockDim.x)
			bin[b] = r;
		asm volatile("" ::: "memory");
	}
	long long t1 = clock64();
	__syncthreads();
	out[threadIdx.x] = bin[(threadIdx.x * 7) % n];
	if (threadIdx.x % 32 == 0)
		cyc[threadIdx.x / 32] = t1 - t0;
}

extern "C" __global__ void loop_fma(int n, float a, float *out, long long *cyc)
{
	long long t0 = clock64();
	float x = threadIdx.x;
	int i = threadIdx.x;
	for (; i < n; i += blockDim.x) {
#pragma unroll
		for (int k = 0; k < 8; k++)
			x = x * a + 1.0f;
		asm volatile("" : "+r"(i));
	}
	long long t1 = clock64();
	out[threadIdx.x] = x + i;
	if (threadIdx.x % 32 == 0)
		cyc[threadIdx.x / 32] = t1 - t0;
}
