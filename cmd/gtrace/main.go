// Command gtrace captures CUDA kernels on the CPU into compressed per-warp Arrow traces and
// replays them through GPU memory-hierarchy and scheduler models. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := interruptible(context.Background())
	code := runContext(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i *interrupted) Error() string { return "interrupted by " + signalName(i.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// interruptible returns a context that SIGINT or SIGTERM cancels, with the signal as its
// cause. After the first signal the default action is restored, so a second Ctrl-C
// stops the process at once if the cleanup hangs.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&interrupted{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// run executes the CLI with no signal handling (tests call it).
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext executes the CLI and returns the process exit code: 0 on success, 1 on an
// error in the work (bad file, model error), 2 on a usage error or an unimplemented
// command, and 128 plus the signal's number when SIGINT (130) or SIGTERM (143) cancelled
// ctx before the work was done. Every command writes its output through a temporary
// file that cancellation removes, so an interrupted command leaves the directory as it
// found it.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, interspersed(app, args))
	if err == nil {
		return 0
	}
	var intr *interrupted
	if errors.As(context.Cause(ctx), &intr) {
		name := "gtrace"
		if cmd := subcommand(app, args); cmd != nil {
			name += " " + cmd.Name
		}
		fmt.Fprintf(stderr, "%s: %v: stopped before the end; no output written, earlier files kept, temporary files removed\n", name, intr)
		code := 1
		if s, ok := intr.sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		return code
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "gtrace:", msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(stderr, "gtrace:", err)
	return 1
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "gtrace",
		Usage:     "capture CUDA kernels on the CPU and replay their traces through GPU models",
		Version:   version,
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once, by run, with the right exit code.
		ExitErrHandler:       func(*cli.Context, error) {},
		EnableBashCompletion: true,
		// A repeatable flag takes one value per use: commas are part of values such as
		// --kernel saxpy_gridstride@n=1048576,blocks=132 and --sbatch-arg=--export=ALL,X=1.
		DisableSliceFlagSeparator: true,
		Commands: []*cli.Command{
			kernelsCommand(),
			captureCommand(),
			inspectCommand(),
			replayCommand(),
			compareCommand(),
			adviseCommand(),
			reportCommand(),
			exportCommand(),
			importCommand(),
			archsCommand(),
			cudaIncludeCommand(),
			validateCommand(),
			sweepCommand(),
			planCommand(),
			runCommand(),
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return cli.Exit(err.Error(), 2)
		},
	}
}

// usageError reports a bad invocation (exit 2).
func usageError(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), 2)
}
