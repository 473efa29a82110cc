// lgdrain.cu: when a warp's global store reads its operands and leaves the LSU's
// queue, in the shapes of the three transposes (docs/issue-11.md item 31). shconf.cu's
// tile part found that a clock read which overwrites a store's address register (a
// write after read, so it waits for the store's operand read) comes only once the
// shared loads queued before the store are done, and that a CTA's room is held that
// long (ncu's drain stall: a warp waits after its EXIT for its memory instructions).
// Is a store behind global line lookups held the same way?
//
// Each warp of a CTA of 32 x 32 threads stamps t0, then by MODE:
//   v1: t1; a load of word `warp` of 32 lines (lane l: line l of the CTA's 32, from a
//       4 MB buffer the first run leaves in the L2), as transpose v1's load (8 warps
//       read each sector); t2 once it has arrived;
//   v2: a word a lane stored in a 32 x 32 tile's row, bar.sync, t1; the tile's column
//       read (32-way conflicting); t2 once it has arrived;
//   v3: as v2 with rows of 33 words (no conflict);
// then a store of one line a warp and t3, a clock read into the store's address
// register (the SASS in the log shows which register each CS2R writes). 4 CTAs (one an
// SM on 4 SMs), 2 and 16 an SM (rows for SMs 0-3 only). Each launch runs twice, the
// second is printed.
//
//   nvcc -O3 -arch=sm_90 -o lgdrain scripts/hw/lgdrain.cu && ./lgdrain > lgdrain.csv
//
// stdout: mode,ctas,block,warp,smid,t0,t1,t2,t3.
#include "probe.h"
#include <cstdint>

#include "lgdrain_kernels.cu"

static void run(const char *mode, void (*kernel)(const unsigned *, unsigned *, long long *), const unsigned *a, unsigned *b, long long *out, int sms)
{
	for (int ctas : {4, 2 * sms, 16 * sms}) {
		for (int rep = 0; rep < 2; rep++) {
			kernel<<<ctas, 1024>>>(a, b, out);
			CK(cudaDeviceSynchronize());
		}
		std::vector<long long> h((size_t)ctas * 32 * ROW);
		CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
		for (size_t r = 0; r < (size_t)ctas * 32; r++) {
			const long long *o = &h[ROW * r];
			if (ctas > 4 && o[0] >= 4)
				continue;
			printf("%s,%d,%zu,%zu,%lld,%lld,%lld,%lld,%lld\n", mode, ctas, r / 32, r % 32, o[0], o[1], o[2], o[3], o[4]);
		}
	}
}

int main()
{
	int sms = smCount();
	unsigned *a, *b;
	long long *out;
	CK(cudaMalloc(&a, (size_t)32768 * 128));
	CK(cudaMemset(a, 1, (size_t)32768 * 128));
	CK(cudaMalloc(&b, (size_t)16 * sms * 1024 * 4));
	CK(cudaMalloc(&out, (size_t)16 * sms * 32 * ROW * 8));
	printf("mode,ctas,block,warp,smid,t0,t1,t2,t3\n");
	run("v1", drain_v1, a, b, out, sms);
	run("v2", drain_v2, a, b, out, sms);
	run("v3", drain_v3, a, b, out, sms);
	return 0;
}
