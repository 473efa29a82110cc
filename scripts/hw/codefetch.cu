// codefetch.cu: what a launch reads from DRAM besides its data (issue 11). Under ncu
// --cache-control all the L2 starts empty, and kernels that read little or no global
// memory still read 3-27 KB from DRAM on an H200 (docs/VALIDATION.md: shared_sweep
// 3328 B, constant_lanes 4352 B, chain_div 26880 B). Candidates: the kernel's code
// (16 B a SASS instruction), its constant bank (the driver's words and the parameters),
// and what the launch itself reads. scripts/hw/probe.sh codefetch runs it.
//
//   codefetch [once]
//
// Kinds (every launch stores nothing unless a result hits a magic value it never does):
//   code   N FFMAs in straight-line code, every one executed
//   skip   the same N FFMAs behind a branch no thread takes: code that is there but not run
//   loop   a 64-FFMA body run N times: few instructions, many executed
//   param  a kernel whose parameter block is N words, every word read by every thread
//   const  one warp reads __constant__ memory once a lane: lane l the word at
//          (l % N) * stride bytes, so N distinct addresses stride bytes apart (one kernel
//          for every N and stride: the same code each time)
// Prints one CSV line per launch: id,kind,n,stride,blocks,threads,ms (ms: the median of three
// timed runs; with "once", one untimed run each, for ncu).
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "probe.h"

template <int N> __global__ void code_k(float a, float b, int magic, float *sink)
{
	float x = threadIdx.x;
#pragma unroll
	for (int i = 0; i < N; i++)
		x = x * a + b;
	if (__float_as_int(x) == magic)
		sink[0] = x;
}

template <int N> __global__ void skip_k(float a, float b, int magic, float *sink)
{
	float x = threadIdx.x;
	if (magic == 0x5eed) {
#pragma unroll
		for (int i = 0; i < N; i++)
			x = x * a + b;
	}
	if (__float_as_int(x) == magic)
		sink[0] = x;
}

__global__ void loop_k(float a, float b, int n, int magic, float *sink)
{
	float x = threadIdx.x;
	for (int j = 0; j < n; j++) {
#pragma unroll
		for (int i = 0; i < 64; i++)
			x = x * a + b;
	}
	if (__float_as_int(x) == magic)
		sink[0] = x;
}

template <int N> struct Words {
	int w[N];
};

template <int N> __global__ void param_k(Words<N> p, int magic, float *sink)
{
	int s = 0;
#pragma unroll 1 // one LDC in a loop: the code stays small whatever N is
	for (int i = 0; i < N; i++)
		s += p.w[i];
	if (s == magic)
		sink[0] = s;
}

__constant__ int c_table[16384]; // 64 KB, the whole bank

__global__ void const_k(int n, int stride, int magic, float *sink)
{
	int v = c_table[(threadIdx.x % 32 % n) * (stride / 4) % 16384];
	if (v == magic)
		sink[0] = v;
}

struct Launch {
	const char *kind;
	int n, blocks, threads, stride;
};

template <int N> static void param(Words<N> &w, int blocks, int threads, int magic, float *sink)
{
	param_k<N><<<blocks, threads>>>(w, magic, sink);
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	std::vector<Launch> ls;
	for (int n : {0, 16, 64, 256, 1024, 4096})
		ls.push_back({"code", n, 1, 32});
	for (int n : {0, 1024, 4096})
		ls.push_back({"code", n, 4 * sms, 256}); // every SM fetches the same code
	for (int n : {1024, 4096})
		ls.push_back({"skip", n, 1, 32});
	for (int n : {1, 16, 256})
		ls.push_back({"loop", n, 1, 32});
	ls.push_back({"loop", 256, 4 * sms, 256});
	for (int n : {1, 64, 256, 1000})
		ls.push_back({"param", n, 1, 32});
	ls.push_back({"param", 1000, 4 * sms, 256});
	for (int stride : {4, 32, 64, 128, 256, 512, 1024})
		for (int n : {1, 2, 4, 8, 32})
			ls.push_back({"const", n, 1, 32, stride});

	float *sink;
	CK(cudaMalloc(&sink, 64));
	const int magic = 0x7fc00001; // a NaN's pattern no FFMA chain of these gives
	static Words<1> w1;
	static Words<64> w64;
	static Words<256> w256;
	static Words<1000> w1000;
	static int table[16384];
	for (int i = 0; i < 16384; i++)
		table[i] = i;
	CK(cudaMemcpyToSymbol(c_table, table, sizeof table));
	printf("id,kind,n,stride,blocks,threads,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		int B = l.blocks, T = l.threads;
		float ms = timeLaunch(once, [&] {
			if (!strcmp(l.kind, "code")) {
				switch (l.n) {
				case 0: code_k<0><<<B, T>>>(1.0001f, 0.5f, magic, sink); break;
				case 16: code_k<16><<<B, T>>>(1.0001f, 0.5f, magic, sink); break;
				case 64: code_k<64><<<B, T>>>(1.0001f, 0.5f, magic, sink); break;
				case 256: code_k<256><<<B, T>>>(1.0001f, 0.5f, magic, sink); break;
				case 1024: code_k<1024><<<B, T>>>(1.0001f, 0.5f, magic, sink); break;
				default: code_k<4096><<<B, T>>>(1.0001f, 0.5f, magic, sink); break;
				}
			} else if (!strcmp(l.kind, "skip")) {
				if (l.n == 1024)
					skip_k<1024><<<B, T>>>(1.0001f, 0.5f, magic, sink);
				else
					skip_k<4096><<<B, T>>>(1.0001f, 0.5f, magic, sink);
			} else if (!strcmp(l.kind, "const")) {
				const_k<<<B, T>>>(l.n, l.stride, -1, sink);
			} else if (!strcmp(l.kind, "loop")) {
				loop_k<<<B, T>>>(1.0001f, 0.5f, l.n, magic, sink);
			} else {
				switch (l.n) {
				case 1: param(w1, B, T, magic, sink); break;
				case 64: param(w64, B, T, magic, sink); break;
				case 256: param(w256, B, T, magic, sink); break;
				default: param(w1000, B, T, magic, sink); break;
				}
			}
		});
		printf("%zu,%s,%d,%d,%d,%d,%.4f\n", id, l.kind, l.n, l.stride, B, T, ms);
	}
	return 0;
}
