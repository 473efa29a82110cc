package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gtrace/gtrace/internal/atomicfile"
)

// Slurm says how a sweep goes to a SLURM cluster: one job array per chunk of tasks,
// each array task running `gtrace sweep run-task RESULTS INDEX` on a node. The nodes
// must see the results folder, the traces and the gtrace binary at the paths they have
// here (shared storage), and the array tasks run in this process's working directory.
type Slurm struct {
	// Gtrace is the gtrace binary the array tasks run; "" is this process's own.
	Gtrace string
	// Partition, Time and Mem are sbatch's --partition, --time and --mem ("" leaves
	// them to the cluster's defaults).
	Partition, Time, Mem string
	// Throttle is the most array tasks of a job that run at once (sbatch's %N); 0 is
	// no limit.
	Throttle int
	// Args are more sbatch options, passed as they are (--account=..., --qos=...).
	Args []string
	// NoWait returns once the jobs are submitted; otherwise Submit waits for them.
	NoWait bool
	// Poll is how often a wait asks squeue (0: every 2 s).
	Poll time.Duration
	// MaxArraySize is the cluster's MaxArraySize: array indices run from 0 to
	// MaxArraySize-1. 0 reads it from `scontrol show config` (SLURM's default, 1001,
	// if that fails).
	MaxArraySize int
}

// Submission is what Submit did: the jobs it submitted, how many tasks they hold, and
// where the sweep stands once they ended (or at submission, with NoWait).
type Submission struct {
	Jobs    []Job
	Tasks   int
	Summary Summary
}

// Job is one submitted job array: its id and sbatch's --array value.
type Job struct{ ID, Array string }

// SlurmDir is the folder of a results folder that holds the array tasks' script and
// their output (slurm/JOB_TASK.out).
const SlurmDir = "slurm"

const (
	slurmScript       = "run-task.sh"
	slurmDefaultArray = 1001 // SLURM's default MaxArraySize
)

// Submit readies the results folder as Run does (captures, sweep.json), then submits
// every task not done yet (failed or pending) to SLURM and, unless sl.NoWait, waits for
// the jobs to end, calling opts.Progress as results land. Cancelled while it waits, it
// cancels the jobs (scancel) and returns ctx's error; what finished is kept. A task
// killed on the cluster is left pending: submit again to run it.
func Submit(ctx context.Context, s *Spec, results string, opts Options, sl Slurm) (Submission, error) {
	results, err := filepath.Abs(results)
	if err != nil {
		return Submission{}, err
	}
	m, sum, todo, err := prepare(ctx, s, results, opts)
	if err != nil {
		return Submission{}, err
	}
	sub := Submission{Tasks: len(todo), Summary: sum}
	if len(todo) == 0 {
		return sub, nil
	}
	script, err := writeSlurmScript(results, sl.Gtrace)
	if err != nil {
		return sub, err
	}
	maxArray := sl.MaxArraySize
	if maxArray <= 0 {
		maxArray = slurmMaxArraySize(ctx)
	}
	wd, err := os.Getwd()
	if err != nil {
		return sub, err
	}
	for _, c := range arrayChunks(todo, maxArray) {
		array := c.array
		if sl.Throttle > 0 {
			array += "%" + strconv.Itoa(sl.Throttle)
		}
		args := []string{"--parsable", "--job-name=gtrace-sweep", "--array=" + array,
			"--chdir=" + wd, "--output=" + filepath.Join(results, SlurmDir, "%A_%a.out")}
		for _, o := range [][2]string{{"partition", sl.Partition}, {"time", sl.Time}, {"mem", sl.Mem}} {
			if o[1] != "" {
				args = append(args, "--"+o[0]+"="+o[1])
			}
		}
		args = append(args, sl.Args...)
		args = append(args, script, strconv.Itoa(c.base))
		out, err := slurmCommand(ctx, "sbatch", args...)
		if err != nil {
			// Jobs already submitted run on: say which, so they can be waited for or cancelled.
			return sub, errors.Join(err, submittedSoFar(sub.Jobs))
		}
		id, _, _ := strings.Cut(strings.TrimSpace(out), ";") // --parsable: "jobid[;cluster]"
		if _, err := strconv.Atoi(id); err != nil {
			return sub, errors.Join(fmt.Errorf("sbatch printed %q, not a job id", out), submittedSoFar(sub.Jobs))
		}
		sub.Jobs = append(sub.Jobs, Job{ID: id, Array: array})
	}
	if sl.NoWait {
		return sub, nil
	}
	err = waitJobs(ctx, sub.Jobs, sl.Poll, func() {
		if opts.Progress != nil {
			s, _ := status(results, m)
			opts.Progress(s)
		}
	})
	sub.Summary, _ = status(results, m)
	return sub, err
}

// submittedSoFar is an error naming jobs submitted before one failed, or nil.
func submittedSoFar(jobs []Job) error {
	if len(jobs) == 0 {
		return nil
	}
	ids := jobIDs(jobs)
	return fmt.Errorf("jobs %s were submitted and run on (scancel %s stops them)", strings.Join(ids, ","), strings.Join(ids, " "))
}

func jobIDs(jobs []Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// writeSlurmScript writes the array tasks' batch script into the results folder: task
// base+SLURM_ARRAY_TASK_ID of the sweep, run by the gtrace binary (this one if "").
func writeSlurmScript(results, gtrace string) (string, error) {
	if gtrace == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("the gtrace binary for the array tasks: %v", err)
		}
		gtrace = exe
	}
	gtrace, err := filepath.Abs(gtrace)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(results, SlurmDir)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	path := filepath.Join(dir, slurmScript)
	body := "#!/bin/sh\n" +
		"# One task of a gtrace sweep, written by gtrace sweep --runner slurm: task $1 + SLURM_ARRAY_TASK_ID.\n" +
		"exec " + shellQuote(gtrace) + " sweep run-task " + shellQuote(results) + ` "$(($1 + SLURM_ARRAY_TASK_ID))"` + "\n"
	err = atomicfile.WriteFile(context.Background(), path, func(w io.Writer) error {
		_, err := io.WriteString(w, body)
		return err
	})
	if err != nil {
		return "", err
	}
	return path, os.Chmod(path, 0o755)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// arrayChunk is a job array: tasks base+i for each i of array ("0-7,9,12-15").
type arrayChunk struct {
	base  int
	array string
}

// arrayChunks groups the tasks' indices (ascending) into job arrays whose indices stay
// below maxArray, each written as sbatch's --array ranges.
func arrayChunks(tasks []Task, maxArray int) []arrayChunk {
	var chunks []arrayChunk
	for i := 0; i < len(tasks); {
		base := tasks[i].Index
		var ranges []string
		for i < len(tasks) && tasks[i].Index-base < maxArray {
			lo := tasks[i].Index
			for i+1 < len(tasks) && tasks[i+1].Index == tasks[i].Index+1 && tasks[i+1].Index-base < maxArray {
				i++
			}
			hi := tasks[i].Index
			i++
			if lo == hi {
				ranges = append(ranges, strconv.Itoa(lo-base))
			} else {
				ranges = append(ranges, fmt.Sprintf("%d-%d", lo-base, hi-base))
			}
		}
		chunks = append(chunks, arrayChunk{base, strings.Join(ranges, ",")})
	}
	return chunks
}

// slurmMaxArraySize reads MaxArraySize from the cluster's configuration, or gives
// SLURM's default.
func slurmMaxArraySize(ctx context.Context) int {
	out, err := slurmCommand(ctx, "scontrol", "show", "config")
	if err != nil {
		return slurmDefaultArray
	}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "MaxArraySize" {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	return slurmDefaultArray
}

// waitJobs asks squeue every poll until none of the jobs has a task queued or running,
// calling tick after each look. A few failed asks in a row (the controller busy) are
// borne; cancelled, it cancels the jobs.
func waitJobs(ctx context.Context, jobs []Job, poll time.Duration, tick func()) error {
	if poll <= 0 {
		poll = 2 * time.Second
	}
	ids := jobIDs(jobs)
	list := strings.Join(ids, ",")
	var failures int
	for {
		out, err := slurmCommand(ctx, "squeue", "--noheader", "--array", "--format=%i", "--jobs="+list)
		tick()
		switch {
		case ctx.Err() != nil:
		case err == nil && strings.TrimSpace(out) == "":
			return nil
		case err != nil && strings.Contains(err.Error(), "Invalid job id"):
			return nil // ended long enough ago that the controller forgot them
		case err != nil:
			if failures++; failures == 5 {
				return fmt.Errorf("waiting for SLURM jobs %s: %w (they may still run: gtrace sweep status tells)", list, err)
			}
		default:
			failures = 0
		}
		select {
		case <-ctx.Done():
			cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := slurmCommand(cctx, "scancel", ids...); err != nil {
				return errors.Join(ctx.Err(), fmt.Errorf("cancelling SLURM jobs %s: %w", list, err))
			}
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// slurmCommand runs a SLURM client command and returns its standard output; its error
// carries the command and its standard error.
func slurmCommand(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s: not found: --runner slurm needs SLURM's client commands (sbatch, squeue, scancel) on PATH", name)
		}
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
