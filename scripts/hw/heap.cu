// heap.cu: what a GPU's device heap (malloc/free in kernels) gives for a requested
// size. Run as `heap SIZE` (bytes; 0: leave the default):
//   - cudaDeviceSetLimit(cudaLimitMallocHeapSize, SIZE) and what cudaDeviceGetLimit
//     then reports;
//   - the largest single malloc that succeeds (bisection in one thread, each try
//     freeing its block);
//   - how many blocks of 1, 4 and 64 KiB one thread gets before NULL, and the
//     spacing of consecutive addresses (the allocator's per-block overhead);
//   - whether freeing everything gives the space back.
#include <cstdio>
#include <cstdlib>

__global__ void largest(size_t lo, size_t hi, size_t *out)
{
	// lo succeeds (or is 0), hi fails.
	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2;
		void *p = malloc(mid);
		if (p) {
			free(p);
			lo = mid;
		} else {
			hi = mid;
		}
	}
	*out = lo;
}

__global__ void count(size_t size, unsigned long long *out)
{
	const int max = 1 << 16;
	unsigned long long n = 0, first = 0, second = 0;
	void *prev = NULL;
	void *head = NULL;
	// A singly linked list through the blocks themselves keeps them for freeing.
	while (n < max) {
		void *p = malloc(size);
		if (!p)
			break;
		*(void **)p = prev;
		if (n == 0)
			first = (unsigned long long)p;
		if (n == 1)
			second = (unsigned long long)p;
		prev = p;
		n++;
	}
	head = prev;
	out[0] = n;
	out[1] = second - first;
	while (head) {
		void *next = *(void **)head;
		free(head);
		head = next;
	}
	unsigned long long again = 0;
	prev = NULL;
	while (again < max) {
		void *p = malloc(size);
		if (!p)
			break;
		*(void **)p = prev;
		prev = p;
		again++;
	}
	out[2] = again;
	while (prev) {
		void *next = *(void **)prev;
		free(prev);
		prev = next;
	}
}

int main(int argc, char **argv)
{
	size_t want = argc > 1 ? strtoull(argv[1], NULL, 0) : 0;
	if (want) {
		cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, want);
		printf("set %zu: %s\n", want, cudaGetErrorName(e));
	}
	size_t heap = 0;
	cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
	printf("heap %zu\n", heap);
	size_t *d, big;
	cudaMalloc(&d, sizeof *d);
	largest<<<1, 1>>>(0, 2 * heap + 4096, d);
	cudaMemcpy(&big, d, sizeof big, cudaMemcpyDeviceToHost);
	printf("largest malloc %zu (heap - %lld)\n", big, (long long)heap - (long long)big);
	unsigned long long *c, h[3];
	cudaMalloc(&c, sizeof h);
	size_t sizes[] = {1024, 4096, 65536};
	for (size_t s : sizes) {
		count<<<1, 1>>>(s, c);
		cudaError_t e = cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
		printf("blocks of %zu: %llu, spacing %llu, after freeing all %llu (%s)\n", s, h[0], h[1], h[2], cudaGetErrorName(e));
	}
	return 0;
}
