package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/sweep"
	"github.com/urfave/cli/v2"
)

// slurmFlags is the help category of the options that only --runner slurm takes.
const slurmFlags = "SLURM runner"

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "replay traces × archs × engines × config values, each result one Parquet file (docs/sweeps.md)",
		ArgsUsage: "SPEC -o RESULTS/ | status RESULTS/ | run-task RESULTS/ INDEX\n\n" +
			"   SPEC (YAML, or TOML if it ends in .toml): traces, kernels, archs, engines, set (KEY: [values] or {from, to, step|factor}), exclude.\n" +
			"   A task whose result exists is skipped; a failed one is recorded and retried on the next run.\n" +
			"   Read the results: read_parquet('RESULTS/**/*.parquet', hive_partitioning=true)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "results folder (SPEC runs)"},
			&cli.IntFlag{Name: "workers", Usage: "tasks replayed at once (0: all cores; local runner)"},
			&cli.StringFlag{Name: "runner", Value: "local", Usage: "local (this machine's cores) or slurm (job arrays of gtrace sweep run-task; docs/sweeps.md)"},
			&cli.StringFlag{Name: "partition", Category: slurmFlags, Usage: "sbatch --partition"},
			&cli.StringFlag{Name: "time", Category: slurmFlags, Usage: "sbatch --time per array task (e.g. 0:10:00)"},
			&cli.StringFlag{Name: "mem", Category: slurmFlags, Usage: "sbatch --mem per array task (e.g. 2G)"},
			&cli.IntFlag{Name: "throttle", Category: slurmFlags, Usage: "the most array tasks running at once (sbatch --array=...%N; 0: no limit)"},
			&cli.StringSliceFlag{Name: "sbatch-arg", Category: slurmFlags, Usage: "one more sbatch option, as it is (repeatable: --sbatch-arg=--account=X)"},
			&cli.StringFlag{Name: "gtrace", Category: slurmFlags, Usage: "the gtrace binary the nodes run (default: this one; it must be at that path on every node)"},
			&cli.BoolFlag{Name: "no-wait", Category: slurmFlags, Usage: "return once the jobs are submitted (gtrace sweep status tells where they stand)"},
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
		// In the array task's log: which task this is, and that SIGTERM (scancel) now
		// stops it cleanly, the handler being in place.
		fmt.Fprintf(c.App.ErrWriter, "gtrace sweep: task %d started\n", i)
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
	opts := sweep.Options{
		Workers: c.Int("workers"),
		Capture: func(ctx context.Context, k sweep.Kernel, path string) error {
			return captureReference(ctx, k, path, c.App.ErrWriter)
		},
	}
	switch c.String("runner") {
	case "local":
		if name := firstSet(c, func(_, cat string) bool { return cat == slurmFlags }); name != "" {
			return usageError("sweep: --%s is for --runner slurm", name)
		}
	case "slurm":
		if c.IsSet("workers") {
			return usageError("sweep: --workers is for the local runner; --throttle limits the array tasks running at once")
		}
		return sweepSlurm(c, spec, out, opts)
	default:
		return usageError("sweep: --runner %q: want local or slurm", c.String("runner"))
	}
	prog := sweepProgress(&opts)
	sum, err := sweep.Run(c.Context, spec, out, opts)
	prog.Done()
	if err != nil {
		return err
	}
	return sweepOutcome(c.App.Writer, sum)
}

// sweepSlurm submits the sweep's unfinished tasks to SLURM and, unless --no-wait, waits
// for them with progress.
func sweepSlurm(c *cli.Context, spec *sweep.Spec, out string, opts sweep.Options) error {
	if c.Int("throttle") < 0 {
		return usageError("sweep: --throttle %d: want 0 (no limit) or more", c.Int("throttle"))
	}
	sl := sweep.Slurm{
		Gtrace:    c.String("gtrace"),
		Partition: c.String("partition"),
		Time:      c.String("time"),
		Mem:       c.String("mem"),
		Throttle:  c.Int("throttle"),
		Args:      c.StringSlice("sbatch-arg"),
		NoWait:    c.Bool("no-wait"),
	}
	prog := sweepProgress(&opts)
	sub, err := sweep.Submit(c.Context, spec, out, opts, sl)
	prog.Done()
	for _, j := range sub.Jobs {
		fmt.Fprintf(c.App.ErrWriter, "gtrace sweep: SLURM job %s, array %s; task logs in %s\n", j.ID, j.Array, filepath.Join(out, sweep.SlurmDir))
	}
	if err != nil {
		return err
	}
	if sl.NoWait && len(sub.Jobs) > 0 {
		fmt.Fprintf(c.App.Writer, "submitted %d tasks; gtrace sweep status %s tells where they stand\n", sub.Tasks, out)
		return nil
	}
	return sweepOutcome(c.App.Writer, sub.Summary)
}

// sweepProgress shows the tasks finished (done or failed) as opts's runner reports them.
func sweepProgress(opts *sweep.Options) *progress.Bar {
	prog := progress.New("sweep", "tasks")
	opts.Progress = func(s sweep.Summary) { prog.Update(s.Done+s.Failed, s.Total) }
	return prog
}

// firstSet names the first of the command's flags that was given and that keep accepts
// (by name and help category), or "": options given to the wrong mode of a command.
func firstSet(c *cli.Context, keep func(name, category string) bool) string {
	for _, f := range c.Command.Flags {
		name, category := f.Names()[0], ""
		if cf, ok := f.(cli.CategorizableFlag); ok {
			category = cf.GetCategory()
		}
		if c.IsSet(name) && keep(name, category) {
			return name
		}
	}
	return ""
}

// sweepOutcome prints where a finished run leaves the sweep; exit 1 if a task failed or
// ended with no result (an array task killed on the cluster).
func sweepOutcome(w io.Writer, sum sweep.Summary) error {
	printSweepSummary(w, sum)
	if sum.Failed > 0 || sum.Pending > 0 {
		var what []string
		if sum.Failed > 0 {
			what = append(what, fmt.Sprintf("%d failed", sum.Failed))
		}
		if sum.Pending > 0 {
			what = append(what, fmt.Sprintf("%d ended with no result (killed or cancelled)", sum.Pending))
		}
		return cli.Exit(fmt.Sprintf("sweep: of %d tasks, %s; run the same command again to retry them", sum.Total, strings.Join(what, " and ")), 1)
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
	fmt.Fprintln(w, s)
	for _, f := range s.Failures {
		fmt.Fprintf(w, "  failed: %s\n", f.Err)
	}
}
