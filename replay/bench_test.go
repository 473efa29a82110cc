package replay

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// BenchmarkMemory reports memory-replay throughput in warp-instructions per second, on one
// worker and on all cores, for a global-memory-bound kernel (transpose V1) and a
// shared-memory one (transpose V2). The target is 30 M warp-inst/s per core.
func BenchmarkMemory(b *testing.B) {
	for _, name := range []string{"transpose_v1", "transpose_v2"} {
		r := traceOf(b, name, "n=1024")
		winst := warpInsts(b, r)
		for _, a := range []string{"fermi", "hopper"} {
			cfg := preset(b, a)
			for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
				b.Run(fmt.Sprintf("%s/%s/workers=%d", name, a, workers), func(b *testing.B) {
					for range b.N {
						if _, err := Memory(context.Background(), r, cfg, Options{Workers: workers}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(winst)*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
					b.ReportMetric(float64(winst)*float64(b.N)/b.Elapsed().Seconds()/float64(workers), "winst/s/worker")
				})
			}
		}
	}
}

// warpInsts counts the warp-instructions of a trace, the unit of the benchmarks' rates.
func warpInsts(b *testing.B, r *format.Reader) uint64 {
	b.Helper()
	var n uint64
	for w, err := range r.All() {
		if err != nil {
			b.Fatal(err)
		}
		n += uint64(w.Len())
	}
	return n
}
