// stsmall.cu: what a small global store costs an H200's SM (docs/issue-11.md item 32).
// lgstore.cu timed a warp's stores of 32 words touching 1, 2, 4 or 32 lines; the
// probes' own clock stamps are stores of one lane's 8 bytes (lgdrain.cu: 160 of them
// a CTA), and a CTA of lgdrain.cu's v3 shape holds its room about 1000 cycles after
// its last stamp where the engine holds it 580.
//
// Each warp of a CTA of W warps (W = 1, 32; 4 CTAs, one on each of 4 SMs) stamps t0,
// issues N = 16 stores back to back of a kind, stamping after each, then a membar.gl
// and a last stamp once they are acknowledged. Kinds (store j of warp g at line
// g * 16 + j of a buffer the first run leaves in the L2): lane8, lane 0 stores 8 bytes
// (a stamp's STG.64); lane4, lane 0 stores 4 bytes; sector, lanes 0-7 store a whole
// sector; line, every lane a word, a whole line. Each launch runs twice, the second
// is printed.
//
//   nvcc -O3 -arch=sm_90 -o stsmall scripts/hw/stsmall.cu && ./stsmall > stsmall.csv
//
// stdout: kind,w,block,warp,smid,t0,t1,...,t16,tend.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstdint>

#define N 16
#define ROW (N + 3) // smid, t0..tN, tend

enum { LANE8, LANE4, SECTOR, LINE };
static const char *kindName[] = {"lane8", "lane4", "sector", "line"};

template <int KIND>
__device__ __forceinline__ void store(unsigned *buf, size_t s, unsigned lane, unsigned v)
{
	unsigned *p = buf + s * 32 + lane;
	switch (KIND) {
	case LANE8:
		if (lane == 0)
			asm volatile("st.global.u64 [%0], %1;" ::"l"(p), "l"((unsigned long long)v) : "memory");
		break;
	case LANE4:
		if (lane == 0)
			asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
		break;
	case SECTOR:
		if (lane < 8)
			asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
		break;
	default:
		asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
	}
}

template <int KIND>
__global__ void small(unsigned *buf, long long *out)
{
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t g = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
	long long t[N + 1];
	t[0] = smClock();
#pragma unroll
	for (int j = 0; j < N; j++) {
		store<KIND>(buf, g * N + j, lane, j);
		t[j + 1] = smClock();
	}
	asm volatile("membar.gl;" ::: "memory");
	long long tend = smClock();
	if (lane == 0) {
		long long *o = out + ROW * g;
		o[0] = smid();
		for (int j = 0; j <= N; j++)
			o[j + 1] = t[j];
		o[N + 2] = tend;
	}
}

template <int KIND>
static void run(unsigned *buf, long long *out)
{
	for (int w : {1, 32}) {
		for (int rep = 0; rep < 2; rep++) {
			small<KIND><<<4, 32 * w>>>(buf, out);
			CK(cudaDeviceSynchronize());
		}
		std::vector<long long> h((size_t)4 * w * ROW);
		CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
		for (size_t r = 0; r < (size_t)4 * w; r++) {
			printf("%s,%d,%zu,%zu", kindName[KIND], w, r / w, r % w);
			for (int j = 0; j < ROW; j++)
				printf(",%lld", h[ROW * r + j]);
			printf("\n");
		}
	}
}

int main()
{
	smCount();
	unsigned *buf;
	long long *out;
	CK(cudaMalloc(&buf, (size_t)4 * 32 * N * 128));
	CK(cudaMalloc(&out, (size_t)4 * 32 * ROW * 8));
	printf("kind,w,block,warp,smid");
	for (int j = 0; j <= N; j++)
		printf(",t%d", j);
	printf(",tend\n");
	run<LANE8>(buf, out);
	run<LANE4>(buf, out);
	run<SECTOR>(buf, out);
	run<LINE>(buf, out);
	return 0;
}
