// lgdrain_kernels.cu: the kernels scripts/hw/lgdrain.cu launches (see there), apart so
// that clang-14 compiles them for the engine's side of the comparison
// (replay/testdata/lgdrain.ptx, TestDrainOnTheProbe):
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/lgdrain.ptx \
//     scripts/hw/lgdrain_kernels.cu

#include "store_kinds.cuh"

#define ROW 5 // smid, t0, t1, t2, t3

enum { V1, V2, V3 };

template <int MODE>
__device__ __forceinline__ void drain(const unsigned *a, unsigned *b, long long *out)
{
	__shared__ unsigned sh[32 * 33];
	const int stride = MODE == V3 ? 33 : 32;
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t line = (size_t)blockIdx.x * 32 + warp;
	long long t0 = smClock(), t1;
	unsigned u;
	if (MODE == V1) {
		t1 = smClock();
		u = ldOrdered(a + ((blockIdx.x % 1024) * 32 + lane) * 32 + warp);
	} else {
		stShared(&sh[warp * stride + lane], lane + warp);
		__syncthreads();
		t1 = smClock();
		u = ldShared(&sh[lane * stride + warp]);
	}
	unsigned v; // u + 1, so that the clock read after it waits for u
	asm volatile("add.u32 %0, %1, 1;" : "=r"(v) : "r"(u));
	long long t2 = smClock();
	st(b + line * 32 + lane, v);
	long long t3 = smClock();
	if (lane == 0) {
		long long *o = out + ROW * line;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = t2, o[4] = t3;
	}
}

extern "C" __global__ void drain_v1(const unsigned *a, unsigned *b, long long *out) { drain<V1>(a, b, out); }
extern "C" __global__ void drain_v2(const unsigned *a, unsigned *b, long long *out) { drain<V2>(a, b, out); }
extern "C" __global__ void drain_v3(const unsigned *a, unsigned *b, long long *out) { drain<V3>(a, b, out); }
