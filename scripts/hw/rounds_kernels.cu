// rounds_kernels.cu: the kernels scripts/hw/rounds.cu launches (see there), apart so
// that clang-14 compiles them for the engine's side of the comparison
// (replay/testdata/rounds.ptx, TestTimingRoundsProbe):
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/rounds.ptx \
//     scripts/hw/rounds_kernels.cu

#include "sm_stamp.cuh"

extern "C" __global__ void empty() {}

extern "C" __global__ void load(const unsigned *a, unsigned *b)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned v = a[i];
	if (v == 7)
		b[i] = v;
}

extern "C" __global__ void store(unsigned *b)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	b[i] = i;
}

extern "C" __global__ void copy(const unsigned *a, unsigned *b)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	b[i] = a[i];
}

// stamped runs kind (0 empty, 1 load, 2 store, 3 copy) and records, per warp, its SM and
// its clock64 at entry and after its last memory instruction has its data.
extern "C" __global__ void stamped(const unsigned *a, unsigned *b, int kind, long long *t0, long long *t1, unsigned *sm)
{
	long long s = smClock();
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned v = 0;
	if (kind & 1)
		v = a[i];
	if (kind == 2)
		b[i] = i;
	else if (kind == 3)
		b[i] = v;
	else if (v == 7)
		b[i] = v;
	unsigned w = i / 32;
	if (threadIdx.x % 32 == 0) {
		long long e = smClock() + (v == 7); // after v has arrived
		t0[w] = s, t1[w] = e, sm[w] = smid();
	}
}
