// sumloop.cu: what a trip of hist_warp's summing loop costs on a real GPU, and which
// of ptxas's choices make it cost that (issue 11: scripts/hw/histphase.cu found 340
// cycles a warp a trip at 4096 bins on an H100 without the global atomics, where
// gtrace's timing engine gives about 169). scripts/hw/sumloop.sh runs it.
//
// It loads the PTX files named on its command line (clang-14's and nvcc's of
// sumloop_kernels.cu, replay/testdata/sumloop*.ptx) through the driver, as
// collect.sh's launches of the reference kernels are JIT-compiled, and times each
// kernel there (see sumloop_kernels.cu) on one block of 1 or 8 warps (one SM) at 4096
// bins and 8 copies, at 1 and 2 passes: the difference over the trips of a pass is a
// trip's cycles without the fill, the loop's entry and its exit. Then sum_red and
// sum_plain again at 2048 bins and 1 to 16 copies: how a trip's cost follows the
// trip count of the copies' loop, whose SASS (ptxas unrolls it 4 more times, with
// tests for the rest) takes more or fewer branches with it.
// Prints ptx,kernel,warps,bins,copies,reps,cycles_min,cycles_max: the least and
// greatest timed cycles over the block's warps.
#include <cuda.h>
#include <fstream>
#include <sstream>
#include <string>
#include "probe.h"

#define CU(x)                                                                    \
	do {                                                                     \
		CUresult r = (x);                                                \
		if (r != CUDA_SUCCESS) {                                         \
			const char *s = "?";                                     \
			cuGetErrorString(r, &s);                                 \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s);   \
			exit(1);                                                 \
		}                                                                \
	} while (0)

int main(int argc, char **argv)
{
	smCount();
	CK(cudaFree(0)); // the runtime's primary context, which the driver calls below use
	const unsigned shared = 4 * 4096 * 8; // the most any launch below takes: 128 KB
	unsigned *hist, *sink;
	long long *cyc;
	CK(cudaMalloc(&hist, 4 * 4096));
	CK(cudaMalloc(&sink, 4));
	CK(cudaMalloc(&cyc, 8 * 32));
	printf("ptx,kernel,warps,bins,copies,reps,cycles_min,cycles_max\n");
	struct Launch {
		const char *kernel;
		unsigned bins, copies;
	};
	std::vector<Launch> launches;
	for (const char *k : {"sum_red", "sum_plain", "sum_w8", "sum_const"})
		launches.push_back({k, 4096, 8});
	for (const char *k : {"sum_red", "sum_plain"})
		for (unsigned c = 1; c <= 16; c++)
			launches.push_back({k, 2048, c});
	for (int a = 1; a < argc; a++) {
		std::ifstream f(argv[a]);
		std::stringstream ss;
		ss << f.rdbuf();
		std::string ptx = ss.str();
		if (ptx.empty()) {
			fprintf(stderr, "%s: empty or missing\n", argv[a]);
			return 1;
		}
		CUmodule mod;
		CU(cuModuleLoadData(&mod, ptx.c_str()));
		std::string name = argv[a];
		name = name.substr(name.rfind('/') + 1);
		for (const Launch &l : launches) {
			CUfunction fn;
			CU(cuModuleGetFunction(&fn, mod, l.kernel));
			CU(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared));
			for (unsigned w : {1u, 8u})
				for (int reps : {1, 2}) {
					unsigned b = l.bins, c = l.copies;
					int r = reps;
					void *args[] = {&b, &c, &r, &hist, &sink, &cyc};
					for (int rep = 0; rep < 2; rep++) { // the first warms the instruction cache
						CU(cuLaunchKernel(fn, 1, 1, 1, 32 * w, 1, 1, 4 * b * c, 0, args, nullptr));
						CK(cudaDeviceSynchronize());
					}
					long long lo, hi;
					warpCycles(cyc, w, &lo, &hi);
					printf("%s,%s,%u,%u,%u,%d,%lld,%lld\n", name.c_str(), l.kernel, w, b, c, reps, lo, hi);
				}
		}
		CU(cuModuleUnload(mod));
	}
	return 0;
}
