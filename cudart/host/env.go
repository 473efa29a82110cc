package host

import (
	"debug/elf"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// LibName is the file name of NVIDIA's runtime that nvcc -cudart shared programs load,
// and of gtrace's stand-in for it.
const LibName = "libcudart.so.11.0"

// The environment through which gtrace run tells the stand-in, loaded into the
// program, what to do.
const (
	EnvTrace   = "GTRACE_TRACE"   // the trace file (default DefaultTrace)
	EnvSIMT    = "GTRACE_SIMT"    // stack or its (default stack)
	EnvWorkers = "GTRACE_WORKERS" // CTAs emulated in parallel (default: every core)
	EnvStatus  = "GTRACE_STATUS"  // where to write the Status at the end; unset: launches told on stderr
	EnvGPU     = "GTRACE_GPU"     // the GPU preset the program sees (default DefaultGPU)
	EnvOOB     = "GTRACE_OOB"     // fault or warn: what an out-of-bounds access does (default fault)
	// EnvProgress is how often a line sums the run up (a Go duration; 0: never), and
	// that long launches show their progress. Unset, as when run by hand: each launch
	// is told on stderr instead (Options.Log).
	EnvProgress = "GTRACE_PROGRESS"
)

// DefaultTrace is the trace file of a program run by hand, with no EnvTrace.
const DefaultTrace = "gtrace-run.gtrace"

// Environ is the environment that hands opts (Out, SIMT, Workers, GPU, OOB), a status
// file and the interval of progress lines (EnvProgress) to the stand-in.
func Environ(opts Options, status string, progress time.Duration) []string {
	return []string{EnvTrace + "=" + opts.Out, EnvStatus + "=" + status,
		EnvSIMT + "=" + opts.SIMT.String(), EnvWorkers + "=" + strconv.Itoa(opts.Workers), EnvGPU + "=" + gpuName(opts.GPU),
		EnvOOB + "=" + opts.OOB.String(), EnvProgress + "=" + progress.String()}
}

// gpuName is how Environ names a preset: ARCH/GPU.
func gpuName(c *arch.Config) string {
	if c == nil {
		return DefaultGPU
	}
	return c.Arch + "/" + c.GPU
}

// OptionsFromEnv reads what Environ wrote (getenv is os.Getenv), where the status
// goes ("" when run by hand: then each launch is told on stderr, through Log), and the
// interval of progress lines (-1 when EnvProgress is unset: no progress).
func OptionsFromEnv(getenv func(string) string) (opts Options, status string, progress time.Duration, err error) {
	progress = -1
	if s := getenv(EnvProgress); s != "" {
		if progress, err = time.ParseDuration(s); err != nil || progress < 0 {
			return opts, "", 0, fmt.Errorf("%s=%s: want a duration, such as 10s, or 0", EnvProgress, s)
		}
	}
	opts = Options{Out: getenv(EnvTrace), Producer: "gtrace run"}
	if opts.Out == "" {
		opts.Out = DefaultTrace
	}
	if s := getenv(EnvSIMT); s != "" {
		if opts.SIMT, err = format.ParseSIMT(s); err != nil {
			return opts, "", 0, fmt.Errorf("%s=%w", EnvSIMT, err)
		}
	}
	if s := getenv(EnvWorkers); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return opts, "", 0, fmt.Errorf("%s=%q: want a count of CTAs", EnvWorkers, s)
		}
		opts.Workers = n
	}
	if s := getenv(EnvGPU); s != "" {
		if opts.GPU, err = arch.Lookup(s, ""); err != nil {
			return opts, "", 0, fmt.Errorf("%s=%w", EnvGPU, err)
		}
	}
	if s := getenv(EnvOOB); s != "" {
		if opts.OOB, err = capture.ParseOOBPolicy(s); err != nil {
			return opts, "", 0, fmt.Errorf("%s=%s: want fault or warn", EnvOOB, s)
		}
	}
	return opts, getenv(EnvStatus), progress, nil
}

// CheckProgram says why the program at path cannot load the stand-in, or nil: it must
// load LibName as a shared library (nvcc links the runtime statically unless told
// -cudart shared, and then nothing can stand in for it), CUDA 11's.
func CheckProgram(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("is not an ELF program: %w", err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("has no dynamic section: %w", err)
	}
	if slices.Contains(libs, LibName) {
		return nil
	}
	for _, l := range libs {
		if strings.HasPrefix(l, "libcudart.so") {
			return fmt.Errorf("loads %s; gtrace stands in for %s (CUDA 11): rebuild with CUDA 11's nvcc and -cudart shared", l, LibName)
		}
	}
	return fmt.Errorf("does not load %s (nvcc links the CUDA runtime statically by default): rebuild it with nvcc -cudart shared", LibName)
}
