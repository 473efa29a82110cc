// sm_stamp.cuh: what the probes that time warps on one SM share (rounds_kernels.cu,
// lgqueue.cu, lgdepth.cu, lgstore.cu, lgafter.cu, phases.cu, shconf.cu, lgdrain.cu): the
// SM's clock, read in program order (asm volatile with a memory clobber: the compiler
// keeps it between the loads around it), the SM a warp runs on, and a global load and a
// shared word's load and store kept in that order.
#pragma once

__device__ __forceinline__ long long smClock()
{
	long long t;
	asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
	return t;
}

__device__ __forceinline__ unsigned smid()
{
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

// smClockAfter is the SM's clock once v has arrived: a dependent add orders the read
// after it, and a store of the sum to sink that never happens keeps the add.
__device__ __forceinline__ long long smClockAfter(unsigned v, unsigned *sink)
{
	unsigned u;
	asm volatile("add.u32 %0, %1, 1;" : "=r"(u) : "r"(v));
	long long t = smClock();
	if (u == 0x12345678)
		sink[0] = u;
	return t;
}

// ldOrdered is a global load of a word that stays where the program has it between
// the clock reads around it.
__device__ __forceinline__ unsigned ldOrdered(const unsigned *p)
{
	unsigned v;
	asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

// ldShared and stShared are a shared-memory word's load and store, kept where the
// program has them between the clock reads around them.
__device__ __forceinline__ unsigned ldShared(const unsigned *p)
{
	unsigned v;
	asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory");
	return v;
}

__device__ __forceinline__ void stShared(unsigned *p, unsigned v)
{
	asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(p)), "r"(v) : "memory");
}
