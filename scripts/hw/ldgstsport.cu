// ldgstsport.cu: what a cp.async's shared-side bank conflicts cost (issue 19 item 69:
// on the ldgsts probe 32 lanes on one destination add 15-37% to the H100's cycles and
// 2-3% to the engine's). Is it a per-wavefront cost above a cycle, or queueing of
// many warps' copies at one port? Vary the warps on an SM and watch the time a copy.
//
//   nvcc -O3 -arch=sm_90 -o ldgstsport scripts/hw/ldgstsport.cu && ./ldgstsport > ldgstsport.csv
//
// One CTA an SM (grid = SM count) of W warps (1 to 32). Each warp copies SIZE bytes a
// lane with cp.async.ca (inline PTX) iters times, each copy followed by
// cp.async.wait_all, and stamps the SM's clock before the first copy and after the last
// wait. Lane l writes slot (l*dstride) % 32 of its warp's 32 slots of SIZE bytes, so
// dstride 1 has no conflict and 32 puts every lane on one slot (32 wavefronts a copy,
// item 68). Sources:
//   hot:    the warp's own 32*SIZE bytes every trip (L1 hits after the first), so the
//           copy's time is the L1's latency plus its shared side
//   stream: new bytes every trip (32*SIZE a warp, consecutive warps adjacent), so the
//           data comes from DRAM or the L2
//
// stdout: src,size,dstride,warps,iters,lo,med,hi: the least, median and greatest of the
// launch's warps' cycles from the first stamp to the last, over all SMs (second of two
// runs); stderr: the device.
#include "probe.h"
#include "sm_stamp.cuh"
#include <cstring>

template <int SIZE>
__global__ void port_k(const char *base, int dstride, int iters, int stream, long long *out)
{
	__shared__ __align__(16) char s[32 * 32 * 16];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	long gw = blockIdx.x * (blockDim.x >> 5) + warp, warps = gridDim.x * (blockDim.x >> 5);
	unsigned d = (unsigned)__cvta_generic_to_shared(&s[(warp * 32 + (lane * dstride) % 32) * SIZE]);
	long long t0 = smClock();
	for (int i = 0; i < iters; i++) {
		const char *p = base + ((stream ? i * warps + gw : gw) * 32 + lane) * SIZE;
		asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(p), "n"(SIZE) : "memory");
		asm volatile("cp.async.wait_all;" ::: "memory");
	}
	long long t1 = smClock();
	if (lane == 0)
		out[gw] = t1 - t0;
}

int main()
{
	int sms = smCount();
	const int maxWarps = 32, hotIters = 64, streamIters = 32;
	size_t bytes = (size_t)streamIters * sms * maxWarps * 32 * 16 + 4096;
	char *base;
	long long *out;
	CK(cudaMalloc(&base, bytes));
	CK(cudaMalloc(&out, 8 * sms * maxWarps));
	CK(cudaMemset(base, 1, bytes));
	printf("src,size,dstride,warps,iters,lo,med,hi\n");
	for (int stream = 0; stream < 2; stream++)
		for (int size : {4, 16})
			for (int ds : {1, 8, 32})
				for (int w : {1, 2, 4, 8, 16, 32}) {
					int iters = stream ? streamIters : hotIters;
					for (int rep = 0; rep < 2; rep++) {
						if (size == 4)
							port_k<4><<<sms, 32 * w>>>(base, ds, iters, stream, out);
						else
							port_k<16><<<sms, 32 * w>>>(base, ds, iters, stream, out);
						CK(cudaDeviceSynchronize());
					}
					std::vector<long long> c(sms * w);
					CK(cudaMemcpy(c.data(), out, 8 * c.size(), cudaMemcpyDeviceToHost));
					std::sort(c.begin(), c.end());
					printf("%s,%d,%d,%d,%d,%lld,%lld,%lld\n", stream ? "stream" : "hot", size, ds, w, iters, c[0],
					       c[c.size() / 2], c.back());
				}
	return 0;
}
