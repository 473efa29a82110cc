// overhead.cu: the fixed cost of a kernel launch as ncu measures it, independent of the
// reference kernels: empty kernels at a few grid sizes, and one that does a single
// dependent global load per thread. The timing replay uses the empty kernel's
// sm__cycles_elapsed.avg as its launch-and-drain overhead.
//
//   nvcc -O3 -arch=sm_90 -o overhead scripts/hw/overhead.cu
//   ncu --csv --cache-control all --clock-control base \
//       --metrics sm__cycles_elapsed.avg,sm__cycles_active.avg,gpu__time_duration.sum ./overhead
#include <cstdio>
#include <cuda_runtime.h>

__global__ void empty() {}

__global__ void one_load(const float *in, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = in[i];
}

int main()
{
	float *in, *out;
	cudaMalloc(&in, 1 << 24);
	cudaMalloc(&out, 1 << 24);
	cudaMemset(in, 0, 1 << 24);
	empty<<<1, 32>>>();
	empty<<<132, 32>>>();
	empty<<<1024, 256>>>();
	one_load<<<1, 32>>>(in, out);
	one_load<<<132, 256>>>(in, out);
	cudaError_t err = cudaDeviceSynchronize();
	printf("%s\n", cudaGetErrorString(err));
	return err != cudaSuccess;
}
