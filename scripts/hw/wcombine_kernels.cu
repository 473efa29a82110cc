// wcombine_kernels.cu: the kernels scripts/hw/wcombine.cu launches (see there), apart so
// that gtrace captures them for the engine's side of the comparison
// (replay/wcombine_probe_test.go, from the PTX this makes):
//
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
//     -Xclang -target-feature -Xclang +ptx70 -I cudart/include \
//     -include gtrace_cuda_runtime.h -O3 -S -o replay/testdata/wcombine.ptx \
//     scripts/hw/wcombine_kernels.cu

__device__ __forceinline__ void spin(int cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}

// st_k: K is a template argument so that a round's stores follow one another with no
// loop between them, as particles_aos's do.
template <int K>
__device__ __forceinline__ void st_k(char *base, int S, int O, int share, int gap, int rounds, long roundBytes)
{
	int lane = threadIdx.x & 31;
	long warp = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
	char *p = base + (warp / share) * rounds * roundBytes + lane * S + (warp % share) * K * O;
	for (int r = 0; r < rounds; r++) {
		char *q = p + r * roundBytes;
#pragma unroll
		for (int k = 0; k < K; k++) {
			if (k > 0 && gap > 0)
				spin(gap);
			asm volatile("st.global.u32 [%0], %1;" ::"l"(q + k * O), "r"(lane) : "memory");
		}
	}
}

// st_delay: two stores a round, the second's data N dependent IMADs (x = x * x + lane)
// after the first, with no branch between them: how long after a store another of its
// sectors still joins it.
template <int N>
__device__ __forceinline__ void st_delay(char *base, int S, int O, int rounds, long roundBytes)
{
	int lane = threadIdx.x & 31;
	long warp = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
	char *p = base + warp * rounds * roundBytes + lane * S;
	unsigned x = lane;
	for (int r = 0; r < rounds; r++) {
		char *q = p + r * roundBytes;
		asm volatile("st.global.u32 [%0], %1;" ::"l"(q), "r"(x) : "memory");
		// The chain starts from the clock, read after the first store, so that ptxas
		// cannot start it before the store.
		asm volatile("mov.u32 %0, %%clock;" : "=r"(x));
#pragma unroll
		for (int i = 0; i < N; i++)
			asm volatile("mad.lo.u32 %0, %0, %0, %1;" : "+r"(x) : "r"(lane));
		asm volatile("st.global.u32 [%0], %1;" ::"l"(q + O), "r"(x) : "memory");
	}
}

// How ldst_k loads before it stores (each lane the K words it then stores, unless OTHER).
enum { PLAIN, CG, WARM, OTHER, NODEP };

// ldst_k: st_k's rounds with no gap, one warp a region, each round's stores after loads:
//   PLAIN  plain loads (LDG.E, as particles_aos's: the lines land in the L1 and the
//          L2), each word stored plus the value read, so the stores wait for the loads
//   CG     the same with ld.global.cg (the lines in the L2 only)
//   WARM   ld.global.cg, then 2000 cycles' spin, then the stores, their data not the
//          loads' (the lines settled in the L2 before the stores)
//   OTHER  ld.global.cg of the same words `other` bytes on, each word stored plus the
//          value read (the stores wait for loads, but their own lines are not in the L2)
//   NODEP  ld.global.cg, then at once the stores, their data not the loads' (the stores
//          leave while their lines' reads are on their way)
template <int K, int MODE>
__device__ __forceinline__ void ldst_k(char *base, int S, int O, int rounds, long roundBytes, long other)
{
	int lane = threadIdx.x & 31;
	long warp = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
	char *p = base + warp * rounds * roundBytes + lane * S;
	unsigned acc = 0; // what warm and nodep read, kept so that the loads stay
	for (int r = 0; r < rounds; r++) {
		char *q = p + r * roundBytes;
		unsigned v[K];
#pragma unroll
		for (int k = 0; k < K; k++) {
			const char *a = q + k * O + (MODE == OTHER ? other : 0);
			if (MODE == PLAIN) // LDG.E as particles_aos's (ld.global.ca gives LDG.E.STRONG.SM)
				v[k] = *(const unsigned *)a;
			else
				asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v[k]) : "l"(a));
		}
		if (MODE == WARM)
			spin(2000);
#pragma unroll
		for (int k = 0; k < K; k++) {
			unsigned d = MODE == WARM || MODE == NODEP ? lane : v[k] + lane;
			asm volatile("st.global.u32 [%0], %1;" ::"l"(q + k * O), "r"(d) : "memory");
			acc ^= v[k];
		}
	}
	if (acc == 0x9e3779b9u)
		base[-1] = 1;
}

// particles_aos as kernels/cu/layout.cu has it.
struct Particle {
	float x, y, z, vx, vy, vz;
};

extern "C" __global__ void particles_aos(Particle *p, int n, float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		Particle q = p[i];
		q.vy = q.vy - 9.8f * dt;
		q.x = q.x + q.vx * dt;
		q.y = q.y + q.vy * dt;
		q.z = q.z + q.vz * dt;
		p[i] = q;
	}
}


extern "C" __global__ void st_1(char *b, int S, int O, int share, int gap, int rounds, long rb) { st_k<1>(b, S, O, share, gap, rounds, rb); }
extern "C" __global__ void st_2(char *b, int S, int O, int share, int gap, int rounds, long rb) { st_k<2>(b, S, O, share, gap, rounds, rb); }
extern "C" __global__ void st_3(char *b, int S, int O, int share, int gap, int rounds, long rb) { st_k<3>(b, S, O, share, gap, rounds, rb); }
extern "C" __global__ void st_4(char *b, int S, int O, int share, int gap, int rounds, long rb) { st_k<4>(b, S, O, share, gap, rounds, rb); }
extern "C" __global__ void st_6(char *b, int S, int O, int share, int gap, int rounds, long rb) { st_k<6>(b, S, O, share, gap, rounds, rb); }

#define LDST(K, M) \
	extern "C" __global__ void ldst_##K##_##M(char *b, int S, int O, int rounds, long rb, long other) \
	{ \
		ldst_k<K, M>(b, S, O, rounds, rb, other); \
	}
LDST(1, PLAIN) LDST(1, CG) LDST(1, WARM) LDST(1, OTHER) LDST(1, NODEP)
LDST(2, PLAIN) LDST(2, CG) LDST(2, WARM) LDST(2, OTHER) LDST(2, NODEP)
LDST(4, PLAIN) LDST(4, CG) LDST(4, WARM) LDST(4, OTHER) LDST(4, NODEP)

#define DELAY(N) \
	extern "C" __global__ void st_delay_##N(char *b, int S, int O, int rounds, long rb) \
	{ \
		st_delay<N>(b, S, O, rounds, rb); \
	}
DELAY(0) DELAY(1) DELAY(2) DELAY(3) DELAY(4) DELAY(6) DELAY(8) DELAY(12) DELAY(16) DELAY(24)
