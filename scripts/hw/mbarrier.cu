// mbarrier.cu: what an mbarrier (PTX mbarrier.*, SASS SYNCS on sm_90) counts and costs
// beside bar.sync (issue 19's mbarrier, for replay). scripts/hw/probe.sh mbarrier runs
// it without a profiler (times) and under Nsight Compute (the shared-memory and
// instruction counters, and every counter whose name says mbarrier, syncs or barrier).
//
//   mbarrier [once]
//
// Every launch: blocks of threads threads; each of iters rounds is one phase that every
// thread arrives at and then waits for:
//   bar       bar.sync 0 (the baseline)
//   try       mbarrier.arrive, then a mbarrier.try_wait loop on the arrive's state
//   test      mbarrier.arrive, then a mbarrier.test_wait loop on the arrive's state
//   parity    mbarrier.arrive into _, then a mbarrier.try_wait.parity loop
//   producer  warp 0 arrives (count 32), the other warps wait with try_wait.parity
// Prints id,kind,blocks,threads,iters,ms.
#include <cstring>
#include "probe.h"

template <int KIND>
__global__ void mbar_k(int iters, unsigned *sink)
{
	__shared__ __align__(8) unsigned long long bar;
	unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
	if (threadIdx.x == 0) {
		unsigned count = KIND == 4 ? 32 : blockDim.x;
		asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(a), "r"(count) : "memory");
	}
	__syncthreads();
	unsigned ok = 0;
	for (int i = 0; i < iters; i++) {
		unsigned p = 0;
		if (KIND == 0) {
			asm volatile("bar.sync 0;" ::: "memory");
			p = 1;
		} else if (KIND == 1 || KIND == 2) {
			unsigned long long st;
			asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(a) : "memory");
			if (KIND == 1)
				asm volatile("{.reg .pred q; W%=: mbarrier.try_wait.shared.b64 q, [%1], %2; @!q bra W%=; selp.u32 %0, 1, 0, q;}"
					     : "=r"(p) : "r"(a), "l"(st) : "memory");
			else
				asm volatile("{.reg .pred q; W%=: mbarrier.test_wait.shared.b64 q, [%1], %2; @!q bra W%=; selp.u32 %0, 1, 0, q;}"
					     : "=r"(p) : "r"(a), "l"(st) : "memory");
		} else {
			if (KIND == 3 || threadIdx.x < 32)
				asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(a) : "memory");
			if (KIND == 3 || threadIdx.x >= 32)
				asm volatile("{.reg .pred q; W%=: mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; @!q bra W%=; selp.u32 %0, 1, 0, q;}"
					     : "=r"(p) : "r"(a), "r"(i & 1) : "memory");
			if (KIND == 4)
				__syncthreads(); // the producer must not run a phase ahead of a waiter
			p |= 1;
		}
		ok += p;
	}
	if (ok != (unsigned)iters)
		sink[0] = ok;
}

struct Launch {
	const char *kind;
	int k, blocks, threads, iters;
};

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	std::vector<Launch> ls;
	const char *kinds[] = {"bar", "try", "test", "parity", "producer"};
	for (int k = 0; k < 5; k++)
		for (int threads : {128, 256, 1024})
			ls.push_back({kinds[k], k, 2 * sms, threads, 256});
	unsigned *sink;
	CK(cudaMalloc(&sink, 64));
	CK(cudaMemset(sink, 0, 64));
	printf("id,kind,blocks,threads,iters,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		float ms = timeLaunch(once, [&] {
#define GO(K) mbar_k<K><<<l.blocks, l.threads>>>(l.iters, sink)
			switch (l.k) {
			case 0: GO(0); break;
			case 1: GO(1); break;
			case 2: GO(2); break;
			case 3: GO(3); break;
			default: GO(4);
			}
		});
		printf("%zu,%s,%d,%d,%d,%.4f\n", id, l.kind, l.blocks, l.threads, l.iters, ms);
	}
	unsigned bad;
	CK(cudaMemcpy(&bad, sink, 4, cudaMemcpyDeviceToHost));
	if (bad)
		fprintf(stderr, "a wait returned false: %u\n", bad);
	return bad != 0;
}
