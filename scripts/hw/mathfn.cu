// mathfn.cu: what CUDA's math library computes and how many instructions a call costs,
// per function (issue 19, the header's precise math). For each function it fills N
// inputs from a fixed generator over the function's usual range (plus a few special
// values), runs one call per thread, and writes the inputs and CUDA's results, so that
// gtrace's header can be compared value by value; scripts/hw/mathfn.sh runs each kernel
// under ncu (smsp__inst_executed.sum) so that warp-instructions per call are measured
// against the copy kernel, which does the same loads and stores and no call.
//
//   mathfn OUTDIR [once]
//
// writes OUTDIR/values/NAME.bin: N records of (x, y, result) in the function's type
// (float or double; y is 0 for one-argument functions), little-endian, and prints
// name,type,n,ms (ms: the launch timed with CUDA events, median of three).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "probe.h"

#define N 8192

template <typename T, typename F>
__global__ void apply(const T *x, const T *y, T *r, F f)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		r[i] = f(x[i], y[i]);
}

// A 64-bit LCG (Knuth's MMIX constants), for inputs that do not depend on the host's libc.
static unsigned long long seed = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return lo + (hi - lo) * (double)(seed >> 11) / 9007199254740992.0;
}

struct Range {
	double lo, hi;  // x
	double ylo, yhi; // y, for two-argument functions
	bool logscale;  // x = sign * 2^uniform(lo, hi)
};

template <typename T, typename F>
static void run(const char *name, const char *outdir, bool once, Range rg, F f)
{
	std::vector<T> x(N), y(N), r(N);
	const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, INFINITY, -INFINITY, NAN, 1e-30, 1e30, 3.14159265358979};
	for (int i = 0; i < N; i++) {
		double v = uniform(rg.lo, rg.hi);
		if (rg.logscale)
			v = (uniform(0, 1) < 0.5 ? -1 : 1) * std::exp2(v);
		x[i] = (T)v;
		y[i] = (T)uniform(rg.ylo, rg.yhi);
	}
	for (int i = 0; i < (int)(sizeof special / sizeof special[0]); i++)
		x[N - 1 - i] = (T)special[i];
	T *dx, *dy, *dr;
	CK(cudaMalloc(&dx, N * sizeof(T)));
	CK(cudaMalloc(&dy, N * sizeof(T)));
	CK(cudaMalloc(&dr, N * sizeof(T)));
	CK(cudaMemcpy(dx, x.data(), N * sizeof(T), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dy, y.data(), N * sizeof(T), cudaMemcpyHostToDevice));
	float ms = timeLaunch(once, [&] { apply<T><<<N / 256, 256>>>(dx, dy, dr, f); }, [] {});
	CK(cudaMemcpy(r.data(), dr, N * sizeof(T), cudaMemcpyDeviceToHost));
	printf("%s,%s,%d,%.4f\n", name, sizeof(T) == 4 ? "f32" : "f64", N, ms);
	std::string path = std::string(outdir) + "/values/" + name + ".bin";
	FILE *fp = fopen(path.c_str(), "wb");
	if (!fp) {
		perror(path.c_str());
		exit(1);
	}
	for (int i = 0; i < N; i++) {
		fwrite(&x[i], sizeof(T), 1, fp);
		fwrite(&y[i], sizeof(T), 1, fp);
		fwrite(&r[i], sizeof(T), 1, fp);
	}
	fclose(fp);
	CK(cudaFree(dx));
	CK(cudaFree(dy));
	CK(cudaFree(dr));
}

#include "mathfn_results.h"

#define F1(T, NAME, EXPR, ...) \
	run<T>(NAME, outdir, once, Range{__VA_ARGS__}, [] __device__(T x, T y) { return (T)(EXPR); })

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: mathfn OUTDIR [once]\n");
		return 2;
	}
	const char *outdir = argv[1];
	bool once = argc > 2 && !strcmp(argv[2], "once");
	printf("name,type,n,ms\n");
	F1(float, "copy_f32", x, -10, 10, 0, 0);
	F1(float, "expf", expf(x), -90, 90, 0, 0);
	F1(float, "exp2f", exp2f(x), -130, 130, 0, 0);
	F1(float, "exp10f", exp10f(x), -40, 40, 0, 0);
	F1(float, "expm1f", expm1f(x), -20, 20, 0, 0);
	F1(float, "logf", logf(x), -130, 128, 0, 0, true);
	F1(float, "log2f", log2f(x), -130, 128, 0, 0, true);
	F1(float, "log10f", log10f(x), -130, 128, 0, 0, true);
	F1(float, "log1pf", log1pf(x), -1, 1, 0, 0);
	F1(float, "powf", powf(x, y), 0, 16, -8, 8);
	F1(float, "sinf", sinf(x), -100, 100, 0, 0);
	F1(float, "cosf", cosf(x), -100, 100, 0, 0);
	F1(float, "tanf", tanf(x), -10, 10, 0, 0);
	F1(float, "sinf_huge", sinf(x), 10, 100, 0, 0, true);
	F1(float, "tanhf", tanhf(x), -10, 10, 0, 0);
	F1(float, "sinhf", sinhf(x), -20, 20, 0, 0);
	F1(float, "coshf", coshf(x), -20, 20, 0, 0);
	F1(float, "erff", erff(x), -5, 5, 0, 0);
	F1(float, "erfcf", erfcf(x), -5, 12, 0, 0);
	F1(float, "atanf", atanf(x), -20, 20, 0, 0);
	F1(float, "atan2f", atan2f(x, y), -10, 10, -10, 10);
	F1(float, "asinf", asinf(x), -1, 1, 0, 0);
	F1(float, "acosf", acosf(x), -1, 1, 0, 0);
	F1(float, "cbrtf", cbrtf(x), -1000, 1000, 0, 0);
	F1(float, "hypotf", hypotf(x, y), -100, 100, -100, 100);
	F1(double, "copy_f64", x, -10, 10, 0, 0);
	F1(double, "exp", exp(x), -700, 700, 0, 0);
	F1(double, "log", log(x), -1000, 1000, 0, 0, true);
	F1(double, "pow", pow(x, y), 0, 16, -8, 8);
	F1(double, "sin", sin(x), -100, 100, 0, 0);
	F1(double, "cos", cos(x), -100, 100, 0, 0);
	F1(double, "tanh", tanh(x), -10, 10, 0, 0);
	F1(double, "erf", erf(x), -5, 5, 0, 0);
	// Added 2026-11-27, after the first run's: the generator's sequence, and so every
	// input above, is the same as in that run.
	F1(float, "sinpif", sinpif(x), -100, 100, 0, 0);
	F1(float, "cospif", cospif(x), -100, 100, 0, 0);
	F1(float, "asinhf", asinhf(x), -60, 60, 0, 0, true);
	F1(float, "acoshf", acoshf(x), 0, 60, 0, 0, true);
	F1(float, "atanhf", atanhf(x), -1, 1, 0, 0);
	F1(float, "lgammaf", lgammaf(x), -20, 40, 0, 0);
	F1(float, "tgammaf", tgammaf(x), -20, 36, 0, 0);
	F1(float, "fmodf", fmodf(x, y), -1000, 1000, -10, 10);
	F1(float, "remainderf", remainderf(x, y), -1000, 1000, -10, 10);
	F1(float, "erfinvf", erfinvf(x), -1, 1, 0, 0);
	F1(float, "erfcinvf", erfcinvf(x), 0, 2, 0, 0);
	F1(float, "normcdff", normcdff(x), -15, 10, 0, 0);
	F1(double, "exp2", exp2(x), -1000, 1000, 0, 0);
	F1(double, "exp10", exp10(x), -300, 300, 0, 0);
	F1(double, "expm1", expm1(x), -40, 40, 0, 0);
	F1(double, "log2", log2(x), -1000, 1000, 0, 0, true);
	F1(double, "log10", log10(x), -1000, 1000, 0, 0, true);
	F1(double, "log1p", log1p(x), -1, 1, 0, 0);
	F1(double, "tan", tan(x), -10, 10, 0, 0);
	F1(double, "sinh", sinh(x), -20, 20, 0, 0);
	F1(double, "cosh", cosh(x), -20, 20, 0, 0);
	F1(double, "atan", atan(x), -20, 20, 0, 0);
	F1(double, "atan2", atan2(x, y), -10, 10, -10, 10);
	F1(double, "asin", asin(x), -1, 1, 0, 0);
	F1(double, "acos", acos(x), -1, 1, 0, 0);
	F1(double, "erfc", erfc(x), -5, 27, 0, 0);
	F1(double, "cbrt", cbrt(x), -1000, 1000, 0, 0);
	F1(double, "hypot", hypot(x, y), -100, 100, -100, 100);
	F1(double, "sinpi", sinpi(x), -100, 100, 0, 0);
	F1(double, "cospi", cospi(x), -100, 100, 0, 0);
	F1(double, "asinh", asinh(x), -600, 600, 0, 0, true);
	F1(double, "acosh", acosh(x), 0, 600, 0, 0, true);
	F1(double, "atanh", atanh(x), -1, 1, 0, 0);
	F1(double, "fmod", fmod(x, y), -1000, 1000, -10, 10);
	F1(double, "remainder", remainder(x, y), -1000, 1000, -10, 10);
	// Added in a third run (issue 19 item 49's next): the generator's sequence, and so
	// every input above, is the same as in the first two runs.
	F1(float, "normcdfinvf", normcdfinvf(x), 0, 1, 0, 0);
	F1(float, "erfcxf", erfcxf(x), -10, 100, 0, 0);
	F1(float, "rcbrtf", rcbrtf(x), -1000, 1000, 0, 0);
	F1(double, "normcdf", normcdf(x), -40, 10, 0, 0);
	F1(double, "normcdfinv", normcdfinv(x), 0, 1, 0, 0);
	F1(double, "erfinv", erfinv(x), -1, 1, 0, 0);
	F1(double, "erfcinv", erfcinv(x), 0, 2, 0, 0);
	F1(double, "erfcx", erfcx(x), -10, 100, 0, 0);
	F1(double, "rcbrt", rcbrt(x), -1000, 1000, 0, 0);
	F1(double, "lgamma", lgamma(x), -20, 40, 0, 0);
	F1(double, "tgamma", tgamma(x), -20, 36, 0, 0);
	// Fourth run: the exact functions, the norms and the Bessel functions.
	F1(float, "frexpf", frexpf_m(x), -150, 128, 0, 0, true);
	F1(float, "frexpf_e", frexpf_e(x), -150, 128, 0, 0, true);
	F1(float, "ldexpf", ldexpf(x, (int)y), -10, 10, -300, 300);
	F1(float, "scalbnf", scalbnf(x, (int)y), -10, 10, -300, 300);
	F1(float, "ilogbf", ilogbf(x), -150, 128, 0, 0, true);
	F1(float, "logbf", logbf(x), -150, 128, 0, 0, true);
	F1(float, "modff", modff_f(x), -10, 30, 0, 0, true);
	F1(float, "modff_i", modff_i(x), -10, 30, 0, 0, true);
	F1(float, "nextafterf", nextafterf(x, y), -10, 10, -10, 10);
	F1(float, "fdimf", fdimf(x, y), -10, 10, -10, 10);
	F1(float, "nearbyintf", nearbyintf(x), -1000, 1000, 0, 0);
	F1(float, "lrintf", lrintf(x), -1e6, 1e6, 0, 0);
	F1(float, "lroundf", lroundf(x), -1e6, 1e6, 0, 0);
	F1(float, "llrintf", llrintf(x), -1e6, 1e6, 0, 0);
	F1(float, "llroundf", llroundf(x), -1e6, 1e6, 0, 0);
	F1(float, "remquof", remquof_r(x, y), -1000, 1000, -10, 10);
	F1(float, "remquof_q", remquof_q(x, y), -1000, 1000, -10, 10);
	F1(float, "fdividef", fdividef(x, y), -10, 10, -10, 10);
	F1(float, "rhypotf", rhypotf(x, y), -100, 100, -100, 100);
	F1(float, "norm3df", norm3df(x, y, x - y), -100, 100, -100, 100);
	F1(float, "rnorm3df", rnorm3df(x, y, x - y), -100, 100, -100, 100);
	F1(float, "norm4df", norm4df(x, y, x - y, x + y), -100, 100, -100, 100);
	F1(float, "rnorm4df", rnorm4df(x, y, x - y, x + y), -100, 100, -100, 100);
	F1(float, "normf", normf3(x, y, false), -100, 100, -100, 100);
	F1(float, "rnormf", normf3(x, y, true), -100, 100, -100, 100);
	F1(float, "j0f", j0f(x), -50, 50, 0, 0);
	F1(float, "j1f", j1f(x), -50, 50, 0, 0);
	F1(float, "y0f", y0f(x), 0, 50, 0, 0);
	F1(float, "y1f", y1f(x), 0, 50, 0, 0);
	F1(float, "jnf", jnf(3, x), -50, 50, 0, 0);
	F1(float, "ynf", ynf(3, x), 0, 50, 0, 0);
	F1(float, "cyl_bessel_i0f", cyl_bessel_i0f(x), -100, 100, 0, 0);
	F1(float, "cyl_bessel_i1f", cyl_bessel_i1f(x), -100, 100, 0, 0);
	F1(double, "frexp", frexp_m(x), -1075, 1024, 0, 0, true);
	F1(double, "frexp_e", frexp_e(x), -1075, 1024, 0, 0, true);
	F1(double, "ldexp", ldexp(x, (int)y), -10, 10, -2200, 2200);
	F1(double, "scalbn", scalbn(x, (int)y), -10, 10, -2200, 2200);
	F1(double, "ilogb", ilogb(x), -1075, 1024, 0, 0, true);
	F1(double, "logb", logb(x), -1075, 1024, 0, 0, true);
	F1(double, "modf", modf_f(x), -10, 60, 0, 0, true);
	F1(double, "modf_i", modf_i(x), -10, 60, 0, 0, true);
	F1(double, "nextafter", nextafter(x, y), -10, 10, -10, 10);
	F1(double, "fdim", fdim(x, y), -10, 10, -10, 10);
	F1(double, "nearbyint", nearbyint(x), -1000, 1000, 0, 0);
	F1(double, "lrint", lrint(x), -1e15, 1e15, 0, 0);
	F1(double, "lround", lround(x), -1e15, 1e15, 0, 0);
	F1(double, "llrint", llrint(x), -1e15, 1e15, 0, 0);
	F1(double, "llround", llround(x), -1e15, 1e15, 0, 0);
	F1(double, "remquo", remquo_r(x, y), -1000, 1000, -10, 10);
	F1(double, "remquo_q", remquo_q(x, y), -1000, 1000, -10, 10);
	F1(double, "rhypot", rhypot(x, y), -100, 100, -100, 100);
	F1(double, "norm3d", norm3d(x, y, x - y), -100, 100, -100, 100);
	F1(double, "rnorm3d", rnorm3d(x, y, x - y), -100, 100, -100, 100);
	F1(double, "norm4d", norm4d(x, y, x - y, x + y), -100, 100, -100, 100);
	F1(double, "rnorm4d", rnorm4d(x, y, x - y, x + y), -100, 100, -100, 100);
	F1(double, "norm", norm3(x, y, false), -100, 100, -100, 100);
	F1(double, "rnorm", norm3(x, y, true), -100, 100, -100, 100);
	F1(double, "j0", j0(x), -50, 50, 0, 0);
	F1(double, "j1", j1(x), -50, 50, 0, 0);
	F1(double, "y0", y0(x), 0, 50, 0, 0);
	F1(double, "y1", y1(x), 0, 50, 0, 0);
	F1(double, "jn", jn(3, x), -50, 50, 0, 0);
	F1(double, "yn", yn(3, x), 0, 50, 0, 0);
	F1(double, "cyl_bessel_i0", cyl_bessel_i0(x), -100, 100, 0, 0);
	F1(double, "cyl_bessel_i1", cyl_bessel_i1(x), -100, 100, 0, 0);
	return 0;
}
