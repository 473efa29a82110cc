// ldsm.cu: what an ldmatrix (SASS LDSM) counts in shared memory on a GPU (issue 19's
// ldmatrix, for replay). scripts/hw/probe.sh ldsm runs it without a profiler (times) and
// under Nsight Compute (every counter that names ldsm, and the shared-load counters).
//
//   ldsm [once]
//
// Every launch: blocks of 256 threads, each warp iters times loads num 8x8 matrices of
// 16-bit elements (ldmatrix .x1/.x2/.x4, .trans or not, inline PTX) from its own 1 KB of
// shared memory, lane l giving row (l*rstride) % 64 (16 bytes a row) as its address:
// rstride 1 and 3 touch every bank once per 8 rows, 2 twice, 8 eight times.
// Prints id,num,trans,rstride,blocks,threads,iters,ms.
#include <cstring>
#include "probe.h"

template <int NUM, int TRANS>
__global__ void ldsm_k(int rstride, int iters, unsigned *sink)
{
	__shared__ __align__(16) unsigned short s[8 * 64 * 8];
	for (int i = threadIdx.x; i < 8 * 64 * 8; i += blockDim.x)
		s[i] = i;
	__syncthreads();
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	unsigned a = (unsigned)__cvta_generic_to_shared(&s[(warp * 64 + (lane * rstride) % 64) * 8]);
	unsigned x = 0, r0, r1, r2, r3;
	for (int i = 0; i < iters; i++) {
		if (NUM == 1 && !TRANS)
			asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
		else if (NUM == 1)
			asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
		else if (NUM == 2 && !TRANS)
			asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
		else if (NUM == 2)
			asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
		else if (!TRANS)
			asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
				     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
		else
			asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
				     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
		x += r0 + (NUM > 1 ? r1 : 0) + (NUM > 2 ? r2 + r3 : 0);
	}
	if (x == 0x9e3779b9u)
		sink[0] = x;
}

struct Launch {
	int num, trans, rstride, blocks, threads, iters;
};

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	std::vector<Launch> ls;
	for (int num : {1, 2, 4})
		for (int trans : {0, 1})
			for (int rs : {1, 2, 3, 8})
				ls.push_back({num, trans, rs, 2 * sms, 256, 16});
	unsigned *sink;
	CK(cudaMalloc(&sink, 64));
	printf("id,num,trans,rstride,blocks,threads,iters,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		float ms = timeLaunch(once, [&] {
#define GO(N, T) ldsm_k<N, T><<<l.blocks, l.threads>>>(l.rstride, l.iters, sink)
			if (l.num == 1)
				l.trans ? GO(1, 1) : GO(1, 0);
			else if (l.num == 2)
				l.trans ? GO(2, 1) : GO(2, 0);
			else
				l.trans ? GO(4, 1) : GO(4, 0);
		});
		printf("%zu,%d,%d,%d,%d,%d,%d,%.4f\n", id, l.num, l.trans, l.rstride, l.blocks, l.threads, l.iters, ms);
	}
	return 0;
}
