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

/* gtrace_ret records a failing call's code as the last error and returns it. */
cudaError_t gtrace_ret(cudaError_t e);

#define GTRACE_FATBIN_WRAPPER_MAGIC 0x466243b1
#define GTRACE_FATBIN_MAGIC 0xBA55ED50u
#endif
