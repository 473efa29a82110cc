// volkov_ilp: seed 003's Part I on the GPU at hand. One block of T threads (one SM)
// runs volkov_ilpK (K = 1..4 independent FMA chains per thread) from the clang-14
// PTX corpus, loaded through the driver API as the model's traces are captured from
// it, for T = 32..1024 in steps of 32. It prints, per (K, T), the time and the FMA
// rate as a fraction of one SM's peak, so that the threads one SM needs to reach its
// peak at each ILP can be compared with `replay.Timing` on the matching preset
// (replay/timing_volkov_test.go, TestVolkovILPHopper).
//
//   nvcc -O2 -o volkov_ilp scripts/hw/volkov_ilp.cu -lcuda
//   ./volkov_ilp kernels/ptx/volkov.ptx LANES ITERS > volkov-ilp.csv
//
// LANES is the SM's FP32 lanes (128 on GH100). The SM clock is measured by a spin
// kernel (clock64 against %globaltimer) right before each sweep, so cycles are SM
// cycles whatever clock the GPU chose.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#define CK(x)                                                                  \
	do {                                                                   \
		CUresult r_ = (x);                                             \
		if (r_ != CUDA_SUCCESS) {                                      \
			const char *s_ = 0;                                    \
			cuGetErrorString(r_, &s_);                             \
			fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?");        \
			exit(1);                                               \
		}                                                              \
	} while (0)

// The clock probe, as PTX: spin for a while, report SM cycles and nanoseconds.
static const char *probe = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry probe(.param .u64 out, .param .u64 spins)
{
	.reg .u64 %c0, %c1, %t0, %t1, %n, %i, %p, %d;
	.reg .pred %q;
	ld.param.u64 %p, [out];
	ld.param.u64 %n, [spins];
	mov.u64 %t0, %globaltimer;
	mov.u64 %c0, %clock64;
	mov.u64 %i, 0;
L:
	add.u64 %i, %i, 1;
	setp.lt.u64 %q, %i, %n;
	@%q bra L;
	mov.u64 %c1, %clock64;
	mov.u64 %t1, %globaltimer;
	sub.u64 %d, %c1, %c0;
	st.global.u64 [%p], %d;
	sub.u64 %d, %t1, %t0;
	st.global.u64 [%p+8], %d;
	st.global.u64 [%p+16], %i;
	ret;
}
)";

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: volkov_ilp VOLKOV.ptx LANES ITERS\n");
		return 2;
	}
	std::ifstream f(argv[1], std::ios::binary);
	std::string ptx((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	ptx.push_back(0);
	int lanes = atoi(argv[2]), iters = atoi(argv[3]);
	CK(cuInit(0));
	CUdevice dev;
	CK(cuDeviceGet(&dev, 0));
	CUcontext ctx;
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	char name[256];
	CK(cuDeviceGetName(name, sizeof name, dev));
	CUmodule mod, pmod;
	CK(cuModuleLoadData(&mod, ptx.data()));
	CK(cuModuleLoadData(&pmod, probe));
	CUfunction pfn;
	CK(cuModuleGetFunction(&pfn, pmod, "probe"));
	CUdeviceptr out, pout;
	CK(cuMemAlloc(&out, 1024 * sizeof(float)));
	CK(cuMemAlloc(&pout, 24));
	CUevent e0, e1;
	CK(cuEventCreate(&e0, 0));
	CK(cuEventCreate(&e1, 0));
	printf("# gpu: %s, lanes %d, iters %d, ptx %s\n", name, lanes, iters, argv[1]);
	printf("ilp,threads,ms,sm_mhz,cycles,fmas,fraction\n");
	for (int ilp = 1; ilp <= 4; ilp++) {
		char entry[32];
		snprintf(entry, sizeof entry, "volkov_ilp%d", ilp);
		CUfunction fn;
		CK(cuModuleGetFunction(&fn, mod, entry));
		// The SM clock now, from one probe launch.
		unsigned long long spins = 20000000ULL, pr[2];
		void *pp[] = {&pout, &spins};
		CK(cuLaunchKernel(pfn, 1, 1, 1, 1, 1, 1, 0, 0, pp, 0));
		CK(cuCtxSynchronize());
		CK(cuMemcpyDtoH(pr, pout, 16));
		double mhz = 1e3 * (double)pr[0] / (double)pr[1];
		for (int t = 32; t <= 1024; t += 32) {
			float b = 1, c = 0.5f;
			void *params[] = {&out, &b, &c, &iters};
			float best = 1e30f;
			for (int rep = 0; rep < 3; rep++) {
				CK(cuEventRecord(e0, 0));
				CK(cuLaunchKernel(fn, 1, 1, 1, t, 1, 1, 0, 0, params, 0));
				CK(cuEventRecord(e1, 0));
				CK(cuEventSynchronize(e1));
				float ms;
				CK(cuEventElapsedTime(&ms, e0, e1));
				if (ms < best)
					best = ms;
			}
			double fmas = (double)t * iters * 16 * ilp;
			double cycles = best * 1e-3 * mhz * 1e6;
			printf("%d,%d,%.4f,%.0f,%.0f,%.0f,%.4f\n", ilp, t, best, mhz, cycles, fmas, fmas / (cycles * lanes));
		}
	}
	return 0;
}
