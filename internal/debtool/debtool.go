// Package debtool gives tests a program from a Debian package (clang-14, chromium).
// Where the program is not installed and the test runs as root on Debian (as CI does),
// it installs the package once per test binary; otherwise the test is skipped, saying
// what it needs.
package debtool

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// installTimeout bounds an apt-get run; a test never waits on it longer.
const installTimeout = 10 * time.Minute

type found struct {
	once    sync.Once
	path    string
	whyNone string
}

var (
	mu    sync.Mutex
	tools = map[string]*found{}
)

// Path returns program's path, installing Debian's pkg first where it can, or skips t.
func Path(t testing.TB, program, pkg string) string {
	t.Helper()
	mu.Lock()
	f := tools[program]
	if f == nil {
		f = &found{}
		tools[program] = f
	}
	mu.Unlock()
	f.once.Do(func() { f.path, f.whyNone = find(program, pkg) })
	if f.path == "" {
		t.Skip(f.whyNone)
	}
	return f.path
}

func find(program, pkg string) (path, whyNone string) {
	if p, err := exec.LookPath(program); err == nil {
		return p, ""
	}
	whyNone = "needs " + program + " (apt-get install " + pkg + ")"
	if os.Geteuid() != 0 {
		return "", whyNone
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		return "", whyNone
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// Test binaries of several packages may install at once: wait for dpkg's lock.
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, apt, append([]string{"-o", "DPkg::Lock::Timeout=600", "-q"}, args...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		return cmd.CombinedOutput()
	}
	if _, err := run("install", "-y", pkg); err != nil {
		// A fresh machine may have no package lists yet.
		if out, err := run("update"); err != nil {
			return "", whyNone + "; apt-get update failed: " + err.Error() + "\n" + string(out)
		}
		if out, err := run("install", "-y", pkg); err != nil {
			return "", whyNone + "; apt-get install " + pkg + " failed: " + err.Error() + "\n" + string(out)
		}
	}
	if p, err := exec.LookPath(program); err == nil {
		return p, ""
	}
	return "", whyNone + ": installed, but not on PATH"
}
