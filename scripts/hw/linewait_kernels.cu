// linewait_kernels.cu: the kernel scripts/hw/linewait.cu launches (see there), apart so
// that gtrace captures it for the engine's side of the comparison:
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/linewait.ptx \
//     scripts/hw/linewait_kernels.cu

// lines: every warp runs `iters` rounds of one load, lanes 0 to n-1 each reading the first
// word of a line of its own (the other lanes idle), so that one request asks for n lines
// and is in flight alone in its warp: each lane adds the value (zeros) to its next
// round's address. Lane i's line is base + i * stride (lines of 128 B, mod the buffer's
// `lines`, a power of two), base a new 4 KB block each round for each warp: (warp *
// iters + it) * 40961 blocks, mod lines / 32. Lane 0 keeps each round's time in
// dt[warp * iters + it] (clock64 between two rounds' loads, as streamlat's `each` does:
// one request's wait plus the loop's own instructions).
extern "C" __global__ void lines(const unsigned *buf, size_t lines, int n, size_t stride, int iters, unsigned *dt,
	unsigned *sink)
{
	int lane = threadIdx.x & 31;
	size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	unsigned v = 0;
	long long last = clock64();
#pragma unroll 1
	for (int it = 0; it < iters; it++) {
		size_t block = ((warp * iters + it) * 40961) & (lines / 32 - 1);
		if (lane < n)
			v = __ldcg(&buf[((block * 32 + lane * stride) & (lines - 1)) * 32 + v]);
		long long now = clock64() + (v >> 31);
		if (lane == 0)
			dt[warp * iters + it] = (unsigned)(now - last);
		last = now;
	}
	if (v == 0x9e3779b9u)
		sink[0] = v;
}
