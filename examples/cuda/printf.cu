// printf: device-side printf and assert, and when their output reaches the host.
// A GPU keeps what kernels print in a buffer and writes it to the program's stdout
// when the host next waits for the device (cudaDeviceSynchronize, a blocking copy,
// ...), after the host's own earlier lines. Run as
//
//   printf formats     one thread prints the C conversions, flags, widths, precisions
//                      and lengths CUDA's printf takes; the host prints what each
//                      printf returned
//   printf gpuwrong    the forms a GPU prints wrongly: an hh length, a '*' width or
//                      precision (what follows them is read from the wrong place)
//   printf lanes N     N blocks of 96 threads; every third thread prints, one warp
//                      after another, so that the order is the same on every run
//   printf limits      cudaDeviceGetLimit of each limit, and a printf buffer resized
//   printf overflow N  one thread prints N numbered lines into the default buffer
//   printf assert      a device-side assert fails in block 1, thread 5
//   printf noflush     a kernel prints and the program ends without waiting for it
//
// Built with nvcc -cudart shared, it runs unmodified on a GPU or under gtrace run.
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "check.h"

__global__ void formats(const int *iv, const double *dv, const char *word, int *ret)
{
	if (threadIdx.x != 0 || blockIdx.x != 0)
		return;
	int a = iv[0], b = iv[1];
	long long big = (long long)iv[2] * 1000003LL;
	double x = dv[0], inf = dv[1], nan = dv[2], tiny = dv[3];
	int r = 0;
	ret[r++] = printf("ints: %d %i %u %x %X %o|%5d|%-5d|%05d|%+d|% d|%#x|%#o|\n", a, a, a, a, a, a, b, b, b, b, b, b, b);
	ret[r++] = printf("longs: %ld %lld %lu %llx %li %lld\n", (long)big, big, (unsigned long)big, big, -(long)big, -9223372036854775807LL - 1);
	ret[r++] = printf("small: %hd %hu %c%c|%3c|%-3c|\n", a, b, 'o', 'k', 'x', 'y');
	ret[r++] = printf("fixed: %f %.2f|%10.3f|%-10.3f|%.0f %#.0f %+.1f\n", x, x, x, -x, x, x, x);
	ret[r++] = printf("exp: %e %E %.3e %.0e %e\n", x, x * 1e300, tiny, x, 0.0);
	ret[r++] = printf("g: %g %g %g %g %G %.10g %#g %g %g\n", 1e-5, 1e20, 100000.0, 1e6, 1e-10, x, 1.0, 0.0001, -0.0);
	ret[r++] = printf("hex: %a %A %.3a %a\n", x, -x, x, 1.0);
	ret[r++] = printf("special: %f %e %g %F|%8.1f|%-8g|%E\n", inf, -inf, nan, inf, -inf, nan, -nan);
	ret[r++] = printf("strings: %s|%.3s|%10s|%-10s|%s|\n", word, word, word, word, "");
	ret[r++] = printf("percent: 100%% %%d\n");
	ret[r++] = printf("pointer: %p\n", (void *)0);
	ret[r++] = printf("no newline, ");
	ret[r++] = printf("then the rest (%d)\n", r);
	ret[r++] = printf("");
	ret[r++] = printf("%d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
	ret[r++] = printf("float arguments: %f %.3f\n", (float)x, 0.1f);
}

// What CUDA 13 on an H100 prints wrongly: the device counts no argument for an hh
// length, and reads what follows a '*' from the wrong place.
__global__ void gpuwrong(const int *iv, const double *dv, int *ret)
{
	if (threadIdx.x != 0 || blockIdx.x != 0)
		return;
	int a = iv[0], b = iv[1];
	double x = dv[0];
	ret[0] = printf("small: %hd %hhd %hu %hhu %c%c|%3c|%-3c|\n", a, a, b, b, 'o', 'k', 'x', 'y');
	ret[1] = printf("width: %*d|%-*d|\n", 6, a, 6, a);
	ret[2] = printf("star: %*d|%-*d|%.*f|%*.*f|%*d|\n", 6, a, 6, a, 3, x, 10, 2, x, -4, b);
}

__global__ void lanes()
{
	for (int w = 0; w < blockDim.x / 32; w++) {
		if (threadIdx.x / 32 == w && threadIdx.x % 3 == 0)
			printf("block %d thread %d lane %d\n", blockIdx.x, threadIdx.x, threadIdx.x % 32);
		__syncthreads();
	}
}

__global__ void lines(int n)
{
	for (int i = 0; i < n; i++)
		printf("line %d\n", i);
}

__global__ void checked(int *v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	assert(v[i] != 37);
	v[i] += 1;
}

static void runFormats()
{
	int hi[3] = {-42, 255, 123456};
	double hd[4] = {3.14159265358979, INFINITY, NAN, 1.5e-300};
	int *iv, *ret;
	double *dv;
	char *word;
	CHECK(cudaMalloc(&iv, sizeof hi));
	CHECK(cudaMalloc(&dv, sizeof hd));
	CHECK(cudaMalloc(&word, 16));
	CHECK(cudaMalloc(&ret, 32 * sizeof(int)));
	CHECK(cudaMemcpy(iv, hi, sizeof hi, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dv, hd, sizeof hd, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(word, "gtrace", 7, cudaMemcpyHostToDevice));
	CHECK(cudaMemset(ret, 0xff, 32 * sizeof(int)));
	printf("host: before the launch\n");
	formats<<<1, 32>>>(iv, dv, word, ret);
	CHECK(cudaGetLastError());
	printf("host: after the launch\n");
	CHECK(cudaDeviceSynchronize());
	printf("host: after cudaDeviceSynchronize\n");
	int hr[32];
	CHECK(cudaMemcpy(hr, ret, sizeof hr, cudaMemcpyDeviceToHost));
	printf("host: printf returned");
	for (int i = 0; i < 16; i++)
		printf(" %d", hr[i]);
	printf("\n");
}

static void runGpuWrong()
{
	int hi[2] = {-42, 255}, *iv, *ret, hr[3];
	double hd[1] = {3.14159265358979}, *dv;
	CHECK(cudaMalloc(&iv, sizeof hi));
	CHECK(cudaMalloc(&dv, sizeof hd));
	CHECK(cudaMalloc(&ret, sizeof hr));
	CHECK(cudaMemcpy(iv, hi, sizeof hi, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dv, hd, sizeof hd, cudaMemcpyHostToDevice));
	gpuwrong<<<1, 32>>>(iv, dv, ret);
	CHECK(cudaMemcpy(hr, ret, sizeof hr, cudaMemcpyDeviceToHost));
	printf("host: printf returned %d %d %d\n", hr[0], hr[1], hr[2]);
}

static void runNoFlush()
{
	printf("host: launching, then returning from main without waiting\n");
	lanes<<<1, 32>>>();
	CHECK(cudaGetLastError());
}

static void runLanes(int blocks)
{
	for (int b = 0; b < blocks; b++) {
		lanes<<<1, 96>>>();
		CHECK(cudaGetLastError());
		printf("host: launch %d\n", b);
	}
	int *tmp, h;
	CHECK(cudaMalloc(&tmp, sizeof(int)));
	CHECK(cudaMemcpy(&h, tmp, sizeof(int), cudaMemcpyDeviceToHost));
	printf("host: after the copy\n");
}

static void runLimits()
{
	const char *names[] = {"cudaLimitStackSize", "cudaLimitPrintfFifoSize", "cudaLimitMallocHeapSize",
	                       "cudaLimitDevRuntimeSyncDepth", "cudaLimitDevRuntimePendingLaunchCount",
	                       "cudaLimitMaxL2FetchGranularity", "cudaLimitPersistingL2CacheSize"};
	// Limits 3 and 6 are left out: device-side synchronisation (CUDA 11's dynamic
	// parallelism) and persisting L2 lines differ between CUDA versions and GPUs.
	for (int i = 0; i < 7; i++) {
		if (i == 3 || i == 6)
			continue;
		size_t v = 0;
		cudaError_t e = cudaDeviceGetLimit(&v, (cudaLimit)i);
		printf("%s: %s %zu\n", names[i], cudaGetErrorName(e), v);
	}
	cudaError_t e = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 22);
	size_t v = 0;
	cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize);
	printf("set cudaLimitPrintfFifoSize 4 MiB: %s, now %zu\n", cudaGetErrorName(e), v);
	e = cudaDeviceGetLimit(&v, (cudaLimit)99);
	printf("limit 99: %s\n", cudaGetErrorName(e));
}

static void runOverflow(int n)
{
	lines<<<1, 1>>>(n);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
}

static void runAssert()
{
	int n = 256, h[256];
	for (int i = 0; i < n; i++)
		h[i] = i;
	int *v;
	CHECK(cudaMalloc(&v, sizeof h));
	CHECK(cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice));
	checked<<<n / 32, 32>>>(v);
	printf("host: launched\n");
	cudaError_t e = cudaDeviceSynchronize();
	printf("host: cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
	e = cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
	printf("host: cudaMemcpy after it: %s\n", cudaGetErrorName(e));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "formats";
	int n = argc > 2 ? atoi(argv[2]) : 2;
	if (!strcmp(mode, "formats"))
		runFormats();
	else if (!strcmp(mode, "gpuwrong"))
		runGpuWrong();
	else if (!strcmp(mode, "noflush"))
		runNoFlush();
	else if (!strcmp(mode, "lanes"))
		runLanes(n);
	else if (!strcmp(mode, "limits"))
		runLimits();
	else if (!strcmp(mode, "overflow"))
		runOverflow(n);
	else if (!strcmp(mode, "assert"))
		runAssert();
	else {
		fprintf(stderr, "usage: printf formats|gpuwrong|lanes N|limits|overflow N|assert|noflush\n");
		return 2;
	}
	return 0;
}
