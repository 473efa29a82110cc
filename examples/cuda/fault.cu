// What a kernel fault does to a CUDA program: after it, as on a GPU, every call that
// needs the device returns the fault's error, however often the error is read, and
// nothing more runs. The program launches a kernel that works, then one that faults in
// the way its argument names, then prints what each later call returns.
//
//   fault oob          a store to an address no allocation holds (cudaErrorIllegalAddress)
//   fault misaligned   a 4-byte store to an address 2 bytes into a buffer (cudaErrorMisalignedAddress)
//   fault trap         a trap instruction (cudaErrorLaunchFailure)
//
// gtrace run prints what a GPU prints (examples/cuda/runs.txt, scripts/hw/examples.sh),
// writes the launch that worked to the trace, and exits 1: the program exits 0, but
// the trace lacks the launch that faulted.
#include <cstdio>
#include <cstring>
#include "check.h"

__global__ void fill(int *p)
{
	p[threadIdx.x] = threadIdx.x;
}

__global__ void fault(int *p, int *nowhere, int mode)
{
	if (threadIdx.x != 5)
		return;
	if (mode == 0)
		*nowhere = 1;
	else if (mode == 1)
		*(int *)((char *)p + 2) = 1;
	else
		asm volatile("trap;");
}

static void says(const char *call, cudaError_t e)
{
	printf("%s: %s\n", call, cudaGetErrorName(e));
}

int main(int argc, char **argv)
{
	const char *modes[] = {"oob", "misaligned", "trap"};
	int mode = -1;
	for (int i = 0; i < 3; i++)
		if (argc > 1 && strcmp(argv[1], modes[i]) == 0)
			mode = i;
	if (mode < 0) {
		fprintf(stderr, "usage: fault oob|misaligned|trap\n");
		return 2;
	}
	int *p, h[32];
	CHECK(cudaMalloc(&p, sizeof h));
	fill<<<1, 32>>>(p);
	CHECK(cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost));
	printf("fill: h[31] = %d\n", h[31]);

	// An address far below any allocation (the first page is never mapped).
	fault<<<1, 32>>>(p, (int *)16, mode);
	says("cudaDeviceSynchronize", cudaDeviceSynchronize());
	says("cudaGetLastError", cudaGetLastError());
	says("cudaGetLastError again", cudaGetLastError());
	says("cudaMemcpy", cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost));
	int *q = nullptr;
	says("cudaMalloc", cudaMalloc(&q, 4));
	fill<<<1, 32>>>(p);
	says("a launch, then cudaGetLastError", cudaGetLastError());
	cudaStream_t s;
	says("cudaStreamCreate", cudaStreamCreate(&s));
	says("cudaFree", cudaFree(p));
	return 0;
}
