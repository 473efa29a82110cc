// tex1d.cu: what tex1Dfetch returns past either end of a texture over linear memory,
// through a texture object (CUDA 12 and later have no texture references; the hardware
// fetch is the same). gtrace's tex.1d (capture/op_texture.go) follows what this prints.
// Build and run on a GPU machine:
//
//   nvcc -o tex1d scripts/hw/tex1d.cu && ./tex1d
#include <cstdio>

__global__ void fetch(cudaTextureObject_t t, cudaTextureObject_t t4, const int *idx, float *f, float4 *f4, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		f[i] = tex1Dfetch<float>(t, idx[i]);
		f4[i] = tex1Dfetch<float4>(t4, idx[i]);
	}
}

static cudaTextureObject_t linear(void *p, cudaChannelFormatDesc d, size_t bytes)
{
	cudaResourceDesc r = {};
	r.resType = cudaResourceTypeLinear;
	r.res.linear.devPtr = p;
	r.res.linear.desc = d;
	r.res.linear.sizeInBytes = bytes;
	cudaTextureDesc td = {};
	td.readMode = cudaReadModeElementType;
	cudaTextureObject_t t = 0;
	cudaError_t e = cudaCreateTextureObject(&t, &r, &td, NULL);
	if (e != cudaSuccess)
		printf("cudaCreateTextureObject: %s\n", cudaGetErrorName(e));
	return t;
}

int main()
{
	const int n = 1000, m = 6;
	float h[n];
	for (int i = 0; i < n; i++)
		h[i] = 0.5f * i - 7;
	float *d, *f;
	float4 *f4;
	int *didx, idx[m] = {0, n - 1, -1, n, n + 100, 1 << 24};
	cudaMalloc(&d, sizeof h);
	cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
	cudaMalloc(&f, m * sizeof(float));
	cudaMalloc(&f4, m * sizeof(float4));
	cudaMalloc(&didx, sizeof idx);
	cudaMemcpy(didx, idx, sizeof idx, cudaMemcpyHostToDevice);
	cudaTextureObject_t t = linear(d, cudaCreateChannelDesc<float>(), sizeof h);
	cudaTextureObject_t t4 = linear(d, cudaCreateChannelDesc<float>(), sizeof h);
	fetch<<<1, 32>>>(t, t4, didx, f, f4, m);
	printf("fetch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	float hf[m];
	float4 hf4[m];
	cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
	cudaMemcpy(hf4, f4, sizeof hf4, cudaMemcpyDeviceToHost);
	for (int i = 0; i < m; i++)
		printf("index %d: float %g, one channel as float4 (%g, %g, %g, %g)\n", idx[i], hf[i], hf4[i].x, hf4[i].y, hf4[i].z, hf4[i].w);
	return 0;
}
