/* The C face of gtrace's stand-in for libcudart.so.11.0: the types of the CUDA runtime
 * API that its calls pass, declared here so that the shim builds with no CUDA toolkit.
 * Layouts are those of CUDA 11.8's vector_types.h and crt/host_runtime.h. */
#ifndef GTRACE_SHIM_H
#define GTRACE_SHIM_H
#include <stddef.h>
#include <stdint.h>

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
typedef struct { unsigned int x, y, z; } gtrace_dim3;

/* __fatBinC_Wrapper_t: what __cudaRegisterFatBinary is given. */
typedef struct {
	int magic;   /* 0x466243b1 */
	int version; /* 1: data is the fat binary; 2: also a list of linked ones (-rdc) */
	const unsigned long long *data;
	void *filename_or_fatbins;
} gtrace_fatbin_wrapper;

/* struct cudaChannelFormatDesc, which cudaCreateChannelDesc returns by value. */
typedef struct {
	int x, y, z, w;
	int f; /* enum cudaChannelFormatKind */
} gtrace_channel_desc;

/* The start of struct textureReference as CUDA 11.8's texture_types.h lays it out: what
 * cudaBindTexture reads of a texture<T, dim, mode> (its channel descriptor). */
typedef struct {
	int normalized;
	int filterMode;
	int addressMode[3];
	gtrace_channel_desc channelDesc;
} gtrace_texref;

/* struct cudaDeviceProp as CUDA 11.8's driver_types.h lays it out (cudaGetDeviceProperties
 * fills it; CUDA 12 renamed that call _v2 and changed the struct). cudart/libcudart's
 * TestStructLayouts compares every field's offset with NVIDIA's header where one is
 * installed. */
typedef struct {
	char name[256];
	unsigned char uuid[16];
	char luid[8];
	unsigned int luidDeviceNodeMask;
	size_t totalGlobalMem, sharedMemPerBlock;
	int regsPerBlock, warpSize;
	size_t memPitch;
	int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
	size_t totalConstMem;
	int major, minor;
	size_t textureAlignment, texturePitchAlignment;
	int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory,
	    computeMode, maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2],
	    maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3],
	    maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3],
	    maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3],
	    maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
	size_t surfaceAlignment;
	int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount,
	    unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize,
	    maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported,
	    localL1CacheSupported;
	size_t sharedMemPerMultiprocessor;
	int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID,
	    hostNativeAtomicSupported, singleToDoublePrecisionPerfRatio, pageableMemoryAccess,
	    concurrentManagedAccess, computePreemptionSupported, canUseHostPointerForRegisteredMem,
	    cooperativeLaunch, cooperativeMultiDeviceLaunch;
	size_t sharedMemPerBlockOptin;
	int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost,
	    maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
	size_t reservedSharedMemPerBlock;
} gtrace_device_prop;

/* struct cudaFuncAttributes as CUDA 11.8's driver_types.h lays it out (cudaFuncGetAttributes
 * fills it; TestFuncAttributesLayout compares it with NVIDIA's header). */
typedef struct {
	size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
	int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA,
	    maxDynamicSharedSizeBytes, preferredShmemCarveout;
} gtrace_func_attributes;

/* gtrace_ret records a failing call's code as the last error and returns it. */
cudaError_t gtrace_ret(cudaError_t e);

/* gtraceStdout writes what kernels printed to the program's stdio stdout. */
void gtraceStdout(const char *p, size_t n);

#define GTRACE_FATBIN_WRAPPER_MAGIC 0x466243b1
#define GTRACE_FATBIN_MAGIC 0xBA55ED50u
#endif
