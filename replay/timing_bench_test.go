package replay

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkTiming reports timing-replay throughput in warp-instructions per second on one
// core (the engine runs on one goroutine), for a global-memory-bound kernel (transpose
// V1, at 512² and at 1024², where 4× the CTAs spread the engine's state over more of
// the host's memory), a shared-memory one (transpose V2) and an arithmetic one (Volkov
// ILP 4). Issue 14's target is 5 M warp-inst/s per core.
func BenchmarkTiming(b *testing.B) {
	for _, tc := range []struct{ name, size string }{
		{"transpose_v1", "n=512"}, {"transpose_v1", "n=1024"}, {"transpose_v2", "n=512"}, {"volkov_ilp4", "threads=1024"},
	} {
		r := traceOf(b, tc.name, tc.size)
		winst := warpInsts(b, r)
		for _, a := range []string{"fermi", "hopper"} {
			cfg := preset(b, a)
			b.Run(fmt.Sprintf("%s/%s/%s", tc.name, tc.size, a), func(b *testing.B) {
				for range b.N {
					if _, err := Timing(context.Background(), r, cfg, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(winst)*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
			})
		}
	}
}
