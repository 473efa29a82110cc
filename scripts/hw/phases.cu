// phases.cu: when do the CTAs sharing an SM run their phases? The transposes v1 and v2
// (kernels/cu/transpose.cu) at n = 2048, 32x32 threads a CTA (2 CTAs an SM on an
// H100/H200), with each warp's lane 0 stamping the SM's clock (clock64, one clock an SM,
// so CTAs on one SM compare) at its start, after its global load (v2: after its shared
// store, before the barrier), after the barrier (v2), and at its end.
// docs/issue-11.md item 27 asks: does one CTA on an SM go first (its load and store
// phases apart from the other's, as sm.scheduler gtoc makes them in the model), or do
// the two go in step (as gtrr does)? TestTransposePhasesProbe reads the run.
//
//   nvcc -O3 -arch=sm_90 -o phases scripts/hw/phases.cu && ./phases > phases.csv
//
// stdout: kernel,block,warp,smid,t0,t1,t2,t3 (t2 = t1 for v1, which has no barrier);
// stderr: each kernel's time with and without the stamps (median of three, ms; on the
// H200 the stamps cost v1 8% and v2 19%). Only t0 and t3 are read by the tests (a CTA's
// span on its SM): where ptxas puts the middle clock reads against the loads is its
// choice (scripts/hw/lgqueue.cu pins them with asm volatile).
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define TILE 32

// stamp writes lane 0's stamps of the warp: smid and four clocks.
__device__ __forceinline__ void stamp(long long *out, long long t0, long long t1, long long t2)
{
	long long t3 = clock64();
	if ((threadIdx.x & 31) == 0) {
		size_t w = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y / 32) + (threadIdx.y * blockDim.x + threadIdx.x) / 32;
		long long *o = out + 5 * w;
		o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = t2, o[4] = t3;
	}
}

template <bool STAMP>
__global__ void v1(const float *a, float *at, int sizeX, int sizeY, long long *out)
{
	long long t0 = STAMP ? clock64() : 0;
	int row = blockDim.y * blockIdx.y + threadIdx.y;
	int col = blockDim.x * blockIdx.x + threadIdx.x;
	float v = a[col * sizeY + row];
	long long t1 = 0;
	if (STAMP) {
		// the clock after the load's value arrives: the add makes the stamp wait for it
		t1 = clock64() + (v == 12345.f);
	}
	at[row * sizeX + col] = v;
	if (STAMP)
		stamp(out, t0, t1, t1);
}

template <bool STAMP>
__global__ void v2(const float *a, float *b, int sizeX, int sizeY, long long *out)
{
	__shared__ float mat[TILE][TILE];
	long long t0 = STAMP ? clock64() : 0;
	int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
	int i = bx + threadIdx.x, j = by + threadIdx.y, ti = by + threadIdx.x, tj = bx + threadIdx.y;
	if (i < sizeX && j < sizeY)
		mat[threadIdx.y][threadIdx.x] = a[j * sizeX + i];
	long long t1 = STAMP ? clock64() : 0;
	__syncthreads();
	long long t2 = STAMP ? clock64() : 0;
	if (tj < sizeY && ti < sizeX)
		b[tj * sizeY + ti] = mat[threadIdx.x][threadIdx.y];
	if (STAMP)
		stamp(out, t0, t1, t2);
}

int main()
{
	smCount();
	const int n = 2048;
	float *a, *b;
	long long *out;
	size_t warps = (size_t)n * n / 32;
	CK(cudaMalloc(&a, (size_t)n * n * 4));
	CK(cudaMalloc(&b, (size_t)n * n * 4));
	CK(cudaMalloc(&out, warps * 5 * 8));
	CK(cudaMemset(a, 0, (size_t)n * n * 4));
	dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
	std::vector<long long> h(warps * 5);
	printf("kernel,block,warp,smid,t0,t1,t2,t3\n");
	for (int k = 1; k <= 2; k++) {
		auto plain = [&] {
			if (k == 1)
				v1<false><<<grid, block>>>(a, b, n, n, out);
			else
				v2<false><<<grid, block>>>(a, b, n, n, out);
		};
		auto stamped = [&] {
			if (k == 1)
				v1<true><<<grid, block>>>(a, b, n, n, out);
			else
				v2<true><<<grid, block>>>(a, b, n, n, out);
		};
		auto none = [] {};
		float p = timeLaunch(false, plain, none), s = timeLaunch(false, stamped, none);
		fprintf(stderr, "v%d: %.4f ms plain, %.4f ms stamped\n", k, p, s);
		CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
		for (size_t w = 0; w < warps; w++) {
			const long long *o = &h[5 * w];
			printf("v%d,%zu,%zu,%lld,%lld,%lld,%lld,%lld\n", k, w / 32, w % 32, o[0], o[1], o[2], o[3], o[4]);
		}
	}
	return 0;
}
