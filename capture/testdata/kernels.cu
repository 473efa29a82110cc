// Test kernels for package capture. Regenerate kernels.ptx with ./gen.sh.
#include "cuda.h"

extern "C" __global__ void vecadd(float *c, const float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

// Transpose V1 (naive): 32x32 threads per block, one element per thread.
extern "C" __global__ void transpose_naive(float *out, const float *in, int w, int h)
{
	int x = blockIdx.x * 32 + threadIdx.x;
	int y = blockIdx.y * 32 + threadIdx.y;
	out[x * h + y] = in[y * w + x];
}

// Reduction V1: interleaved addressing with %, divergent.
extern "C" __global__ void reduce_v1(const float *in, float *out)
{
	__shared__ float s[256];
	unsigned tid = threadIdx.x;
	s[tid] = in[blockIdx.x * blockDim.x + tid];
	__syncthreads();
	for (unsigned k = 1; k < blockDim.x; k *= 2) {
		if (tid % (2 * k) == 0)
			s[tid] += s[tid + k];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = s[0];
}

// Reduction V3: sequential addressing.
extern "C" __global__ void reduce_v3(const float *in, float *out)
{
	__shared__ float s[256];
	unsigned tid = threadIdx.x;
	s[tid] = in[blockIdx.x * blockDim.x + tid];
	__syncthreads();
	for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
		if (tid < k)
			s[tid] += s[tid + k];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = s[0];
}

__device__ __noinline__ int A(int x) { return x * 3; }
__device__ __noinline__ int B(int x) { return x + 7; }
__device__ __noinline__ int C(int x) { return x ^ 0x55; }

// The seed's divergence example: if (threadIdx.x & 0x4) A(); else B(); C();
extern "C" __global__ void diverge(int *out)
{
	int v;
	if (threadIdx.x & 0x4)
		v = A(threadIdx.x);
	else
		v = B(threadIdx.x);
	out[threadIdx.x] = C(v);
}

// Intra-warp spin lock: completes under ITS, livelocks under a SIMT stack.
extern "C" __global__ void spinlock(int *lock, volatile int *counter)
{
	while (atomicCAS(lock, 0, 1) != 0)
		;
	*counter = *counter + 1;
	__threadfence();
	atomicExch(lock, 0);
}

// Warp-level operations.
extern "C" __global__ void warpops(int *out, int *sum, float *fsum)
{
	int v = threadIdx.x;
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_down_sync(0xffffffff, v, d);
	int bcast = __shfl_idx_sync(0xffffffff, threadIdx.x * 10, 3);
	unsigned b = __ballot_sync(0xffffffff, threadIdx.x & 1);
	int all = __all_sync(0xffffffff, threadIdx.x < 32);
	out[threadIdx.x * 4 + 0] = v;
	out[threadIdx.x * 4 + 1] = bcast;
	out[threadIdx.x * 4 + 2] = b;
	out[threadIdx.x * 4 + 3] = all;
	atomicAdd(sum, threadIdx.x);
	atomicAddF(fsum, 0.5f);
	__syncwarp();
}

__constant__ float coeff[64] = {1.0f, 2.0f, 3.0f};

extern "C" __global__ void constant(float *out)
{
	out[threadIdx.x] = coeff[threadIdx.x] + coeff[0] * 100.0f;
}

// Dynamic shared memory: reverse a block.
extern "C" __global__ void reverse(float *out, const float *in, int n)
{
	extern __shared__ float s[];
	s[threadIdx.x] = in[threadIdx.x];
	__syncthreads();
	out[threadIdx.x] = s[n - 1 - threadIdx.x];
}

// Faults.
extern "C" __global__ void oob(float *out, int n)
{
	out[threadIdx.x + n] = 1.0f;
}

extern "C" __global__ void misaligned(char *p)
{
	*(int *)(p + threadIdx.x) = 1;
}

extern "C" __global__ void divergent_sync(int *out)
{
	if (threadIdx.x < 16)
		__syncthreads();
	out[threadIdx.x] = 1;
}

extern "C" __global__ void forever(volatile int *flag)
{
	while (*flag == 0)
		;
}

// Local memory through a per-thread array indexed at run time.
extern "C" __global__ void local_array(int *out, int k)
{
	int a[16];
	for (int i = 0; i < 16; i++)
		a[i] = i * threadIdx.x;
	out[threadIdx.x] = a[(threadIdx.x + k) & 15];
}

// Textures: tex2D with integer coordinates (as in kernels/cu/gtrace_cuda.h).
static __device__ float tex2D_f32(unsigned long long tex, int x, int y)
{
	float r, g, b, a;
	asm("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
	    : "=f"(r), "=f"(g), "=f"(b), "=f"(a)
	    : "l"(tex), "r"(x), "r"(y));
	return r;
}

extern "C" __global__ void texread(float *out, unsigned long long tex, int w)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y;
	out[y * w + x] = tex2D_f32(tex, x - 1, y);
}

// A long arithmetic loop with one store: many warp-instructions, little memory.
extern "C" __global__ void busy(float *out, int iters)
{
	float x = threadIdx.x, y = 1.0f;
	for (int i = 0; i < iters; i++) {
		x = x * 0.999f + y;
		y = y * 1.0001f - 0.5f * x;
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

// printf: one line from every 16th thread, another from the next; each call's value
// stored. In CTA fault (when given) thread 0 reads far past out after printing.
extern "C" __global__ void show(int *out, const char *word, int fault)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t % 16 == 0)
		out[t] = printf("cta %d thread %d: %s %5.2f|%hhd\n", blockIdx.x, threadIdx.x, word, t * 0.5, (signed char)t);
	else if (t % 16 == 1)
		out[t] = printf("next one\n");
	if (blockIdx.x == fault && threadIdx.x == 0)
		out[t] = out[t + (1 << 24)];
}

// assert(v[i] != 37), as <cassert> expands it in device code.
extern "C" __global__ void checked(int *v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (v[i] == 37)
		__assertfail("v[i] != 37", "checked.cu", 12, "void checked(int *)", 1);
	v[i] += 1;
}

// A loop that prints n lines from every thread.
extern "C" __global__ void chatter(int n)
{
	for (int i = 0; i < n; i++)
		printf("thread %d line %d\n", threadIdx.x, i);
}
