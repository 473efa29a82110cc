package sysmem

import (
	"os"
	"syscall"
)

// limits lists what Linux shows: MemAvailable, the cgroup's room, and the address-space
// limit less the address space in use.
func limits() []Limit {
	var out []Limit
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if v, ok := kbField(b, "MemAvailable"); ok {
			out = append(out, Limit{v, "MemAvailable in /proc/meminfo"})
		}
	}
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		if dir, ok := cgroupDir(b); ok {
			if v, ok := cgroupRoom(dir); ok {
				out = append(out, Limit{v, "memory.max of cgroup " + dir})
			}
		}
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) {
		used := uint64(0)
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			used, _ = kbField(b, "VmSize")
		}
		room := uint64(0)
		if rl.Cur > used {
			room = rl.Cur - used
		}
		out = append(out, Limit{room, "the address-space limit, ulimit -v"})
	}
	return out
}
