// Package heaptest measures what a piece of code allocates, for tests that check a
// component's own account of its memory (cache.Config.Bytes, dram.Config.Bytes).
package heaptest

import "runtime"

// Allocated is the fewest bytes the heap handed out over runs runs of f. The runtime
// counts every goroutine's allocations, and the test binary's other goroutines only add
// to f's, so the least of a few runs is f's own.
func Allocated(runs int, f func()) uint64 {
	best := ^uint64(0)
	var before, after runtime.MemStats
	for range max(runs, 1) {
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}
