// pitch: a 2D image in pitched device memory. cudaMallocPitch pads each row, cudaMemcpy2D
// copies between the tight host image and the padded rows (and back into a host image
// with a pitch of its own, and device to device), cudaMemset2D clears a window, and a
// kernel walks the rows by the pitch. It prints the pitches the runtime chose and what
// each bad call returns, then checks every pixel against the host's. Built with nvcc
// -cudart shared, it runs unmodified on a GPU or under gtrace run.
//
//   pitch W H
#include <cstdio>
#include <cstdlib>

#include "check.h"

// scale doubles each pixel and adds its column: img is h rows of w floats, pitch bytes apart.
__global__ void scale(float *img, size_t pitch, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
	if (x < w && y < h) {
		float *row = (float *)((char *)img + y * pitch);
		row[x] = 2 * row[x] + x;
	}
}

static void says(const char *what, cudaError_t e)
{
	printf("%s: %s\n", what, cudaGetErrorName(e));
	cudaGetLastError(); // each line tells of its own call only
}

int main(int argc, char **argv)
{
	int w = argc > 1 ? atoi(argv[1]) : 300, h = argc > 2 ? atoi(argv[2]) : 20;
	// The pitches the runtime picks for rows of these many bytes.
	size_t widths[] = {1, 4, 100, 511, 512, 513, 1000, 1024, 1200, 4096, 5000, 70000};
	for (size_t bw : widths) {
		void *p;
		size_t pitch = 0;
		CHECK(cudaMallocPitch(&p, &pitch, bw, 3));
		printf("cudaMallocPitch(%zu bytes, 3 rows): pitch %zu\n", bw, pitch);
		CHECK(cudaFree(p));
	}
	int align = 0;
	CHECK(cudaDeviceGetAttribute(&align, cudaDevAttrTexturePitchAlignment, 0));
	printf("texture pitch alignment %d\n", align);

	size_t row = w * sizeof(float), pitch;
	float *img, *copy;
	CHECK(cudaMallocPitch((void **)&img, &pitch, row, h));
	CHECK(cudaMallocPitch((void **)&copy, &pitch, row, h));
	float *hin = (float *)malloc(row * h);
	for (int i = 0; i < w * h; i++)
		hin[i] = (float)(i % 977) * 0.5f;
	CHECK(cudaMemcpy2D(img, pitch, hin, row, row, h, cudaMemcpyHostToDevice));
	scale<<<dim3((w + 127) / 128, h), 128>>>(img, pitch, w, h);
	CHECK(cudaGetLastError());
	// Device to device, then clear a window of the copy: columns 2 to 6 of rows 1 to 3.
	CHECK(cudaMemcpy2D(copy, pitch, img, pitch, row, h, cudaMemcpyDeviceToDevice));
	if (w >= 7 && h >= 4)
		CHECK(cudaMemset2D((char *)copy + pitch + 2 * sizeof(float), pitch, 0, 5 * sizeof(float), 3));
	// Back to a host image with a pitch of its own (8 floats of padding), on a stream.
	size_t hpitch = row + 8 * sizeof(float);
	float *hout = (float *)malloc(hpitch * h);
	for (size_t i = 0; i < hpitch * h / sizeof(float); i++)
		hout[i] = -1;
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMemcpy2DAsync(hout, hpitch, copy, pitch, row, h, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	int bad = 0;
	double sum = 0;
	for (int y = 0; y < h; y++) {
		float *r = (float *)((char *)hout + y * hpitch);
		for (int x = 0; x < w + 8; x++) {
			float want = x >= w ? -1 : 2 * hin[y * w + x] + x;
			if (x < w && y >= 1 && y <= 3 && x >= 2 && x <= 6 && w >= 7 && h >= 4)
				want = 0;
			if (r[x] != want)
				bad++;
			if (x < w)
				sum += r[x];
		}
	}
	printf("pitch: %dx%d floats, row %zu bytes, pitch %zu, sum %.1f, %d wrong: %s\n", w, h, row, pitch, sum, bad,
	       bad ? "FAILED" : "PASSED");

	// What the runtime says to bad pitches and sizes.
	says("cudaMemcpy2D, width over the destination pitch", cudaMemcpy2D(img, 16, hin, row, 32, 2, cudaMemcpyHostToDevice));
	says("cudaMemcpy2D, width over the source pitch", cudaMemcpy2D(img, pitch, hin, 16, 32, 2, cudaMemcpyHostToDevice));
	says("cudaMemcpy2D, no rows", cudaMemcpy2D(img, pitch, hin, row, row, 0, cudaMemcpyHostToDevice));
	says("cudaMemcpy2D, no width", cudaMemcpy2D(img, pitch, hin, row, 0, 2, cudaMemcpyHostToDevice));
	says("cudaMemcpy2D, past the allocation", cudaMemcpy2D(img, pitch, hin, row, row, h + 1, cudaMemcpyHostToDevice));
	says("cudaMemset2D, width over the pitch", cudaMemset2D(img, 16, 0, 32, 2));
	void *p;
	size_t pp = 7;
	says("cudaMallocPitch, no width", cudaMallocPitch(&p, &pp, 0, 4));
	printf("  pitch %zu\n", pp);
	pp = 7;
	says("cudaMallocPitch, no rows", cudaMallocPitch(&p, &pp, 64, 0));
	printf("  pitch %zu\n", pp);
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(img));
	CHECK(cudaFree(copy));
	free(hin), free(hout);
	return bad != 0;
}
