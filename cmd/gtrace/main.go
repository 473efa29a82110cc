// Command gtrace captures CUDA kernels on the CPU into compressed per-warp Arrow traces and
// replays them through GPU memory-hierarchy and scheduler models. See README.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// exitNotImplemented is the exit code of a command that exists in the CLI contract but has
// no implementation yet: it must never pretend to have worked.
const exitNotImplemented = 2

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the process exit code: 0 on success, 1 on an error in
// the work (bad file, model error), 2 on a usage error or an unimplemented command.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.Run(interspersed(app, args))
	if err == nil {
		return 0
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
		Commands: []*cli.Command{
			kernelsCommand(),
			captureCommand(),
			inspectCommand(),
			replayCommand(),
			compareCommand(),
			exportCommand(),
			importCommand(),
			archsCommand(),
			validateCommand(),
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return cli.Exit(err.Error(), 2)
		},
	}
}

// notImplemented is the action of a contract command whose implementation has not landed.
func notImplemented(name string) cli.ActionFunc {
	return func(*cli.Context) error {
		return cli.Exit(name+": not implemented yet", exitNotImplemented)
	}
}

// usageError reports a bad invocation (exit 2).
func usageError(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), 2)
}
