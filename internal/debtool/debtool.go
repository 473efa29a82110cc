// Package debtool gives tests a program from a Debian package (clang-14, chromium).
// Where the program is not installed and the test runs as root on Debian (as CI does),
// it installs the package once per test binary; otherwise the test is skipped, saying
// what it needs.
package debtool

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
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
	return path(t, program, pkg, false)
}

// PathNonFree is Path for a package of Debian's non-free component
// (nvidia-cuda-toolkit): as root it first adds contrib and non-free to the main
// Debian source (/etc/apt/sources.list.d/debian.sources, Debian 12's deb822 file),
// and installs without recommended packages.
func PathNonFree(t testing.TB, program, pkg string) string {
	t.Helper()
	return path(t, program, pkg, true)
}

func path(t testing.TB, program, pkg string, nonFree bool) string {
	t.Helper()
	mu.Lock()
	f := tools[program]
	if f == nil {
		f = &found{}
		tools[program] = f
	}
	mu.Unlock()
	f.once.Do(func() { f.path, f.whyNone = find(program, pkg, nonFree) })
	if f.path == "" {
		t.Skip(f.whyNone)
	}
	return f.path
}

func find(program, pkg string, nonFree bool) (path, whyNone string) {
	if p, err := exec.LookPath(program); err == nil {
		return p, ""
	}
	whyNone = "needs " + program + " (apt-get install " + pkg + ")"
	if nonFree {
		whyNone = "needs " + program + " (apt-get install " + pkg + ", from Debian's non-free component)"
	}
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
	install := []string{"install", "-y", pkg}
	if nonFree {
		install = []string{"install", "-y", "--no-install-recommends", pkg}
		if err := enableNonFree(debianSources); err != nil {
			return "", whyNone + "; enabling non-free: " + err.Error()
		}
	}
	if _, err := run(install...); err != nil {
		// A fresh machine may have no package lists yet (and none of non-free).
		if out, err := run("update"); err != nil {
			return "", whyNone + "; apt-get update failed: " + err.Error() + "\n" + string(out)
		}
		if out, err := run(install...); err != nil {
			return "", whyNone + "; apt-get install " + pkg + " failed: " + err.Error() + "\n" + string(out)
		}
	}
	if p, err := exec.LookPath(program); err == nil {
		return p, ""
	}
	return "", whyNone + ": installed, but not on PATH"
}

const debianSources = "/etc/apt/sources.list.d/debian.sources"

// enableNonFree adds contrib and non-free to every Components line of a deb822
// sources file that lacks them; a file that has them is left as it is.
func enableNonFree(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	changed := false
	for i, l := range lines {
		rest, ok := strings.CutPrefix(l, "Components:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		for _, c := range []string{"contrib", "non-free"} {
			if !slices.Contains(f, c) {
				f = append(f, c)
				changed = true
			}
		}
		lines[i] = "Components: " + strings.Join(f, " ")
	}
	if !changed {
		return nil
	}
	return os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644)
}
