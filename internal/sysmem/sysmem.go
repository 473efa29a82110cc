// Package sysmem says how much memory this process can still take: the least of what
// the kernel reports available, what its cgroup allows, and what its address-space
// limit (ulimit -v) leaves. A program that is about to allocate what a user declared
// (a buffer of 10^10 elements) asks first, so that it can refuse with the sizes, as
// the Go runtime cannot recover from running out of memory.
package sysmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Limit is how much more memory the process may take, and what sets it.
type Limit struct {
	Bytes  uint64
	Source string // e.g. "MemAvailable in /proc/meminfo"
}

// String is the limit as a person reads it: "3.8 GB (MemAvailable in /proc/meminfo)".
func (l Limit) String() string { return fmt.Sprintf("%s (%s)", Size(l.Bytes), l.Source) }

// Size prints a byte count in decimal units, as free(1) -h and most people do.
func Size(b uint64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.1f TB", float64(b)/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(b)/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(b)/1e3)
	}
	return fmt.Sprintf("%d B", b)
}

// Available is the tightest of the limits this system shows; ok is false where it shows
// none (not Linux, no /proc).
func Available() (Limit, bool) {
	var best Limit
	ok := false
	for _, l := range limits() {
		if !ok || l.Bytes < best.Bytes {
			best, ok = l, true
		}
	}
	return best, ok
}

// kbField reads a "Name:   N kB" line, as /proc/meminfo and /proc/self/status write
// them, in bytes.
func kbField(data []byte, name string) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		n, rest, found := strings.Cut(sc.Text(), ":")
		if !found || n != name {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}

// cgroupRoom is what a cgroup v2 directory's memory.max leaves beyond memory.current;
// false where the cgroup has no limit ("max") or the files are missing.
func cgroupRoom(dir string) (uint64, bool) {
	max, err1 := os.ReadFile(dir + "/memory.max")
	cur, err2 := os.ReadFile(dir + "/memory.current")
	if err1 != nil || err2 != nil {
		return 0, false
	}
	m, err1 := strconv.ParseUint(strings.TrimSpace(string(max)), 10, 64)
	c, err2 := strconv.ParseUint(strings.TrimSpace(string(cur)), 10, 64)
	if err1 != nil || err2 != nil { // "max": no limit
		return 0, false
	}
	if c >= m {
		return 0, true
	}
	return m - c, true
}

// cgroupDir is the cgroup v2 directory of this process from a /proc/self/cgroup
// ("0::/path").
func cgroupDir(data []byte) (string, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return "/sys/fs/cgroup" + strings.TrimSuffix(p, "/"), true
		}
	}
	return "", false
}
