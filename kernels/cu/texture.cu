// Texture versus global memory, from the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces): row after row, column after
// column, and random sampling in a small neighbourhood, each reading through
// a texture object (tex2D), a plain global pointer, and a const __restrict
// global pointer (the read-only path, ld.global.nc).
//
// The seed's image is uchar4; gtrace's texture objects hold one float per
// texel (the same 4 bytes per texel, so the same addresses), and the sums are
// floats, in the order the seed's loop adds them.
#include "gtrace_cuda.h"

// Row after row: consecutive threads read consecutive texels of a row.
#define ROW_AFTER_ROW(NAME, PARAM, FETCH)                                    \
	extern "C" __global__ void NAME(PARAM, int width, int height, float *out) \
	{                                                                    \
		float sum = 0;                                               \
		int tid = blockIdx.x * blockDim.x + threadIdx.x;             \
		int rowid = 0, colid = 0;                                    \
		while (tid < (height * width)) {                             \
			rowid = tid / width;                                 \
			colid = tid % width;                                 \
			float in = FETCH;                                    \
			sum += in;                                           \
			tid += (blockDim.x * gridDim.x);                     \
		}                                                            \
		out[blockIdx.x * blockDim.x + threadIdx.x] = sum;            \
	}

// Column after column: consecutive threads read consecutive texels of a column.
#define COLUMN_AFTER_COLUMN(NAME, PARAM, FETCH)                              \
	extern "C" __global__ void NAME(PARAM, int width, int height, float *out) \
	{                                                                    \
		float sum = 0;                                               \
		int tid = blockIdx.x * blockDim.x + threadIdx.x;             \
		int rowid = 0, colid = 0;                                    \
		while (tid < (height * width)) {                             \
			rowid = tid % height;                                \
			colid = tid / height;                                \
			float in = FETCH;                                    \
			sum += in;                                           \
			tid += (blockDim.x * gridDim.x);                     \
		}                                                            \
		out[blockIdx.x * blockDim.x + threadIdx.x] = sum;            \
	}

ROW_AFTER_ROW(deviceLoadRowAfterRow, const float *data, data[rowid * width + colid])
ROW_AFTER_ROW(deviceLoadRowAfterRowRestrict, const float *__restrict data, data[rowid * width + colid])
ROW_AFTER_ROW(deviceLoadRowAfterRowTex, unsigned long long myTex, tex2D_f32(myTex, colid, rowid))

COLUMN_AFTER_COLUMN(deviceLoadColumnAfterColumn, const float *data, data[rowid * width + colid])
COLUMN_AFTER_COLUMN(deviceLoadColumnAfterColumnRestrict, const float *__restrict data, data[rowid * width + colid])
COLUMN_AFTER_COLUMN(deviceLoadColumnAfterColumnTex, unsigned long long myTex, tex2D_f32(myTex, colid, rowid))

// Random sampling in the vicinity: each thread adds `samples` pseudo-random
// texels of its Area x Area neighbourhood (the seed's deviceReadRandom<Area>,
// instantiated with Area = 8 on 32x8 blocks). The seed wraps the output row
// with "yin = (yin + threadIdx.y % Area) % blockDim.y", which makes every block
// of a grid column write the same output rows with different sums (a race);
// here each thread writes its own pixel, out[x + y * width].
#define AREA 8
#define READ_RANDOM(NAME, PARAM, FETCH)                                               \
	extern "C" __global__ void NAME(PARAM, int pitch, int width, int height, float *out, \
					int samples)                                  \
	{                                                                             \
		const int Area = AREA;                                                \
		float sum = 0;                                                        \
		int xin = blockIdx.x * blockDim.x + Area * (threadIdx.x / Area);      \
		int yin = blockIdx.y * blockDim.y + Area * (threadIdx.y / Area);      \
                                                                                      \
		unsigned int xseed = threadIdx.x * 9182 + threadIdx.y * 91882 +       \
				     threadIdx.x * threadIdx.y * 811 + 72923181;      \
		unsigned int yseed = threadIdx.x * 981 + threadIdx.y * 124523 +       \
				     threadIdx.x * threadIdx.y * 327 + 98721121;      \
                                                                                      \
		for (int sample = 0; sample < samples; ++sample) {                    \
			unsigned int x = xseed % Area;                                \
			unsigned int y = yseed % Area;                                \
			xseed = (xseed * 1587);                                       \
			yseed = (yseed * 6971);                                       \
			float in = FETCH;                                             \
			sum += in;                                                    \
		}                                                                     \
                                                                                      \
		out[blockIdx.x * blockDim.x + threadIdx.x +                           \
		    (blockIdx.y * blockDim.y + threadIdx.y) * width] = sum;           \
	}

READ_RANDOM(deviceReadRandom, const float *data, data[xin + x + (yin + y) * pitch])
READ_RANDOM(deviceReadRandomRestrict, const float *__restrict data, data[xin + x + (yin + y) * pitch])
READ_RANDOM(deviceReadRandomTex, unsigned long long myTex, tex2D_f32(myTex, xin + x, yin + y))
