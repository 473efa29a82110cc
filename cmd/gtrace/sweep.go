package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/sweep"
	"github.com/urfave/cli/v2"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "replay traces × archs × engines × config values, each result one Parquet file (docs/sweeps.md)",
		ArgsUsage: "SPEC -o RESULTS/ | status RESULTS/ | run-task RESULTS/ INDEX\n\n" +
			"   SPEC (YAML): traces, kernels, archs, engines, set (KEY: [values] or {from, to, step|factor}), exclude.\n" +
			"   A task whose result exists is skipped; a failed one is recorded and retried on the next run.\n" +
			"   Read the results: read_parquet('RESULTS/**/*.parquet', hive_partitioning=true)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "results folder (SPEC runs)"},
			&cli.IntFlag{Name: "workers", Usage: "tasks replayed at once (0: all cores)"},
		},
		Action: sweepAction,
	}
}

func sweepAction(c *cli.Context) error {
	args := c.Args().Slice()
	switch {
	case len(args) == 2 && args[0] == "status":
		sum, err := sweep.Status(args[1])
		if err != nil {
			return err
		}
		printSweepSummary(c.App.Writer, sum)
		return nil
	case len(args) == 3 && args[0] == "run-task":
		i, err := strconv.Atoi(args[2])
		if err != nil {
			return usageError("sweep run-task: INDEX %q is not a number", args[2])
		}
		return sweep.RunTask(c.Context, args[1], i)
	case len(args) != 1:
		return usageError("sweep: give SPEC -o RESULTS/, status RESULTS/, or run-task RESULTS/ INDEX")
	}
	out := c.String("output")
	if out == "" {
		return usageError("sweep: give the results folder with -o RESULTS/")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	spec, err := sweep.ParseSpec(args[0], data, filepath.Dir(args[0]))
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	prog := newProgress("sweep", "tasks")
	sum, err := sweep.Run(c.Context, spec, out, sweep.Options{
		Workers: c.Int("workers"),
		Capture: func(ctx context.Context, k sweep.Kernel, path string) error {
			return captureReference(ctx, k, path, c.App.ErrWriter)
		},
		Progress: func(s sweep.Summary) { prog.update(s.Done+s.Failed, s.Total) },
	})
	prog.done()
	if err != nil {
		return err
	}
	printSweepSummary(c.App.Writer, sum)
	if sum.Failed > 0 {
		return cli.Exit(fmt.Sprintf("sweep: %d of %d tasks failed; run the same command again to retry them", sum.Failed, sum.Total), 1)
	}
	return nil
}

// captureReference captures a reference kernel at the sweep's sizes into path, checked
// against its Go reference as `gtrace capture` does.
func captureReference(ctx context.Context, k sweep.Kernel, path string, stderr io.Writer) error {
	ref, sz, spec, err := kernels.SpecOf(k.Name, k.SizeArgs())
	if err != nil {
		return err
	}
	if spec.SIMT, err = parseSIMT(k.SIMT); err != nil {
		return err
	}
	return runCapture(ctx, captureJob{spec: spec, ref: ref, sizes: sz, out: path}, io.Discard, stderr)
}

func printSweepSummary(w io.Writer, s sweep.Summary) {
	fmt.Fprintf(w, "%d tasks: %d done, %d failed, %d pending\n", s.Total, s.Done, s.Failed, s.Pending)
	for _, f := range s.Failures {
		fmt.Fprintf(w, "  failed: %s\n", f.Err)
	}
}
