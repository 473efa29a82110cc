// Integer dependent latency and issue rate (issue 15, item 9): chains of the
// instructions ptxas emits for a 32-bit divide, and the divide itself. Each thread
// runs iters trips of a loop that applies one step to each of ilp independent chains
// (ilp = 1, 2, 4 or 8), 8 steps per chain per trip; a chain's value feeds its next
// step. One warp alone shows a step's dependent latency, more chains how far they
// overlap, more warps the issue rate. The steps are inline PTX, so both producers
// emit the PTX named; ptxas picks the SASS (traces/hw/h200-2026-11-26-intchain/
// intchain-sass.txt). scripts/hw/intchain.cu times the same steps with clock64.
#include "gtrace_cuda.h"

#define CHAIN_FFMA 0
#define CHAIN_IMAD 1
#define CHAIN_IADD 2
#define CHAIN_MULHI 3
#define CHAIN_SETP 4
#define CHAIN_DIV 5
#define CHAIN_REM 6

// chain_step applies one step of chain OP to x; c and d are kernel parameters, so
// nothing folds.
//   FFMA   fma.rn.f32 x, x, c, d             FFMA (the calibration: lat.fma)
//   IMAD   mad.lo.u32 x, x, x, c             IMAD
//   IADD   add.u32 x, x, c; xor.b32 x, x, d  two ALU ops (VIADD, LOP3 on sm_90)
//   MULHI  mul.hi.u32 x, x, d; add x, x, c   IMAD.HI (ptxas folds the add)
//   SETP   setp.lt.u32 p, x, c; @p add.u32 x, x, d; xor.b32 x, x, c
//                                            ISETP feeding a predicated op
//   DIV    div.u32 x, x, d; add.u32 x, x, c  the divide sequence ptxas inlines
//   REM    rem.u32 x, x, d; add.u32 x, x, c  the remainder sequence
template <int OP>
static __device__ __forceinline__ unsigned chain_step(unsigned x, unsigned c, unsigned d)
{
	if (OP == CHAIN_FFMA) {
		float f = __uint_as_float(x);
		asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f) : "f"(__uint_as_float(c)), "f"(__uint_as_float(d)));
		return __float_as_uint(f);
	} else if (OP == CHAIN_IMAD) {
		asm volatile("mad.lo.u32 %0, %0, %0, %1;" : "+r"(x) : "r"(c));
	} else if (OP == CHAIN_IADD) {
		asm volatile("add.u32 %0, %0, %1;\n\txor.b32 %0, %0, %2;" : "+r"(x) : "r"(c), "r"(d));
	} else if (OP == CHAIN_MULHI) {
		asm volatile("mul.hi.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(d), "r"(c));
	} else if (OP == CHAIN_SETP) {
		asm volatile("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %0, %1;\n\t@p add.u32 %0, %0, %2;\n\txor.b32 %0, %0, %1;\n\t}"
		             : "+r"(x)
		             : "r"(c), "r"(d));
	} else if (OP == CHAIN_DIV) {
		asm volatile("div.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(d), "r"(c));
	} else if (OP == CHAIN_REM) {
		asm volatile("rem.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(d), "r"(c));
	}
	return x;
}

// chain_seed is chain k's first value in thread t: for FFMA the float 8t + k (small
// whole numbers: every step stays exact, and no lane starts from a NaN).
static __device__ __forceinline__ unsigned chain_seed(int op, unsigned t, int k)
{
	if (op == CHAIN_FFMA)
		return __float_as_uint((float)(t * 8u + (unsigned)k));
	return t * 2654435761u + (unsigned)k * 40503u + 0x12345u;
}

// chain_run runs iters trips of K chains of OP and returns their weighted sum.
template <int OP, int K>
static __device__ __forceinline__ unsigned chain_run(unsigned c, unsigned d, int iters)
{
	unsigned x[K];
#pragma unroll
	for (int k = 0; k < K; k++)
		x[k] = chain_seed(OP, threadIdx.x, k);
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int u = 0; u < 8; u++) {
#pragma unroll
			for (int k = 0; k < K; k++)
				x[k] = chain_step<OP>(x[k], c, d);
		}
	}
	// Summed with weights, not XORed: the divide chains all reach one fixed point,
	// and an XOR of equal values would leave nothing to check.
	unsigned s = 0;
#pragma unroll
	for (int k = 0; k < K; k++)
		s = s * 31u + x[k];
	return s;
}

template <int OP>
static __device__ __forceinline__ void chain_kernel(unsigned *out, unsigned c, unsigned d, int ilp, int iters)
{
	unsigned s;
	switch (ilp) {
	case 1: s = chain_run<OP, 1>(c, d, iters); break;
	case 2: s = chain_run<OP, 2>(c, d, iters); break;
	case 4: s = chain_run<OP, 4>(c, d, iters); break;
	default: s = chain_run<OP, 8>(c, d, iters); break;
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// One entry per step; ilp picks the unrolled loop.
extern "C" __global__ void chain_ffma(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_FFMA>(out, c, d, ilp, iters); }
extern "C" __global__ void chain_imad(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_IMAD>(out, c, d, ilp, iters); }
extern "C" __global__ void chain_iadd(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_IADD>(out, c, d, ilp, iters); }
extern "C" __global__ void chain_mulhi(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_MULHI>(out, c, d, ilp, iters); }
extern "C" __global__ void chain_setp(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_SETP>(out, c, d, ilp, iters); }
extern "C" __global__ void chain_div(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_DIV>(out, c, d, ilp, iters); }
extern "C" __global__ void chain_rem(unsigned *out, unsigned c, unsigned d, int ilp, int iters) { chain_kernel<CHAIN_REM>(out, c, d, ilp, iters); }
