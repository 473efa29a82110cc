// gtrace_texture.h: textures in device code, as CUDA 11.8's texture_types.h,
// cuda_texture_types.h, texture_fetch_functions.h and texture_indirect_functions.h give
// them, for clang-14 without a CUDA SDK. gtrace_cuda_runtime.h includes it.
//
// Legacy texture references: texture<T, dim, mode> is a type with clang's
// device_builtin_texture_type attribute, so a file-scope texture<...> becomes a
// `.global .texref` in the PTX, and tex1Dfetch(ref, i) reads it as clang's own texture
// header does: the reference's handle moved into a register (mov.u64 %rd, ref), then
// tex.1d.v4 through that register. `gtrace run` binds references with cudaBindTexture;
// capture reads them through capture.Spec.TexRefs.
//
// Texture objects (cudaTextureObject_t): tex1Dfetch<T>(obj, i), tex2D<T>(obj, x, y) and
// their tex2D(&ret, obj, x, y) forms, each one tex instruction. What the emulator
// models (capture/doc.go): tex.2d through an object (capture's tex2d arguments),
// tex.1d with integer coordinates through a reference bound to linear memory. A tex
// it does not model compiles, and is refused when it loads or runs, naming what is
// supported: tex1D with float coordinates (a CUDA array), tex2D through a reference
// (cudaBindTexture2D), tex1Dfetch through an object.
//
// Each fetch returns four 32-bit results: .f32 for float texels and for normalised
// reads, .s32 for signed integer ones (char is signed, as on x86-64 Linux), .u32 for
// unsigned ones; T takes the first 1, 2 or 4 of them.
#ifndef GTRACE_TEXTURE_H
#define GTRACE_TEXTURE_H

enum cudaTextureAddressMode {
	cudaAddressModeWrap = 0,
	cudaAddressModeClamp = 1,
	cudaAddressModeMirror = 2,
	cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaChannelFormatKind {
	cudaChannelFormatKindSigned = 0,
	cudaChannelFormatKindUnsigned = 1,
	cudaChannelFormatKindFloat = 2,
	cudaChannelFormatKindNone = 3
};
struct __device_builtin__ cudaChannelFormatDesc {
	int x, y, z, w;
	enum cudaChannelFormatKind f;
};

#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC

// struct textureReference as CUDA 11.8's texture_types.h lays it out, so that host
// code setting its fields (ref.filterMode = ...) compiles.
struct __device_builtin__ textureReference {
	int normalized;
	enum cudaTextureFilterMode filterMode;
	enum cudaTextureAddressMode addressMode[3];
	struct cudaChannelFormatDesc channelDesc;
	int sRGB;
	unsigned int maxAnisotropy;
	enum cudaTextureFilterMode mipmapFilterMode;
	float mipmapLevelBias;
	float minMipmapLevelClamp;
	float maxMipmapLevelClamp;
	int disableTrilinearOptimization;
	int __cudaReserved[14];
};

typedef unsigned long long cudaTextureObject_t;

template <class T, int texType = cudaTextureType1D, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture : public textureReference {
	__host__ texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
			 enum cudaTextureAddressMode aMode = cudaAddressModeClamp)
	{
		normalized = norm;
		filterMode = fMode;
		addressMode[0] = addressMode[1] = addressMode[2] = aMode;
	}
};

// The host side: declarations only, as in gtrace_cuda_runtime.h.
extern "C" {
__host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
__host__ cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref, const void *devPtr,
				     const struct cudaChannelFormatDesc *desc, size_t size);
__host__ cudaError_t cudaUnbindTexture(const struct textureReference *texref);
__host__ cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const struct textureReference *texref);
}
template <class T> __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(void);
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, dim, mode> &tex, const void *devPtr,
						   const struct cudaChannelFormatDesc &desc, size_t size = UINT_MAX)
{
	return cudaBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, dim, mode> &tex, const void *devPtr,
						   size_t size = UINT_MAX)
{
	return cudaBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaUnbindTexture(const struct texture<T, dim, mode> &tex)
{
	return cudaUnbindTexture(&tex);
}

namespace __gtrace_tex {
// The four results of one tex instruction, by result type V (PTX type DT, register
// constraint R): tex.1d with integer (tex1Dfetch) or float (tex1D) coordinates, and
// tex.2d with float ones.
#define GTRACE_TEX_FETCH(V, DT, R)                                                         \
	GTRACE_D V fetch1(V *, unsigned long long h, int x)                                \
	{                                                                                  \
		V r;                                                                       \
		asm("tex.1d.v4." DT ".s32 {%0, %1, %2, %3}, [%4, {%5}];"                    \
		    : "=" R(r.x), "=" R(r.y), "=" R(r.z), "=" R(r.w)                         \
		    : "l"(h), "r"(x));                                                     \
		return r;                                                                  \
	}                                                                                  \
	GTRACE_D V fetch1(V *, unsigned long long h, float x)                              \
	{                                                                                  \
		V r;                                                                       \
		asm("tex.1d.v4." DT ".f32 {%0, %1, %2, %3}, [%4, {%5}];"                    \
		    : "=" R(r.x), "=" R(r.y), "=" R(r.z), "=" R(r.w)                         \
		    : "l"(h), "f"(x));                                                     \
		return r;                                                                  \
	}                                                                                  \
	GTRACE_D V fetch2(V *, unsigned long long h, float x, float y)                     \
	{                                                                                  \
		V r;                                                                       \
		asm("tex.2d.v4." DT ".f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"                \
		    : "=" R(r.x), "=" R(r.y), "=" R(r.z), "=" R(r.w)                         \
		    : "l"(h), "f"(x), "f"(y));                                             \
		return r;                                                                  \
	}
GTRACE_TEX_FETCH(float4, "f32", "f")
GTRACE_TEX_FETCH(int4, "s32", "r")
GTRACE_TEX_FETCH(uint4, "u32", "r")
#undef GTRACE_TEX_FETCH

// texel<T>: the result type V a fetch of T gives, and T made of its first components;
// norm<T>: the type a normalised read of T returns (8- and 16-bit integers only). Any
// other T has neither, so a fetch of it does not compile, as with CUDA's headers.
template <class T> struct texel;
template <class T> struct norm;
#define GTRACE_TEXEL_SCALAR(T, V)                                                          \
	template <> struct texel<T> {                                                      \
		typedef V fetch_t;                                                         \
		GTRACE_D T make(V v) { return (T)v.x; }                                    \
	};
#define GTRACE_TEXEL_VEC(N, V)                                                             \
	template <> struct texel<N##1> {                                                   \
		typedef V fetch_t;                                                         \
		GTRACE_D N##1 make(V v) { return make_##N##1(v.x); }                      \
	};                                                                                 \
	template <> struct texel<N##2> {                                                   \
		typedef V fetch_t;                                                         \
		GTRACE_D N##2 make(V v) { return make_##N##2(v.x, v.y); }                 \
	};                                                                                 \
	template <> struct texel<N##4> {                                                   \
		typedef V fetch_t;                                                         \
		GTRACE_D N##4 make(V v) { return make_##N##4(v.x, v.y, v.z, v.w); }       \
	};
#define GTRACE_TEXEL_NORM_SCALAR(T)                                                        \
	template <> struct norm<T> {                                                       \
		typedef float type;                                                        \
		GTRACE_D float make(float4 v) { return v.x; }                              \
	};
#define GTRACE_TEXEL_NORM_VEC(N)                                                           \
	template <> struct norm<N##1> {                                                    \
		typedef float1 type;                                                       \
		GTRACE_D float1 make(float4 v) { return make_float1(v.x); }                \
	};                                                                                 \
	template <> struct norm<N##2> {                                                    \
		typedef float2 type;                                                       \
		GTRACE_D float2 make(float4 v) { return make_float2(v.x, v.y); }           \
	};                                                                                 \
	template <> struct norm<N##4> {                                                    \
		typedef float4 type;                                                       \
		GTRACE_D float4 make(float4 v) { return v; }                               \
	};
GTRACE_TEXEL_SCALAR(char, int4)
GTRACE_TEXEL_SCALAR(signed char, int4)
GTRACE_TEXEL_SCALAR(unsigned char, uint4)
GTRACE_TEXEL_SCALAR(short, int4)
GTRACE_TEXEL_SCALAR(unsigned short, uint4)
GTRACE_TEXEL_SCALAR(int, int4)
GTRACE_TEXEL_SCALAR(unsigned int, uint4)
GTRACE_TEXEL_SCALAR(float, float4)
GTRACE_TEXEL_VEC(char, int4)
GTRACE_TEXEL_VEC(uchar, uint4)
GTRACE_TEXEL_VEC(short, int4)
GTRACE_TEXEL_VEC(ushort, uint4)
GTRACE_TEXEL_VEC(int, int4)
GTRACE_TEXEL_VEC(uint, uint4)
GTRACE_TEXEL_VEC(float, float4)
GTRACE_TEXEL_NORM_SCALAR(char)
GTRACE_TEXEL_NORM_SCALAR(signed char)
GTRACE_TEXEL_NORM_SCALAR(unsigned char)
GTRACE_TEXEL_NORM_SCALAR(short)
GTRACE_TEXEL_NORM_SCALAR(unsigned short)
GTRACE_TEXEL_NORM_VEC(char)
GTRACE_TEXEL_NORM_VEC(uchar)
GTRACE_TEXEL_NORM_VEC(short)
GTRACE_TEXEL_NORM_VEC(ushort)
#undef GTRACE_TEXEL_SCALAR
#undef GTRACE_TEXEL_VEC
#undef GTRACE_TEXEL_NORM_SCALAR
#undef GTRACE_TEXEL_NORM_VEC

// read1 and read2 are a fetch of T's texel through handle h at x (and y), as T.
template <class T, class X> GTRACE_D T read1(unsigned long long h, X x)
{
	return texel<T>::make(fetch1((typename texel<T>::fetch_t *)0, h, x));
}
template <class T> GTRACE_D T read2(unsigned long long h, float x, float y)
{
	return texel<T>::make(fetch2((typename texel<T>::fetch_t *)0, h, x, y));
}

// handle is a texture reference's handle: clang's own header takes it the same way.
template <class T, int dim, enum cudaTextureReadMode mode>
GTRACE_D unsigned long long handle(texture<T, dim, mode> t)
{
	unsigned long long h;
	asm("mov.b64 %0, %1;" : "=l"(h) : "l"(t));
	return h;
}
} // namespace __gtrace_tex

// ---- Texture references (texture_fetch_functions.h) -----------------------------
template <class T> GTRACE_D T tex1Dfetch(texture<T, cudaTextureType1D, cudaReadModeElementType> t, int x)
{
	return __gtrace_tex::read1<T>(__gtrace_tex::handle(t), x);
}
template <class T>
GTRACE_D typename __gtrace_tex::norm<T>::type tex1Dfetch(texture<T, cudaTextureType1D, cudaReadModeNormalizedFloat> t, int x)
{
	return __gtrace_tex::norm<T>::make(__gtrace_tex::fetch1((float4 *)0, __gtrace_tex::handle(t), x));
}
template <class T> GTRACE_D T tex1D(texture<T, cudaTextureType1D, cudaReadModeElementType> t, float x)
{
	return __gtrace_tex::read1<T>(__gtrace_tex::handle(t), x);
}
template <class T> GTRACE_D T tex2D(texture<T, cudaTextureType2D, cudaReadModeElementType> t, float x, float y)
{
	return __gtrace_tex::read2<T>(__gtrace_tex::handle(t), x, y);
}

// ---- Texture objects (texture_indirect_functions.h) -----------------------------
template <class T> GTRACE_D T tex1Dfetch(cudaTextureObject_t obj, int x) { return __gtrace_tex::read1<T>(obj, x); }
template <class T> GTRACE_D void tex1Dfetch(T *ret, cudaTextureObject_t obj, int x) { *ret = tex1Dfetch<T>(obj, x); }
template <class T> GTRACE_D T tex1D(cudaTextureObject_t obj, float x) { return __gtrace_tex::read1<T>(obj, x); }
template <class T> GTRACE_D void tex1D(T *ret, cudaTextureObject_t obj, float x) { *ret = tex1D<T>(obj, x); }
template <class T> GTRACE_D T tex2D(cudaTextureObject_t obj, float x, float y) { return __gtrace_tex::read2<T>(obj, x, y); }
template <class T> GTRACE_D void tex2D(T *ret, cudaTextureObject_t obj, float x, float y) { *ret = tex2D<T>(obj, x, y); }

#endif // GTRACE_TEXTURE_H
