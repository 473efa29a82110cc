// Command libcudart is gtrace's stand-in for the CUDA runtime library, built as a
// shared library (go build -buildmode=c-shared) named libcudart.so.11.0: a program
// built with nvcc -cudart shared loads it in place of NVIDIA's when gtrace run puts its
// folder first on LD_LIBRARY_PATH. shim.c holds the C API; this file turns its calls
// into cudart/host's, which holds the program's device memory and runs its launches.
//
// The environment says where the trace goes and how to capture:
//
//	GTRACE_TRACE    the trace file (default gtrace-run.gtrace)
//	GTRACE_SIMT     stack or its (default stack)
//	GTRACE_WORKERS  CTAs emulated in parallel (default: every core)
//	GTRACE_STATUS   a file the library writes at the end: a JSON Status
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
	"strconv"
	"sync"
	"unsafe"

	"github.com/gtrace/gtrace/cudart/host"
	"github.com/gtrace/gtrace/format"
)

func main() {}

var (
	mu     sync.Mutex
	rt     *host.Runtime
	rtErr  error
	loaded int // fat binaries registered and not yet unregistered
	status = host.Status{Unsupported: map[string]int{}}
)

// current returns the program's runtime, made on first use from the environment.
func current() (*host.Runtime, error) {
	if rt != nil || rtErr != nil {
		return rt, rtErr
	}
	opts := host.Options{Out: os.Getenv("GTRACE_TRACE"), Producer: "gtrace run"}
	if os.Getenv("GTRACE_STATUS") == "" {
		opts.Log = os.Stderr // run by hand: tell each launch
	}
	if opts.Out == "" {
		opts.Out = "gtrace-run.gtrace"
	}
	switch s := os.Getenv("GTRACE_SIMT"); s {
	case "", "stack":
		opts.SIMT = format.SIMTStack
	case "its":
		opts.SIMT = format.SIMTITS
	default:
		rtErr = fmt.Errorf("GTRACE_SIMT=%q: want stack or its", s)
	}
	if s := os.Getenv("GTRACE_WORKERS"); s != "" && rtErr == nil {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			rtErr = fmt.Errorf("GTRACE_WORKERS=%q: want a count of CTAs", s)
		}
		opts.Workers = n
	}
	if rtErr == nil {
		rt, rtErr = host.New(opts)
	}
	if rtErr != nil {
		report(rtErr)
	}
	return rt, rtErr
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
func gtraceReport(msg *C.char) { report(errors.New(C.GoString(msg))) }

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
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return 0
	}
	h, err := r.RegisterFatBinary(C.GoBytes(data, C.int(n)))
	if err != nil {
		report(err)
		return 0
	}
	loaded++
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
		finish()
	}
}

// finish writes the trace; after it the runtime is gone.
func finish() C.cudaError_t {
	if rt == nil {
		return 0
	}
	err := rt.Close(context.Background())
	status.Launches, status.WarpInsts = rt.Launches()
	if status.Launches > 0 {
		status.Trace = rt.Out()
	}
	rt, rtErr = nil, errors.New("the runtime was reset")
	c := code(err)
	status.Finished = true
	if path := os.Getenv("GTRACE_STATUS"); path != "" {
		if err := status.Write(path); err != nil {
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
	return finish()
}

//export gtraceRegisterFunction
func gtraceRegisterFunction(h C.int, stub C.uintptr_t, name *C.char) {
	mu.Lock()
	defer mu.Unlock()
	if rt != nil {
		if err := rt.RegisterFunction(int(h), uintptr(stub), C.GoString(name)); err != nil {
			report(err)
		}
	}
}

//export gtraceRegisterVar
func gtraceRegisterVar(h C.int, hostVar C.uintptr_t, name *C.char, size C.size_t, constant C.int) {
	// Registered variables are read by the symbol calls, which come later.
}

//export gtracePushConfig
func gtracePushConfig(gx, gy, gz, bx, by, bz C.uint, shared C.size_t, stream C.uintptr_t) {
	mu.Lock()
	defer mu.Unlock()
	if rt != nil {
		rt.PushConfig(host.Config{Grid: format.Dim3{X: uint32(gx), Y: uint32(gy), Z: uint32(gz)},
			Block: format.Dim3{X: uint32(bx), Y: uint32(by), Z: uint32(bz)}, Shared: uint64(shared), Stream: uintptr(stream)})
	}
}

//export gtracePopConfig
func gtracePopConfig(gx, gy, gz, bx, by, bz *C.uint, shared *C.size_t, stream *C.uintptr_t) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	c, err := r.PopConfig()
	if err != nil {
		return code(err)
	}
	*gx, *gy, *gz = C.uint(c.Grid.X), C.uint(c.Grid.Y), C.uint(c.Grid.Z)
	*bx, *by, *bz = C.uint(c.Block.X), C.uint(c.Block.Y), C.uint(c.Block.Z)
	*shared, *stream = C.size_t(c.Shared), C.uintptr_t(c.Stream)
	return 0
}

//export gtraceLaunch
func gtraceLaunch(stub C.uintptr_t, gx, gy, gz, bx, by, bz C.uint, args *unsafe.Pointer, shared C.size_t, stream C.uintptr_t) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	sizes, err := r.ParamSizes(uintptr(stub))
	if err != nil {
		return code(err)
	}
	if len(sizes) > 0 && args == nil {
		return code(&host.Error{Code: host.InvalidValue, Msg: "cudaLaunchKernel: no arguments for a kernel that takes some"})
	}
	ptrs := unsafe.Slice(args, len(sizes))
	params := make([][]byte, len(sizes))
	for i, n := range sizes {
		params[i] = C.GoBytes(ptrs[i], C.int(n))
	}
	c := host.Config{Grid: format.Dim3{X: uint32(gx), Y: uint32(gy), Z: uint32(gz)},
		Block: format.Dim3{X: uint32(bx), Y: uint32(by), Z: uint32(bz)}, Shared: uint64(shared), Stream: uintptr(stream)}
	return code(r.Launch(context.Background(), uintptr(stub), c, params))
}

//export gtraceMalloc
func gtraceMalloc(n C.size_t, addr *C.uint64_t) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	a, err := r.Malloc(uint64(n))
	*addr = C.uint64_t(a)
	return code(err)
}

//export gtraceFree
func gtraceFree(addr C.uintptr_t) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	return code(r.Free(uint64(addr)))
}

//export gtraceMemcpy
func gtraceMemcpy(dst, src unsafe.Pointer, n C.size_t, kind C.int) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	// The views are read or written only where the address is the host's.
	dv, sv := unsafe.Slice((*byte)(dst), int(n)), unsafe.Slice((*byte)(src), int(n))
	return code(r.Memcpy(uint64(uintptr(dst)), uint64(uintptr(src)), dv, sv, host.MemcpyKind(kind)))
}

//export gtraceMemset
func gtraceMemset(p C.uintptr_t, v C.int, n C.size_t) C.cudaError_t {
	mu.Lock()
	defer mu.Unlock()
	r, err := current()
	if err != nil {
		return code(err)
	}
	return code(r.Memset(uint64(p), byte(v), uint64(n)))
}
