// ldgsts.cu: what a cp.async (SASS LDGSTS) counts and costs against the same copy made
// by a load and a shared store (issue 19's cp.async, for replay). scripts/hw/probe.sh
// ldgsts runs it without a profiler (times) and under Nsight Compute (every counter
// that names ldgsts, and the global-load and shared-store counters beside them).
//
//   ldgsts [once]
//
// Every launch: blocks of 256 threads, each thread iters times copies size bytes
// (inline PTX, so the compiler keeps the form) from global to its shared slot and waits:
//   src: lane l of warp w in iteration i reads base + ((i*warps + w)*32*sstride + l*sstride)*size
//        (sstride 1: coalesced; 8: a sector or more per lane)
//   dst: lane l writes slot (l*dstride) % 32 of its warp's 32-slot row, size bytes a slot
//        (dstride 1: no bank conflict; 2, 4, 8, 32: conflicts for 4-byte copies)
// Kinds: ca (cp.async.ca), cg (cp.async.cg, 16 bytes only), ldst (ld.global then
// st.shared of the same bytes). Prints id,kind,size,sstride,dstride,blocks,threads,iters,ms.
#include <cstring>
#include "probe.h"

template <int SIZE, int KIND>
__global__ void copy_k(const char *base, int sstride, int dstride, int iters, unsigned *sink)
{
	__shared__ __align__(16) char s[8 * 32 * 16];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	long gw = blockIdx.x * (blockDim.x >> 5) + warp, warps = gridDim.x * (blockDim.x >> 5);
	unsigned d = (unsigned)__cvta_generic_to_shared(&s[(warp * 32 + (lane * dstride) % 32) * SIZE]);
	for (int i = 0; i < iters; i++) {
		const char *p = base + ((i * warps + gw) * 32 * sstride + (long)lane * sstride) * SIZE;
		if (KIND == 0)
			asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(p), "n"(SIZE) : "memory");
		else if (KIND == 1)
			asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(p) : "memory");
		else if (SIZE == 4)
			asm volatile("{.reg .b32 t; ld.global.u32 t, [%1]; st.shared.u32 [%0], t;}" ::"r"(d), "l"(p) : "memory");
		else if (SIZE == 8)
			asm volatile("{.reg .b64 t; ld.global.u64 t, [%1]; st.shared.u64 [%0], t;}" ::"r"(d), "l"(p) : "memory");
		else
			asm volatile("{.reg .b64 a, b; ld.global.v2.u64 {a, b}, [%1]; st.shared.v2.u64 [%0], {a, b};}" ::"r"(d),
				     "l"(p) : "memory");
		asm volatile("cp.async.wait_all;" ::: "memory");
	}
	__syncthreads();
	if (s[threadIdx.x] == 123 && s[threadIdx.x + 1] == 45)
		sink[0] = 1;
}

struct Launch {
	const char *kind;
	int size, sstride, dstride, blocks, threads, iters;
};

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	std::vector<Launch> ls;
	int blocks = 2 * sms, threads = 256, iters = 16;
	for (const char *k : {"ca", "ldst"})
		for (int size : {4, 8, 16})
			for (int ss : {1, 8})
				for (int ds : {1, 2, 4, 8, 32})
					ls.push_back({k, size, ss, ds, blocks, threads, iters});
	for (int ss : {1, 8})
		for (int ds : {1, 2, 4, 8, 32})
			ls.push_back({"cg", 16, ss, ds, blocks, threads, iters});
	size_t bytes = (size_t)iters * blocks * threads * 8 * 16 + 4096;
	char *base;
	unsigned *sink;
	CK(cudaMalloc(&base, bytes));
	CK(cudaMalloc(&sink, 64));
	CK(cudaMemset(base, 1, bytes));
	printf("id,kind,size,sstride,dstride,blocks,threads,iters,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		int kind = !strcmp(l.kind, "ca") ? 0 : !strcmp(l.kind, "cg") ? 1 : 2;
		float ms = timeLaunch(once, [&] {
#define GO(S, K) copy_k<S, K><<<l.blocks, l.threads>>>(base, l.sstride, l.dstride, l.iters, sink)
			if (kind == 1)
				GO(16, 1);
			else if (l.size == 4)
				kind == 0 ? GO(4, 0) : GO(4, 2);
			else if (l.size == 8)
				kind == 0 ? GO(8, 0) : GO(8, 2);
			else
				kind == 0 ? GO(16, 0) : GO(16, 2);
		});
		printf("%zu,%s,%d,%d,%d,%d,%d,%d,%.4f\n", id, l.kind, l.size, l.sstride, l.dstride, l.blocks, l.threads,
		       l.iters, ms);
	}
	return 0;
}
