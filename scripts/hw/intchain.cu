// intchain.cu: the dependent latency and the issue rate of the integer instructions
// ptxas emits for a 32-bit divide, and of the divide itself (issue 15, item 9:
// cutoff_direct's register divides are 41% too fast in the model with nvcc's code and
// 4% too slow with clang-14's). scripts/hw/intchain.sh runs it and dumps the SASS.
//
//   intchain
//
// Each kernel runs iters trips of a loop whose body applies one step to each of K
// independent chains (K = 1, 2, 4, 8: instruction-level parallelism), unrolled U
// times; a chain's value feeds its next step, so one warp alone measures the step's
// dependent latency (K = 1) and how far independent chains overlap (K > 1), and more
// warps per SM its issue rate. The steps are the reference kernels' (chain_step in
// kernels/cu/intchain.cu, inline PTX, so each is the PTX named; ptxas picks the SASS,
// which intchain.sh prints); this loop adds clock64 around them:
//   ffma   fma.rn.f32 x, x, c, d             FFMA: the calibration (lat.fma)
//   imad   mad.lo.u32 x, x, x, c             IMAD
//   iadd   add.u32 x, x, c; xor.b32 x, x, d  VIADD + LOP3 on sm_90: two ALU ops
//   mulhi  mul.hi.u32 x, x, d; add x, x, c   one IMAD.HI (ptxas folds the add)
//   setp   setp.lt.u32 p, x, c; @p add.u32 x, x, d; xor.b32 x, x, c
//                                            ISETP feeding a predicated VIADD, LOP3
//   div    div.u32 x, x, d; add.u32 x, x, c  the divide sequence ptxas inlines
//   rem    rem.u32 x, x, d; add.u32 x, x, c  the remainder sequence
// Launches: one block on one SM with W warps (W = 1, 2, 4, 8, 16, 32), and the same
// block on every SM (grid = SM count). Clock64 is read before and after the loop by
// each warp's lane 0; the launch is also timed with CUDA events.
// Prints op,ilp,warps,blocks,iters,unroll,cycles_min,cycles_max,ms where cycles_* are
// the least and greatest loop cycles over the warps of block 0.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "probe.h"
// The steps themselves (chain_step), and the reference kernels built from them.
#include "../../kernels/cu/intchain.cu"

enum Op { FFMA = CHAIN_FFMA, IMAD, IADD, MULHI, SETP, DIV, REM, NOPS };
static const char *names[NOPS] = {"ffma", "imad", "iadd", "mulhi", "setp", "div", "rem"};

#define U 8 // steps per chain per trip, as in chain_run

template <int OP, int K>
__global__ void chain(unsigned *out, long long *cyc, unsigned c, unsigned d, int iters)
{
	unsigned x[K];
#pragma unroll
	for (int k = 0; k < K; k++)
		x[k] = chain_seed(OP, threadIdx.x, k);
	__syncwarp();
	long long t0 = clock64();
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int u = 0; u < U; u++) {
#pragma unroll
			for (int k = 0; k < K; k++)
				x[k] = chain_step<OP>(x[k], c, d);
		}
	}
	__syncwarp();
	long long t1 = clock64();
	unsigned s = 0;
#pragma unroll
	for (int k = 0; k < K; k++)
		s ^= x[k];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
	if ((threadIdx.x & 31) == 0 && blockIdx.x == 0)
		cyc[threadIdx.x / 32] = t1 - t0;
}

typedef void (*kernel)(unsigned *, long long *, unsigned, unsigned, int);

template <int OP>
static kernel pick(int k)
{
	switch (k) {
	case 1: return chain<OP, 1>;
	case 2: return chain<OP, 2>;
	case 4: return chain<OP, 4>;
	}
	return chain<OP, 8>;
}

static kernel pickOp(int op, int k)
{
	switch (op) {
	case FFMA: return pick<FFMA>(k);
	case IMAD: return pick<IMAD>(k);
	case IADD: return pick<IADD>(k);
	case MULHI: return pick<MULHI>(k);
	case SETP: return pick<SETP>(k);
	case DIV: return pick<DIV>(k);
	}
	return pick<REM>(k);
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && strcmp(argv[1], "once") == 0;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	int sms = prop.multiProcessorCount;
	unsigned *out;
	long long *cyc;
	CK(cudaMalloc(&out, (size_t)sms * 1024 * sizeof(unsigned)));
	CK(cudaMalloc(&cyc, 32 * sizeof(long long)));
	printf("# %s, %d SMs\n", prop.name, sms);
	printf("op,ilp,warps,blocks,iters,unroll,cycles_min,cycles_max,ms\n");
	const int ks[] = {1, 2, 4, 8}, ws[] = {1, 2, 4, 8, 16, 32};
	// a float 1.0 and 0.5 for ffma (x stays finite); divisor 7, addend 0x9e3779b9
	for (int op = 0; op < NOPS; op++) {
		unsigned c = op == FFMA ? 0x3f800000u : 0x9e3779b9u, d = op == FFMA ? 0x3f000000u : 7u;
		int iters = op == DIV || op == REM ? 256 : 2048;
		for (int k : ks) {
			kernel fn = pickOp(op, k);
			for (int w : ws) {
				for (int blocks : {1, sms}) {
					if (blocks > 1 && w != 1 && w != 8 && w != 32)
						continue;
					float ms = timeLaunch(once, [&] { fn<<<blocks, w * 32>>>(out, cyc, c, d, iters); });
					long long h[32];
					CK(cudaMemcpy(h, cyc, w * sizeof(long long), cudaMemcpyDeviceToHost));
					long long lo = h[0], hi = h[0];
					for (int i = 1; i < w; i++) {
						lo = h[i] < lo ? h[i] : lo;
						hi = h[i] > hi ? h[i] : hi;
					}
					printf("%s,%d,%d,%d,%d,%d,%lld,%lld,%.4f\n", names[op], k, w, blocks, iters, U, lo, hi, ms);
				}
			}
		}
	}
	return 0;
}
