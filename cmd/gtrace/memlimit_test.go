//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCaptureRefusesBufferBeyondMemory runs a real gtrace process under an address-space
// limit (ulimit -v, 4 GB) with a 6 GB buffer: it must stop with exit status 1 and say
// what the buffers need and what limits them, where it used to die in the Go runtime
// ("fatal error: out of memory", exit status 2), and write no trace.
func TestCaptureRefusesBufferBeyondMemory(t *testing.T) {
	ptx, err := filepath.Abs("../../kernels/ptx/vecadd.ptx")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "big.gtrace")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"capture", "--ptx", ptx, "--kernel", "add_vectors_kernel", "--grid", "2", "--block", "512",
		"--arg", "buf:f32:1500000000:rand", "--arg", "buf:f32:1024", "--arg", "buf:f32:1024", "--arg", "i32:1024", "-o", out}
	// gtraceProcess's child, started by a shell that limits it first.
	cmd, output := gtraceProcess(ctx, args...)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("needs sh for ulimit: %v", err)
	}
	cmd.Path, cmd.Args = sh, append([]string{"sh", "-c", `ulimit -v 4000000 && exec "$0" "$@"`, os.Args[0]}, args...)
	err = cmd.Run()
	msg := output.Bytes()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1; output:\n%.2000s", err, msg)
	}
	for _, s := range []string{"need 24.0 GB", "argument 0 (buf:f32:1500000000:rand), is 6.0 GB", "ulimit -v"} {
		if !strings.Contains(string(msg), s) {
			t.Errorf("output lacks %q:\n%s", s, msg)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a trace was written: %v", err)
	}
}

// TestReplayRefusesModelsBeyondMemory runs a real gtrace replay under the same limit
// with 10^8 SMs: exit status 1, naming what needs the memory and the key that sets it,
// where it used to die in the Go runtime (exit status 2, a goroutine dump).
func TestReplayRefusesModelsBeyondMemory(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "av.gtrace")
	if code, _, stderr := gtrace(t, "capture", "add_vectors", "--size", "n=4096", "-o", tr); code != 0 {
		t.Fatalf("capture: exit %d: %s", code, stderr)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("needs sh for ulimit: %v", err)
	}
	for _, engine := range []string{"memory", "timing"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		args := []string{"replay", "--arch", "hopper", "--engine", engine, "--set", "sm.count=100000000", tr}
		cmd, output := gtraceProcess(ctx, args...)
		cmd.Path, cmd.Args = sh, append([]string{"sh", "-c", `ulimit -v 4000000 && exec "$0" "$@"`, os.Args[0]}, args...)
		err = cmd.Run()
		cancel()
		msg := output.String()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("%s: exit %v, want status 1; output:\n%.2000s", engine, err, msg)
		}
		for _, s := range []string{"the " + engine + " engine's models of hopper/h100 need", "100000000 ×", "(sm.count,", "ulimit -v"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: output lacks %q:\n%s", engine, s, msg)
			}
		}
	}
}
