/* The CUDA runtime calls a program built with nvcc -cudart shared makes, as C: each
 * turns its arguments into plain values and calls the Go core (main.go, cudart/host).
 * Errors follow the runtime's rules: each call returns its code and a failing call
 * also sets the error that cudaGetLastError returns and resets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shim.h"
#include "_cgo_export.h"

static cudaError_t last_error;

cudaError_t gtrace_ret(cudaError_t e) {
	if (e != 0)
		last_error = e;
	return e;
}

#define ret gtrace_ret

void **__cudaRegisterFatBinary(void *fatCubin) {
	void **handle = calloc(1, sizeof(void *));
	const gtrace_fatbin_wrapper *w = fatCubin;
	if (handle == NULL)
		return NULL;
	if (w == NULL || w->magic != GTRACE_FATBIN_WRAPPER_MAGIC || w->data == NULL) {
		gtraceReport("__cudaRegisterFatBinary: not a fat binary wrapper (magic 0x466243b1)");
		return handle;
	}
	const unsigned char *d = (const unsigned char *)w->data;
	uint32_t magic;
	uint16_t hdr;
	uint64_t size;
	memcpy(&magic, d, 4);
	memcpy(&hdr, d + 6, 2);
	memcpy(&size, d + 8, 8);
	if (magic != GTRACE_FATBIN_MAGIC) {
		gtraceReport("__cudaRegisterFatBinary: the wrapper's data is not a fat binary (magic 0xBA55ED50)");
		return handle;
	}
	*handle = (void *)(intptr_t)gtraceRegisterFatBinary((void *)d, (size_t)hdr + size);
	return handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }

void __cudaUnregisterFatBinary(void **handle) {
	if (handle == NULL)
		return;
	gtraceUnregisterFatBinary((int)(intptr_t)*handle);
	free(handle);
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
			    int thread_limit, void *tid, void *bid, void *bDim, void *gDim, int *wSize) {
	(void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
	if (handle != NULL)
		gtraceRegisterFunction((int)(intptr_t)*handle, (uintptr_t)hostFun, (char *)deviceName);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
		       size_t size, int constant, int global) {
	(void)deviceAddress, (void)ext, (void)global;
	if (handle != NULL)
		gtraceRegisterVar((int)(intptr_t)*handle, (uintptr_t)hostVar, (char *)deviceName, size, constant);
}

unsigned __cudaPushCallConfiguration(gtrace_dim3 g, gtrace_dim3 b, size_t shared, void *stream) {
	gtracePushConfig(g.x, g.y, g.z, b.x, b.y, b.z, shared, (uintptr_t)stream);
	return 0;
}

cudaError_t __cudaPopCallConfiguration(gtrace_dim3 *g, gtrace_dim3 *b, size_t *shared, void *stream) {
	uintptr_t s = 0;
	size_t sh = 0;
	cudaError_t e = gtracePopConfig(&g->x, &g->y, &g->z, &b->x, &b->y, &b->z, &sh, &s);
	*shared = sh;
	if (stream != NULL)
		*(void **)stream = (void *)s;
	return ret(e);
}

cudaError_t cudaLaunchKernel(const void *func, gtrace_dim3 g, gtrace_dim3 b, void **args, size_t shared,
			     cudaStream_t stream) {
	return ret(gtraceLaunch((uintptr_t)func, g.x, g.y, g.z, b.x, b.y, b.z, args, shared, (uintptr_t)stream));
}

cudaError_t cudaMalloc(void **p, size_t n) {
	uint64_t addr = 0;
	if (p == NULL)
		return ret(1);
	cudaError_t e = gtraceMalloc(n, &addr);
	*p = (void *)(uintptr_t)addr;
	return ret(e);
}

cudaError_t cudaFree(void *p) { return p == NULL ? 0 : ret(gtraceFree((uintptr_t)p)); }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind) {
	return ret(gtraceMemcpy(dst, (void *)src, n, kind));
}

/* The symbol calls. A stream's copies run in order and at once under gtrace, so the
 * Async forms and the per-thread-default-stream forms (_ptds, _ptsz) are the same call. */
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n, size_t off, int kind) {
	return ret(gtraceMemcpyToSymbol((uintptr_t)symbol, (void *)src, n, off, kind));
}
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t n, size_t off, int kind) {
	return cudaMemcpyToSymbol(symbol, src, n, off, kind);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t n, size_t off, int kind,
				    cudaStream_t stream) {
	(void)stream;
	return cudaMemcpyToSymbol(symbol, src, n, off, kind);
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t n, size_t off, int kind,
					 cudaStream_t stream) {
	return cudaMemcpyToSymbolAsync(symbol, src, n, off, kind, stream);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n, size_t off, int kind) {
	return ret(gtraceMemcpyFromSymbol(dst, (uintptr_t)symbol, n, off, kind));
}
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t n, size_t off, int kind) {
	return cudaMemcpyFromSymbol(dst, symbol, n, off, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t n, size_t off, int kind,
				      cudaStream_t stream) {
	(void)stream;
	return cudaMemcpyFromSymbol(dst, symbol, n, off, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t n, size_t off, int kind,
					   cudaStream_t stream) {
	return cudaMemcpyFromSymbolAsync(dst, symbol, n, off, kind, stream);
}

cudaError_t cudaGetSymbolAddress(void **p, const void *symbol) {
	uint64_t addr = 0;
	if (p == NULL)
		return ret(1);
	cudaError_t e = gtraceSymbolAddress((uintptr_t)symbol, &addr);
	if (e == 0)
		*p = (void *)(uintptr_t)addr;
	return ret(e);
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
	uint64_t n = 0;
	if (size == NULL)
		return ret(1);
	cudaError_t e = gtraceSymbolSize((uintptr_t)symbol, &n);
	if (e == 0)
		*size = (size_t)n;
	return ret(e);
}

cudaError_t cudaMemset(void *p, int v, size_t n) { return ret(gtraceMemset((uintptr_t)p, v, n)); }

cudaError_t cudaGetLastError(void) {
	cudaError_t e = last_error;
	last_error = 0;
	return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

cudaError_t cudaDeviceSynchronize(void) { return 0; }
cudaError_t cudaThreadSynchronize(void) { return 0; }

cudaError_t cudaGetDeviceCount(int *n) {
	if (n == NULL)
		return ret(1);
	*n = 1;
	return 0;
}

cudaError_t cudaGetDevice(int *d) {
	if (d == NULL)
		return ret(1);
	*d = 0;
	return 0;
}

cudaError_t cudaSetDevice(int d) { return d == 0 ? 0 : ret(101); /* cudaErrorInvalidDevice */ }

cudaError_t cudaDeviceReset(void) { return ret(gtraceFinish()); }

/* The one runtime call that returns a struct: by value, so it is no stub. */
gtrace_channel_desc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
	gtrace_channel_desc d = {x, y, z, w, f};
	return d;
}

struct named_error {
	cudaError_t code;
	const char *name, *text;
};

/* Names and words of CUDA 11.8's driver_types.h for the codes the stand-in returns. */
static const struct named_error errors[] = {
	{0, "cudaSuccess", "no error"},
	{1, "cudaErrorInvalidValue", "invalid argument"},
	{2, "cudaErrorMemoryAllocation", "out of memory"},
	{3, "cudaErrorInitializationError", "initialization error"},
	{9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
	{13, "cudaErrorInvalidSymbol", "invalid device symbol"},
	{17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
	{21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
	{98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
	{101, "cudaErrorInvalidDevice", "invalid device ordinal"},
	{209, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
	{218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
	{400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
	{700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
	{719, "cudaErrorLaunchFailure", "unspecified launch failure"},
	{801, "cudaErrorNotSupported", "operation not supported"},
	{999, "cudaErrorUnknown", "unknown error"},
};

static const struct named_error *find_error(cudaError_t e) {
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == e)
			return &errors[i];
	return NULL;
}

const char *cudaGetErrorString(cudaError_t e) {
	const struct named_error *n = find_error(e);
	return n ? n->text : "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e) {
	const struct named_error *n = find_error(e);
	return n ? n->name : "cudaErrorUnknown";
}
