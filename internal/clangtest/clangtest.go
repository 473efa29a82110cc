// Package clangtest gives tests clang-14, the CUDA-to-PTX compiler that needs no CUDA
// SDK. Where it is not installed and the test runs as root on Debian (as CI does), it
// installs Debian's clang-14 once; otherwise the test is skipped, saying what it needs.
package clangtest

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

var (
	once    sync.Once
	path    string
	whyNone string
)

// installTimeout bounds the apt-get run; a test never waits on it longer.
const installTimeout = 10 * time.Minute

// Clang14 returns clang-14's path, installing it first where it can, or skips t.
func Clang14(t testing.TB) string {
	t.Helper()
	once.Do(find)
	if path == "" {
		t.Skip(whyNone)
	}
	return path
}

func find() {
	if p, err := exec.LookPath("clang-14"); err == nil {
		path = p
		return
	}
	whyNone = "needs clang-14 (apt-get install clang-14)"
	if os.Geteuid() != 0 {
		return
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// Test binaries of several packages may install at once: wait for dpkg's lock.
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, apt, append([]string{"-o", "DPkg::Lock::Timeout=600", "-q"}, args...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		return cmd.CombinedOutput()
	}
	if _, err := run("install", "-y", "clang-14"); err != nil {
		// A fresh machine may have no package lists yet.
		if out, err := run("update"); err != nil {
			whyNone = "needs clang-14; apt-get update failed: " + err.Error() + "\n" + string(out)
			return
		}
		if out, err := run("install", "-y", "clang-14"); err != nil {
			whyNone = "needs clang-14; apt-get install clang-14 failed: " + err.Error() + "\n" + string(out)
			return
		}
	}
	if p, err := exec.LookPath("clang-14"); err == nil {
		path = p
	}
}
