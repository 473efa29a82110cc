package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParsers reads the three kinds of file the limits come from, as Linux writes them,
// and refuses what is not a number.
func TestParsers(t *testing.T) {
	meminfo := []byte("MemTotal:       24593948 kB\nMemFree:         1034216 kB\nMemAvailable:   23645460 kB\n")
	if v, ok := kbField(meminfo, "MemAvailable"); !ok || v != 23645460*1024 {
		t.Errorf("MemAvailable = %d, %v; want %d", v, ok, 23645460*1024)
	}
	if _, ok := kbField(meminfo, "VmSize"); ok {
		t.Error("finds a VmSize in /proc/meminfo")
	}
	if _, ok := kbField([]byte("MemAvailable: lots kB\n"), "MemAvailable"); ok {
		t.Error("reads a word as a size")
	}
	if dir, ok := cgroupDir([]byte("0::/user.slice/session-1.scope\n")); !ok || dir != "/sys/fs/cgroup/user.slice/session-1.scope" {
		t.Errorf("cgroup dir %q, %v", dir, ok)
	}
	if dir, ok := cgroupDir([]byte("0::/\n")); !ok || dir != "/sys/fs/cgroup" {
		t.Errorf("root cgroup dir %q, %v", dir, ok)
	}
	if _, ok := cgroupDir([]byte("12:memory:/docker/abc\n")); ok {
		t.Error("reads a cgroup v1 line as v2")
	}
	for _, c := range []struct {
		max, cur string
		room     uint64
		ok       bool
	}{{"1000000\n", "250000\n", 750000, true}, {"max\n", "250000\n", 0, false}, {"1000\n", "2000\n", 0, true}} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "memory.max"), []byte(c.max), 0o644)
		os.WriteFile(filepath.Join(dir, "memory.current"), []byte(c.cur), 0o644)
		if room, ok := cgroupRoom(dir); room != c.room || ok != c.ok {
			t.Errorf("max %q current %q: room %d, %v; want %d, %v", c.max, c.cur, room, ok, c.room, c.ok)
		}
	}
	if _, ok := cgroupRoom(t.TempDir()); ok {
		t.Error("a cgroup without memory files has a limit")
	}
}

// TestSize prints sizes as a person reads them.
func TestSize(t *testing.T) {
	for b, want := range map[uint64]string{0: "0 B", 999: "999 B", 1500: "1.5 kB", 6002049024: "6.0 GB", 2.5e12: "2.5 TB"} {
		if got := Size(b); got != want {
			t.Errorf("Size(%d) = %q, want %q", b, got, want)
		}
	}
}
