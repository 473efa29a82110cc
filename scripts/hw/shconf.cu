// shconf.cu: what shared loads with bank conflicts cost an H200's SM, alone and in
// transpose v2's shape (docs/issue-11.md "Next, in order": v2 is 8% faster in the
// engine than on the H200 with every measured LSU key, and its 32-way conflicting
// column reads and its barrier were not measured). Two parts, each stamping the SM's
// clock in program order (sm_stamp.cuh; SASS in the log):
//
// conf: one CTA of W warps (W = 1, 32) on each of 4 SMs; each warp stamps t0, issues N
// independent shared loads of a word a lane with a K-way bank conflict (K lanes in
// each bank, K = 1, 2, 4, 8, 16, 32; N = 1, 4, 16), and stamps t1 once their sum has
// arrived. Latency alone (W = 1, N = 1) and the SM's rate (W = 32: the last t1 against
// the first t0, over W N K wavefronts).
// tile: transpose v2's CTA (32 x 32 threads, one warp a tile row): t0, a word a lane
// (LOAD: none, the lane's index; l2, one line a warp from a 4 MB buffer the first run
// leaves in the L2), stored in the tile's row, bar.sync, t1, the tile's column read
// (32-way conflicting as v2, or padded to 33 words a row as v3: none), t2 once it has
// arrived, its store to global (one line a warp), t3. 4 CTAs (one an SM on 4 SMs), 2
// and 16 an SM (rows for SMs 0-3 only). Each launch runs twice, the second is printed.
//
//   nvcc -O3 -arch=sm_90 -o shconf scripts/hw/shconf.cu && ./shconf > shconf.csv
//
// stdout: part,k,n,w,load,ctas,block,warp,smid,t0,t1,t2,t3 (unused stamps 0).
#include "probe.h"
#include "store_kinds.cuh"
#include <cstdint>

#define ROW 5 // smid, t0, t1, t2, t3

__device__ __forceinline__ void put(long long *out, size_t w, long long t0, long long t1, long long t2, long long t3)
{
	long long *o = out + ROW * w;
	o[0] = smid(), o[1] = t0, o[2] = t1, o[3] = t2, o[4] = t3;
}

template <int K, int N>
__global__ void conf(long long *out, unsigned *sink)
{
	__shared__ unsigned sh[1024];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x)
		sh[i] = i;
	__syncthreads();
	long long t0 = smClock();
	unsigned x = 0;
#pragma unroll
	for (int j = 0; j < N; j++) // lane l: row l % K of bank l / K (+ j + warp)
		x += ldShared(&sh[(lane % K) * 32 + (lane / K + j + warp) % 32]);
	long long t1 = smClockAfter(x, sink);
	if (lane == 0)
		put(out, (size_t)blockIdx.x * (blockDim.x / 32) + warp, t0, t1, 0, 0);
}

template <int STRIDE, bool LOAD>
__global__ void tile(const unsigned *a, unsigned *b, long long *out, unsigned *sink)
{
	__shared__ unsigned sh[32 * 33];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	size_t line = (size_t)blockIdx.x * 32 + warp;
	long long t0 = smClock();
	unsigned v = LOAD ? ldOrdered(a + (line % 32768) * 32 + lane) : lane + warp;
	stShared(&sh[warp * STRIDE + lane], v);
	__syncthreads();
	long long t1 = smClock();
	unsigned u = ldShared(&sh[lane * STRIDE + warp]);
	long long t2 = smClockAfter(u, sink);
	st(b + line * 32 + lane, u);
	long long t3 = smClock();
	if (lane == 0)
		put(out, line, t0, t1, t2, t3);
}

static void print(const char *part, int k, int n, int w, const char *load, int ctas, int warps, const std::vector<long long> &h, int maxSM)
{
	for (size_t r = 0; r < (size_t)ctas * warps; r++) {
		const long long *o = &h[(size_t)ROW * r];
		if (o[0] >= maxSM)
			continue;
		printf("%s,%d,%d,%d,%s,%d,%zu,%zu,%lld", part, k, n, w, load, ctas, r / warps, r % warps, o[0]);
		for (int j = 1; j < ROW; j++)
			printf(",%lld", o[j]);
		printf("\n");
	}
}

template <int K, int N>
static void runConf(long long *out, unsigned *sink)
{
	for (int w : {1, 32}) {
		for (int rep = 0; rep < 2; rep++) {
			conf<K, N><<<4, 32 * w>>>(out, sink);
			CK(cudaDeviceSynchronize());
		}
		std::vector<long long> h((size_t)4 * w * ROW);
		CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
		print("conf", K, N, w, "none", 4, w, h, 1 << 30);
	}
}

template <int K>
static void runConfN(long long *out, unsigned *sink)
{
	runConf<K, 1>(out, sink);
	runConf<K, 4>(out, sink);
	runConf<K, 16>(out, sink);
}

template <int STRIDE, bool LOAD>
static void runTile(const unsigned *a, unsigned *b, long long *out, unsigned *sink, int sms)
{
	for (int ctas : {4, 2 * sms, 16 * sms}) {
		for (int rep = 0; rep < 2; rep++) {
			tile<STRIDE, LOAD><<<ctas, 1024>>>(a, b, out, sink);
			CK(cudaDeviceSynchronize());
		}
		std::vector<long long> h((size_t)ctas * 32 * ROW);
		CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
		print("tile", STRIDE == 32 ? 32 : 1, 1, 32, LOAD ? "l2" : "none", ctas, 32, h, ctas > 4 ? 4 : 1 << 30);
	}
}

int main()
{
	int sms = smCount();
	unsigned *a, *b, *sink;
	long long *out;
	CK(cudaMalloc(&a, (size_t)32768 * 128));
	CK(cudaMemset(a, 1, (size_t)32768 * 128));
	CK(cudaMalloc(&b, (size_t)16 * sms * 1024 * 4));
	CK(cudaMalloc(&out, (size_t)16 * sms * 32 * ROW * 8));
	CK(cudaMalloc(&sink, 8));
	printf("part,k,n,w,load,ctas,block,warp,smid,t0,t1,t2,t3\n");
	runConfN<1>(out, sink);
	runConfN<2>(out, sink);
	runConfN<4>(out, sink);
	runConfN<8>(out, sink);
	runConfN<16>(out, sink);
	runConfN<32>(out, sink);
	runTile<32, false>(a, b, out, sink, sms);
	runTile<33, false>(a, b, out, sink, sms);
	runTile<32, true>(a, b, out, sink, sms);
	runTile<33, true>(a, b, out, sink, sms);
	return 0;
}
