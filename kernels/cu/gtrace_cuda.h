// gtrace_cuda.h: what the reference kernels need besides the CUDA headers, so
// that they compile with clang-14 -nocudainc -nocudalib (no CUDA SDK installed)
// as well as with nvcc, from the same source.
//
// Under nvcc, cuda_runtime.h already defines the CUDA names; only the texture
// helper at the end is ours in both cases, so both producers emit the same
// tex instruction.
#ifndef GTRACE_CUDA_H
#define GTRACE_CUDA_H

// Under clang -nocudainc, gtrace's device-side CUDA header, the one `gtrace capture
// --cu` compiles users' code with (cudart/include); under nvcc it is empty.
#include "../../cudart/include/gtrace_cuda_runtime.h"

// tex2D_f32 reads texel (x, y) of a 2D texture object holding one float per
// texel, with integer (unnormalised) coordinates: point sampling, clamp at the
// border. It stands in for CUDA's tex2D<float>(tex, x, y), which clang without
// the CUDA headers does not have; nvcc compiles the same asm, so both corpora
// carry the same instruction. Only the first of the four returned components
// is meaningful for a one-channel texture.
#ifdef __NVCC__
// nvcc warns that g, b and a below are set but not used; they are the tex
// instruction's other outputs, which a one-channel texture leaves unused.
#pragma nv_diag_suppress 550
#endif
static __device__ __forceinline__ float tex2D_f32(unsigned long long tex, int x, int y)
{
	float r, g, b, a;
	asm("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
	    : "=f"(r), "=f"(g), "=f"(b), "=f"(a)
	    : "l"(tex), "r"(x), "r"(y));
	return r;
}

#endif
