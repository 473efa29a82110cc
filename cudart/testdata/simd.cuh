// simd.cuh: every SIMD intrinsic of the CUDA Math API (__vadd2 … __vsubus4) on fixed
// inputs. The same kernel runs on a GPU through CUDA's own library (scripts/hw/simd.cu,
// nvcc) and on gtrace through its header (testdata/samples.cu, clang-14);
// header_test.go compares both outputs with Go. Each thread's two inputs come from its
// index: an even thread takes a pair of edge values (every pair of SIMD_EDGES over 512
// threads), an odd one two hashed words.
#define SIMD_UNARY(X) X(__vabs2) X(__vabs4) X(__vabsss2) X(__vabsss4) X(__vneg2) X(__vneg4) X(__vnegss2) X(__vnegss4)
#define SIMD_BINARY(X)                                                                                   \
	X(__vabsdiffs2) X(__vabsdiffs4) X(__vabsdiffu2) X(__vabsdiffu4) X(__vadd2) X(__vadd4) X(__vaddss2)     \
	X(__vaddss4) X(__vaddus2) X(__vaddus4) X(__vavgs2) X(__vavgs4) X(__vavgu2) X(__vavgu4) X(__vcmpeq2)    \
	X(__vcmpeq4) X(__vcmpges2) X(__vcmpges4) X(__vcmpgeu2) X(__vcmpgeu4) X(__vcmpgts2) X(__vcmpgts4)       \
	X(__vcmpgtu2) X(__vcmpgtu4) X(__vcmples2) X(__vcmples4) X(__vcmpleu2) X(__vcmpleu4) X(__vcmplts2)      \
	X(__vcmplts4) X(__vcmpltu2) X(__vcmpltu4) X(__vcmpne2) X(__vcmpne4) X(__vhaddu2) X(__vhaddu4)         \
	X(__vmaxs2) X(__vmaxs4) X(__vmaxu2) X(__vmaxu4) X(__vmins2) X(__vmins4) X(__vminu2) X(__vminu4)        \
	X(__vsads2) X(__vsads4) X(__vsadu2) X(__vsadu4) X(__vseteq2) X(__vseteq4) X(__vsetges2) X(__vsetges4) \
	X(__vsetgeu2) X(__vsetgeu4) X(__vsetgts2) X(__vsetgts4) X(__vsetgtu2) X(__vsetgtu4) X(__vsetles2)     \
	X(__vsetles4) X(__vsetleu2) X(__vsetleu4) X(__vsetlts2) X(__vsetlts4) X(__vsetltu2) X(__vsetltu4)      \
	X(__vsetne2) X(__vsetne4) X(__vsub2) X(__vsub4) X(__vsubss2) X(__vsubss4) X(__vsubus2) X(__vsubus4)
#define SIMD_FUNCTIONS 82
#define SIMD_THREADS 512
#define SIMD_EDGES 16

static __device__ unsigned int simd_input(unsigned int t, unsigned int which)
{
	const unsigned int edges[SIMD_EDGES] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7f7f7f7f, 0x80808080,
		0xffffffff, 0x7fff7fff, 0x80008000, 0x01010101, 0xfefefefe, 0x00ff807f};
	if (t % 2 == 0)
		return edges[(which ? t / 2 / SIMD_EDGES : t / 2) % SIMD_EDGES];
	unsigned int x = t * 2 + which; // lowbias32 (Chris Wellons' integer hash)
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

// simd writes, per thread, its inputs a and b, then each function's result: the
// unary ones of a, the binary ones of (a, b), in the lists' order.
extern "C" __global__ void simd(unsigned int *out)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int a = simd_input(t, 0), b = simd_input(t, 1);
	unsigned int *o = out + t * (SIMD_FUNCTIONS + 2);
	*o++ = a;
	*o++ = b;
#define SIMD_ONE(f) *o++ = f(a);
#define SIMD_TWO(f) *o++ = f(a, b);
	SIMD_UNARY(SIMD_ONE)
	SIMD_BINARY(SIMD_TWO)
#undef SIMD_ONE
#undef SIMD_TWO
}

// simdc_NAME computes NAME once per thread, of in[2t] (and in[2t + 1]), into out[t]:
// a launch's warp-instructions less those of simdc_not (unary) or simdc_xor (binary),
// plus one for that kernel's own operation, are NAME's per call. The GPU's count is
// its SASS (scripts/hw/simdcost.sh), gtrace's its trace (header_test.go).
#define SIMDC_ONE_AS(name, f)                                                          \
	extern "C" __global__ void simdc##name(const unsigned int *in, unsigned int *out) \
	{                                                                                 \
		unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;                   \
		out[t] = f(in[2 * t]);                                                    \
	}
#define SIMDC_TWO_AS(name, f)                                                          \
	extern "C" __global__ void simdc##name(const unsigned int *in, unsigned int *out) \
	{                                                                                 \
		unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;                   \
		out[t] = f(in[2 * t], in[2 * t + 1]);                                     \
	}
#define SIMDC_ONE(f) SIMDC_ONE_AS(f, f)
#define SIMDC_TWO(f) SIMDC_TWO_AS(f, f)
static __device__ unsigned int simd_not(unsigned int a) { return ~a; }
static __device__ unsigned int simd_xor(unsigned int a, unsigned int b) { return a ^ b; }
SIMDC_ONE_AS(_not, simd_not)
SIMDC_TWO_AS(_xor, simd_xor)
SIMD_UNARY(SIMDC_ONE)
SIMD_BINARY(SIMDC_TWO)
#undef SIMDC_ONE_AS
#undef SIMDC_TWO_AS
#undef SIMDC_ONE
#undef SIMDC_TWO
