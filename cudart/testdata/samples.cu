// Kernels in the style of NVIDIA's cuda-samples (reduce6, histogram256) and of the
// CUDA Programming Guide's examples, written against the CUDA SDK's names only:
// header_test.go compiles this file with clang-14 and gtrace's header (no SDK),
// captures each kernel and checks its output against Go.
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <stdio.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

// reduce6: each thread sums a grid-stride run, the block reduces in shared memory to
// one warp, the warp finishes with __shfl_down_sync (cuda-samples' reduction kernel).
template <unsigned int blockSize>
__device__ void reduce6(const float *__restrict__ g_idata, float *__restrict__ g_odata, unsigned int n)
{
	__shared__ float sdata[blockSize];
	unsigned int tid = threadIdx.x;
	unsigned int gridSize = blockSize * 2 * gridDim.x;
	float mySum = 0;
	for (unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x; i < n; i += gridSize) {
		mySum += g_idata[i];
		if (i + blockSize < n)
			mySum += g_idata[i + blockSize];
	}
	sdata[tid] = mySum;
	__syncthreads();
	if (blockSize >= 512 && tid < 256)
		sdata[tid] = mySum = mySum + sdata[tid + 256];
	__syncthreads();
	if (blockSize >= 256 && tid < 128)
		sdata[tid] = mySum = mySum + sdata[tid + 128];
	__syncthreads();
	if (blockSize >= 128 && tid < 64)
		sdata[tid] = mySum = mySum + sdata[tid + 64];
	__syncthreads();
	if (tid < 32) {
		if (blockSize >= 64)
			mySum += sdata[tid + 32];
		for (int offset = warpSize / 2; offset > 0; offset /= 2)
			mySum += __shfl_down_sync(0xffffffff, mySum, offset);
	}
	if (tid == 0)
		g_odata[blockIdx.x] = mySum;
}

extern "C" __global__ void __launch_bounds__(256) reduce6_256(const float *in, float *out, unsigned int n)
{
	reduce6<256>(in, out, n);
}

// histogram256: per-block histogram in shared memory with atomicAdd, merged into the
// global one with atomicAdd (cuda-samples' histogram256, without its per-warp copies).
extern "C" __global__ void histogram256(uint *d_Histogram, const uint4 *d_Data, uint dataCount)
{
	__shared__ uint s_Hist[256];
	for (uint i = threadIdx.x; i < 256; i += blockDim.x)
		s_Hist[i] = 0;
	__syncthreads();
	for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) {
		uint4 data = __ldg(&d_Data[pos]);
		uint words[4] = {data.x, data.y, data.z, data.w};
		for (int w = 0; w < 4; w++)
			for (int b = 0; b < 32; b += 8)
				atomicAdd(&s_Hist[(words[w] >> b) & 0xFFU], 1);
	}
	__syncthreads();
	for (uint i = threadIdx.x; i < 256; i += blockDim.x)
		atomicAdd(&d_Histogram[i], s_Hist[i]);
}

// atomics: every atomic function on every type it has, from every thread of the grid.
// Results that do not depend on the order of the threads: slot layout in header_test.go.
extern "C" __global__ void atomics(int *i, unsigned int *u, unsigned long long *ull, long long *ll, float *f, double *d)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(&i[0], t);
	atomicSub(&i[1], t);
	atomicMin(&i[2], t - 100);
	atomicMax(&i[3], t - 100);
	atomicAnd(&i[4], ~(1 << (t % 31)));
	atomicOr(&i[5], 1 << (t % 31));
	atomicXor(&i[6], t);
	atomicAdd(&u[0], 3u);
	atomicSub(&u[1], 1u);
	atomicMin(&u[2], (unsigned)t + 7);
	atomicMax(&u[3], (unsigned)t * 3);
	atomicInc(&u[4], 9u);
	atomicDec(&u[5], 9u);
	atomicAnd(&u[6], 0xffffffffu ^ (1u << (t % 32)));
	atomicOr(&u[7], 1u << (t % 32));
	atomicXor(&u[8], (unsigned)t * 2654435761u);
	// A lock-free maximum through atomicCAS, as the Programming Guide writes atomics that
	// the hardware lacks.
	unsigned int old = u[9], assumed;
	do {
		assumed = old;
		old = atomicCAS(&u[9], assumed, max(assumed, (unsigned)t * 5));
	} while (assumed != old);
	atomicAdd(&ull[0], 1ull << 33);
	atomicMin(&ull[1], (unsigned long long)t << 34);
	atomicMax(&ull[2], (unsigned long long)t << 34);
	atomicAnd(&ull[3], ~(1ull << (t % 64)));
	atomicOr(&ull[4], 1ull << (t % 64));
	atomicXor(&ull[5], (unsigned long long)t << 20);
	unsigned long long o = ull[6], a;
	do {
		a = o;
		o = atomicCAS(&ull[6], a, a + (unsigned long long)t);
	} while (a != o);
	atomicExch(&ull[7], 42ull);
	atomicMin(&ll[0], -((long long)t << 35));
	atomicMax(&ll[1], -((long long)t << 35));
	atomicAdd(&f[0], 0.5f);
	atomicExch(&f[1], 2.5f);
	atomicAdd(&d[0], 0.25);
	atomicExch(&i[7], 7);
	atomicExch(&u[10], 11u);
}

// warp: the warp functions, one result per thread, slot layout in header_test.go.
extern "C" __global__ void warp(int *out, double *dout)
{
	int lane = threadIdx.x % 32;
	int *o = out + threadIdx.x * 16;
	o[0] = __shfl_sync(0xffffffff, lane * 10, 31 - lane);
	o[1] = __shfl_up_sync(0xffffffff, lane, 3);
	o[2] = __shfl_down_sync(0xffffffff, lane, 5, 16);
	o[3] = __shfl_xor_sync(0xffffffff, lane, 1);
	int sum = lane;
	for (int m = 16; m > 0; m /= 2)
		sum += __shfl_xor_sync(0xffffffff, sum, m);
	o[4] = sum;
	o[5] = (int)__ballot_sync(0xffffffff, lane % 3 == 0);
	o[6] = __all_sync(0xffffffff, lane < 32);
	o[7] = __any_sync(0xffffffff, lane == 17);
	if (lane < 20)
		o[8] = (int)__activemask();
	else
		o[8] = -1;
	o[9] = __popc((unsigned)lane * 0x01010101u);
	o[10] = __clz(lane);
	o[11] = __ffs(lane << 4);
	o[12] = (int)__brev((unsigned)lane);
	o[13] = (int)__byte_perm(0x33221100u + lane, 0x77665544u, 0x5140);
	o[14] = (int)__funnelshift_l(0x80000001u, (unsigned)lane, 4);
	o[15] = __umulhi(0x90000000u, (unsigned)lane * 0x12345u) + __mul24(lane, -3);
	dout[threadIdx.x] = __shfl_sync(0xffffffff, 1.0 / (lane + 1), (lane + 1) % 32);
	__syncwarp();
}

// clocks: clock64() around a short chain and clock() before it, three results per
// thread: the difference, clock()'s value and clock64()'s first value.
extern "C" __global__ void clocks(const float *x, long long *out)
{
	int t = threadIdx.x;
	long long t0 = clock64();
	clock_t c = clock();
	float v = x[t];
	for (int i = 0; i < 4; i++)
		v = v * 1.5f + 1.0f;
	long long t1 = clock64();
	out[t * 3 + 0] = t1 - t0 + (v == 12345.0f); // keeps the chain
	out[t * 3 + 1] = c;
	out[t * 3 + 2] = t0;
}

// syncs: __syncthreads_count, _and and _or, three results per thread.
extern "C" __global__ void syncs(int *out)
{
	int t = threadIdx.x;
	out[t * 3 + 0] = __syncthreads_count(t % 3 == 0);
	out[t * 3 + 1] = __syncthreads_and(t != 100);
	out[t * 3 + 2] = __syncthreads_or(t == 77);
}

// math: one result per function per thread, slot layout in header_test.go.
extern "C" __global__ void math(const float *x, float *out, int *iout)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	float v = x[t];
	float *o = out + t * 12;
	o[0] = sqrtf(v);
	o[1] = rsqrtf(v);
	o[2] = __fdividef(v, 3.0f);
	o[3] = __expf(v);
	o[4] = __logf(v);
	o[5] = __saturatef(v - 1.0f);
	o[6] = fminf(v, 1.5f) + fmaxf(v, 0.5f);
	o[7] = floorf(v * 3.0f) + ceilf(v * 7.0f);
	o[8] = rintf(v * 5.0f) + truncf(-v * 5.0f);
	o[9] = fmaf(v, v, -1.0f);
	o[10] = __sinf(v);
	o[11] = __int_as_float(__float_as_int(v) ^ 0x80000000);
	iout[t] = __float2int_rn(v * 100.0f);
	float4 q = make_float4(v, 2 * v, 3 * v, 4 * v);
	__stcs(reinterpret_cast<float4 *>(out + 64 * 12) + t, q);
}

// hints2: the two-element forms of the cache-hint loads and stores (__ldcg on a uint2, as
// scripts/hw/streamlat_kernels.cu has it).
extern "C" __global__ void hints2(const float2 *x, const ulonglong2 *y, float2 *fo, ulonglong2 *yo)
{
	int t = threadIdx.x;
	float2 a = __ldcg(x + t);
	ulonglong2 b = __ldcs(y + t);
	__stcg(fo + t, make_float2(a.y, a.x));
	__stwt(yo + t, make_ulonglong2(b.y + 1, b.x));
}

// cg_reduce: cuda-samples' reduce4 as it is written with cooperative groups: the block
// syncs through cg::sync, the last warp finishes with a tile's shfl_down.
extern "C" __global__ void cg_reduce(const float *g_idata, float *g_odata, unsigned int n)
{
	cg::thread_block cta = cg::this_thread_block();
	__shared__ float sdata[256];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
	float mySum = (i < n) ? g_idata[i] : 0;
	if (i + blockDim.x < n)
		mySum += g_idata[i + blockDim.x];
	sdata[tid] = mySum;
	cg::sync(cta);
	for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
		if (tid < s)
			sdata[tid] = mySum = mySum + sdata[tid + s];
		cg::sync(cta);
	}
	cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
	if (cta.thread_rank() < 32) {
		if (blockDim.x >= 64)
			mySum += sdata[tid + 32];
		for (int offset = tile32.size() / 2; offset > 0; offset /= 2)
			mySum += tile32.shfl_down(mySum, offset);
	}
	if (cta.thread_rank() == 0)
		g_odata[blockIdx.x] = mySum;
}

// cg_tiles: warps and tiles of 8 with cg::reduce (as llm.c's kernels use it), ranks,
// ballot and shuffles, and a coalesced group made in a divergent branch; slot layout
// in header_test.go.
extern "C" __global__ void cg_tiles(const int *in, int *out)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	auto t8 = cg::tiled_partition<8>(block);
	int v = in[block.thread_rank()];
	int *o = out + block.thread_rank() * 10;
	o[0] = cg::reduce(warp, v, cg::plus<int>());
	o[1] = cg::reduce(t8, v, cg::greater<int>());
	o[2] = cg::reduce(t8, v, cg::less<int>());
	o[3] = t8.thread_rank() + 100 * t8.meta_group_rank();
	o[4] = t8.ballot(v % 2);
	o[5] = t8.shfl(v, 3);
	o[6] = t8.shfl_down(v, 2);
	o[7] = warp.meta_group_rank() * 1000 + warp.meta_group_size();
	t8.sync();
	if (v % 3 == 0) {
		cg::coalesced_group active = cg::coalesced_threads();
		o[8] = active.thread_rank() * 100 + active.size();
		o[9] = active.shfl(v, 0);
	} else {
		o[8] = -1;
		o[9] = -1;
	}
}

// cg_match: match_any and match_all on a tile of 8 and on a coalesced group, and
// cg::reduce where CUDA takes redux.sync (32-bit integers: xor, min, or, add) and where
// it shuffles (a float over a coalesced group); slot layout in header_test.go.
extern "C" __global__ void cg_match(const int *in, int *out)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	auto t8 = cg::tiled_partition<8>(block);
	int x = in[block.thread_rank()], v = x & 3;
	int *o = out + block.thread_rank() * 12;
	int pred;
	o[0] = t8.match_any(v);
	o[1] = t8.match_all(v, pred);
	o[2] = pred;
	o[3] = t8.match_all(7, pred);
	o[4] = pred;
	o[5] = cg::reduce(t8, (unsigned int)x, cg::bit_xor<unsigned int>());
	o[6] = cg::reduce(warp, (unsigned int)x, cg::less<unsigned int>());
	o[7] = cg::reduce(t8, v, cg::bit_or<int>());
	if (v != 0) {
		cg::coalesced_group active = cg::coalesced_threads();
		o[8] = active.match_any(x & 12);
		o[9] = cg::reduce(active, x, cg::plus<int>());
		o[10] = (int)cg::reduce(active, (float)v, cg::plus<float>());
		o[11] = active.match_all(v, pred) * 2 + pred;
	} else {
		o[8] = o[9] = o[10] = o[11] = -1;
	}
}

// cg_grid: this_grid()'s ranks and sizes, per thread; with doSync, grid.sync(), which
// traps because the launch is not cooperative.
extern "C" __global__ void cg_grid(unsigned long long *out, int doSync)
{
	cg::grid_group grid = cg::this_grid();
	unsigned long long *o = out + grid.thread_rank() * 8;
	dim3 blocks = grid.dim_blocks(), at = grid.block_index();
	o[0] = grid.size();
	o[1] = grid.num_threads();
	o[2] = grid.num_blocks();
	o[3] = grid.block_rank();
	o[4] = grid.is_valid();
	o[5] = blocks.x * 10000 + blocks.y * 100 + blocks.z;
	o[6] = at.x * 10000 + at.y * 100 + at.z;
	o[7] = grid.group_dim().x;
	if (doSync)
		grid.sync();
}

// cg_partition: labeled_partition and binary_partition, in a file of its own because
// scripts/hw/cgpart.cu runs the same kernel on a GPU through CUDA's header.
#include "cg_partition.cuh"

// simd: the SIMD intrinsics, in a file of its own because scripts/hw/simd.cu runs the
// same kernel on a GPU through CUDA's library.
#include "simd.cuh"

// The precise math library (gtrace_math.h): one call per thread, as
// scripts/hw/mathfn.cu runs CUDA's on a GPU; math_test.go compares the two.
#define PRECISE_T(T, NAME, EXPR)                                                      \
	extern "C" __global__ void m_##NAME(const T *x, const T *y, T *r, int n)       \
	{                                                                               \
		int i = blockIdx.x * blockDim.x + threadIdx.x;                          \
		if (i < n) {                                                            \
			T a = x[i], b = y[i];                                           \
			r[i] = (EXPR);                                                  \
		}                                                                       \
	}
#define PRECISE(NAME, EXPR) PRECISE_T(float, NAME, EXPR)
#define PRECISE_D(NAME, EXPR) PRECISE_T(double, NAME, EXPR)
PRECISE(copy, a)
PRECISE(expf, expf(a))
PRECISE(exp2f, exp2f(a))
PRECISE(exp10f, exp10f(a))
PRECISE(expm1f, expm1f(a))
PRECISE(logf, logf(a))
PRECISE(log2f, log2f(a))
PRECISE(log10f, log10f(a))
PRECISE(log1pf, log1pf(a))
PRECISE(powf, powf(a, b))
PRECISE(sinf, sinf(a))
PRECISE(cosf, cosf(a))
PRECISE(tanf, tanf(a))
PRECISE(tanhf, tanhf(a))
PRECISE(sinhf, sinhf(a))
PRECISE(coshf, coshf(a))
PRECISE(erff, erff(a))
PRECISE(atanf, atanf(a))
PRECISE(atan2f, atan2f(a, b))
PRECISE(asinf, asinf(a))
PRECISE(acosf, acosf(a))
PRECISE(hypotf, hypotf(a, b))
PRECISE(erfcf, erfcf(a))
PRECISE(cbrtf, cbrtf(a))
PRECISE(sinpif, sinpif(a))
PRECISE(cospif, cospif(a))
PRECISE(asinhf, asinhf(a))
PRECISE(acoshf, acoshf(a))
PRECISE(atanhf, atanhf(a))
PRECISE(fmodf, fmodf(a, b))
PRECISE(remainderf, remainderf(a, b))
PRECISE(normcdff, normcdff(a))
PRECISE(erfinvf, erfinvf(a))
PRECISE(erfcinvf, erfcinvf(a))
PRECISE(normcdfinvf, normcdfinvf(a))
PRECISE(rcbrtf, rcbrtf(a))
PRECISE(erfcxf, erfcxf(a))
PRECISE(lgammaf, lgammaf(a))
PRECISE(tgammaf, tgammaf(a))
// The exact functions as scripts/hw/mathfn.cu runs them on the H100: each result of
// frexp, modf and remquo in a kernel of its own.
#include "../../scripts/hw/mathfn_results.h"
PRECISE(frexpf, frexpf_m(a))
PRECISE(frexpf_e, frexpf_e(a))
PRECISE(ldexpf, ldexpf(a, (int)b))
PRECISE(scalbnf, scalbnf(a, (int)b))
PRECISE(ilogbf, ilogbf(a))
PRECISE(logbf, logbf(a))
PRECISE(modff, modff_f(a))
PRECISE(modff_i, modff_i(a))
PRECISE(nextafterf, nextafterf(a, b))
PRECISE(fdimf, fdimf(a, b))
PRECISE(nearbyintf, nearbyintf(a))
PRECISE(lrintf, lrintf(a))
PRECISE(lroundf, lroundf(a))
PRECISE(llrintf, llrintf(a))
PRECISE(llroundf, llroundf(a))
PRECISE(remquof, remquof_r(a, b))
PRECISE(remquof_q, remquof_q(a, b))
PRECISE(fdividef, fdividef(a, b))
// The norms on the H100 run's arguments: x, y, x - y and x + y.
PRECISE(rhypotf, rhypotf(a, b))
PRECISE(norm3df, norm3df(a, b, a - b))
PRECISE(rnorm3df, rnorm3df(a, b, a - b))
PRECISE(norm4df, norm4df(a, b, a - b, a + b))
PRECISE(rnorm4df, rnorm4df(a, b, a - b, a + b))
PRECISE(normf, normf3(a, b, false))
PRECISE(rnormf, normf3(a, b, true))
PRECISE(cyl_bessel_i0f, cyl_bessel_i0f(a))
PRECISE(cyl_bessel_i1f, cyl_bessel_i1f(a))
PRECISE(j0f, j0f(a))
PRECISE(j1f, j1f(a))
PRECISE(y0f, y0f(a))
PRECISE(y1f, y1f(a))
PRECISE(jnf, jnf(3, a))
PRECISE(ynf, ynf(3, a))
// The classifications as bits, and nanf and nan in place of a NaN input.
PRECISE(classify, isnan(a) | isinf(a) << 1 | isfinite(a) << 2 | signbit(a) << 3 | __isnanf(a) << 4 |
			  __isinff(a) << 5 | __finitef(a) << 6 | __signbitf(a) << 7 | isnan((double)a) << 8 |
			  isinf((double)a) << 9 | isfinite((double)a) << 10 | signbit((double)a) << 11 |
			  __isnan((double)a) << 12 | __isinf((double)a) << 13 | __isfinited((double)a) << 14 |
			  __signbitd((double)a) << 15)
PRECISE(nanf, a != a ? nanf("") : a)
PRECISE_D(nan, a != a ? nan("") : a)
PRECISE(rintf, rintf(a))
PRECISE(roundf, roundf(a))
PRECISE(fmul_rn, __fadd_rn(__fmul_rn(a, b), b))
// A rounded product less itself: 0, where an fma would leave the product's rounding error.
PRECISE(dmul_rn, (float)(__dadd_rn(__dmul_rn(a / 3.0, b / 7.0), -__dmul_rn(a / 3.0, b / 7.0)) * 0x1p60))
// C++'s float overloads are the float functions: the same bits as their f names.
PRECISE(overloads, exp(a) + log(a) + pow(a, b) + sin(a) + tanh(a) + erfc(a) + sqrt(a) + fabs(b) + floor(a) +
			   fmin(a, b) + fma(a, b, a) + hypot(a, b) + atan2(a, b) + cbrt(a) + asinh(a) + fmod(a, b) +
			   sinpi(a) + normcdf(b) + rcbrt(a) + erfcx(b) + lgamma(a) + tgamma(a))
PRECISE(overloads_f, expf(a) + logf(a) + powf(a, b) + sinf(a) + tanhf(a) + erfcf(a) + sqrtf(a) + fabsf(b) +
			     floorf(a) + fminf(a, b) + fmaf(a, b, a) + hypotf(a, b) + atan2f(a, b) + cbrtf(a) +
			     asinhf(a) + fmodf(a, b) + sinpif(a) + normcdff(b) + rcbrtf(a) + erfcxf(b) +
			     lgammaf(a) + tgammaf(a))

// The double forms.
PRECISE_D(copy_f64, a)
PRECISE_D(exp, exp(a))
PRECISE_D(log, log(a))
PRECISE_D(sin, sin(a))
PRECISE_D(cos, cos(a))
PRECISE_D(exp2, exp2(a))
PRECISE_D(exp10, exp10(a))
PRECISE_D(expm1, expm1(a))
PRECISE_D(log2, log2(a))
PRECISE_D(log10, log10(a))
PRECISE_D(log1p, log1p(a))
PRECISE_D(tan, tan(a))
PRECISE_D(sinh, sinh(a))
PRECISE_D(cosh, cosh(a))
PRECISE_D(cbrt, cbrt(a))
PRECISE_D(hypot, hypot(a, b))
PRECISE_D(sinpi, sinpi(a))
PRECISE_D(cospi, cospi(a))
PRECISE_D(asinh, asinh(a))
PRECISE_D(acosh, acosh(a))
PRECISE_D(atanh, atanh(a))
PRECISE_D(fmod, fmod(a, b))
PRECISE_D(remainder, remainder(a, b))
PRECISE_D(pow, pow(a, b))
PRECISE_D(tanh, tanh(a))
PRECISE_D(atan, atan(a))
PRECISE_D(atan2, atan2(a, b))
PRECISE_D(asin, asin(a))
PRECISE_D(acos, acos(a))
PRECISE_D(erf, erf(a))
PRECISE_D(erfc, erfc(a))
PRECISE_D(normcdf, normcdf(a))
PRECISE_D(rcbrt, rcbrt(a))
PRECISE_D(erfcx, erfcx(a))
PRECISE_D(erfinv, erfinv(a))
PRECISE_D(erfcinv, erfcinv(a))
PRECISE_D(normcdfinv, normcdfinv(a))
PRECISE_D(lgamma, lgamma(a))
PRECISE_D(tgamma, tgamma(a))
PRECISE_D(frexp, frexp_m(a))
PRECISE_D(frexp_e, frexp_e(a))
PRECISE_D(ldexp, ldexp(a, (int)b))
PRECISE_D(scalbn, scalbn(a, (int)b))
PRECISE_D(ilogb, ilogb(a))
PRECISE_D(logb, logb(a))
PRECISE_D(modf, modf_f(a))
PRECISE_D(modf_i, modf_i(a))
PRECISE_D(nextafter, nextafter(a, b))
PRECISE_D(fdim, fdim(a, b))
PRECISE_D(nearbyint, nearbyint(a))
PRECISE_D(lrint, lrint(a))
PRECISE_D(lround, lround(a))
PRECISE_D(llrint, llrint(a))
PRECISE_D(llround, llround(a))
PRECISE_D(remquo, remquo_r(a, b))
PRECISE_D(remquo_q, remquo_q(a, b))
PRECISE_D(rhypot, rhypot(a, b))
PRECISE_D(norm3d, norm3d(a, b, a - b))
PRECISE_D(rnorm3d, rnorm3d(a, b, a - b))
PRECISE_D(norm4d, norm4d(a, b, a - b, a + b))
PRECISE_D(rnorm4d, rnorm4d(a, b, a - b, a + b))
PRECISE_D(norm, norm3(a, b, false))
PRECISE_D(rnorm, norm3(a, b, true))
PRECISE_D(cyl_bessel_i0, cyl_bessel_i0(a))
PRECISE_D(cyl_bessel_i1, cyl_bessel_i1(a))
PRECISE_D(j0, j0(a))
PRECISE_D(j1, j1(a))
PRECISE_D(y0, y0(a))
PRECISE_D(y1, y1(a))
PRECISE_D(jn, jn(3, a))
PRECISE_D(yn, yn(3, a))
PRECISE_D(jn_n, jn((int)b, a))
PRECISE_D(yn_n, yn((int)b, a))

// norm, rnorm, normf and rnormf over n values: of x, and of y (x's values as floats).
extern "C" __global__ void m_norms(const double *x, const float *y, double *r, int n)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		r[0] = norm(n, x);
		r[1] = rnorm(n, x);
		r[2] = normf(n, y);
		r[3] = rnormf(n, y);
	}
}

// sincosf's two results: the sine in r, the cosine in y's place.
extern "C" __global__ void m_sincosf(const float *x, float *y, float *r, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		sincosf(x[i], &r[i], &y[i]);
}

// Host code parses (its calls are declarations only): a whole .cu file compiles.
int main()
{
	float *d_in, *d_out;
	cudaMalloc(&d_in, 1024 * sizeof(float));
	cudaMalloc(&d_out, 4 * sizeof(float));
	reduce6_256<<<4, 256>>>(d_in, d_out, 1024);
	cudaError_t err = cudaDeviceSynchronize();
	if (err != cudaSuccess)
		printf("%s\n", cudaGetErrorString(err));
	dim3 grid(2, 1), block(dim3(128));
	histogram256<<<grid, block>>>(0, 0, 0);
	cudaFree(d_in);
	return 0;
}

// intrinsics: the integer intrinsics, warp reductions and matches, and address-space
// predicates that are one PTX instruction each; slot layout in header_test.go.
extern "C" __global__ void intrinsics(const unsigned int *x, unsigned int *out)
{
	__shared__ int sh[32];
	unsigned int t = threadIdx.x, lane = t % 32;
	unsigned int a = x[3 * t], b = x[3 * t + 1], c = x[3 * t + 2];
	unsigned int *o = out + t * 16;
	sh[lane] = (int)a;
	o[0] = __sad((int)a, (int)b, c);
	o[1] = __usad(a, b, c);
	o[2] = (unsigned int)__dp4a((int)a, (int)b, (int)c);
	o[3] = __dp4a(a, b, c);
	o[4] = (unsigned int)__dp2a_lo((int)a, (int)b, (int)c);
	o[5] = __dp2a_hi(a, b, c);
	o[6] = __fns(a, b % 32, (int)(c % 33) - 16);
	o[7] = (unsigned int)__reduce_add_sync(0xffffffff, (int)a);
	o[8] = __reduce_min_sync(0xffffffff, a);
	o[9] = (unsigned int)__reduce_max_sync(0xffffffff, (int)a);
	o[10] = __reduce_xor_sync(0xffffffff, a);
	o[11] = __match_any_sync(0xffffffff, a % 3);
	int pred;
	o[12] = __match_all_sync(0xffffffff, lane / 32, &pred) ^ (unsigned int)pred << 4;
	o[13] = __isGlobal(x) | __isShared(&sh[lane]) << 1 | __isShared(x) << 2 | __isLocal(&pred) << 3;
	o[14] = (unsigned int)__dp4a(make_char4((signed char)a, (signed char)b, 3, -4), make_char4(-1, 2, (signed char)c, 5), 7);
	o[15] = __reduce_or_sync(0xffffffff, a) ^ __reduce_and_sync(0xffffffff, b);
}

// halfs: __half and __nv_bfloat16 (cuda_fp16.h, cuda_bf16.h). Thread i makes
// a = (x[i] - 0.5) * 200 and b from y[i] the same way, in both formats, and writes the
// bits of each result to out[24 * i + k]; every thread adds 1 to *hacc and *bacc.
extern "C" __global__ void halfs(const float *x, const float *y, unsigned int *out, __half *hacc, __nv_bfloat16 *bacc)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int *o = out + 24 * i;
	float fa = (x[i] - 0.5f) * 200.f, fb = (y[i] - 0.5f) * 200.f;
	__half a = __float2half(fa), b = __float2half(fb);
	o[0] = __half_as_ushort(a);
	o[1] = __half_as_ushort(a + b);
	o[2] = __half_as_ushort(a - b);
	o[3] = __half_as_ushort(a * b);
	o[4] = __half_as_ushort(a / b);
	o[5] = (a < b) | (a == b) << 1 | (a >= b) << 2;
	__half2 p = __floats2half2_rn(fa, fb);
	o[6] = __half_as_ushort(p.x) | (unsigned int)__half_as_ushort(p.y) << 16;
	__half2 q = __hmul2(p, __lowhigh2highlow(p));
	o[7] = __half_as_ushort(q.x) | (unsigned int)__half_as_ushort(q.y) << 16;
	o[8] = __float_as_uint(__half2float(a));
	o[9] = __half_as_ushort(__hmax(a, b)) | (unsigned int)__half_as_ushort(__hmin(a, b)) << 16;
	o[10] = (unsigned int)__half2int_rn(a);
	o[11] = __half_as_ushort(hsqrt(__habs(a))) | (unsigned int)__half_as_ushort(-a) << 16;
	int k = i % 33 - 16;
	o[12] = __half_as_ushort(__hfma(__int2half_rn(k), __int2half_rn(k + 3), __int2half_rn(-k)));
	__nv_bfloat16 c = __float2bfloat16(fa), d = __float2bfloat16(fb);
	o[13] = __bfloat16_as_ushort(c);
	o[14] = __bfloat16_as_ushort(c + d);
	o[15] = __bfloat16_as_ushort(c - d);
	o[16] = __bfloat16_as_ushort(c * d);
	o[17] = __bfloat16_as_ushort(c / d);
	o[18] = (c < d) | (c == d) << 1 | (c >= d) << 2;
	__nv_bfloat162 r = __floats2bfloat162_rn(fa, fb);
	r += r;
	o[19] = __bfloat16_as_ushort(r.x) | (unsigned int)__bfloat16_as_ushort(r.y) << 16;
	o[20] = __float_as_uint(__bfloat162float(c));
	o[21] = __bfloat16_as_ushort(__hfma(__int2bfloat16_rn(k), __int2bfloat16_rn(k + 3), __int2bfloat16_rn(-k))) |
		(unsigned int)__bfloat16_as_ushort(__int2bfloat16_rn(i * 1234567 + 16777217)) << 16;
	o[22] = __half_as_ushort(__shfl_xor_sync(0xffffffff, a, 1)) |
		(unsigned int)__bfloat16_as_ushort(__shfl_xor_sync(0xffffffff, c, 1)) << 16;
	o[23] = __bfloat16_as_ushort(__hmax(c, d)) | (unsigned int)__bfloat16_as_ushort(__hmin(c, d)) << 16;
	atomicAdd(hacc, __float2half(1.0f));
	atomicAdd(bacc, __float2bfloat16(1.0f));
}

// pipeline: the Programming Guide's pipeline primitives. Each thread copies 16 bytes in
// one batch, then 8 bytes with the last 4 zero-filled and 4 bytes (zero-filled on odd
// threads) in a second, waits for both and, after the barrier, writes out its
// neighbour's copies.
extern "C" __global__ void pipeline(const uint4 *a, const uint2 *b, const unsigned int *c, unsigned int *out)
{
	__shared__ uint4 sa[128];
	__shared__ uint2 sb[128];
	__shared__ unsigned int sc[128];
	unsigned int t = threadIdx.x;
	__pipeline_memcpy_async(&sa[t], &a[t], sizeof(uint4));
	__pipeline_commit();
	__pipeline_memcpy_async(&sb[t], &b[t], sizeof(uint2), 4);
	__pipeline_memcpy_async(&sc[t], &c[t], sizeof(unsigned int), t & 1 ? 4 : 0);
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	unsigned int n = (t + 1) % blockDim.x;
	unsigned int *o = out + 7 * t;
	o[0] = sa[n].x;
	o[1] = sa[n].y;
	o[2] = sa[n].z;
	o[3] = sa[n].w;
	o[4] = sb[n].x;
	o[5] = sb[n].y;
	o[6] = sc[n];
}
