// mma.cu: what mma.sync (SASS HMMA) computes and how long it takes on a GPU (issue 19's
// mma.sync, for capture's values and the timing engine). Run it through
// scripts/hw/mma.sh OUTDIR, which builds it and keeps what it writes:
//
//   mma OUTDIR
//
// Values: for each variant below, N warps each execute one mma on fragments drawn from a
// splitmix64 stream (the draw order and distributions are those of capture's
// TestMmaOnH100, which regenerates them; a checksum of the inputs is printed so that a
// drift between the two is caught), and OUTDIR/mma-VARIANT.bin holds every lane's four
// destination words (little-endian uint32, instance-major, unused words 0). Every fourth
// instance draws from one of four distributions: exponents near 1, the format's whole
// normal range, all of one binade, and zeros, subnormals and the smallest normals.
//
// Timing: latency is one warp's chain of 4096 dependent mmas (D feeds C) in SM cycles
// (clock64); throughput is one block of W warps per SM, each running 8 independent
// chains, in mmas per SM cycle.
#include <cstdint>
#include <cstring>
#include <string>
#include "probe.h"

enum { F16F32, BF16F32, F16F16, K8F16F32, K8BF16F32, TF32, S8K32, U8K32, S8K32SAT, S8K16, F64, NVAR };
static const char *names[NVAR] = {"m16n8k16.f32.f16", "m16n8k16.f32.bf16", "m16n8k16.f16.f16", "m16n8k8.f32.f16",
				  "m16n8k8.f32.bf16", "m16n8k8.f32.tf32", "m16n8k32.s32.s8", "m16n8k32.s32.u8",
				  "m16n8k32.satfinite.s32.s8", "m16n8k16.s32.s8", "m8n8k4.f64"};
// Fragment words of A, B and C (D has as many as C); an f64 is two words, low first.
static const int nA[NVAR] = {4, 4, 4, 2, 2, 4, 4, 4, 4, 2, 2}, nB[NVAR] = {2, 2, 2, 1, 1, 2, 2, 2, 2, 1, 2},
		 nC[NVAR] = {4, 4, 2, 4, 4, 4, 4, 4, 4, 4, 4};
static const int isBF[NVAR] = {0, 1, 0, 0, 1};
enum { HALF, TF32IN, INT8, FP64 };
static int kindOf(int v) { return v < TF32 ? HALF : v == TF32 ? TF32IN : v == F64 ? FP64 : INT8; }
enum { WORDS = 14, N = 128 }; // per lane: A[4] B[2] C[4] D[4]

template <int V>
__device__ __forceinline__ void mma(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c)
{
	if (V == F16F32)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
	else if (V == BF16F32)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
			     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
	else if (V == F16F16)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
			     : "=r"(d[0]), "=r"(d[1])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
	else if (V == K8F16F32)
		asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
	else if (V == K8BF16F32)
		asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
#define MMA4(OP)                                                                                                      \
	asm volatile(OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                                    \
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                                      \
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), \
		       "r"(c[3]))
	else if (V == TF32)
		MMA4("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
	else if (V == S8K32)
		MMA4("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
	else if (V == U8K32)
		MMA4("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32");
	else if (V == S8K32SAT)
		MMA4("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32");
	else if (V == S8K16)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
			     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
	else
		asm volatile("{.reg .f64 a, b, c0, c1, d0, d1; mov.b64 a, {%4,%5}; mov.b64 b, {%6,%7};"
			     " mov.b64 c0, {%8,%9}; mov.b64 c1, {%10,%11};"
			     " mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0, d1}, {a}, {b}, {c0, c1};"
			     " mov.b64 {%0,%1}, d0; mov.b64 {%2,%3}, d1;}"
			     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
			     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
}

template <int V>
__global__ void values(uint32_t *w)
{
	uint32_t *p = w + ((blockIdx.x * blockDim.x + threadIdx.x) * WORDS);
	uint32_t d[4] = {0, 0, 0, 0};
	mma<V>(d, p, p + 4, p + 6);
	for (int i = 0; i < 4; i++)
		p[10 + i] = d[i];
}

template <int V>
__global__ void latency(uint32_t *w, long long *cyc)
{
	uint32_t a[4] = {w[0], w[1], w[2], w[3]}, b[2] = {w[4], w[5]}, c[4] = {w[6], w[7], w[8], w[9]};
	__syncwarp();
	long long t0 = clock64();
	for (int i = 0; i < 4096; i++)
		mma<V>(c, a, b, c);
	__syncwarp();
	long long t1 = clock64();
	if (threadIdx.x == 0)
		cyc[0] = t1 - t0;
	if (c[0] == 0x12345 && c[1] == 0x6789)
		w[0] = c[2];
}

template <int V>
__global__ void throughput(uint32_t *w, long long *cyc, int iters)
{
	uint32_t a[4] = {w[0], w[1], w[2], w[3]}, b[2] = {w[4], w[5]}, c[8][4];
	for (int j = 0; j < 8; j++)
		for (int i = 0; i < 4; i++)
			c[j][i] = w[6 + i] + j;
	__syncthreads();
	long long t0 = clock64();
	for (int i = 0; i < iters; i++)
		for (int j = 0; j < 8; j++)
			mma<V>(c[j], a, b, c[j]);
	__syncthreads();
	long long t1 = clock64();
	if (threadIdx.x == 0)
		cyc[blockIdx.x] = t1 - t0;
	uint32_t x = 0;
	for (int j = 0; j < 8; j++)
		x += c[j][0] + c[j][1];
	if (x == 0x12345)
		w[0] = x;
}

static uint64_t rs;
static uint64_t next()
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static uint32_t rnd(uint32_t n) { return (uint32_t)(next() % n); }

// gen16 draws one f16 (bf 0) or bf16 (bf 1) from distribution d.
static uint32_t gen16(int d, int bf)
{
	uint32_t s = next() & 1, mb = bf ? 7 : 10, bias = bf ? 127 : 15, m = next() & ((1u << mb) - 1), e;
	switch (d) {
	case 0: e = bias - 3 + rnd(7); break;
	case 1: e = bf ? bias - 30 + rnd(61) : 1 + rnd(30); break;
	case 2: e = bias; break;
	default: {
		uint32_t k = rnd(8);
		if (k == 0)
			return s << 15;
		e = k < 4 ? 0 : 1 + rnd(5);
	}
	}
	return s << 15 | e << mb | m;
}

// gen32 draws one f32 accumulator input from distribution d.
static uint32_t gen32(int d)
{
	uint32_t s = next() & 1, m = next() & 0x7fffff, e;
	switch (d) {
	case 0: e = 124 + rnd(7); break;
	case 1: e = 107 + rnd(41); break;
	case 2: e = 127 + rnd(3); break;
	default:
		if (rnd(4) == 0)
			return s << 31;
		e = 100 + rnd(10);
	}
	return s << 31 | e << 23 | m;
}

// gentf draws one tf32 input (an f32 word, all 23 fraction bits random, so that how the
// tensor cores drop the 13 below tf32's 10 shows) from distribution d.
static uint32_t gentf(int d)
{
	uint32_t s = next() & 1, m = next() & 0x7fffff, e;
	switch (d) {
	case 0: e = 124 + rnd(7); break;
	case 1: e = 97 + rnd(61); break;
	case 2: e = 127; break;
	default: {
		uint32_t k = rnd(8);
		if (k == 0)
			return s << 31;
		e = k < 4 ? 0 : 1 + rnd(5);
	}
	}
	return s << 31 | e << 23 | m;
}

// gen64 draws one f64 from distribution d, as two words (low, high).
static void gen64(int d, uint32_t *w)
{
	uint64_t s = next() & 1, m = next() & ((1ull << 52) - 1), e;
	switch (d) {
	case 0: e = 1020 + rnd(7); break;
	case 1: e = 963 + rnd(121); break;
	case 2: e = 1023; break;
	default: {
		uint32_t k = rnd(8);
		if (k == 0)
			m = 0, e = 0;
		else
			e = k < 4 ? 0 : 1 + rnd(5);
	}
	}
	uint64_t x = s << 63 | e << 52 | m;
	w[0] = (uint32_t)x, w[1] = (uint32_t)(x >> 32);
}

// genacc draws one s32 accumulator from distribution d: small, any, near the largest,
// near the smallest (so that wrapping and .satfinite show).
static uint32_t genacc(int d)
{
	uint32_t x = (uint32_t)next();
	switch (d) {
	case 0: return (uint32_t)((int32_t)(x & 0x1fffff) - 0x100000);
	case 1: return x;
	case 2: return 0x7fffffffu - (x & 0xfffff);
	default: return 0x80000000u + (x & 0xfffff);
	}
}

// draw fills one lane's input words of variant v from distribution d.
static void draw(int v, int d, uint32_t *p)
{
	switch (kindOf(v)) {
	case HALF:
		for (int k = 0; k < nA[v]; k++)
			p[k] = gen16(d, isBF[v]) | gen16(d, isBF[v]) << 16;
		for (int k = 0; k < nB[v]; k++)
			p[4 + k] = gen16(d, isBF[v]) | gen16(d, isBF[v]) << 16;
		for (int k = 0; k < nC[v]; k++)
			p[6 + k] = v == F16F16 ? gen16(d, 0) | gen16(d, 0) << 16 : gen32(d);
		break;
	case TF32IN:
		for (int k = 0; k < nA[v]; k++)
			p[k] = gentf(d);
		for (int k = 0; k < nB[v]; k++)
			p[4 + k] = gentf(d);
		for (int k = 0; k < nC[v]; k++)
			p[6 + k] = gen32(d);
		break;
	case INT8:
		for (int k = 0; k < nA[v]; k++)
			p[k] = (uint32_t)next();
		for (int k = 0; k < nB[v]; k++)
			p[4 + k] = (uint32_t)next();
		for (int k = 0; k < nC[v]; k++)
			p[6 + k] = genacc(d);
		break;
	default:
		gen64(d, p);
		gen64(d, p + 4);
		gen64(d, p + 6);
		gen64(d, p + 8);
	}
}

int main(int argc, char **argv)
{
	std::string out = argc > 1 ? argv[1] : ".";
	int sms = smCount();
	uint32_t *dw;
	long long *dc;
	CK(cudaMalloc(&dw, N * 32 * WORDS * 4));
	CK(cudaMalloc(&dc, 1024 * 8));
	std::vector<uint32_t> w(N * 32 * WORDS);
	printf("variant,inputs_fnv,latency_cycles,warps_per_sm,mma_per_sm_cycle\n");
	for (int v = 0; v < NVAR; v++) {
		rs = 1000003ull * v + 1;
		std::fill(w.begin(), w.end(), 0);
		for (int i = 0; i < N; i++)
			for (int l = 0; l < 32; l++) {
				draw(v, i % 4, &w[(i * 32 + l) * WORDS]);
			}
		uint64_t h = 14695981039346656037ull;
		for (uint32_t x : w)
			h = (h ^ x) * 1099511628211ull;
		CK(cudaMemcpy(dw, w.data(), w.size() * 4, cudaMemcpyHostToDevice));
#define ALL(K, G, B, ...)                                            \
	switch (v) {                                                 \
	case F16F32: K<F16F32><<<G, B>>>(__VA_ARGS__); break;        \
	case BF16F32: K<BF16F32><<<G, B>>>(__VA_ARGS__); break;      \
	case F16F16: K<F16F16><<<G, B>>>(__VA_ARGS__); break;        \
	case K8F16F32: K<K8F16F32><<<G, B>>>(__VA_ARGS__); break;    \
	case K8BF16F32: K<K8BF16F32><<<G, B>>>(__VA_ARGS__); break;  \
	case TF32: K<TF32><<<G, B>>>(__VA_ARGS__); break;            \
	case S8K32: K<S8K32><<<G, B>>>(__VA_ARGS__); break;          \
	case U8K32: K<U8K32><<<G, B>>>(__VA_ARGS__); break;          \
	case S8K32SAT: K<S8K32SAT><<<G, B>>>(__VA_ARGS__); break;    \
	case S8K16: K<S8K16><<<G, B>>>(__VA_ARGS__); break;          \
	default: K<F64><<<G, B>>>(__VA_ARGS__); break;               \
	}
		ALL(values, N / 4, 128, dw);
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(w.data(), dw, w.size() * 4, cudaMemcpyDeviceToHost));
		std::vector<uint32_t> d(N * 32 * 4);
		for (int i = 0; i < N * 32; i++)
			memcpy(&d[i * 4], &w[i * WORDS + 10], 16);
		std::string f = out + "/mma-" + names[v] + ".bin";
		FILE *fp = fopen(f.c_str(), "wb");
		if (!fp || fwrite(d.data(), 4, d.size(), fp) != d.size() || fclose(fp)) {
			fprintf(stderr, "cannot write %s\n", f.c_str());
			return 1;
		}
		long long lat = 0;
		ALL(latency, 1, 32, dw, dc);
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(&lat, dc, 8, cudaMemcpyDeviceToHost));
		for (int warps : {1, 4, 8, 16}) {
			int iters = 512;
			ALL(throughput, sms, warps * 32, dw, dc, iters);
			CK(cudaDeviceSynchronize());
			std::vector<long long> c(sms);
			CK(cudaMemcpy(c.data(), dc, sms * 8, cudaMemcpyDeviceToHost));
			long long mx = *std::max_element(c.begin(), c.end());
			printf("%s,%016llx,%.2f,%d,%.4f\n", names[v], (unsigned long long)h, lat / 4096.0, warps,
			       (double)warps * 8 * iters / mx);
		}
	}
	return 0;
}
