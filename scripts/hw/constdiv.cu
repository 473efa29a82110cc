// constdiv.cu: what a warp's constant load costs when its lanes read D different
// addresses (issue 11: divergent constant reads). scripts/hw/constdiv.sh runs it
// without a profiler and under Nsight Compute.
//
//   constdiv [once]
//
// Every thread of every launch repeats iters loads (inline PTX ld.const with the
// address in a register: SASS LDC) of the word ((lane % D) * stride + i) % 4096 of a
// 16 KB __constant__ table at iteration i, and sums them. Launches sweep D
// (1 to 32), stride (1 word: one line; 16 words: 64 B apart; 64 words: 256 B apart,
// 8 KB for 32 lanes) and the warps per SM (one warp alone; 8 warps per SM; 64).
// Prints id,D,stride,blocks,threads,iters,ms (ms: median of three runs; "once": one
// untimed run each, for ncu, whose ID is the launch's id).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "probe.h"


__constant__ float table[4096];

__global__ void cdiv(int D, int stride, int iters, float *out)
{
	int base = (threadIdx.x & 31) % D * stride;
	float acc = 0, v;
	for (int i = 0; i < iters; i++) {
		// The word moves by one each iteration (for every lane alike, so a warp still
		// reads D addresses): ptxas may hoist a load of constant memory whose address
		// does not change, inline asm or not.
		const float *p = &table[(base + i) & 4095];
		asm volatile("ld.const.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
		acc += v;
	}
	if (acc == 1234.5f)
		out[0] = acc;
}

struct Launch {
	int D, stride, blocks, threads, iters;
};

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	std::vector<float> h(4096);
	for (int i = 0; i < 4096; i++)
		h[i] = (float)(i % 7);
	CK(cudaMemcpyToSymbol(table, h.data(), sizeof(float) * h.size()));
	std::vector<Launch> ls;
	for (int stride : {1, 16, 64})
		for (int D = 1; D <= 32; D *= 2)
			for (int wps : {1, 8, 64}) { // warps per SM
				int threads = wps == 1 ? 32 : 256;
				int blocks = wps == 1 ? sms : sms * wps / 8;
				ls.push_back({D, stride, blocks, threads, 2048});
			}
	float *out;
	CK(cudaMalloc(&out, 64));
	printf("id,D,stride,blocks,threads,iters,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		float ms = timeLaunch(once, [&] { cdiv<<<l.blocks, l.threads>>>(l.D, l.stride, l.iters, out); });
		printf("%zu,%d,%d,%d,%d,%d,%.4f\n", id, l.D, l.stride, l.blocks, l.threads, l.iters, ms);
	}
	return 0;
}
