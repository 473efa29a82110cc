// loadlat_stream.cuh: the streaming blocks of scripts/hw/loadlat.cu's kernel, shared
// with loadlat_gtrace.cu (the same kernel as gtrace captures it).
#pragma once

// streamers is blocks 1 and up of the grid: each thread moves 16 B at a time through
// a (n uint4s), grid-stride, iters times. kind: 0 read, 1 copy the first half to the
// second, 2 write.
__device__ __forceinline__ void streamers(uint4 *a, size_t n, int iters, int kind, unsigned *sink)
{
	size_t t = (blockIdx.x - 1) * (size_t)blockDim.x + threadIdx.x, nt = (gridDim.x - 1) * (size_t)blockDim.x;
	size_t half = n / 2, span = kind == 1 ? half : n;
	unsigned s = 0;
	size_t i = t % span;
	for (int it = 0; it < iters; it++) {
		if (kind == 0) {
			uint4 v = __ldcg(&a[i]);
			s += v.x ^ v.w;
		} else if (kind == 1) {
			a[half + i] = __ldcg(&a[i]);
		} else {
			a[i] = make_uint4(it, 0, 0, it);
		}
		i += nt;
		if (i >= span)
			i -= span;
	}
	if (s == 0x9e3779b9u)
		sink[1] = s;
}
