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

void gtraceStdout(const char *p, size_t n) { fwrite(p, 1, n, stdout); }

/* The calls that wait for the device print what kernels printed first, as a GPU's
 * driver does (cudart/host/printf.go): the copies below that block,
 * cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize and
 * cudaDeviceReset. */

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

void __cudaRegisterTexture(void **handle, const gtrace_texref *hostVar, const void **deviceAddress, const char *deviceName,
			   int dim, int norm, int ext) {
	/* nvcc's stub passes the PTX name as deviceAddress (host_runtime.h's
	 * __device__text_var) and the C++ one ("::tex") as deviceName. */
	(void)deviceName, (void)dim, (void)ext;
	if (handle != NULL && deviceAddress != NULL)
		gtraceRegisterTexture((int)(intptr_t)*handle, (uintptr_t)hostVar, (char *)deviceAddress, norm);
}

/* Texture references (CUDA 11 and before): the descriptor given must be the reference's
 * own, which the Go side compares; its offset is written only when the call succeeds. */
cudaError_t cudaBindTexture(size_t *offset, const gtrace_texref *texref, const void *devPtr,
			    const gtrace_channel_desc *desc, size_t size) {
	if (texref == NULL || desc == NULL)
		return ret(gtraceBadTexture(texref == NULL ? "cudaBindTexture: no texture reference" : "cudaBindTexture: no channel descriptor"));
	const gtrace_channel_desc *o = &texref->channelDesc;
	int own[5] = {o->x, o->y, o->z, o->w, o->f}, given[5] = {desc->x, desc->y, desc->z, desc->w, desc->f};
	uint64_t off = 0;
	cudaError_t e = gtraceBindTexture((uintptr_t)texref, (uintptr_t)devPtr, own, given, size, offset != NULL, &off);
	if (e == 0 && offset != NULL)
		*offset = off;
	return ret(e);
}

cudaError_t cudaUnbindTexture(const gtrace_texref *texref) { return ret(gtraceUnbindTexture((uintptr_t)texref)); }

cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const gtrace_texref *texref) {
	uint64_t off = 0;
	cudaError_t e = gtraceTextureOffset((uintptr_t)texref, &off);
	if (e == 0 && offset != NULL)
		*offset = off;
	return ret(e);
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
cudaError_t cudaLaunchKernel_ptsz(const void *func, gtrace_dim3 g, gtrace_dim3 b, void **args, size_t shared,
				  cudaStream_t stream) {
	return cudaLaunchKernel(func, g, b, args, shared, stream);
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

/* Each copy names its call and stream for its record in the trace (format.Transfer). */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind) {
	gtraceFlush();
	return ret(gtraceMemcpy(dst, (void *)src, n, kind, (char *)"cudaMemcpy", 0));
}

/* The symbol calls. A stream's copies run in order and at once under gtrace, so the
 * Async forms and the per-thread-default-stream forms (_ptds, _ptsz) are the same call. */
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n, size_t off, int kind) {
	gtraceFlush();
	return ret(gtraceMemcpyToSymbol((uintptr_t)symbol, (void *)src, n, off, kind, (char *)"cudaMemcpyToSymbol", 0));
}
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t n, size_t off, int kind) {
	return cudaMemcpyToSymbol(symbol, src, n, off, kind);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t n, size_t off, int kind,
				    cudaStream_t stream) {
	return ret(gtraceMemcpyToSymbol((uintptr_t)symbol, (void *)src, n, off, kind, (char *)"cudaMemcpyToSymbolAsync",
					(uintptr_t)stream));
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t n, size_t off, int kind,
					 cudaStream_t stream) {
	return cudaMemcpyToSymbolAsync(symbol, src, n, off, kind, stream);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n, size_t off, int kind) {
	gtraceFlush();
	return ret(gtraceMemcpyFromSymbol(dst, (uintptr_t)symbol, n, off, kind, (char *)"cudaMemcpyFromSymbol", 0));
}
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t n, size_t off, int kind) {
	return cudaMemcpyFromSymbol(dst, symbol, n, off, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t n, size_t off, int kind,
				      cudaStream_t stream) {
	return ret(gtraceMemcpyFromSymbol(dst, (uintptr_t)symbol, n, off, kind, (char *)"cudaMemcpyFromSymbolAsync",
					  (uintptr_t)stream));
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

/* Streams run every call at once, in the program's order (cudart/host/stream.go): an
 * Async call is its synchronous form once its stream is checked, and the per-thread
 * default stream forms (_ptds, _ptsz) are the same calls. */
static cudaError_t stream_ok(const char *call, cudaStream_t s) { return gtraceCheckStream((char *)call, (uintptr_t)s); }

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, int kind) { return cudaMemcpy(dst, src, n, kind); }
cudaError_t cudaMemset_ptds(void *p, int v, size_t n) { return cudaMemset(p, v, n); }

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, cudaStream_t s) {
	return ret(gtraceMemcpy(dst, (void *)src, n, kind, (char *)"cudaMemcpyAsync", (uintptr_t)s));
}
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, int kind, cudaStream_t s) {
	return cudaMemcpyAsync(dst, src, n, kind, s);
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s) {
	cudaError_t e = stream_ok("cudaMemsetAsync", s);
	return e ? ret(e) : cudaMemset(p, v, n);
}
cudaError_t cudaMemsetAsync_ptsz(void *p, int v, size_t n, cudaStream_t s) { return cudaMemsetAsync(p, v, n, s); }

/* Pitched memory (examples/cuda/pitch.cu shows each answer against an H100). */
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
	uint64_t addr = 0;
	if (p == NULL || pitch == NULL)
		return ret(1);
	cudaError_t e = gtraceMallocPitch(width, height, &addr, pitch);
	*p = (void *)(uintptr_t)addr;
	return ret(e);
}
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
			 int kind) {
	gtraceFlush();
	return ret(gtraceMemcpy2D(dst, dpitch, (void *)src, spitch, width, height, kind, (char *)"cudaMemcpy2D", 0));
}
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
			      int kind) {
	return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
			      int kind, cudaStream_t s) {
	return ret(gtraceMemcpy2D(dst, dpitch, (void *)src, spitch, width, height, kind, (char *)"cudaMemcpy2DAsync",
				  (uintptr_t)s));
}
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
				   size_t height, int kind, cudaStream_t s) {
	return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, s);
}
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t width, size_t height) {
	return ret(gtraceMemset2D((uintptr_t)p, pitch, v, width, height));
}
cudaError_t cudaMemset2D_ptds(void *p, size_t pitch, int v, size_t width, size_t height) {
	return cudaMemset2D(p, pitch, v, width, height);
}
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t width, size_t height, cudaStream_t s) {
	cudaError_t e = stream_ok("cudaMemset2DAsync", s);
	return e ? ret(e) : cudaMemset2D(p, pitch, v, width, height);
}
cudaError_t cudaMemset2DAsync_ptsz(void *p, size_t pitch, int v, size_t width, size_t height, cudaStream_t s) {
	return cudaMemset2DAsync(p, pitch, v, width, height, s);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
	uintptr_t h = 0;
	if (s == NULL || flags > 1) /* cudaStreamDefault, cudaStreamNonBlocking */
		return ret(1);
	cudaError_t e = gtraceStreamCreate(flags, &h);
	if (e == 0)
		*s = (cudaStream_t)h;
	return ret(e);
}
cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int priority) {
	(void)priority;
	return cudaStreamCreateWithFlags(s, flags);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { return ret(gtraceStreamDestroy((uintptr_t)s)); }
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
	gtraceFlush();
	return ret(gtraceStreamSync((uintptr_t)s));
}
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(s); }
cudaError_t cudaStreamQuery(cudaStream_t s) { return ret(stream_ok("cudaStreamQuery", s)); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(s); }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned int flags) {
	cudaError_t e = stream_ok("cudaStreamWaitEvent", s);
	if (e == 0 && flags > 1) /* cudaEventWaitDefault, cudaEventWaitExternal */
		e = 1;
	if (e == 0)
		e = gtraceEventSync("cudaStreamWaitEvent", (uintptr_t)ev, (uintptr_t)s);
	return ret(e);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t ev, unsigned int flags) {
	return cudaStreamWaitEvent(s, ev, flags);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned int flags) {
	uintptr_t h = 0;
	if (ev == NULL)
		return ret(1);
	cudaError_t e = gtraceEventCreate(flags, &h);
	if (e == 0)
		*ev = (cudaEvent_t)h;
	return ret(e);
}
cudaError_t cudaEventCreate(cudaEvent_t *ev) { return cudaEventCreateWithFlags(ev, 0); }
cudaError_t cudaEventDestroy(cudaEvent_t ev) { return ret(gtraceEventDestroy((uintptr_t)ev)); }
cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s) { return ret(gtraceEventRecord((uintptr_t)ev, (uintptr_t)s)); }
cudaError_t cudaEventRecord_ptsz(cudaEvent_t ev, cudaStream_t s) { return cudaEventRecord(ev, s); }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t ev, cudaStream_t s, unsigned int flags) {
	return flags > 1 ? ret(1) : cudaEventRecord(ev, s); /* cudaEventRecordDefault, cudaEventRecordExternal */
}
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t ev, cudaStream_t s, unsigned int flags) {
	return cudaEventRecordWithFlags(ev, s, flags);
}
cudaError_t cudaEventQuery(cudaEvent_t ev) { return ret(gtraceEventSync("cudaEventQuery", (uintptr_t)ev, 0)); }
cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
	gtraceFlush();
	return ret(gtraceEventSync("cudaEventSynchronize", (uintptr_t)ev, 0));
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
	float t = 0;
	if (ms == NULL)
		return ret(1);
	cudaError_t e = gtraceEventElapsed((uintptr_t)start, (uintptr_t)end, &t);
	if (e == 0)
		*ms = t;
	return ret(e);
}

/* Page-locked host memory: ordinary aligned host memory, which the runtime records, so
 * that a copy from or to it is known as pinned. */
static cudaError_t host_alloc(const char *call, void **p, size_t n, unsigned int flags) {
	void *m = NULL;
	if (p == NULL || flags > 0xf) /* Default, Portable, Mapped, WriteCombined */
		return ret(1);
	*p = NULL;
	if (n == 0)
		return 0;
	if (posix_memalign(&m, 4096, n) != 0)
		return ret(2);
	cudaError_t e = gtraceHostAlloc((char *)call, (uintptr_t)m, n);
	if (e != 0) {
		free(m);
		return ret(e);
	}
	*p = m;
	return 0;
}
cudaError_t cudaMallocHost(void **p, size_t n) { return host_alloc("cudaMallocHost", p, n, 0); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) { return host_alloc("cudaHostAlloc", p, n, flags); }
cudaError_t cudaFreeHost(void *p) {
	if (p == NULL)
		return 0;
	cudaError_t e = gtraceHostFree("cudaFreeHost", (uintptr_t)p);
	if (e == 0)
		free(p);
	return ret(e);
}
cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags) {
	if (flags > 0xf) /* Default, Portable, Mapped, IoMemory, ReadOnly */
		return ret(1);
	return ret(gtraceHostAlloc("cudaHostRegister", (uintptr_t)p, n));
}
cudaError_t cudaHostUnregister(void *p) { return ret(gtraceHostFree("cudaHostUnregister", (uintptr_t)p)); }

/* Preferences the replay's architecture decides on: accepted, checked for range. */
cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value) {
	return ret(gtraceFuncSetAttribute((uintptr_t)func, attr, value));
}

/* A kernel's attributes and the occupancy API (cudart/host/function.go). */
cudaError_t cudaFuncGetAttributes(gtrace_func_attributes *a, const void *func) {
	if (a == NULL)
		return ret(1);
	memset(a, 0, sizeof *a);
	return ret(gtraceFuncAttributes((uintptr_t)func, a));
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, const void *func, int blockSize,
                                                                   size_t smem, unsigned int flags) {
	if (n == NULL)
		return ret(1);
	return ret(gtraceOccupancy((uintptr_t)func, blockSize, smem, flags, n));
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *func, int blockSize, size_t smem) {
	return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, func, blockSize, smem, 0);
}
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, const void *func, int numBlocks, int blockSize) {
	if (smem == NULL)
		return ret(1);
	return ret(gtraceAvailableShared((uintptr_t)func, numBlocks, blockSize, smem));
}
cudaError_t cudaFuncSetCacheConfig(const void *func, int config) {
	return config < 0 || config > 3 ? ret(1) : ret(gtraceFuncCheck("cudaFuncSetCacheConfig", (uintptr_t)func));
}
cudaError_t cudaFuncSetSharedMemConfig(const void *func, int config) {
	return config < 0 || config > 2 ? ret(1) : ret(gtraceFuncCheck("cudaFuncSetSharedMemConfig", (uintptr_t)func));
}
cudaError_t cudaDeviceSetCacheConfig(int config) { return config < 0 || config > 3 ? ret(1) : 0; }
cudaError_t cudaThreadSetCacheConfig(int config) { return cudaDeviceSetCacheConfig(config); }
cudaError_t cudaDeviceGetCacheConfig(int *config) {
	if (config == NULL)
		return ret(1);
	*config = 0; /* cudaFuncCachePreferNone */
	return 0;
}
cudaError_t cudaThreadGetCacheConfig(int *config) { return cudaDeviceGetCacheConfig(config); }
cudaError_t cudaDeviceSetSharedMemConfig(int config) { return config < 0 || config > 2 ? ret(1) : 0; }
cudaError_t cudaDeviceGetSharedMemConfig(int *config) {
	if (config == NULL)
		return ret(1);
	*config = 1; /* cudaSharedMemBankSizeFourByte */
	return 0;
}

static unsigned int device_flags;
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
	if (flags & ~0x1fu) /* the schedule flags, MapHost, LmemResizeToMax */
		return ret(1);
	device_flags = flags;
	return 0;
}
cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
	if (flags == NULL)
		return ret(1);
	*flags = device_flags;
	return 0;
}

/* The CUDA version the stand-in is: 11.8, as the library it replaces. */
cudaError_t cudaRuntimeGetVersion(int *v) {
	if (v == NULL)
		return ret(1);
	*v = 11080;
	return 0;
}
cudaError_t cudaDriverGetVersion(int *v) { return cudaRuntimeGetVersion(v); }

/* cudaGetLastError resets the last error even after a kernel's fault: the fault is
 * sticky because every later call that needs the device returns it again
 * (scripts/hw/sticky.cu, traces/hw/h100-2026-11-26-sticky). */
cudaError_t cudaGetLastError(void) {
	cudaError_t e = last_error;
	last_error = 0;
	return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

/* Every launch and copy is done when its call returns: synchronising only tells of a
 * fault. */
cudaError_t cudaDeviceSynchronize(void) {
	gtraceFlush();
	return ret(gtraceSync());
}

cudaError_t cudaDeviceGetLimit(size_t *v, int limit) {
	if (v == NULL)
		return ret(1); /* cudaErrorInvalidValue */
	return ret(gtraceGetLimit(v, limit));
}
cudaError_t cudaDeviceSetLimit(int limit, size_t v) { return ret(gtraceSetLimit(limit, v)); }
cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

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

/* Device properties come from the GPU preset gtrace run names (cudart/host/device.go):
 * each field is the attribute of that field, so the two calls agree; the texture and
 * surface sizes gtrace does not model are left 0. */
static int attr(int a) {
	int v = 0;
	gtraceAttribute(a, 0, &v, 0);
	return v;
}

cudaError_t cudaDeviceGetAttribute(int *v, int a, int dev) {
	if (v == NULL)
		return ret(1);
	return ret(gtraceAttribute(a, dev, v, 1));
}

cudaError_t cudaGetDeviceProperties(gtrace_device_prop *p, int dev) {
	if (p == NULL)
		return ret(1);
	memset(p, 0, sizeof *p);
	uint64_t total = 0;
	cudaError_t e = gtraceProperties(dev, p->name, sizeof p->name, &total);
	if (e)
		return ret(e);
	p->totalGlobalMem = total;
	p->sharedMemPerBlock = attr(8);
	p->regsPerBlock = attr(12);
	p->warpSize = attr(10);
	p->memPitch = attr(11);
	p->maxThreadsPerBlock = attr(1);
	for (int i = 0; i < 3; i++) {
		p->maxThreadsDim[i] = attr(2 + i);
		p->maxGridSize[i] = attr(5 + i);
	}
	p->clockRate = attr(13);
	p->totalConstMem = attr(9);
	p->major = attr(75);
	p->minor = attr(76);
	p->textureAlignment = attr(14);
	p->texturePitchAlignment = attr(51);
	p->deviceOverlap = attr(15);
	p->multiProcessorCount = attr(16);
	p->kernelExecTimeoutEnabled = attr(17);
	p->integrated = attr(18);
	p->canMapHostMemory = attr(19);
	p->computeMode = attr(20);
	p->surfaceAlignment = attr(30);
	p->concurrentKernels = attr(31);
	p->ECCEnabled = attr(32);
	p->pciBusID = attr(33);
	p->pciDeviceID = attr(34);
	p->pciDomainID = attr(50);
	p->tccDriver = attr(35);
	p->asyncEngineCount = attr(40);
	p->unifiedAddressing = attr(41);
	p->memoryClockRate = attr(36);
	p->memoryBusWidth = attr(37);
	p->l2CacheSize = attr(38);
	p->persistingL2CacheMaxSize = attr(108);
	p->maxThreadsPerMultiProcessor = attr(39);
	p->streamPrioritiesSupported = attr(78);
	p->globalL1CacheSupported = attr(79);
	p->localL1CacheSupported = attr(80);
	p->sharedMemPerMultiprocessor = attr(81);
	p->regsPerMultiprocessor = attr(82);
	p->managedMemory = attr(83);
	p->isMultiGpuBoard = attr(84);
	p->multiGpuBoardGroupID = attr(85);
	p->hostNativeAtomicSupported = attr(86);
	p->singleToDoublePrecisionPerfRatio = attr(87);
	p->pageableMemoryAccess = attr(88);
	p->concurrentManagedAccess = attr(89);
	p->computePreemptionSupported = attr(90);
	p->canUseHostPointerForRegisteredMem = attr(91);
	p->cooperativeLaunch = attr(95);
	p->cooperativeMultiDeviceLaunch = attr(96);
	p->sharedMemPerBlockOptin = attr(97);
	p->pageableMemoryAccessUsesHostPageTables = attr(100);
	p->directManagedMemAccessFromHost = attr(101);
	p->maxBlocksPerMultiProcessor = attr(106);
	p->accessPolicyMaxWindowSize = attr(109);
	p->reservedSharedMemPerBlock = attr(111);
	return 0;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
	uint64_t f = 0, t = 0;
	cudaError_t e = gtraceMemInfo(&f, &t);
	if (free != NULL)
		*free = f;
	if (total != NULL)
		*total = t;
	return ret(e);
}

cudaError_t cudaSetDevice(int d) { return d == 0 ? 0 : ret(101); /* cudaErrorInvalidDevice */ }

/* The profiler's range markers: with no profiler attached, as under gtrace run, a GPU's
 * runtime returns cudaSuccess and does nothing (cuda-samples' asyncAPI calls them). */
cudaError_t cudaProfilerStart(void) { return 0; }
cudaError_t cudaProfilerStop(void) { return 0; }

cudaError_t cudaDeviceReset(void) { return ret(gtraceFinish()); }
cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

/* The one runtime call that returns a struct: by value, so it is no stub. */
gtrace_channel_desc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
	gtrace_channel_desc d = {x, y, z, w, f};
	return d;
}

/* The names and words of the codes are Go's (cudart/host's Code), made C strings once. */
const char *cudaGetErrorString(cudaError_t e) { return gtraceErrorWords(e, 1); }
const char *cudaGetErrorName(cudaError_t e) { return gtraceErrorWords(e, 0); }
