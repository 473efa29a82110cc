package host

import "math"

// What kernels print, and the limits a program may ask for or set.
//
// A GPU keeps what kernels print (printf) in a buffer and writes it to the program's
// stdout when the host next waits for the device: cudaDeviceSynchronize,
// cudaStreamSynchronize, cudaEventSynchronize, a blocking cudaMemcpy (or symbol copy),
// cudaDeviceReset (CUDA C++ Programming Guide, "Formatted Output"). Measured on an
// H100 (scripts/hw/printf.sh, traces/hw/h100-2026-11-26-printf): the host's lines
// printed before such a call come first, a launch does not print what the one before
// it printed, all 38 MB one launch printed came out through the 8 MiB buffer (the
// driver drains it while the host waits), and what a program's last kernels printed
// is lost when it ends without waiting for them. The stand-in runs each launch to its
// end at once and holds its output until the next of those calls (Flush).

// Flush writes what kernels printed since the last call that waits for the device to
// Options.Stdout: each call named above makes it, before it does its own work.
func (r *Runtime) Flush() {
	if len(r.printf) > 0 && r.opts.Stdout != nil {
		r.opts.Stdout.Write(r.printf)
	}
	r.printf = r.printf[:0]
}

// Unflushed is how many bytes kernels printed that no call has flushed: a program
// that ends here loses them, as on a GPU.
func (r *Runtime) Unflushed() int { return len(r.printf) }

// Limit is a cudaLimit (CUDA 11.8's driver_types.h).
type Limit int

const (
	LimitStackSize                    Limit = 0
	LimitPrintfFifoSize               Limit = 1
	LimitMallocHeapSize               Limit = 2
	LimitDevRuntimeSyncDepth          Limit = 3
	LimitDevRuntimePendingLaunchCount Limit = 4
	LimitMaxL2FetchGranularity        Limit = 5
	LimitPersistingL2CacheSize        Limit = 6
)

// defaultLimits are cudaDeviceGetLimit's answers on an H100 with CUDA 13
// (scripts/hw/printf.sh), for every GPU: they are the driver's, not the chip's. The
// heap size is the device heap's that malloc allocates from (capture.Spec.HeapSize);
// the stack size and the printf buffer bound nothing under gtrace (its local memory is
// what the PTX declares, and printf output is not dropped), but a program reads and
// sets them.
var defaultLimits = map[Limit]uint64{
	LimitStackSize:                    1024,
	LimitPrintfFifoSize:               8650752,
	LimitMallocHeapSize:               8388608,
	LimitDevRuntimePendingLaunchCount: 2048,
	LimitMaxL2FetchGranularity:        64,
	// Persisting L2 lines are not modelled: the device reports a
	// persistingL2CacheMaxSize of 0 (Attribute 108), so none are set aside.
	LimitPersistingL2CacheSize: 0,
}

// GetLimit is cudaDeviceGetLimit. Device-side synchronisation (dynamic parallelism)
// is cudaErrorUnsupportedLimit, as on the H100; an unknown limit cudaErrorInvalidValue.
func (r *Runtime) GetLimit(l Limit) (uint64, error) {
	if err := r.limitKnown(l); err != nil {
		return 0, err
	}
	return r.limit(l), nil
}

// limit is the value of a known limit.
func (r *Runtime) limit(l Limit) uint64 {
	if v, ok := r.limits[l]; ok {
		return v
	}
	return defaultLimits[l]
}

// SetLimit is cudaDeviceSetLimit: the value is kept for GetLimit. A persisting L2 size
// above the device's 0, an L2 fetch granularity above 128 bytes, and a heap size once
// a kernel that calls malloc or free has run are cudaErrorInvalidValue (CUDA Runtime
// API, cudaDeviceSetLimit: the granularity is a hint of 0 to 128; the heap size "must
// be performed before launching any kernel that uses the malloc() or free() device
// system calls").
func (r *Runtime) SetLimit(l Limit, v uint64) error {
	if err := r.limitKnown(l); err != nil {
		return err
	}
	switch {
	case l == LimitPersistingL2CacheSize && v > 0:
		return fail(InvalidValue, "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, %d): the device sets no L2 aside for persisting lines (persistingL2CacheMaxSize 0: gtrace does not model them)", v)
	case l == LimitMaxL2FetchGranularity && v > 128:
		return fail(InvalidValue, "cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, %d): at most 128 bytes", v)
	case l == LimitMallocHeapSize && r.dev.HeapSize() > 0:
		return fail(InvalidValue, "cudaDeviceSetLimit(cudaLimitMallocHeapSize, %d): a kernel that calls malloc or free has run, which fixed the heap at %d bytes", v, r.dev.HeapSize())
	}
	if l == LimitMallocHeapSize {
		v = heapSize(v)
	}
	if r.limits == nil {
		r.limits = map[Limit]uint64{}
	}
	r.limits[l] = v
	return nil
}

// heapSize is the device heap an H100 gives for a cudaLimitMallocHeapSize of v: at
// least 4 MiB, and a multiple of 64 KiB (1, 4096, 1 MiB and 3 MiB give 4194304;
// 4194305 gives 4259840, 5000000 5046272: scripts/hw/heap.sh,
// traces/hw/h100-2026-11-27-heap).
func heapSize(v uint64) uint64 {
	const minHeap, unit = 4 << 20, 64 << 10
	return max(minHeap, (min(v, math.MaxUint64-unit)+unit-1)/unit*unit)
}

func (r *Runtime) limitKnown(l Limit) error {
	if l == LimitDevRuntimeSyncDepth {
		return fail(UnsupportedLimit, "cudaLimitDevRuntimeSyncDepth: gtrace runs no device-side launches (dynamic parallelism)")
	}
	if _, ok := defaultLimits[l]; !ok {
		return fail(InvalidValue, "cudaLimit %d: no such limit", int(l))
	}
	return nil
}
