package kernels

import "fmt"

// An intra-warp spin lock: the algorithm that the hardware-mapping seed
// (cuda-hardware-mapping-simt-memory-spaces, "Independent Thread Scheduling") says
// needs ITS. Every thread spins on atomicCAS(lock, 0, 1), increments a counter
// under the lock and releases it. Under a reconvergence stack the winning lane
// waits at the loop's exit for lanes that never get the lock: no forward progress.
func spinlockKernels() []*Kernel {
	k := &Kernel{
		Name: "spinlock", Entry: "spinlock", PTXFile: "spinlock.ptx",
		Topic:   "independent thread scheduling (seed: hardware mapping)",
		Summary: "every thread takes one lock with atomicCAS and increments a counter under it; completes only under ITS",
		Sizes: []Size{
			{Name: "threads", Default: 32, Help: "block size: the lanes that contend", Min: 1, Max: 1024},
			{Name: "blocks", Default: 1, Help: "grid size", Min: 1, Max: 1024},
		},
		Small: []string{"threads=32"},
		SIMT:  []string{SIMTITS},
		Launch: func(sz map[string]int) Launch {
			return Launch{
				Grid: dim1(sz["blocks"]), Block: dim1(sz["threads"]),
				Args: []string{buf("i32", 1, "zero"), buf("i32", 1, "zero")},
			}
		},
	}
	return []*Kernel{withCheck(k, func(sz map[string]int, m mem) (map[int]any, error) {
		if l := m.i32(0)[0]; l != 0 {
			return nil, fmt.Errorf("lock starts held (%d)", l)
		}
		// The lock is free again and the counter saw every thread.
		n := int32(sz["threads"] * sz["blocks"])
		return map[int]any{0: []int32{0}, 1: []int32{m.i32(1)[0] + n}}, nil
	})}
}
