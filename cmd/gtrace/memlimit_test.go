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
