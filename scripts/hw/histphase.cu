// histphase.cu: where hist_warp's time goes on a real GPU, phase by phase (issue 11,
// docs/issue-11.md "What item 9 uncovered": gtrace's timing engine makes
// hist_warp@bins=4096 26% too fast on an H200 and hist_warp@bins=16 16% too fast).
//
// hist_warp (kernels/cu/histogram.cu) has three phases between its two
// __syncthreads: it zeroes bins x warps words of shared memory, counts its share
// of the input into its warp's copy with shared atomics (one global load and one
// ATOMS per element, a loop ptxas does not unroll), then sums the copies and adds
// each non-zero bin to the global histogram. hist_warp_t is the same code with a
// clock64() at each phase boundary, written per warp; mode 1 drops the shared
// atomic from the counting loop (the load's value goes to a register sum instead),
// so the loop's cost splits into the load's and the atomic's. Modes 2 and 3 change
// the summing phase only: mode 2 drops its global atomic (the sums go to a register
// instead), mode 3 adds each block's sums to a histogram of its own (hist + block x
// bins), so that no two blocks' atomics meet on one address.
//
// Output (stdout, CSV): one line per launch and block:
//   bins,mode,block,sm,wave,start,zero,count,reduce,span
// cycles of the block's SM: start = from the first start of a block on its SM, zero = from its first warp's start to the first barrier,
// count = between the barriers, reduce = from the second barrier to its last warp's
// end, span = first start to last end; wave is the block's order on its SM (0 first).
// And per launch a line "#time,bins,mode,ms" with the uninstrumented kernel's time
// (hist_warp itself for mode 0), median of three. Every launch starts with the L2
// holding none of the input (flush reads 256 MB of other data first), as under ncu
// --cache-control all, which the ground truth of docs/VALIDATION.md was taken with.
#include "probe.h"
#include "../../kernels/cu/histogram.cu"

extern "C" __global__ void hist_warp_t(const unsigned *__restrict in, unsigned *hist, int n, unsigned bins, int mode,
				       long long *stamp, int *smid)
{
	extern __shared__ unsigned bin[];
	long long t0 = clock64();
	unsigned warps = blockDim.x / 32;
	unsigned *mine = bin + (threadIdx.x / 32) * bins;
	for (unsigned b = threadIdx.x; b < bins * warps; b += blockDim.x)
		bin[b] = 0;
	__syncthreads();
	long long t1 = clock64();
	unsigned sum = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		if (mode != 1)
			atomicAdd(&mine[in[i] & (bins - 1)], 1u);
		else
			sum += in[i] & (bins - 1);
	}
	if (mode == 1 && sum == 0xffffffffu)
		mine[0] = sum; // keeps the loads; never true for these inputs
	__syncthreads();
	long long t2 = clock64();
	unsigned *to = mode == 3 ? hist + blockIdx.x * bins : hist, total = 0;
	for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) {
		unsigned c = 0;
		for (unsigned w = 0; w < warps; w++)
			c += bin[w * bins + b];
		if (mode == 2)
			total += c;
		else if (c != 0)
			atomicAdd(&to[b], c);
	}
	if (mode == 2 && total == 0xffffffffu)
		hist[0] = total; // keeps the sums; never true for these inputs
	long long t3 = clock64();
	if (threadIdx.x % 32 == 0) {
		long long *s = stamp + 4 * (blockIdx.x * warps + threadIdx.x / 32);
		s[0] = t0, s[1] = t1, s[2] = t2, s[3] = t3;
	}
	if (threadIdx.x == 0) {
		int id;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
		smid[blockIdx.x] = id;
	}
}

// flush reads n words, so that the L2 holds them and none of what was there before.
__global__ void flush(const unsigned *p, size_t n, unsigned *sink)
{
	unsigned s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
		s += p[i];
	if (s == 0x12345678u)
		*sink = s;
}

int main()
{
	int sms = smCount();
	const int n = 1 << 20, block = 256, warps = block / 32;
	const int blocks = 2 * sms; // the held-out launches' 264 on a 132-SM GPU
	std::vector<unsigned> host(n);
	unsigned x = 7;
	for (auto &v : host)
		v = x = x * 1664525u + 1013904223u;
	unsigned *in, *hist;
	long long *stamp;
	int *smid;
	CK(cudaMalloc(&in, 4 * n));
	CK(cudaMalloc(&hist, 4 * 4096 * blocks)); // mode 3: a histogram per block
	CK(cudaMalloc(&stamp, 8 * 4 * blocks * warps));
	CK(cudaMalloc(&smid, 4 * blocks));
	CK(cudaMemcpy(in, host.data(), 4 * n, cudaMemcpyHostToDevice));
	const size_t big = 64 << 20; // words: 256 MB, four times the H200's L2
	unsigned *other;
	CK(cudaMalloc(&other, 4 * big));
	CK(cudaMemset(other, 1, 4 * big));
	auto before = [&] {
		flush<<<4 * sms, 1024>>>(other, big, hist);
		CK(cudaDeviceSynchronize());
	};
	CK(cudaFuncSetAttribute(hist_warp, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * warps * 4096));
	CK(cudaFuncSetAttribute(hist_warp_t, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * warps * 4096));
	printf("bins,mode,block,sm,wave,start,zero,count,reduce,span\n");
	for (unsigned bins : {1u, 16u, 256u, 4096u}) {
		size_t shared = 4 * warps * bins;
		float ms = timeLaunch(false, [&] { hist_warp<<<blocks, block, shared>>>(in, hist, n, bins); }, before);
		printf("#time,%u,plain,%.4f\n", bins, ms);
		for (int mode = 0; mode < 4; mode++) {
			CK(cudaMemset(hist, 0, 4 * 4096 * blocks));
			float tms = timeLaunch(false, [&] {
				hist_warp_t<<<blocks, block, shared>>>(in, hist, n, bins, mode, stamp, smid);
			}, before);
			printf("#time,%u,%d,%.4f\n", bins, mode, tms);
			std::vector<long long> s(4 * blocks * warps);
			std::vector<int> id(blocks);
			CK(cudaMemcpy(s.data(), stamp, 8 * s.size(), cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(id.data(), smid, 4 * blocks, cudaMemcpyDeviceToHost));
			for (int b = 0; b < blocks; b++) {
				long long first = s[4 * b * warps], bar1 = s[4 * b * warps + 1], bar2 = s[4 * b * warps + 2], last = 0;
				for (int w = 0; w < warps; w++) {
					const long long *t = &s[4 * (b * warps + w)];
					first = std::min(first, t[0]), bar1 = std::min(bar1, t[1]), bar2 = std::min(bar2, t[2]);
					last = std::max(last, t[3]);
				}
				// wave: blocks of the same SM that started before this one; origin: the
				// first warp start of any block on this SM
				int wave = 0;
				long long origin = first;
				for (int o = 0; o < blocks; o++) {
					if (o == b || id[o] != id[b])
						continue;
					for (int w = 0; w < warps; w++)
						origin = std::min(origin, s[4 * (o * warps + w)]);
					if (s[4 * o * warps] < s[4 * b * warps])
						wave++;
				}
				printf("%u,%d,%d,%d,%d,%lld,%lld,%lld,%lld,%lld\n", bins, mode, b, id[b], wave, first - origin,
				       bar1 - first, bar2 - bar1, last - bar2, last - first);
			}
		}
	}
	return 0;
}
