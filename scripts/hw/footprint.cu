// footprint.cu: how much of the L2 one SM and the whole GPU see, how the L2 replaces
// and writes back, and which clock the L2 and DRAM latencies follow. Issue 11's
// footprint sweep; scripts/hw/footprint.sh runs it under Nsight Compute.
//
//   footprint chase   one thread chases pointers through a random cycle of 128-byte
//                     lines over footprints of 1 MB to 200 MB (ld.global.cg, so L1 is
//                     bypassed): a first pass over every line warms the L2, the second
//                     is timed with clock64 (SM cycles) and %globaltimer (ns). Prints
//                     chase,<bytes>,<lines>,<cycles per hop>,<ns per hop>.
//   footprint stream  every SM streams 16-byte loads or stores over the same footprints:
//                     *_cold kernels are meant to be profiled after ncu flushes the caches
//                     (--cache-control all); rd_warm follows an unprofiled rd_prime over
//                     the same buffer (--cache-control none), so its DRAM bytes say how
//                     much of a streamed footprint the L2 keeps.
//
// FOOTPRINT_MB=16,64 runs only those footprints (MB, ascending).
//
//   nvcc -O3 -arch=sm_90 -o footprint scripts/hw/footprint.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "probe.h"


static const size_t MB = 1 << 20;
static std::vector<size_t> footprints = {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52,
					 56, 60, 64, 72, 80, 100, 128, 160, 200};

__device__ __forceinline__ uint64_t gtimer()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__device__ __forceinline__ uint64_t ldcg(uint64_t p)
{
	uint64_t v;
	asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
	return v;
}

__global__ void chase(uint64_t start, size_t hops, long long *out)
{
	uint64_t q = start;
	for (size_t i = 0; i < hops; i++)
		q = ldcg(q);
	long long c0 = clock64();
	uint64_t t0 = gtimer();
	for (size_t i = 0; i < hops; i++)
		q = ldcg(q);
	uint64_t t1 = gtimer();
	long long c1 = clock64();
	out[0] = c1 - c0;
	out[1] = (long long)(t1 - t0);
	out[2] = (long long)q;
}

__device__ __forceinline__ void rd(const float4 *a, size_t n, float *sink)
{
	float s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = a[i];
		s += v.x + v.y + v.z + v.w;
	}
	if (s == 1234.5f)
		sink[0] = s;
}

__device__ __forceinline__ void wr(float4 *a, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		a[i] = make_float4(i, i, i, i);
}

__global__ void rd_cold(const float4 *a, size_t n, float *sink) { rd(a, n, sink); }
__global__ void rd_prime(const float4 *a, size_t n, float *sink) { rd(a, n, sink); }
__global__ void rd_warm(const float4 *a, size_t n, float *sink) { rd(a, n, sink); }
__global__ void wr_cold(float4 *a, size_t n) { wr(a, n); }
__global__ void cp_cold(const float4 *a, float4 *b, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		b[i] = a[i];
}

static void runChase()
{
	long long *out;
	CK(cudaMalloc(&out, 3 * sizeof(long long)));
	uint64_t rng = 88172645463325252ull; // xorshift64: the same cycles on every machine
	for (size_t f : footprints) {
		size_t bytes = f * MB, lines = bytes / 128;
		std::vector<uint32_t> order(lines);
		for (size_t i = 0; i < lines; i++)
			order[i] = (uint32_t)i;
		for (size_t i = lines - 1; i > 1; i--) { // Fisher-Yates over order[1..]
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			std::swap(order[i], order[1 + rng % i]);
		}
		uint64_t *d;
		CK(cudaMalloc(&d, bytes));
		std::vector<uint64_t> h(bytes / 8, 0);
		for (size_t i = 0; i < lines; i++)
			h[(size_t)order[i] * 16] = (uint64_t)d + (size_t)order[(i + 1) % lines] * 128;
		CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
		chase<<<1, 1>>>((uint64_t)d, lines, out);
		CK(cudaGetLastError());
		long long r[3];
		CK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
		printf("chase,%zu,%zu,%.1f,%.2f\n", bytes, lines, (double)r[0] / lines, (double)r[1] / lines);
		fflush(stdout);
		CK(cudaFree(d));
	}
	CK(cudaFree(out));
}

static void runStream()
{
	int sms;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	size_t maxBytes = footprints.back() * MB;
	float4 *a, *b;
	float *sink;
	CK(cudaMalloc(&a, maxBytes));
	CK(cudaMalloc(&b, maxBytes));
	CK(cudaMalloc(&sink, 64));
	CK(cudaMemset(a, 0, maxBytes));
	CK(cudaMemset(b, 0, maxBytes));
	dim3 grid(sms * 8), block(256);
	for (size_t f : footprints) {
		size_t n = f * MB / 16;
		rd_cold<<<grid, block>>>(a, n, sink);
		wr_cold<<<grid, block>>>(b, n);
		cp_cold<<<grid, block>>>(a, b, n / 2);
		rd_prime<<<grid, block>>>(a, n, sink);
		rd_warm<<<grid, block>>>(a, n, sink);
		CK(cudaDeviceSynchronize());
		printf("stream,%zu\n", f * MB);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	int clk, memclk;
	CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
	CK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0));
	if (const char *env = getenv("FOOTPRINT_MB")) { // a comma list, ascending: only these
		footprints.clear();
		for (const char *q = env; *q;) {
			char *end;
			unsigned long v = strtoul(q, &end, 10);
			if (end == q || v == 0) {
				fprintf(stderr, "FOOTPRINT_MB=%s: want ascending MB counts like 16,64\n", env);
				return 2;
			}
			footprints.push_back(v);
			q = *end == ',' ? end + 1 : end;
		}
	}
	printf("# %s sms=%d l2=%d persisting_l2_max=%d sm_clock_khz=%d mem_clock_khz=%d\n", p.name,
	       p.multiProcessorCount, p.l2CacheSize, p.persistingL2CacheMaxSize, clk, memclk);
	if (argc == 2 && strcmp(argv[1], "chase") == 0) {
		printf("kind,bytes,lines,cycles_per_hop,ns_per_hop\n");
		runChase();
	} else if (argc == 2 && strcmp(argv[1], "stream") == 0) {
		runStream();
	} else {
		fprintf(stderr, "usage: footprint chase|stream\n");
		return 2;
	}
	return 0;
}
