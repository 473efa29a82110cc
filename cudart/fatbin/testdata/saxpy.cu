// The program behind the fat binaries of this folder (scripts/fatbin-fixtures.sh).
#include <cstdio>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void scale(float *y, float s) { y[threadIdx.x] *= s; }

int main()
{
	const int n = 1000;
	float *x, *y;
	cudaMalloc(&x, n * 4);
	cudaMalloc(&y, n * 4);
	saxpy<<<4, 256>>>(n, 2.0f, x, y);
	scale<<<1, 32>>>(y, 0.5f);
	printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
	return 0;
}
