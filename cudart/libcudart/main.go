// Command libcudart is gtrace's stand-in for the CUDA runtime library, built as a
// shared library (go build -buildmode=c-shared) named libcudart.so.11.0: a program
// built with nvcc -cudart shared loads it in place of NVIDIA's when gtrace run puts its
// folder first on LD_LIBRARY_PATH. shim.c holds the C API; this file turns its calls
// into cudart/host's, which holds the program's device memory and runs its launches.
//
// The environment (host.Environ, which gtrace run sets) says where the trace goes, how to
// capture, and where the status goes at the end; run by hand, each launch is told on
// stderr and the trace is gtrace-run.gtrace.
//
// Every other function of NVIDIA's library (api.txt) is defined in unsupported.c: it
// returns cudaErrorNotSupported, says so on stderr the first time, and is counted in
// the status, so a program never stops on a missing symbol.
package main

/*
#cgo CFLAGS: -O2 -Wall
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/gtrace/gtrace/cudart"
	"github.com/gtrace/gtrace/cudart/host"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/progress"
)

func main() {}

var (
	mu         sync.Mutex
	rt         *host.Runtime
	rtErr      error
	statusPath string // host.EnvStatus: "" when run by hand
	loaded     int    // fat binaries registered and not yet unregistered
	status     = host.Status{Unsupported: map[string]int{}}
)

// current returns the program's runtime, made on first use from the environment.
func current() (*host.Runtime, error) {
	if rt != nil || rtErr != nil {
		return rt, rtErr
	}
	var opts host.Options
	var every time.Duration
	opts, statusPath, every, rtErr = host.OptionsFromEnv(os.Getenv)
	switch {
	case every >= 0: // under gtrace run
		opts.Progress = host.NewLaunchLog(os.Stderr, progress.Terminal(os.Stderr), every)
	case statusPath == "":
		opts.Log = os.Stderr // run by hand: tell each launch
	}
	opts.Stdout, opts.Stderr = cStdout{}, os.Stderr
	opts.Ptxas = func(ptx []byte, kernel, target string) (int, error) {
		r, err := cudart.PtxasRegistersFor(context.Background(), ptx, kernel, target)
		return r.PerThread, err
	}
	if rtErr == nil {
		rt, rtErr = host.New(opts)
	}
	if rtErr != nil {
		report(rtErr)
	}
	return rt, rtErr
}

// call runs one runtime call under the lock, on the program's runtime, and returns its
// cudaError_t. Once a kernel has faulted, it returns the fault's code instead, as a GPU
// does for every call after a fault (host.Runtime.Refuse).
func call(f func(r *host.Runtime) error) C.cudaError_t {
	return run(true, f)
}

// query is call for what a fault leaves working on a GPU: registering the program's
// device code, the launch configuration stack, and the device's properties (on an
// H100, cudaGetDeviceProperties and cudaDeviceGetAttribute succeed after a fault;
// cudaMemGetInfo, cudaEventCreate, cudaFuncSetAttribute and every copy, allocation
// and synchronisation return it: scripts/hw/sticky.cu).
func query(f func(r *host.Runtime) error) C.cudaError_t {
	return run(false, f)
}

func run(sticky bool, f func(r *host.Runtime) error) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	if sticky {
		if e := r.Refuse(); e != nil {
			return C.cudaError_t(e.Code) // told once, at the fault
		}
	}
	return code(f(r))
}

// words holds each name and text as a C string, made once: what cudaGetErrorName and
// cudaGetErrorString return must stay valid, and a program may ask in a loop.
var words = map[string]*C.char{}

//export gtraceErrorWords
func gtraceErrorWords(e C.cudaError_t, text C.int) *C.char {
	mu.Lock()
	defer mu.Unlock()
	s := host.Code(e).Name()
	if text != 0 {
		s = host.Code(e).Text()
	}
	if _, ok := words[s]; !ok {
		words[s] = C.CString(s)
	}
	return words[s]
}

//export gtraceSync
func gtraceSync() C.cudaError_t {
	return call(func(r *host.Runtime) error {
		r.DeviceSynchronize()
		return nil
	})
}

//export gtraceStreamSync
func gtraceStreamSync(s C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.StreamSynchronize(uintptr(s)) })
}

// config is a launch configuration from the C side's dim3s.
func config(gx, gy, gz, bx, by, bz C.uint, shared C.size_t, stream C.uintptr_t) host.Config {
	return host.Config{Grid: format.Dim3{X: uint32(gx), Y: uint32(gy), Z: uint32(gz)},
		Block: format.Dim3{X: uint32(bx), Y: uint32(by), Z: uint32(bz)}, Shared: uint64(shared), Stream: uintptr(stream)}
}

// report tells the user of an error, and keeps it for the status.
func report(err error) {
	fmt.Fprintf(os.Stderr, "gtrace: %v\n", err)
	if len(status.Errors) < host.MaxStatusErrors {
		status.Errors = append(status.Errors, err.Error())
	}
}

// code turns an error into its cudaError_t, telling the user what went wrong: a CUDA
// program checks codes, and often prints only their names.
func code(err error) C.cudaError_t {
	if err == nil {
		return 0
	}
	report(err)
	var e *host.Error
	if errors.As(err, &e) {
		return C.cudaError_t(e.Code)
	}
	return C.cudaError_t(host.Unknown)
}

//export gtraceReport
func gtraceReport(msg *C.char) {
	mu.Lock()
	defer mu.Unlock()
	report(errors.New(C.GoString(msg)))
}

//export gtraceUnsupported
func gtraceUnsupported(name *C.char) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	n := C.GoString(name)
	if status.Unsupported[n]++; status.Unsupported[n] == 1 {
		fmt.Fprintf(os.Stderr, "gtrace: %s is not supported by gtrace's CUDA runtime: it returns cudaErrorNotSupported\n", n)
	}
	return C.cudaError_t(host.NotSupported)
}

//export gtraceRegisterFatBinary
func gtraceRegisterFatBinary(data unsafe.Pointer, n C.size_t) C.int {
	h := 0
	query(func(r *host.Runtime) error {
		var err error
		if h, err = r.RegisterFatBinary(C.GoBytes(data, C.int(n))); err == nil {
			loaded++
		}
		return err
	})
	return C.int(h)
}

//export gtraceUnregisterFatBinary
func gtraceUnregisterFatBinary(h C.int) {
	mu.Lock()
	defer mu.Unlock()
	if h == 0 || loaded == 0 {
		return
	}
	if loaded--; loaded == 0 {
		finish(false)
	}
}

// finish writes the trace; after it the runtime is gone. At cudaDeviceReset (reset)
// what kernels printed is flushed first; at the program's end it is lost, as on a GPU.
func finish(reset bool) C.cudaError_t {
	if rt == nil {
		return 0
	}
	if reset {
		rt.Flush()
	} else if n := rt.Unflushed(); n > 0 {
		fmt.Fprintf(os.Stderr, "gtrace: %d bytes that kernels printed were not printed: the program ended without waiting for its kernels (cudaDeviceSynchronize), and a GPU drops them too\n", n)
	}
	err := rt.Close(context.Background())
	status.Launches, status.WarpInsts = rt.Launches()
	status.Failed, status.Refused = rt.Failed()
	if e := rt.Sticky(); e != nil {
		status.Sticky = e.Code.Name()
	}
	oob := rt.OOB()
	status.OOB, status.OOBPCs = oob[:min(len(oob), host.MaxStatusErrors)], len(oob)
	if status.Launches > 0 {
		status.Trace = rt.Out()
	}
	rt, rtErr = nil, errors.New("the runtime was reset")
	c := code(err)
	status.Finished = true
	if statusPath != "" {
		if err := status.Write(statusPath); err != nil {
			fmt.Fprintf(os.Stderr, "gtrace: %v\n", err)
		}
	} else if status.Launches > 0 {
		fmt.Fprintf(os.Stderr, "gtrace: %d launches, %d warp-instructions\n", status.Launches, status.WarpInsts)
	}
	return c
}

//export gtraceFinish
func gtraceFinish() C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	return finish(true)
}

//export gtraceFlush
func gtraceFlush() {
	mu.Lock()
	defer mu.Unlock()
	if rt != nil {
		rt.Flush()
	}
}

// cStdout writes to the program's C stdout (stdio's buffer), where a GPU's driver
// writes what kernels print: after the host's own earlier lines, however stdout is
// buffered (scripts/hw/printf.sh redirects it to a file).
type cStdout struct{}

func (cStdout) Write(b []byte) (int, error) {
	if len(b) > 0 {
		C.gtraceStdout((*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)))
	}
	return len(b), nil
}

//export gtraceGetLimit
func gtraceGetLimit(v *C.size_t, limit C.int) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		x, err := r.GetLimit(host.Limit(limit))
		if err == nil {
			*v = C.size_t(x)
		}
		return err
	})
}

//export gtraceSetLimit
func gtraceSetLimit(limit C.int, v C.size_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.SetLimit(host.Limit(limit), uint64(v)) })
}

//export gtraceRegisterFunction
func gtraceRegisterFunction(h C.int, stub C.uintptr_t, name *C.char) {
	query(func(r *host.Runtime) error { return r.RegisterFunction(int(h), uintptr(stub), C.GoString(name)) })
}

//export gtraceRegisterVar
func gtraceRegisterVar(h C.int, hostVar C.uintptr_t, name *C.char, size C.size_t, constant C.int) {
	query(func(r *host.Runtime) error {
		return r.RegisterVar(int(h), uintptr(hostVar), C.GoString(name), uint64(size), constant != 0)
	})
}

//export gtraceRegisterTexture
func gtraceRegisterTexture(h C.int, hostVar C.uintptr_t, name *C.char, normalized C.int) {
	query(func(r *host.Runtime) error {
		return r.RegisterTexture(int(h), uintptr(hostVar), C.GoString(name), normalized != 0)
	})
}

//export gtraceBadTexture
func gtraceBadTexture(msg *C.char) C.cudaError_t {
	return call(func(*host.Runtime) error { return &host.Error{Code: host.InvalidValue, Msg: C.GoString(msg)} })
}

// channelDesc is a cudaChannelFormatDesc the C side gives as five ints.
func channelDesc(d *C.int) host.ChannelDesc {
	v := unsafe.Slice(d, 5)
	return host.ChannelDesc{X: int(v[0]), Y: int(v[1]), Z: int(v[2]), W: int(v[3]), Kind: int(v[4])}
}

//export gtraceBindTexture
func gtraceBindTexture(texref, devPtr C.uintptr_t, own, desc *C.int, size C.size_t, wantOffset C.int, offset *C.uint64_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		off, err := r.BindTexture(uintptr(texref), uint64(devPtr), channelDesc(own), channelDesc(desc), uint64(size), wantOffset != 0)
		*offset = C.uint64_t(off)
		return err
	})
}

//export gtraceUnbindTexture
func gtraceUnbindTexture(texref C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.UnbindTexture(uintptr(texref)) })
}

//export gtraceTextureOffset
func gtraceTextureOffset(texref C.uintptr_t, offset *C.uint64_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		off, err := r.TextureAlignmentOffset(uintptr(texref))
		*offset = C.uint64_t(off)
		return err
	})
}

//export gtracePushConfig
func gtracePushConfig(gx, gy, gz, bx, by, bz C.uint, shared C.size_t, stream C.uintptr_t) {
	query(func(r *host.Runtime) error {
		r.PushConfig(config(gx, gy, gz, bx, by, bz, shared, stream))
		return nil
	})
}

//export gtracePopConfig
func gtracePopConfig(gx, gy, gz, bx, by, bz *C.uint, shared *C.size_t, stream *C.uintptr_t) C.cudaError_t {
	return query(func(r *host.Runtime) error {
		c, err := r.PopConfig()
		if err != nil {
			return err
		}
		*gx, *gy, *gz = C.uint(c.Grid.X), C.uint(c.Grid.Y), C.uint(c.Grid.Z)
		*bx, *by, *bz = C.uint(c.Block.X), C.uint(c.Block.Y), C.uint(c.Block.Z)
		*shared, *stream = C.size_t(c.Shared), C.uintptr_t(c.Stream)
		return nil
	})
}

//export gtraceLaunch
func gtraceLaunch(stub C.uintptr_t, gx, gy, gz, bx, by, bz C.uint, args *unsafe.Pointer, shared C.size_t, stream C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		sizes, err := r.ParamSizes(uintptr(stub))
		if err != nil {
			return err
		}
		if len(sizes) > 0 && args == nil {
			return &host.Error{Code: host.InvalidValue, Msg: "cudaLaunchKernel: no arguments for a kernel that takes some"}
		}
		ptrs := unsafe.Slice(args, len(sizes))
		params := make([][]byte, len(sizes))
		for i, n := range sizes {
			params[i] = C.GoBytes(ptrs[i], C.int(n))
		}
		return r.Launch(context.Background(), uintptr(stub), config(gx, gy, gz, bx, by, bz, shared, stream), params)
	})
}

//export gtraceAttribute
func gtraceAttribute(attr, dev C.int, v *C.int, report C.int) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	a, err := r.Attribute(int(attr), int(dev))
	if err != nil && report == 0 { // a property gtrace does not model: left 0, not an error
		return C.cudaError_t(host.InvalidValue)
	}
	*v = C.int(a)
	return code(err)
}

//export gtraceProperties
func gtraceProperties(dev C.int, name *C.char, n C.size_t, total *C.uint64_t) C.cudaError_t {
	return query(func(r *host.Runtime) error {
		p, err := r.Properties(int(dev))
		if err != nil {
			return err
		}
		b := unsafe.Slice((*byte)(unsafe.Pointer(name)), int(n))
		copy(b[:len(b)-1], p.Name) // memset left the rest 0
		*total = C.uint64_t(p.TotalGlobalMem)
		return nil
	})
}

//export gtraceMemInfo
func gtraceMemInfo(free, total *C.uint64_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		f, t := r.MemInfo()
		*free, *total = C.uint64_t(f), C.uint64_t(t)
		return nil
	})
}

//export gtraceMalloc
func gtraceMalloc(n C.size_t, addr *C.uint64_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		a, err := r.Malloc(uint64(n))
		*addr = C.uint64_t(a)
		return err
	})
}

//export gtraceFree
func gtraceFree(addr C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.Free(uint64(addr)) })
}

// copyBy is the call and stream the C side names for a copy.
func copyBy(name *C.char, stream C.uintptr_t) host.Copy {
	return host.Copy{Call: C.GoString(name), Stream: uintptr(stream)}
}

//export gtraceMemcpy
func gtraceMemcpy(dst, src unsafe.Pointer, n C.size_t, kind C.int, name *C.char, stream C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		// The views are read or written only where the address is the host's.
		dv, sv := unsafe.Slice((*byte)(dst), int(n)), unsafe.Slice((*byte)(src), int(n))
		return r.Memcpy(copyBy(name, stream), uint64(uintptr(dst)), uint64(uintptr(src)), dv, sv, host.MemcpyKind(kind))
	})
}

//export gtraceMallocPitch
func gtraceMallocPitch(width, height C.size_t, addr *C.uint64_t, pitch *C.size_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		a, p, err := r.MallocPitch(uint64(width), uint64(height))
		*addr, *pitch = C.uint64_t(a), C.size_t(p)
		return err
	})
}

//export gtraceMemcpy2D
func gtraceMemcpy2D(dst unsafe.Pointer, dpitch C.size_t, src unsafe.Pointer, spitch, width, height C.size_t, kind C.int, name *C.char, stream C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		// The views cover each side's rows; they are read or written only in the rows
		// and only where the address is the host's.
		dv := hostView(dst, host.Span2D(uint64(dpitch), uint64(width), uint64(height)))
		sv := hostView(src, host.Span2D(uint64(spitch), uint64(width), uint64(height)))
		return r.Memcpy2D(copyBy(name, stream), uint64(uintptr(dst)), uint64(dpitch), uint64(uintptr(src)), uint64(spitch),
			uint64(width), uint64(height), dv, sv, host.MemcpyKind(kind))
	})
}

//export gtraceMemset2D
func gtraceMemset2D(p C.uintptr_t, pitch C.size_t, v C.int, width, height C.size_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		return r.Memset2D(uint64(p), uint64(pitch), byte(v), uint64(width), uint64(height))
	})
}

// hostView is n bytes of the program's memory at p, or nil where no such view can be
// made (n over 2^56: beyond any address space); the call then refuses the copy.
func hostView(p unsafe.Pointer, n uint64) []byte {
	if p == nil || n == 0 || n > 1<<56 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

//export gtraceMemset
func gtraceMemset(p C.uintptr_t, v C.int, n C.size_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.Memset(uint64(p), byte(v), uint64(n)) })
}

//export gtraceMemcpyToSymbol
func gtraceMemcpyToSymbol(symbol C.uintptr_t, src unsafe.Pointer, n, off C.size_t, kind C.int, name *C.char, stream C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		// The view is read only where src is the host's.
		sv := unsafe.Slice((*byte)(src), int(n))
		return r.MemcpyToSymbol(copyBy(name, stream), uintptr(symbol), uint64(uintptr(src)), sv, uint64(off), host.MemcpyKind(kind))
	})
}

//export gtraceMemcpyFromSymbol
func gtraceMemcpyFromSymbol(dst unsafe.Pointer, symbol C.uintptr_t, n, off C.size_t, kind C.int, name *C.char, stream C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		// The view is written only where dst is the host's.
		dv := unsafe.Slice((*byte)(dst), int(n))
		return r.MemcpyFromSymbol(copyBy(name, stream), uint64(uintptr(dst)), dv, uintptr(symbol), uint64(off), host.MemcpyKind(kind))
	})
}

//export gtraceSymbolAddress
func gtraceSymbolAddress(symbol C.uintptr_t, addr *C.uint64_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		a, err := r.SymbolAddress(uintptr(symbol))
		*addr = C.uint64_t(a)
		return err
	})
}

//export gtraceSymbolSize
func gtraceSymbolSize(symbol C.uintptr_t, size *C.uint64_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		n, err := r.SymbolSize(uintptr(symbol))
		*size = C.uint64_t(n)
		return err
	})
}

//export gtraceCheckStream
func gtraceCheckStream(name *C.char, s C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.CheckStream(C.GoString(name), uintptr(s)) })
}

//export gtraceStreamCreate
func gtraceStreamCreate(flags C.uint, s *C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		*s = C.uintptr_t(r.StreamCreate(flags&1 != 0)) // cudaStreamNonBlocking
		return nil
	})
}

//export gtraceStreamDestroy
func gtraceStreamDestroy(s C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.StreamDestroy(uintptr(s)) })
}

//export gtraceEventCreate
func gtraceEventCreate(flags C.uint, ev *C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		h, err := r.EventCreate(uint32(flags))
		*ev = C.uintptr_t(h)
		return err
	})
}

//export gtraceEventDestroy
func gtraceEventDestroy(ev C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.EventDestroy(uintptr(ev)) })
}

//export gtraceEventRecord
func gtraceEventRecord(ev, s C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.EventRecord(uintptr(ev), uintptr(s)) })
}

//export gtraceEventSync
func gtraceEventSync(name *C.char, ev, s C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.EventSync(C.GoString(name), uintptr(ev), uintptr(s)) })
}

//export gtraceEventElapsed
func gtraceEventElapsed(start, end C.uintptr_t, ms *C.float) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		t, err := r.EventElapsed(uintptr(start), uintptr(end))
		*ms = C.float(t)
		return err
	})
}

//export gtraceHostAlloc
func gtraceHostAlloc(name *C.char, p C.uintptr_t, n C.size_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.HostAlloc(C.GoString(name), uint64(p), uint64(n)) })
}

//export gtraceHostFree
func gtraceHostFree(name *C.char, p C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.HostFree(C.GoString(name), uint64(p)) })
}

//export gtraceFuncSetAttribute
func gtraceFuncSetAttribute(stub C.uintptr_t, attr, value C.int) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.FuncSetAttribute(uintptr(stub), int(attr), int(value)) })
}

//export gtraceFuncAttributes
func gtraceFuncAttributes(stub C.uintptr_t, a *C.gtrace_func_attributes) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		f, err := r.FuncAttributes(uintptr(stub))
		if err != nil {
			return err
		}
		a.sharedSizeBytes, a.constSizeBytes, a.localSizeBytes = C.size_t(f.SharedSizeBytes), C.size_t(f.ConstSizeBytes), C.size_t(f.LocalSizeBytes)
		a.maxThreadsPerBlock, a.numRegs = C.int(f.MaxThreadsPerBlock), C.int(f.NumRegs)
		a.ptxVersion, a.binaryVersion, a.cacheModeCA = C.int(f.PTXVersion), C.int(f.BinaryVersion), C.int(f.CacheModeCA)
		a.maxDynamicSharedSizeBytes, a.preferredShmemCarveout = C.int(f.MaxDynamicSharedSizeBytes), C.int(f.PreferredShmemCarveout)
		return nil
	})
}

//export gtraceOccupancy
func gtraceOccupancy(stub C.uintptr_t, blockSize C.int, smem C.size_t, flags C.uint, n *C.int) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		blocks, err := r.OccupancyMaxActiveBlocks(uintptr(stub), int(blockSize), uint64(smem), uint(flags))
		if err == nil {
			*n = C.int(blocks)
		}
		return err
	})
}

//export gtraceAvailableShared
func gtraceAvailableShared(stub C.uintptr_t, numBlocks, blockSize C.int, smem *C.size_t) C.cudaError_t {
	return call(func(r *host.Runtime) error {
		bytes, err := r.OccupancyAvailableDynamicShared(uintptr(stub), int(numBlocks), int(blockSize))
		if err == nil {
			*smem = C.size_t(bytes)
		}
		return err
	})
}

//export gtraceFuncCheck
func gtraceFuncCheck(name *C.char, stub C.uintptr_t) C.cudaError_t {
	return call(func(r *host.Runtime) error { return r.FuncCheck(C.GoString(name), uintptr(stub)) })
}
