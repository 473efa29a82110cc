// launch_clock.cuh: the device side the timed probe kernels share (streamlat_kernels.cu,
// copylat_kernels.cu, wbhome.cu): %globaltimer, and block 0's thread 0 stamping the
// kernel's start and end so that the driver can tell the SM clock (clock64 over
// %globaltimer).
#pragma once

__device__ __forceinline__ unsigned long long globaltimer()
{
	unsigned long long t = 0;
#ifndef GTRACE_CUDA_RUNTIME_H // gtrace has no %globaltimer: its value depends on timing
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
#endif
	return t;
}

// launchStamp is block 0's thread 0's %globaltimer and clock64 at the kernel's start
// (zeros in every other thread).
struct launchStamp {
	unsigned long long g, c;
};

__device__ __forceinline__ launchStamp launchStart()
{
	launchStamp s = {0, 0};
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		s.g = globaltimer();
		s.c = clock64();
	}
	return s;
}

// launchEnd writes, from block 0's thread 0, the start s and the end's %globaltimer and
// clock64 to meta[0..3].
__device__ __forceinline__ void launchEnd(launchStamp s, unsigned long long *meta)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		meta[0] = s.g;
		meta[1] = s.c;
		meta[2] = globaltimer();
		meta[3] = clock64();
	}
}
