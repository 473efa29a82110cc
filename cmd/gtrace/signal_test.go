//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gtrace/gtrace/internal/atomicfile"
)

// TestMain lets a test run this binary as the gtrace command: with GTRACE_TEST_AS_MAIN
// set, the test binary is gtrace (main reads os.Args and exits).
func TestMain(m *testing.M) {
	if os.Getenv("GTRACE_TEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// gtraceProcess is the gtrace command run as a child process (this test binary, through
// TestMain), killed when ctx ends, with stdout and stderr both into the returned buffer.
func gtraceProcess(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GTRACE_TEST_AS_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// TestInterruptLeavesDirectoryAsFound sends SIGINT and SIGTERM to a real gtrace process
// in the middle of a capture that would take about 20 s, over an earlier file of the
// same name: the process must exit 130 or 143, say what it stopped, keep the earlier
// file and leave no temporary behind.
func TestInterruptLeavesDirectoryAsFound(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(signalName(sig), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "t.gtrace")
			if err := os.WriteFile(out, []byte("earlier"), 0o644); err != nil {
				t.Fatal(err)
			}
			// Bounded: whatever happens, the child is killed after a minute.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd, stderr := gtraceProcess(ctx, "capture", "reduce_v1", "--size", "n=67108864", "-o", out)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Mid-capture: once the temporary trace exists, the emulator is running.
			for {
				tmps, _ := filepath.Glob(filepath.Join(dir, atomicfile.TempPrefix(out)+"*"))
				if len(tmps) > 0 {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("no temporary file appeared within a minute; output:\n%s", stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Fatalf("exit: %v, want status %d; output:\n%s", err, 128+int(sig), stderr.String())
			}
			if want := fmt.Sprintf("gtrace capture: interrupted by %s", signalName(sig)); !strings.Contains(stderr.String(), want) {
				t.Errorf("output %q does not say %q", stderr.String(), want)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 1 || ents[0].Name() != "t.gtrace" {
				t.Errorf("directory holds %v, want only t.gtrace", ents)
			}
			if b, _ := os.ReadFile(out); string(b) != "earlier" {
				t.Errorf("the earlier t.gtrace was replaced by %d bytes", len(b))
			}
		})
	}
}

// TestInterruptedCommandsWriteNothing runs each command that writes a file with a
// context a signal has already cancelled: each exits 130, names itself, and leaves the
// directory as it was (export's Parquet encoder takes no context; its writes fail).
func TestInterruptedCommandsWriteNothing(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.gtrace")
	if code, _, errs := gtrace(t, "capture", "add_vectors", "--size", "n=4096", "-o", tr); code != 0 {
		t.Fatalf("capture: %d %s", code, errs)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interrupted{syscall.SIGINT})
	commands := [][]string{
		{"capture", "add_vectors", "--size", "n=4096", "-o", filepath.Join(dir, "u.gtrace")},
		{"replay", tr, "--arch", "hopper", "-o", filepath.Join(dir, "stats.csv")},
		{"export", tr, "--format", "parquet", "-o", filepath.Join(dir, "t.parquet")},
	}
	for _, args := range commands {
		var out, errb bytes.Buffer
		code := runContext(ctx, append([]string{"gtrace"}, args...), &out, &errb)
		if want := "gtrace " + args[0] + ": interrupted by SIGINT"; code != 130 || !strings.Contains(errb.String(), want) {
			t.Errorf("%v: exit %d, %q; want 130 and %q", args, code, errb.String(), want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%v: directory holds %v, want only t.gtrace", args, ents)
		}
	}
	// Not interrupted, the same commands write their files.
	for _, args := range commands {
		if code, _, errs := gtrace(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		} else if _, err := os.Stat(args[len(args)-1]); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}
