package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/cudart/host"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/urfave/cli/v2"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run an unmodified CUDA program (built with nvcc -cudart shared) on the CPU and write one trace of all its launches",
		Description: "The program loads gtrace's stand-in for libcudart.so.11.0 (make cudart builds it into bin/cudart):\n" +
			"its kernels run in the emulator, its copies and allocations act on emulated device memory, and its\n" +
			"output is what it prints on a GPU. Calls gtrace does not support return cudaErrorNotSupported and are\n" +
			"listed at the end. The program's arguments follow its name; everything after it is the program's.",
		ArgsUsage: "[--] PROGRAM [ARGS...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the trace file (default PROGRAM.gtrace in the current folder)"},
			&cli.StringFlag{Name: "simt", Value: "stack", Usage: "stack | its: the SIMT model every launch is captured under"},
			&cli.IntFlag{Name: "workers", Usage: "CTAs emulated in parallel (default: every core)"},
			&cli.StringFlag{Name: "gpu", Value: host.DefaultGPU, Usage: "the GPU preset the program is told of (cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaMemGetInfo) and limited by: ARCH, ARCH/GPU or a GPU preset (gtrace archs lists them)"},
			&cli.StringFlag{Name: "oob", Value: "fault", Usage: "fault | warn: what a kernel's out-of-bounds access does; warn reads zeros, drops the write, runs on and lists each such instruction at the end"},
			&cli.DurationFlag{Name: "progress", Value: progress.LogEvery, Usage: "how often a line on stderr sums the run up so far (launches, warp-instructions, time), between launches; 0: never. A launch longer than a second also shows its CTAs on a terminal"},
			&cli.StringFlag{Name: "cudart", Usage: "the folder holding the stand-in " + host.LibName + " (default: $GTRACE_CUDART, else cudart/ beside the gtrace executable)"},
		},
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError("run: name the program to run: gtrace run [--] PROGRAM [ARGS...]")
	}
	simt, err := parseSIMT(c.String("simt"))
	if err != nil {
		return usageError("%v", err)
	}
	if c.Int("workers") < 0 {
		return usageError("run: --workers %d: want 0 (every core) or more", c.Int("workers"))
	}
	gpu, err := arch.Lookup(c.String("gpu"), "")
	if err != nil {
		return usageError("run: --gpu: %v", err)
	}
	oob, err := capture.ParseOOBPolicy(c.String("oob"))
	if err != nil {
		return usageError("run: %v", err)
	}
	if c.Duration("progress") < 0 {
		return usageError("run: --progress %v: want a duration, such as 10s, or 0", c.Duration("progress"))
	}
	prog := c.Args().First()
	path, err := exec.LookPath(prog)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if err := host.CheckProgram(path); err != nil {
		return fmt.Errorf("run: %s %w", prog, err)
	}
	lib, err := cudartDir(c.String("cudart"))
	if err != nil {
		return err
	}
	out := c.String("output")
	if out == "" {
		out = filepath.Base(prog) + ".gtrace"
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gtrace-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	status := filepath.Join(tmp, "status.json") // the library writes it when the program ends

	cmd := exec.CommandContext(c.Context, path, c.Args().Tail()...)
	cmd.Args[0] = prog
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, c.App.Writer, c.App.ErrWriter
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+joinPath(lib, os.Getenv("LD_LIBRARY_PATH")))
	cmd.Env = append(cmd.Env, host.Environ(host.Options{Out: out, SIMT: simt, Workers: c.Int("workers"), GPU: gpu, OOB: oob}, status, c.Duration("progress"))...)
	// Ctrl-C reaches the program from the terminal; a cancelled context (SIGTERM to
	// gtrace) passes SIGTERM on, and the program has ten seconds to end.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	runErr := cmd.Wait()
	return runSummary(c.App.ErrWriter, prog, status, runErr)
}

// runSummary tells what the program's run produced, from the stand-in's status file, and
// passes the program's exit status on; a program that exits 0 after launches that did
// not run to their end (a fault, PTX gtrace cannot run) makes gtrace run exit 1.
func runSummary(w io.Writer, prog, statusPath string, runErr error) error {
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return fmt.Errorf("run %s: %w", prog, runErr)
	}
	st, err := host.ReadStatus(statusPath)
	switch {
	case errors.Is(err, os.ErrNotExist) && exit != nil && !exit.Exited():
		return cli.Exit(fmt.Sprintf("run: %s ended by %v before the CUDA runtime could write its trace", prog, exit.ProcessState), 1)
	case errors.Is(err, os.ErrNotExist):
		return cli.Exit(fmt.Sprintf("run: %s ended without a word from gtrace's CUDA runtime: it registered no device code, or "+
			"left without exiting normally (exit status %d); no trace written", prog, exitCode(exit)), 1)
	case err != nil:
		return err
	}
	if st.Launches == 0 {
		fmt.Fprintf(w, "gtrace run: %s launched no kernels; no trace written\n", prog)
	} else {
		fmt.Fprintf(w, "gtrace run: %s: %s, %d warp-instructions -> %s\n", prog, counted(st.Launches, "launch", "launches"), st.WarpInsts, st.Trace)
	}
	if len(st.Unsupported) > 0 {
		names := make([]string, 0, len(st.Unsupported))
		for n := range st.Unsupported {
			names = append(names, n)
		}
		sort.Strings(names)
		for i, n := range names {
			names[i] = fmt.Sprintf("%s (%d×)", n, st.Unsupported[n])
		}
		fmt.Fprintf(w, "gtrace run: calls gtrace does not support, answered cudaErrorNotSupported: %s\n", strings.Join(names, ", "))
	}
	if st.OOBPCs > 0 {
		fmt.Fprintf(w, "gtrace run: --oob=warn: %s accessed memory out of bounds (reads gave zeros, writes were dropped):\n",
			counted(st.OOBPCs, "instruction", "instructions"))
		for _, s := range st.OOB {
			fmt.Fprintf(w, "  %s\n", s)
		}
		if more := st.OOBPCs - len(st.OOB); more > 0 {
			fmt.Fprintf(w, "  and %d more\n", more)
		}
	}
	if len(st.Errors) > 0 {
		fmt.Fprintf(w, "gtrace run: %s failed; the first: %s\n", counted(len(st.Errors), "call", "calls"), st.Errors[0])
	}
	if st.Sticky != "" {
		fmt.Fprintf(w, "gtrace run: the fault is sticky, as on a GPU: the %s after it returned %s\n",
			counted(st.Refused, "runtime call", "runtime calls"), st.Sticky)
	}
	switch {
	case exit != nil:
		return cli.Exit(fmt.Sprintf("run: %s exited with status %d", prog, exitCode(exit)), exitCode(exit))
	case st.Failed > 0:
		// The program may not check its launches: its status alone would call a run
		// whose trace lacks launches a success.
		return cli.Exit(fmt.Sprintf("run: %s exited with status 0, but %s did not run to the end: the trace lacks %s",
			prog, counted(st.Failed, "launch", "launches"), pronoun(st.Failed)), 1)
	}
	return nil
}

func exitCode(e *exec.ExitError) int {
	if e == nil {
		return 0
	}
	if c := e.ExitCode(); c > 0 {
		return c
	}
	return 1
}

func joinPath(dir, rest string) string {
	if rest == "" {
		return dir
	}
	return dir + string(os.PathListSeparator) + rest
}

// cudartDir finds the folder holding the stand-in library.
func cudartDir(flag string) (string, error) {
	var tried []string
	for _, d := range []string{flag, os.Getenv("GTRACE_CUDART"), exeRelative("cudart")} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, host.LibName)); err == nil {
			return filepath.Abs(d)
		}
		tried = append(tried, d)
		if d == flag {
			break // a folder the user named and that lacks the library is an error
		}
	}
	return "", fmt.Errorf("run: no %s stand-in in %s: build it with `make cudart` (it goes to bin/cudart, beside bin/gtrace), "+
		"or name its folder with --cudart DIR or GTRACE_CUDART", host.LibName, strings.Join(tried, ", "))
}

// exeRelative is name in the folder of the running gtrace executable ("" if unknown).
func exeRelative(name string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(exe), name)
}

// pronoun is "it" for one, "them" for more.
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// counted is n with the noun's singular or plural form.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
