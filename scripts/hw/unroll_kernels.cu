// unroll_kernels.cu: loops of known and unknown form for scripts/hw/unroll.sh, which
// asks how far ptxas unrolls each beyond the PTX it is given (issue 11, lat.branch:
// a taken BRA costs a warp about 11 cycles, so how many trips share one matters).
// Each loop's body is one dependent FMA; the SASS shows FMAs per backward branch.

// counted: a trip count known only at run time, unit step (streamtime.cu's spin).
extern "C" __global__ void counted(float *out, int r)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = 0; i < r; i++)
		x = fmaf(x, 0.999f, 1e-4f);
	out[threadIdx.x] = x;
}

// counted_const: 4096 trips known at compile time (mma.cu's latency loop).
extern "C" __global__ void counted_const(float *out)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = 0; i < 4096; i++)
		x = fmaf(x, 0.999f, 1e-4f);
	out[threadIdx.x] = x;
}

// counted_step3: a constant step other than one.
extern "C" __global__ void counted_step3(float *out, int r)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = 0; i < r; i += 3)
		x = fmaf(x, 0.999f, 1e-4f);
	out[threadIdx.x] = x;
}

// strided: a block-stride loop, its step a register (hist_warp's loops).
extern "C" __global__ void strided(float *out, int n)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		x = fmaf(x, 0.999f, 1e-4f);
	out[threadIdx.x] = x;
}

// counted_load: a unit-step loop whose body loads (a dependent chain through memory).
extern "C" __global__ void counted_load(const int *next, int *out, int r)
{
	int p = threadIdx.x;
	for (int i = 0; i < r; i++)
		p = next[p];
	out[threadIdx.x] = p;
}

// counted_big: a unit-step loop with a larger body (32 dependent FMAs a trip).
extern "C" __global__ void counted_big(float *out, int r)
{
	float x = threadIdx.x * 1e-3f, y = x + 1;
	for (int i = 0; i < r; i++) {
#pragma unroll
		for (int k = 0; k < 16; k++) {
			x = fmaf(x, 0.999f, 1e-4f);
			y = fmaf(y, x, 1e-4f);
		}
	}
	out[threadIdx.x] = x + y;
}
