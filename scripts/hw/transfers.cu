// transfers.cu: host<->device copy times for issue 15's transfer model (seed 000:
// "if the data < 80KB, the latency dominates"; pinned against pageable; copies
// overlapping each other and kernels). Built and run by scripts/hw/transfers.sh.
//
// Prints CSV on stdout: test,dir,mem,bytes,reps,median_us,min_us
//   copy       one cudaMemcpy of BYTES, dir h2d or d2h, mem pinned (cudaMallocHost)
//              or pageable (malloc), timed on the host around the call and a
//              cudaDeviceSynchronize (what a program waits), REPS times after one
//              warm-up; median and least time
//   event      the same copy timed with CUDA events on the stream (the GPU's view)
//   pair_*     two 64 MB pinned copies issued together on two streams and timed as
//              one: pair_h2d_d2h (opposite directions), pair_h2d_h2d (the same one);
//              dir/mem name what the pair was, the time is the pair's
//   kernel     a kernel spinning for about 2 ms alone (dir none), and beside a 64 MB
//              pinned h2d copy on another stream (dir h2d)
// Lines starting with # describe the device (asyncEngineCount: copy engines).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                              \
	do {                                                                                               \
		cudaError_t e_ = (x);                                                                      \
		if (e_ != cudaSuccess) {                                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                           \
		}                                                                                          \
	} while (0)

static double now_us()
{
	return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static void report(const char *test, const char *dir, const char *mem, size_t bytes, std::vector<double> &t)
{
	std::sort(t.begin(), t.end());
	printf("%s,%s,%s,%zu,%zu,%.3f,%.3f\n", test, dir, mem, bytes, t.size(), t[t.size() / 2], t[0]);
	fflush(stdout);
}

__global__ void spin(long long cycles, int *out)
{
	long long start = clock64();
	while (clock64() - start < cycles) {
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = 1;
}

int main()
{
	const size_t maxBytes = 256u << 20;
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	int clockKHz; // cudaDeviceProp::clockRate is gone in CUDA 13
	CK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0));
	printf("# device: %s, asyncEngineCount %d, pciBus %d, clock %d kHz\n", p.name, p.asyncEngineCount, p.pciBusID,
	       clockKHz);
	printf("test,dir,mem,bytes,reps,median_us,min_us\n");

	char *dev, *pinned, *pageable;
	CK(cudaMalloc(&dev, 2 * maxBytes));
	CK(cudaMallocHost(&pinned, 2 * maxBytes));
	pageable = (char *)malloc(maxBytes);
	memset(pageable, 1, maxBytes); // touch every page: no first-touch faults in the timing
	memset(pinned, 1, 2 * maxBytes);
	cudaStream_t s1, s2;
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));

	for (size_t bytes = 4096; bytes <= maxBytes; bytes *= 2) {
		int reps = bytes <= (1u << 20) ? 50 : bytes <= (16u << 20) ? 20 : 7;
		for (int d = 0; d < 2; d++) {
			for (int m = 0; m < 2; m++) {
				char *host = m == 0 ? pinned : pageable;
				void *dst = d == 0 ? (void *)dev : (void *)host;
				void *src = d == 0 ? (void *)host : (void *)dev;
				cudaMemcpyKind kind = d == 0 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
				const char *dir = d == 0 ? "h2d" : "d2h", *mem = m == 0 ? "pinned" : "pageable";
				CK(cudaMemcpy(dst, src, bytes, kind)); // warm-up
				std::vector<double> wall, ev;
				for (int r = 0; r < reps; r++) {
					CK(cudaDeviceSynchronize());
					double t0 = now_us();
					CK(cudaMemcpy(dst, src, bytes, kind));
					CK(cudaDeviceSynchronize());
					wall.push_back(now_us() - t0);
				}
				for (int r = 0; r < reps; r++) {
					CK(cudaEventRecord(e0, s1));
					CK(cudaMemcpyAsync(dst, src, bytes, kind, s1));
					CK(cudaEventRecord(e1, s1));
					CK(cudaEventSynchronize(e1));
					float ms;
					CK(cudaEventElapsedTime(&ms, e0, e1));
					ev.push_back(1000.0 * ms);
				}
				report("copy", dir, mem, bytes, wall);
				report("event", dir, mem, bytes, ev);
			}
		}
	}

	// Pairs of 64 MB pinned copies on two streams, timed together on the host.
	const size_t pair = 64u << 20;
	for (int same = 0; same < 2; same++) {
		std::vector<double> t;
		for (int r = 0; r < 7; r++) {
			CK(cudaDeviceSynchronize());
			double t0 = now_us();
			CK(cudaMemcpyAsync(dev, pinned, pair, cudaMemcpyHostToDevice, s1));
			if (same)
				CK(cudaMemcpyAsync(dev + maxBytes, pinned + maxBytes, pair, cudaMemcpyHostToDevice, s2));
			else
				CK(cudaMemcpyAsync(pinned + maxBytes, dev + maxBytes, pair, cudaMemcpyDeviceToHost, s2));
			CK(cudaDeviceSynchronize());
			t.push_back(now_us() - t0);
		}
		report(same ? "pair_h2d_h2d" : "pair_h2d_d2h", same ? "h2d+h2d" : "h2d+d2h", "pinned", pair, t);
	}

	// A kernel of about 2 ms alone, then beside a 64 MB h2d copy.
	int *flag;
	CK(cudaMalloc(&flag, 1024 * sizeof(int)));
	long long cycles = (long long)clockKHz * 2; // 2 ms at the top clock
	for (int withCopy = 0; withCopy < 2; withCopy++) {
		std::vector<double> t;
		for (int r = 0; r < 7; r++) {
			CK(cudaDeviceSynchronize());
			double t0 = now_us();
			spin<<<p.multiProcessorCount, 32, 0, s1>>>(cycles, flag);
			if (withCopy)
				CK(cudaMemcpyAsync(dev, pinned, pair, cudaMemcpyHostToDevice, s2));
			CK(cudaDeviceSynchronize());
			t.push_back(now_us() - t0);
		}
		report("kernel", withCopy ? "h2d" : "none", withCopy ? "pinned" : "-", withCopy ? pair : 0, t);
	}
	return 0;
}
