//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunawayKernelBoundedMemory captures a kernel whose loop never exits, with an
// instruction budget no kernel reaches and eight workers: the process must end with the
// budget fault at the loop's .cu line, naming --max-cta-trace, in well under 1 GiB of
// memory (before the bound it grew to 24 GB and the OOM killer ended it).
func TestRunawayKernelBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.gtrace")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, stderr := gtraceProcess(ctx, "capture", "--ptx", "../../capture/testdata/runaway.ptx", "--kernel", "runaway",
		"--grid", "64", "--block", "1024", "--arg", "buf:u32:1024", "--max-inst", "1000000000000", "--workers", "8", "-o", out)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; output:\n%s", err, stderr.String())
	}
	msg := stderr.String()
	t.Log(strings.TrimSpace(msg))
	for _, want := range []string{"fault in kernel runaway, CTA 0", "at /src/stencil.cu:", "--max-cta-trace", "a loop that never exits?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("output does not say %q", want)
		}
	}
	rss := ee.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak resident memory %d MiB", rss>>20)
	if rss >= 1<<30 {
		t.Errorf("peak resident memory %d MiB, want under 1 GiB", rss>>20)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a faulted capture left %s (%v)", out, err)
	}
}
