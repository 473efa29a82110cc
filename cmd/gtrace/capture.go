package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/cudart"
	"github.com/gtrace/gtrace/cudart/fatbin"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/urfave/cli/v2"
)

// parseDim3 reads X[,Y[,Z]].
func parseDim3(s string) (format.Dim3, error) {
	d := format.Dim3{X: 1, Y: 1, Z: 1}
	parts := strings.Split(s, ",")
	if s == "" || len(parts) > 3 {
		return d, fmt.Errorf("%q is not X[,Y[,Z]]", s)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
		if err != nil || v == 0 {
			return d, fmt.Errorf("%q is not X[,Y[,Z]] of positive integers", s)
		}
		*[]*uint32{&d.X, &d.Y, &d.Z}[i] = uint32(v)
	}
	return d, nil
}

func parseSIMT(s string) (format.SIMTModel, error) {
	m, err := format.ParseSIMT(s)
	if err != nil {
		return 0, fmt.Errorf("--simt %w", err)
	}
	return m, nil
}

// captureJob is one capture the CLI runs: a spec, and for a reference kernel its Check.
type captureJob struct {
	spec  capture.Spec
	ref   *kernels.Kernel
	sizes map[string]int
	out   string
}

func captureAction(c *cli.Context) error {
	simt, err := parseSIMT(c.String("simt"))
	if err != nil {
		return usageError("%v", err)
	}
	oob, err := capture.ParseOOBPolicy(c.String("oob"))
	if err != nil {
		return usageError("%v", err)
	}
	var job captureJob
	switch {
	case c.String("ptx") != "" || c.String("cu") != "" || c.String("exe") != "":
		if c.NArg() > 0 {
			return usageError("capture: give either a reference KERNEL or --ptx/--cu/--exe, not both")
		}
		job, err = userJob(c)
	case c.NArg() == 1:
		job, err = referenceJob(c)
	default:
		return usageError("capture: name a reference kernel (see `gtrace kernels`) or give --ptx FILE / --cu FILE / --exe PROGRAM")
	}
	if err != nil {
		return err
	}
	job.spec.SIMT = simt
	job.spec.OOB = oob
	job.spec.MaxInst = c.Uint64("max-inst")
	maxTrace, err := sizeFlag(c, "max-cta-trace", 1, math.MaxInt, "want a size above 0 (e.g. 128MiB, 1GiB)")
	if err != nil {
		return err
	}
	job.spec.MaxCTATrace = uint64(maxTrace)
	if job.spec.PrintfLimit, err = sizeFlag(c, "printf-limit", 0, 1<<40, "want at most 1TiB (0: no limit)"); err != nil {
		return err
	}
	heap, err := sizeFlag(c, "heap", 1, math.MaxInt, "want a size above 0 (e.g. 8MiB)")
	if err != nil {
		return err
	}
	job.spec.HeapSize = uint64(heap)
	job.spec.Workers = c.Int("workers")
	if err := setRegs(c.Context, c.String("regs"), &job, cmp.Or(c.String("kernel"), job.spec.Kernel), c.App.ErrWriter); err != nil {
		return err
	}
	if c.String("output") != "" {
		job.out = c.String("output")
	}
	return runCapture(c.Context, job, c.App.Writer, c.App.ErrWriter)
}

// setRegs records the registers a thread that --regs gives (regs: N, unknown or 0,
// auto). auto asks ptxas for a --ptx/--cu/--exe kernel and says on stderr what it
// found, or why the count stays unknown, naming the kernel as name (as the user gave
// it, not mangled); a reference kernel stays unknown, so that its trace is the same on
// every machine.
func setRegs(ctx context.Context, regs string, job *captureJob, name string, stderr io.Writer) error {
	switch regs {
	case "unknown", "0":
		return nil
	case "auto":
	default:
		n, err := strconv.Atoi(regs)
		if err != nil || n < 1 || n > 255 {
			return usageError("capture: --regs %q: want a count from 1 to 255, unknown, or auto", regs)
		}
		job.spec.RegsPerThread = uint32(n)
		return nil
	}
	if job.ref != nil || !slices.Contains(fatbin.Kernels(job.spec.PTX), job.spec.Kernel) {
		return nil // capture names the missing entry
	}
	r, err := cudart.PtxasRegisters(ctx, job.spec.PTX, job.spec.Kernel)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(stderr, "gtrace capture: %s's registers are unknown (%v): replay assumes %d a thread for occupancy; --regs N gives them\n",
			name, err, arch.DefaultRegsPerThread)
		return nil
	}
	job.spec.RegsPerThread = uint32(r.PerThread)
	fmt.Fprintf(stderr, "gtrace capture: %s uses %d registers a thread (ptxas %s for %s)\n", name, r.PerThread, r.Release, r.Target)
	if r.SpillStores > 0 || r.SpillLoads > 0 {
		fmt.Fprintf(stderr, "gtrace capture: ptxas spills %d bytes a thread to local memory and loads %d back: the trace, taken from PTX, has none of those accesses\n",
			r.SpillStores, r.SpillLoads)
	}
	return nil
}

// sizeFlag is the size option name (arch.ParseSize's forms: 4096, 48KiB, 8MiB) when it
// lies in [lo, hi], and otherwise a usage error naming it, with want as the reason when
// it parses.
func sizeFlag(c *cli.Context, name string, lo, hi int, want string) (int, error) {
	v, err := arch.ParseSize(c.String(name))
	if err == nil && (v < lo || v > hi) {
		err = errors.New(want)
	}
	if err != nil {
		return 0, usageError("capture: --%s %q: %v", name, c.String(name), err)
	}
	return v, nil
}

func referenceJob(c *cli.Context) (captureJob, error) {
	k, err := kernels.Lookup(c.Args().First())
	if err != nil {
		return captureJob{}, usageError("%v", err)
	}
	for _, f := range []string{"kernel", "grid", "block", "arg", "const", "texref"} {
		if c.IsSet(f) {
			return captureJob{}, usageError("capture %s: --%s is for --ptx/--cu captures; use --size NAME=VALUE", k.Name, f)
		}
	}
	sz, err := kernels.ParseSizes(k, c.StringSlice("size"))
	if err != nil {
		return captureJob{}, usageError("%v", err)
	}
	spec, err := k.Spec(sz, kernels.Clang14)
	if err != nil {
		return captureJob{}, err
	}
	return captureJob{spec: spec, ref: k, sizes: sz, out: k.Name + ".gtrace"}, nil
}

func userJob(c *cli.Context) (captureJob, error) {
	if c.IsSet("size") {
		return captureJob{}, usageError("capture: --size is for reference kernels")
	}
	var job captureJob
	name := c.String("ptx")
	given := 0
	for _, f := range []string{"ptx", "cu", "exe"} {
		if c.String(f) != "" {
			given++
		}
	}
	if given > 1 {
		return job, usageError("capture: give one of --ptx, --cu and --exe")
	}
	if exe := c.String("exe"); exe != "" {
		ptx, what, err := exePTX(exe, c.String("kernel"))
		if err != nil {
			return job, err
		}
		job.spec.PTX, job.spec.PTXName, job.spec.PTXProducer = ptx, what, "nvcc (from "+filepath.Base(exe)+"'s fat binary)"
		name = exe
	} else if cu := c.String("cu"); cu != "" {
		ptx, producer, err := cudart.Compile(c.Context, cu)
		if errors.Is(err, cudart.ErrNoCompiler) {
			return job, fmt.Errorf("capture --cu: %w and use --ptx FILE", cudart.ErrNoCompiler)
		}
		if err != nil {
			return job, err
		}
		// The PTX is compiled into a temporary file: errors name its lines as those of
		// the PTX of cu, and the .cu line first (capture.PTXError).
		job.spec.PTX, job.spec.PTXName, job.spec.PTXProducer = ptx, fmt.Sprintf("the PTX %s made of %s", producer, cu), producer
		name = cu
	} else {
		ptx, err := os.ReadFile(name)
		if err != nil {
			return job, err
		}
		job.spec.PTX, job.spec.PTXName = ptx, name
	}
	job.spec.Kernel = fatbin.EntryName(job.spec.PTX, c.String("kernel"))
	if job.spec.Kernel == "" {
		return job, usageError("capture: --kernel NAME (the .entry to run) is required with --ptx/--cu/--exe")
	}
	var err error
	if job.spec.Grid, err = parseDim3(c.String("grid")); err != nil {
		return job, usageError("--grid: %v", err)
	}
	if job.spec.Block, err = parseDim3(c.String("block")); err != nil {
		return job, usageError("--block: %v", err)
	}
	job.spec.DynShared = uint32(c.Uint("shared"))
	job.spec.Args = c.StringSlice("arg")
	for _, a := range job.spec.Args {
		if _, err := capture.ParseArg(a); err != nil {
			return job, usageError("--arg %s: %v", a, err)
		}
	}
	job.spec.Consts = c.StringSlice("const")
	job.spec.TexBinds = c.StringSlice("texref")
	for _, b := range job.spec.TexBinds {
		if _, err := capture.ParseTexBind(b); err != nil {
			return job, usageError("--texref: %v", err)
		}
	}
	job.out = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)) + "." + job.spec.Kernel + ".gtrace"
	return job, nil
}

// printfReport tells on stderr what a launch's printf output lacks or prints
// differently from a GPU.
func printfReport(stderr io.Writer, res *capture.Result) {
	if res.PrintfDropped > 0 {
		fmt.Fprintf(stderr, "gtrace capture: %d printf calls printed nothing: the launch's output reached its limit after %d bytes (--printf-limit)\n", res.PrintfDropped, res.PrintfBytes)
	}
	for i := range res.PrintfNotes {
		fmt.Fprintf(stderr, "gtrace capture: %s\n", &res.PrintfNotes[i])
	}
}

// exePTX is the PTX that a program built by nvcc carries for kernel (fatbin.PTXFor),
// and words naming it for errors.
func exePTX(exe, kernel string) ([]byte, string, error) {
	es, err := fatbin.ReadFile(exe)
	if err != nil {
		return nil, "", fmt.Errorf("capture --exe: %w", err)
	}
	if kernel == "" {
		return nil, "", usageError("capture: --kernel NAME (the kernel to run) is required with --exe")
	}
	e, err := fatbin.PTXFor(es, kernel)
	if err != nil {
		return nil, "", fmt.Errorf("capture --exe %s: %w", exe, err)
	}
	return e.Data, fmt.Sprintf("the compute_%d PTX of %s", e.Arch, exe), nil
}

// runCapture loads, emulates, writes the trace atomically, and checks a reference
// kernel's output against its Go reference.
func runCapture(ctx context.Context, job captureJob, stdout, stderr io.Writer) error {
	prog := progress.New("capture "+job.spec.Kernel, "CTAs")
	defer prog.Done()
	job.spec.Progress = prog.Update
	// What the kernel prints goes to stdout as CTAs finish, so that what it printed
	// before a fault is there too.
	job.spec.Printf = func(b []byte) {
		prog.Clear()
		stdout.Write(b)
	}
	k, err := capture.Load(job.spec)
	if err != nil {
		return err
	}
	if n := k.ClockNote(); n != "" {
		fmt.Fprintf(stderr, "gtrace capture: %s\n", n)
	}
	w, err := format.Create(job.out, k.Meta("gtrace "+version))
	if err != nil {
		return err
	}
	res, err := k.Run(ctx, 0, w)
	prog.Done()
	if err != nil {
		w.Abort()
		return err
	}
	printfReport(stderr, res)
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "captured %s: %d CTAs, %d warp-instructions -> %s\n", job.spec.Kernel, res.CTAs, res.WarpInsts, job.out)
	if len(res.OOB) > 0 {
		what := "instructions"
		if len(res.OOB) == 1 {
			what = "instruction"
		}
		fmt.Fprintf(stderr, "gtrace capture: --oob=warn: %d %s accessed out of bounds; the trace holds their addresses:\n", len(res.OOB), what)
		for i := range res.OOB {
			fmt.Fprintf(stderr, "  %s\n", &res.OOB[i])
		}
	}
	if job.ref == nil {
		return nil
	}
	if err := job.ref.Verify(job.sizes, job.spec, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "output checked against the Go reference: ok\n")
	return nil
}
