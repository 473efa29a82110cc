// A 3-point stencil that loads its neighbours into shared memory before it looks where
// it is, as Rodinia's srad does: the first thread reads in[-1], the last in[n], and both
// then overwrite the value with their own. A GPU reads whatever lies there and the result is right;
// gtrace run stops at the first such read unless told --oob=warn. The program checks
// its result against the host's and prints how many values agree.
#include <cstdio>
#include <cstdlib>

__global__ void smooth(const float *in, float *out, int n)
{
	__shared__ float w[128], e[128];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	if (i < n) {
		w[t] = in[i - 1];
		e[t] = in[i + 1];
	}
	__syncthreads();
	if (i == 0)
		w[t] = in[i];
	if (i == n - 1)
		e[t] = in[i];
	__syncthreads();
	if (i < n)
		out[i] = (w[t] + in[i] + e[t]) / 3.0f;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	float *h = (float *)malloc(n * sizeof(float)), *r = (float *)malloc(n * sizeof(float));
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 7);
	float *in, *out;
	cudaMalloc(&in, n * sizeof(float));
	cudaMalloc(&out, n * sizeof(float));
	cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);
	smooth<<<(n + 127) / 128, 128>>>(in, out, n);
	cudaError_t e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		e = cudaMemcpy(r, out, n * sizeof(float), cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		printf("smooth: %s\n", cudaGetErrorName(e));
		return 1;
	}
	int agree = 0;
	for (int i = 0; i < n; i++) {
		float w = h[i > 0 ? i - 1 : i], c = h[i], x = h[i < n - 1 ? i + 1 : i];
		agree += r[i] == (w + c + x) / 3.0f;
	}
	printf("%d of %d values agree with the host's\n", agree, n);
	return agree == n ? 0 : 2;
}
