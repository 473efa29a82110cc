// Package host is the host side of gtrace's stand-in for the CUDA runtime: what a
// program built with nvcc -cudart shared calls, once cudart/libcudart (the C shim that
// stands in for libcudart.so.11.0) has turned each call's C arguments into Go values.
// It registers the PTX of the program's fat binaries and its kernels' host stubs, keeps
// the program's device memory (capture.Device), runs each launch through the emulator in
// the order the program makes them, and writes one trace holding every launch.
//
// Nothing here is C: the package is tested without cgo, and the shim is a thin adapter.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/cudart/fatbin"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// Error is a CUDA runtime error code (cudaError_t), with the words of the call that
// failed.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Code is a cudaError_t value. The numbers, names and words are those of CUDA 11.8's
// driver_types.h (what cudaGetErrorName and cudaGetErrorString return).
type Code int

const (
	Success               Code = 0
	InvalidValue          Code = 1
	MemoryAllocation      Code = 2
	InitializationError   Code = 3
	InvalidConfiguration  Code = 9
	InvalidPitchValue     Code = 12
	InvalidSymbol         Code = 13
	InvalidDevicePointer  Code = 17
	InvalidTexture        Code = 18
	InvalidMemcpyDir      Code = 21
	InvalidDeviceFunc     Code = 98
	InvalidDevice         Code = 101
	NoKernelImage         Code = 209
	UnsupportedLimit      Code = 215
	InvalidPTX            Code = 218
	InvalidResourceHandle Code = 400
	IllegalAddress        Code = 700
	LaunchOutOfResources  Code = 701
	LaunchTimeout         Code = 702
	Assert                Code = 710
	MisalignedAddress     Code = 716
	LaunchFailure         Code = 719
	NotSupported          Code = 801
	Unknown               Code = 999
)

// codeWords are each code's name and words.
var codeWords = map[Code][2]string{
	Success:               {"cudaSuccess", "no error"},
	InvalidValue:          {"cudaErrorInvalidValue", "invalid argument"},
	MemoryAllocation:      {"cudaErrorMemoryAllocation", "out of memory"},
	InitializationError:   {"cudaErrorInitializationError", "initialization error"},
	InvalidConfiguration:  {"cudaErrorInvalidConfiguration", "invalid configuration argument"},
	InvalidPitchValue:     {"cudaErrorInvalidPitchValue", "invalid pitch argument"},
	InvalidSymbol:         {"cudaErrorInvalidSymbol", "invalid device symbol"},
	InvalidDevicePointer:  {"cudaErrorInvalidDevicePointer", "invalid device pointer"},
	InvalidTexture:        {"cudaErrorInvalidTexture", "invalid texture reference"},
	InvalidMemcpyDir:      {"cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
	InvalidDeviceFunc:     {"cudaErrorInvalidDeviceFunction", "invalid device function"},
	InvalidDevice:         {"cudaErrorInvalidDevice", "invalid device ordinal"},
	NoKernelImage:         {"cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
	UnsupportedLimit:      {"cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
	InvalidPTX:            {"cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
	InvalidResourceHandle: {"cudaErrorInvalidResourceHandle", "invalid resource handle"},
	IllegalAddress:        {"cudaErrorIllegalAddress", "an illegal memory access was encountered"},
	LaunchOutOfResources:  {"cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
	LaunchTimeout:         {"cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
	Assert:                {"cudaErrorAssert", "device-side assert triggered"},
	MisalignedAddress:     {"cudaErrorMisalignedAddress", "misaligned address"},
	LaunchFailure:         {"cudaErrorLaunchFailure", "unspecified launch failure"},
	NotSupported:          {"cudaErrorNotSupported", "operation not supported"},
	Unknown:               {"cudaErrorUnknown", "unknown error"},
}

// Name is the code's name (cudaGetErrorName); a code the stand-in never returns is
// cudaErrorUnknown, as NVIDIA's runtime names one it does not know.
func (c Code) Name() string {
	if w, ok := codeWords[c]; ok {
		return w[0]
	}
	return "cudaErrorUnknown"
}

// Text is the code's words (cudaGetErrorString).
func (c Code) Text() string {
	if w, ok := codeWords[c]; ok {
		return w[1]
	}
	return "unrecognized error code"
}

func fail(code Code, f string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(f, args...)}
}

// Options configure a Runtime.
type Options struct {
	Out      string            // the trace file written by Close
	SIMT     format.SIMTModel  // the SIMT model every launch is captured under
	Workers  int               // CTAs emulated in parallel; 0 = GOMAXPROCS
	MaxInst  uint64            // per-warp instruction budget; 0 = capture's default
	Producer string            // the trace's producer ("gtrace 0.x")
	Log      io.Writer         // where each launch and each unsupported call is told; nil = nowhere
	GPU      *arch.Config      // the GPU the program is told of and limited by; nil = DefaultGPU
	OOB      capture.OOBPolicy // what an out-of-bounds access does in every launch
	Progress Progress          // told of each launch as it runs; nil = nobody
	// Stdout receives what kernels print (printf), at the calls where a GPU prints
	// it (Flush); nil = nowhere. Stderr receives what a GPU prints there (a failed
	// assert's line) and what gtrace says of printf; nil = nowhere.
	Stdout, Stderr io.Writer
	// Ptxas, when set, gives the registers a thread of kernel (an .entry of ptx) uses
	// once compiled for target (sm_90), as a driver's JIT compiler would: for kernels
	// whose fat binary holds no cubin the GPU can run. nil = none (32 are assumed).
	Ptxas func(ptx []byte, kernel, target string) (int, error)
}

// Progress is told of each launch as it runs: a program may launch thousands of
// kernels, or one that takes minutes, and shows nothing until it is done.
type Progress interface {
	// Start: launch n (from 1, in the order the program makes them) of kernel under c.
	Start(n int, kernel string, c Config)
	// CTAs: done of the launch's total CTAs are emulated.
	CTAs(done, total int)
	// End: the launch ended after warpInsts warp-instructions, or failed with err.
	End(warpInsts uint64, err error)
}

// Runtime is one program's CUDA runtime state.
type Runtime struct {
	opts    Options
	gpu     *arch.Config
	attrs   map[int]int // cudaDeviceGetAttribute's answers for gpu
	dev     *capture.Device
	modules []*module
	funcs   map[uintptr]*function
	vars    map[uintptr]*variable
	texrefs map[uintptr]*texref
	streams map[uintptr]bool   // created and not destroyed
	events  map[uintptr]*event // created and not destroyed
	pinned  map[uint64]uint64  // page-locked host memory: start, bytes
	start   time.Time          // events are timed from here

	nstreams, nevents int // handles given, for the next one's number
	configs           []Config
	spool             string   // folder of the per-launch traces
	parts             []string // one trace file per launch, in order
	meta              []format.Launch
	transfers         []format.Transfer // the program's copies, in order
	syncs             []format.Sync     // the program's calls that order its streams, in order
	insts             uint64
	oob               []string // Options.OOB = warn: each launch's out-of-bounds pcs
	failed            int      // launches that did not run to their end (a fault, PTX gtrace cannot run)
	sticky            *Error   // the first kernel fault: every later call returns its code
	refused           int      // calls refused with the sticky error
	closed            bool
	regsSaid          bool // the program was told that some kernel's registers are assumed

	printf []byte           // what kernels printed since the last Flush
	limits map[Limit]uint64 // cudaDeviceSetLimit's values, where set
}

type module struct {
	entries []fatbin.Entry
	// regs is the registers of each kernel in each cubin the GPU can run (architecture
	// to kernel to count), and regsErr why they could not be read: both read at the
	// first need (Runtime.regs), once for all of the module's kernels.
	regs    map[int]map[string]int
	regsErr error
}

type function struct {
	mod  *module
	name string // the .entry name
	ptx  *fatbin.Entry
	info *capture.EntryInfo // what its PTX fixes, read on first need
	// optIn is the dynamic shared memory the program opted in to with
	// cudaFuncAttributeMaxDynamicSharedMemorySize; -1 until it does.
	optIn int
	// carveout is its cudaFuncAttributePreferredSharedMemoryCarveout: a percentage of
	// the largest carve-out, or -1 for none.
	carveout int
	// clockSaid: the program was told, at the first launch, what the kernel's clock
	// reads give (capture.Kernel.ClockNote).
	clockSaid bool
	// regs is the registers a thread uses on the GPU, 0 until the first need
	// (Runtime.regs); regsKnown says they came from a cubin or ptxas, not assumed.
	regs      int
	regsKnown bool
}

// DefaultMaxDynShared is what a kernel may ask for before it opts in to more: 48 KiB
// (CUDA C++ Programming Guide, "Shared Memory" in each compute capability's section:
// allocations above 48 KB per block need dynamic shared memory and an explicit opt-in).
const DefaultMaxDynShared = 48 << 10

// variable is a __device__ or __constant__ variable the program registered, keyed by
// its host shadow's address (what cudaMemcpyToSymbol is given).
type variable struct {
	mod      *module
	name     string // its PTX name
	size     uint64
	constant bool
	key      string // its module's key on the Device, once loaded
}

// Config is a launch configuration (<<<grid, block, shared, stream>>>).
type Config struct {
	Grid, Block format.Dim3
	Shared      uint64
	Stream      uintptr
}

// New starts a runtime whose trace goes to opts.Out.
func New(opts Options) (*Runtime, error) {
	if opts.Out == "" {
		return nil, errors.New("host: no trace file named")
	}
	gpu := opts.GPU
	if gpu == nil {
		var err error
		if gpu, err = arch.Lookup(DefaultGPU, ""); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp(filepath.Dir(opts.Out), "."+filepath.Base(opts.Out)+".launches-")
	if err != nil {
		return nil, err
	}
	return &Runtime{opts: opts, gpu: gpu, attrs: attributes(gpu), dev: capture.NewDevice(), funcs: map[uintptr]*function{}, vars: map[uintptr]*variable{}, texrefs: map[uintptr]*texref{}, spool: dir,
		streams: map[uintptr]bool{}, events: map[uintptr]*event{}, pinned: map[uint64]uint64{}, start: time.Now()}, nil
}

// say tells the user on Options.Stderr, under gtrace run too (where Log is nil).
func (r *Runtime) say(f string, args ...any) {
	if r.opts.Stderr != nil {
		fmt.Fprintf(r.opts.Stderr, "gtrace: "+f+"\n", args...)
	}
}

func (r *Runtime) logf(f string, args ...any) {
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, "gtrace: "+f+"\n", args...)
	}
}

// RegisterFatBinary reads one fat binary (its containers' bytes) and returns its handle.
func (r *Runtime) RegisterFatBinary(data []byte) (int, error) {
	es, err := fatbin.Parse(data)
	if err != nil {
		return 0, fail(InvalidPTX, "the program's fat binary: %v", err)
	}
	r.modules = append(r.modules, &module{entries: es})
	return len(r.modules), nil
}

// module is the fat binary RegisterFatBinary returned handle for, which call names.
func (r *Runtime) module(call string, handle int) (*module, error) {
	if handle < 1 || handle > len(r.modules) {
		return nil, fail(InvalidResourceHandle, "%s: no fat binary %d", call, handle)
	}
	return r.modules[handle-1], nil
}

// RegisterFunction binds a kernel's host stub (the address cudaLaunchKernel is given)
// to its device name in module handle.
func (r *Runtime) RegisterFunction(handle int, stub uintptr, deviceName string) error {
	m, err := r.module("__cudaRegisterFunction", handle)
	if err != nil {
		return err
	}
	f := &function{mod: m, name: deviceName, optIn: -1, carveout: -1}
	// A kernel with no PTX (SASS only) is refused at its launch, not here: a program
	// may register kernels it never runs.
	f.ptx, _ = fatbin.PTXFor(m.entries, deviceName)
	r.funcs[stub] = f
	return nil
}

// PushConfig stacks a <<<>>> configuration for the next launch.
func (r *Runtime) PushConfig(c Config) { r.configs = append(r.configs, c) }

// PopConfig takes back the configuration last pushed.
func (r *Runtime) PopConfig() (Config, error) {
	if len(r.configs) == 0 {
		return Config{}, fail(InvalidConfiguration, "__cudaPopCallConfiguration with no configuration pushed")
	}
	c := r.configs[len(r.configs)-1]
	r.configs = r.configs[:len(r.configs)-1]
	return c, nil
}

// Device is the program's device memory.
func (r *Runtime) Device() *capture.Device { return r.dev }

// ParamSizes is the byte size of each parameter of the kernel whose host stub is stub:
// how many bytes the shim copies from each of cudaLaunchKernel's argument pointers.
func (r *Runtime) ParamSizes(stub uintptr) ([]int, error) {
	f, err := r.function("cudaLaunchKernel", stub)
	if err != nil {
		return nil, err
	}
	info, err := f.entry()
	if err != nil {
		return nil, err
	}
	return info.Params, nil
}

// entry is what f's PTX fixes before a launch, read once.
func (f *function) entry() (*capture.EntryInfo, error) {
	if f.info == nil {
		info, err := capture.Entry(f.name+".ptx", f.ptx.Data, f.name)
		if err != nil {
			return nil, fail(InvalidPTX, "%v", err)
		}
		f.info = &info
	}
	return f.info, nil
}

// sharedLimits are what f's PTX fixes and the dynamic shared memory a launch of f may
// ask for: what the program opted in to, or until it does, what is left of 48 KiB beside
// f's static shared memory (cudaFuncGetAttributes' maxDynamicSharedSizeBytes on an
// H100: 44928 for a kernel of 4224 static bytes, examples/cuda/occupancy.cu).
func (f *function) sharedLimits() (info *capture.EntryInfo, maxDyn uint64, err error) {
	if info, err = f.entry(); err != nil {
		return nil, 0, err
	}
	if f.optIn >= 0 {
		return info, uint64(f.optIn), nil
	}
	return info, DefaultMaxDynShared - min(uint64(info.StaticShared), DefaultMaxDynShared), nil
}

// function is the kernel whose host stub is stub, with its PTX, for call.
func (r *Runtime) function(call string, stub uintptr) (*function, error) {
	f, ok := r.funcs[stub]
	if !ok {
		return nil, fail(InvalidDeviceFunc, "%s: %#x is no registered kernel", call, stub)
	}
	if f.ptx == nil {
		_, err := fatbin.PTXFor(f.mod.entries, f.name)
		return nil, fail(NoKernelImage, "kernel %s: %v", f.name, err)
	}
	return f, nil
}

// Launch runs one launch of the kernel whose host stub is stub, with params (one slice
// per parameter, ParamSizes long), to completion, and spools its trace.
func (r *Runtime) Launch(ctx context.Context, stub uintptr, c Config, params [][]byte) error {
	f, err := r.function("cudaLaunchKernel", stub)
	if err != nil {
		return err
	}
	if err := r.CheckStream("cudaLaunchKernel", c.Stream); err != nil {
		return err
	}
	if err := r.checkConfig(c); err != "" {
		return fail(InvalidConfiguration, "kernel %s <<<%v, %v, %d>>>: %s", f.name, c.Grid, c.Block, c.Shared, err)
	}
	info, maxDyn, err := f.sharedLimits()
	if err != nil {
		return err
	}
	if err := info.CheckBlock(c.Block); err != nil {
		return fail(InvalidValue, "kernel %s <<<%v, %v, %d>>>: %v", f.name, c.Grid, c.Block, c.Shared, err)
	}
	if regs, n := r.regs(f), c.Block.X*c.Block.Y*c.Block.Z; int(n) > r.maxThreads(regs) {
		return fail(LaunchOutOfResources, "kernel %s <<<%v, %v, %d>>>: %d threads of %d registers each need more than one multiprocessor's %d registers (at most %d such threads a block)",
			f.name, c.Grid, c.Block, c.Shared, n, regs, r.gpu.SMLimits().Registers, r.maxThreads(regs))
	}
	if c.Shared > maxDyn {
		return fail(InvalidValue, "kernel %s <<<%v, %v, %d>>>: %d bytes of dynamic shared memory, over the kernel's %d: above 48 KiB of shared memory a kernel must opt in first, with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)",
			f.name, c.Grid, c.Block, c.Shared, c.Shared, maxDyn)
	}
	// From here on the launch is one a GPU would run: if it does not end in the
	// trace, it failed.
	p := r.opts.Progress
	if p != nil {
		p.Start(len(r.parts)+r.failed+1, f.name, c)
	}
	warpInsts, err := r.run(ctx, f, c, params)
	if err != nil {
		r.failed++
	}
	if p != nil {
		p.End(warpInsts, err)
	}
	return err
}

// run emulates one launch Launch has checked, spools its trace and returns its
// warp-instructions. A fault in the kernel becomes the sticky error.
func (r *Runtime) run(ctx context.Context, f *function, c Config, params [][]byte) (uint64, error) {
	spec := capture.Spec{
		PTX: f.ptx.Data, PTXName: f.name + ".ptx", Kernel: f.name,
		Grid: c.Grid, Block: c.Block, DynShared: uint32(c.Shared),
		Device: r.dev, Params: params,
		SIMT: r.opts.SIMT, Workers: r.opts.Workers, MaxInst: r.opts.MaxInst, OOB: r.opts.OOB,
		HeapSize:      r.limit(LimitMallocHeapSize),
		RegsPerThread: r.knownRegs(f),
		PTXProducer:   fmt.Sprintf("nvcc (the program's fat binary, compute_%d)", f.ptx.Arch),
	}
	if p := r.opts.Progress; p != nil {
		spec.Progress = p.CTAs
	}
	spec.Printf = func(b []byte) { r.printf = append(r.printf, b...) }
	spec.TexRefs = r.boundTextures(f.mod)
	k, err := capture.Load(spec)
	if pe := (*capture.PTXError)(nil); errors.As(err, &pe) {
		return 0, fail(InvalidPTX, "kernel %s: %v", f.name, err)
	} else if err != nil {
		return 0, fail(InvalidValue, "kernel %s: %v", f.name, err)
	}
	if !f.clockSaid {
		if n := k.ClockNote(); n != "" {
			f.clockSaid = true
			r.say("%s", n)
		}
	}
	path := filepath.Join(r.spool, fmt.Sprintf("%06d.gtrace", len(r.parts)))
	launch := k.Launch()
	launch.Stream = uint64(c.Stream)
	w, err := format.Create(path, format.Meta{Version: format.CurrentVersion, Producer: r.opts.Producer, Launches: []format.Launch{launch}})
	if err != nil {
		return 0, err
	}
	res, err := k.Run(ctx, 0, w)
	if err != nil {
		w.Abort()
		if fa := (*capture.Fault)(nil); errors.As(err, &fa) && fa.Kind == capture.FaultAssert && r.opts.Stderr != nil {
			fmt.Fprintln(r.opts.Stderr, fa.Reason) // what a GPU prints for it
		}
		r.sticky = fail(faultCode(err), "kernel %s <<<%v, %v>>>: %v", f.name, c.Grid, c.Block, err)
		return 0, r.sticky
	}
	for i := range res.PrintfNotes {
		r.say("launch %d (%s): %s", len(r.parts)+1, f.name, &res.PrintfNotes[i])
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	r.parts = append(r.parts, path)
	r.meta = append(r.meta, launch)
	r.insts += res.WarpInsts
	r.logf("launch %d: %s <<<%v, %v, %d>>>: %d warp-instructions", len(r.parts), f.name, c.Grid, c.Block, c.Shared, res.WarpInsts)
	for _, a := range res.OOB {
		line := fmt.Sprintf("launch %d (%s): %s", len(r.parts), f.name, a.String())
		r.oob = append(r.oob, line)
		r.logf("--oob=warn: %s", line)
	}
	return res.WarpInsts, nil
}

// checkConfig refuses what CUDA 11.8's cudaLaunchKernel refuses with
// cudaErrorInvalidConfiguration on the GPU the program is told of: a zero or too large
// dimension, or too many threads (an H100, examples/cuda/bounds.cu; CUDA 13's runtime
// says cudaErrorInvalidValue instead). More dynamic shared memory than the kernel may
// have is cudaErrorInvalidValue in both, checked in Launch. The limits are the device's
// attributes, so a program that reads them and a launch that passes them agree.
func (r *Runtime) checkConfig(c Config) string {
	a := r.attrs
	grid := [3]int{a[attrMaxGridDimX], a[attrMaxGridDimX+1], a[attrMaxGridDimX+2]}
	block := [3]int{a[attrMaxBlockDimX], a[attrMaxBlockDimX+1], a[attrMaxBlockDimX+2]}
	over := func(d format.Dim3, lim [3]int) bool {
		return int64(d.X) > int64(lim[0]) || int64(d.Y) > int64(lim[1]) || int64(d.Z) > int64(lim[2])
	}
	switch {
	case c.Grid.X == 0 || c.Grid.Y == 0 || c.Grid.Z == 0 || c.Block.X == 0 || c.Block.Y == 0 || c.Block.Z == 0:
		return "every dimension must be at least 1"
	case over(c.Grid, grid):
		return fmt.Sprintf("the grid is at most %d × %d × %d", grid[0], grid[1], grid[2])
	case over(c.Block, block) || int64(c.Block.Count()) > int64(a[attrMaxThreadsPerBlock]):
		return fmt.Sprintf("a block is at most %d × %d × %d and %d threads", block[0], block[1], block[2], a[attrMaxThreadsPerBlock])
	}
	return ""
}

// faultCode is the cudaError_t a GPU reports for a kernel that failed as err says: an
// out-of-bounds access is cudaErrorIllegalAddress, a misaligned one
// cudaErrorMisalignedAddress, a warp past its instruction budget (a kernel that would
// not end) cudaErrorLaunchTimeout, a failed assert cudaErrorAssert (measured on an
// H100, scripts/hw/printf.sh), and anything else cudaErrorLaunchFailure
// ("unspecified launch failure", what a trap gives). All five are sticky on a GPU
// (CUDA Runtime API, "Error Handling"; driver_types.h's words for each code).
func faultCode(err error) Code {
	var f *capture.Fault
	if errors.As(err, &f) {
		switch f.Kind {
		case capture.FaultOutOfBounds:
			return IllegalAddress
		case capture.FaultMisaligned:
			return MisalignedAddress
		case capture.FaultBudget:
			return LaunchTimeout
		case capture.FaultAssert:
			return Assert
		}
	}
	return LaunchFailure
}

// Refuse is the sticky error every runtime call returns once a kernel has faulted, as
// on a GPU, whose context is unusable after a fault until the process ends; nil
// before. Each call it refuses is counted (Refused).
func (r *Runtime) Refuse() *Error {
	if r.sticky != nil {
		r.refused++
	}
	return r.sticky
}

// Sticky is the error of the first kernel that faulted, or nil.
func (r *Runtime) Sticky() *Error { return r.sticky }

// Failed is how many launches passed the configuration checks and are not in the trace
// (a kernel fault, PTX gtrace cannot run, a trace not written), and how many calls
// Refuse refused after a fault.
func (r *Runtime) Failed() (launches, refused int) { return r.failed, r.refused }

// OOB lists, under Options.OOB = capture.OOBWarn, each launch's out-of-bounds pcs
// (one line each: the launch, its kernel and capture.OOBAccess's description).
func (r *Runtime) OOB() []string { return r.oob }

// Launches is how many launches ran, and their warp-instructions.
func (r *Runtime) Launches() (int, uint64) { return len(r.parts), r.insts }

// Close writes the trace of every launch, in order, to Options.Out and removes the
// spooled per-launch traces. A program that launched nothing writes no trace.
func (r *Runtime) Close(ctx context.Context) error {
	if r.closed {
		return nil
	}
	r.closed = true
	defer os.RemoveAll(r.spool)
	if len(r.parts) == 0 {
		return nil
	}
	w, err := format.Create(r.opts.Out, format.Meta{Version: format.CurrentVersion, Producer: r.opts.Producer, Launches: r.meta, Transfers: r.transfers, Syncs: r.syncs})
	if err != nil {
		return err
	}
	for i, p := range r.parts {
		if err := copyLaunch(ctx, w, i, p); err != nil {
			w.Abort()
			return fmt.Errorf("launch %d: %w", i+1, err)
		}
	}
	return w.Close()
}

// copyLaunch appends the CTAs of the one-launch trace at path to w as launch i.
func copyLaunch(ctx context.Context, w *format.Writer, i int, path string) error {
	rd, err := format.Open(path)
	if err != nil {
		return err
	}
	defer rd.Close()
	for cta := range rd.NumCTAs(0) {
		if err := ctx.Err(); err != nil {
			return err
		}
		ws, err := rd.ReadCTA(0, cta)
		if err != nil {
			return err
		}
		for _, wp := range ws {
			wp.Kernel = i
		}
		if err := w.WriteCTA(i, cta, ws); err != nil {
			return err
		}
	}
	return nil
}

// MemcpyKind is a cudaMemcpyKind.
type MemcpyKind int

const (
	HostToHost     MemcpyKind = 0
	HostToDevice   MemcpyKind = 1
	DeviceToHost   MemcpyKind = 2
	DeviceToDevice MemcpyKind = 3
	Default        MemcpyKind = 4 // the direction read from the addresses
)

func (k MemcpyKind) String() string {
	switch k {
	case HostToHost:
		return "HtoH"
	case HostToDevice:
		return "HtoD"
	case DeviceToHost:
		return "DtoH"
	case DeviceToDevice:
		return "DtoD"
	case Default:
		return "Default"
	}
	return fmt.Sprintf("MemcpyKind(%d)", int(k))
}

// resolve reads cudaMemcpyDefault's direction from where the source and destination
// lie; any other kind stays as it is.
func (k MemcpyKind) resolve(srcDev, dstDev bool) MemcpyKind {
	if k != Default {
		return k
	}
	switch {
	case srcDev && dstDev:
		return DeviceToDevice
	case srcDev:
		return DeviceToHost
	case dstDev:
		return HostToDevice
	}
	return HostToHost
}

// Malloc is cudaMalloc.
func (r *Runtime) Malloc(n uint64) (uint64, error) { return r.alloc("cudaMalloc", n) }

// alloc allocates n bytes of device memory for call.
func (r *Runtime) alloc(call string, n uint64) (uint64, error) {
	if free, total := r.MemInfo(); n > free {
		return 0, fail(MemoryAllocation, "%s(%d): %d of the %s's %d bytes (dram.size) are free", call, n, free, r.gpu.GPU, total)
	}
	a, err := r.dev.Malloc(n)
	if err != nil {
		return 0, fail(MemoryAllocation, "%s(%d): %v", call, n, err)
	}
	return a, nil
}

// Free is cudaFree.
func (r *Runtime) Free(addr uint64) error {
	if r.dev.InHeap(addr) {
		// As on an H100 (traces/hw/h100-2026-11-27-malloc): a kernel's free frees it.
		return fail(InvalidValue, "cudaFree(%#x): the address is in the device heap, which a kernel's malloc allocates and its free frees", addr)
	}
	if err := r.dev.Free(addr); err != nil {
		return fail(InvalidDevicePointer, "cudaFree(%#x): %v", addr, err)
	}
	return nil
}

// Copy says which runtime call made a copy, and on which stream: the copy's record in
// the trace (format.Transfer) and its errors name them.
type Copy struct {
	Call   string  // "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyToSymbol", ...
	Stream uintptr // the stream an Async call names; 0 for the others
}

// record keeps a finished copy of n bytes for the trace, with where it falls among the
// launches; its host side (unused for DeviceToDevice) is span bytes from hostAddr.
func (r *Runtime) record(c Copy, kind MemcpyKind, n, hostAddr, span uint64) {
	t := format.Transfer{Call: c.Call, Kind: format.TransferKind(kind), Bytes: n, Stream: uint64(c.Stream), After: len(r.meta)}
	if kind == HostToDevice || kind == DeviceToHost {
		for start, size := range r.pinned {
			if hostAddr >= start && hostAddr+span <= start+size {
				t.Pinned = true
				break
			}
		}
	}
	r.transfers = append(r.transfers, t)
}

// Memcpy is cudaMemcpy of len(dstHost) bytes from src to dst, made by c. dstHost and
// srcHost are the host's memory at dst and src, touched only where that side is the host's.
func (r *Runtime) Memcpy(c Copy, dst, src uint64, dstHost, srcHost []byte, kind MemcpyKind) error {
	if err := r.CheckStream(c.Call, c.Stream); err != nil {
		return err
	}
	n := uint64(len(dstHost))
	kind, err := r.direction(c, kind, dst, src)
	if err != nil {
		return err
	}
	if err := r.copyBytes(kind, dst, src, n, dstHost, srcHost); err != nil {
		return fail(InvalidValue, "%s %s of %d bytes: %v", c.Call, kind, n, err)
	}
	hostSide := dst
	if kind == HostToDevice {
		hostSide = src
	}
	r.record(c, kind, n, hostSide, n)
	return nil
}

// direction is the copy's kind, cudaMemcpyDefault's read from where dst and src lie,
// or cudaErrorInvalidMemcpyDirection for a number that is no cudaMemcpyKind.
func (r *Runtime) direction(c Copy, kind MemcpyKind, dst, src uint64) (MemcpyKind, error) {
	kind = kind.resolve(r.dev.Holds(src), r.dev.Holds(dst))
	if kind < HostToHost || kind > DeviceToDevice {
		return kind, fail(InvalidMemcpyDir, "%s: kind %d is no cudaMemcpyKind", c.Call, int(kind))
	}
	return kind, nil
}

// copyBytes copies n bytes from src to dst in the direction kind (resolved) says;
// dstHost and srcHost are the host's memory at dst and src, used where that side is
// the host's.
func (r *Runtime) copyBytes(kind MemcpyKind, dst, src, n uint64, dstHost, srcHost []byte) error {
	switch kind {
	case HostToHost:
		copy(dstHost, srcHost)
	case HostToDevice:
		return r.dev.Write(dst, srcHost)
	case DeviceToHost:
		return r.dev.Read(src, dstHost)
	case DeviceToDevice:
		return r.dev.Copy(dst, src, n)
	}
	return nil
}

// Memset is cudaMemset.
func (r *Runtime) Memset(addr uint64, v byte, n uint64) error {
	if err := r.dev.Fill(addr, v, n); err != nil {
		return fail(InvalidValue, "cudaMemset: %v", err)
	}
	return nil
}

// Out is the trace file Close writes.
func (r *Runtime) Out() string { return r.opts.Out }

// Status is what the stand-in tells gtrace run when the program ends (GTRACE_STATUS).
type Status struct {
	Finished    bool           `json:"finished"` // the runtime wrote its trace: the program ended normally
	Launches    int            `json:"launches"`
	WarpInsts   uint64         `json:"warp_insts"`
	Trace       string         `json:"trace,omitempty"`
	Unsupported map[string]int `json:"unsupported,omitempty"` // calls gtrace does not support, by name
	Errors      []string       `json:"errors,omitempty"`      // failed calls, in order (at most MaxStatusErrors)
	OOB         []string       `json:"oob,omitempty"`         // --oob=warn: out-of-bounds pcs by launch (at most MaxStatusErrors)
	OOBPCs      int            `json:"oob_pcs,omitempty"`     // how many there were in all
	// Failed counts the launches that did not run to their end (a kernel fault, PTX
	// gtrace cannot run): they are not in the trace, though a GPU would have run them.
	// Launches a GPU refuses too (a bad configuration) are in Errors only.
	Failed  int    `json:"failed,omitempty"`
	Sticky  string `json:"sticky,omitempty"`  // the name of the first fault's code, which every later call returned
	Refused int    `json:"refused,omitempty"` // calls refused with the sticky fault's code
}

// MaxStatusErrors bounds Status.Errors: a program that retries a failing call in a loop
// must not grow the status without end.
const MaxStatusErrors = 100

// Write writes the status as JSON to path.
func (s *Status) Write(path string) error {
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadStatus reads what Write wrote.
func ReadStatus(path string) (*Status, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Status
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}
