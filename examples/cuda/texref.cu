// texref: legacy texture references over linear memory, as Rodinia's kmeans and
// hybridsort use them (texture<T, 1, mode>, cudaBindTexture, tex1Dfetch). Prints what
// cudaBindTexture says to descriptors that do not match the texture and to a pointer
// that is not aligned; fetches floats, float4s through a four-channel descriptor, ints,
// a float texture bound to int bytes (hybridsort's texPivot), unsigned and signed bytes
// read as normalised floats, and indices past either end of each texture; prints what
// the GPU returns for those, and checks every in-range fetch against the host.
//
// Texture references were removed in CUDA 12: build it with CUDA 11 (nvcc 11.8:
// nvcc -cudart shared -gencode arch=compute_80,code=compute_80). It runs unmodified on
// a GPU or under gtrace run.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "check.h"

texture<float, 1, cudaReadModeElementType> tf;
texture<float4, 1, cudaReadModeElementType> tf4;
texture<int, 1, cudaReadModeElementType> ti;
texture<float, 1, cudaReadModeElementType> tbits; // bound to int bytes
texture<unsigned char, 1, cudaReadModeNormalizedFloat> tu8;
texture<signed char, 1, cudaReadModeNormalizedFloat> ts8;

// fetch reads each texture at idx[i].
__global__ void fetch(const int *idx, int n, float *f, float4 *f4, int *iv, float *bits, float *u8, float *s8)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int x = idx[i];
		f[i] = tex1Dfetch(tf, x);
		f4[i] = tex1Dfetch(tf4, x);
		iv[i] = tex1Dfetch(ti, x);
		bits[i] = tex1Dfetch(tbits, x);
		u8[i] = tex1Dfetch(tu8, x);
		s8[i] = tex1Dfetch(ts8, x);
	}
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? atoi(argv[1]) : 1000; // elements of each texture
	if (n < 8 || n > 1 << 20) {
		fprintf(stderr, "texref: N must be 8 to %d\n", 1 << 20);
		return 2;
	}
	float *hf = (float *)malloc(n * sizeof(float));
	int *hi = (int *)malloc(n * sizeof(int));
	unsigned char *hb = (unsigned char *)malloc(n);
	for (int i = 0; i < n; i++) {
		hf[i] = 0.5f * i - 7;
		hi[i] = 3 * i - 1000;
		hb[i] = (unsigned char)(i * 37);
	}
	float *df;
	int *di;
	unsigned char *db;
	CHECK(cudaMalloc(&df, n * sizeof(float)));
	CHECK(cudaMalloc(&di, n * sizeof(int)));
	CHECK(cudaMalloc(&db, n));
	CHECK(cudaMemcpy(df, hf, n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(di, hi, n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(db, hb, n, cudaMemcpyHostToDevice));

	size_t off = 1;
	cudaError_t e = cudaBindTexture(&off, tf, df + 1, n * sizeof(float) - 4);
	printf("float texture 4 bytes into an allocation: %s, offset %zu\n", cudaGetErrorName(e), off);
	cudaGetLastError();
	e = cudaBindTexture(NULL, tf, df + 1, n * sizeof(float) - 4);
	printf("the same with no offset pointer: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	e = cudaBindTexture(NULL, tf, di, cudaCreateChannelDesc<int>(), n * sizeof(int));
	printf("float texture, int descriptor: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	e = cudaBindTexture(NULL, tf, df, cudaCreateChannelDesc<float2>(), n * sizeof(float));
	printf("float texture, float2 descriptor: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	e = cudaBindTexture(NULL, tf4, df, cudaCreateChannelDesc<float>(), n * sizeof(float));
	printf("float4 texture, float descriptor: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	e = cudaBindTexture(NULL, tu8, db, cudaCreateChannelDesc<signed char>(), n);
	printf("unsigned char texture, signed char descriptor: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	CHECK(cudaBindTexture(&off, tf, df, n * sizeof(float)));
	cudaChannelFormatDesc four = cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindFloat);
	CHECK(cudaBindTexture(0, tf4, df, four, n * sizeof(float)));
	CHECK(cudaBindTexture(0, ti, di, n * sizeof(int)));
	CHECK(cudaBindTexture(0, tbits, di, n * sizeof(int)));
	CHECK(cudaBindTexture(0, tu8, db, n));
	CHECK(cudaBindTexture(0, ts8, db, n));

	// In range, then past each end: -1, n/4 (past the float4 texture), n, n + 100, 1 << 24.
	const int in = 64, m = in + 5;
	int hidx[m];
	for (int i = 0; i < in; i++)
		hidx[i] = (i * 97) % (n / 4);
	const int past[5] = {-1, n / 4, n, n + 100, 1 << 24};
	memcpy(hidx + in, past, sizeof past);
	int *didx, *iv;
	float *f, *bits, *u8, *s8;
	float4 *f4;
	CHECK(cudaMalloc(&didx, sizeof hidx));
	CHECK(cudaMalloc(&f, m * sizeof(float)));
	CHECK(cudaMalloc(&f4, m * sizeof(float4)));
	CHECK(cudaMalloc(&iv, m * sizeof(int)));
	CHECK(cudaMalloc(&bits, m * sizeof(float)));
	CHECK(cudaMalloc(&u8, m * sizeof(float)));
	CHECK(cudaMalloc(&s8, m * sizeof(float)));
	CHECK(cudaMemcpy(didx, hidx, sizeof hidx, cudaMemcpyHostToDevice));
	fetch<<<(m + 31) / 32, 32>>>(didx, m, f, f4, iv, bits, u8, s8);
	CHECK(cudaGetLastError());
	float hfo[m], hbits[m], hu8[m], hs8[m];
	float4 hf4[m];
	int hiv[m];
	CHECK(cudaMemcpy(hfo, f, sizeof hfo, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hf4, f4, sizeof hf4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hiv, iv, sizeof hiv, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hbits, bits, sizeof hbits, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hu8, u8, sizeof hu8, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hs8, s8, sizeof hs8, cudaMemcpyDeviceToHost));
	CHECK(cudaUnbindTexture(tf));

	int bad = off != 0;
	for (int i = 0; i < in; i++) {
		int x = hidx[i];
		float wbits;
		memcpy(&wbits, &hi[x], sizeof wbits);
		bad += hfo[i] != hf[x];
		bad += hf4[i].x != hf[4 * x] || hf4[i].y != hf[4 * x + 1] || hf4[i].z != hf[4 * x + 2] || hf4[i].w != hf[4 * x + 3];
		bad += hiv[i] != hi[x];
		bad += memcmp(&hbits[i], &wbits, sizeof wbits) != 0;
		bad += hu8[i] != hb[x] / 255.0f;
		signed char sb = (signed char)hb[x];
		bad += hs8[i] != (sb == -128 ? -1.0f : sb / 127.0f);
	}
	printf("texref: %d elements, offset %zu, %d fetches in range, %d wrong: %s\n", n, off, in, bad, bad ? "FAILED" : "PASSED");
	for (int i = in; i < m; i++)
		printf("past the end at %d: float %g, float4 (%g, %g, %g, %g), int %d, u8 %g, s8 %g\n", hidx[i], hfo[i],
		       hf4[i].x, hf4[i].y, hf4[i].z, hf4[i].w, hiv[i], hu8[i], hs8[i]);
	return bad != 0;
}
