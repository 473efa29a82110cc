package replay

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/gtrace/gtrace/format"
)

// BenchmarkMemory reports memory-replay throughput in warp-instructions per second, on one
// worker and on all cores, for coalesced kernels (add_vectors, test_coalesced), a
// global-memory-bound one with 32 sectors per request (transpose V1) and a shared-memory
// one (transpose V2). Issue 14's targets: 30 M warp-inst/s per core on the coalesced
// kernels, 15 M on transpose V1, 1.8x on 2 cores. read-frac is the replay's rate per
// worker over the rate at which one core only reads and decodes the same trace, both
// measured in the same sub-benchmark; x-of-1-worker is the rate on all cores over the
// rate on one measured just before it.
func BenchmarkMemory(b *testing.B) {
	for _, tc := range []struct{ name, size string }{
		{"add_vectors", "n=1048576"}, {"test_coalesced", "elements=2097152"},
		{"transpose_v1", "n=1024"}, {"transpose_v2", "n=1024"},
	} {
		r := traceOf(b, tc.name, tc.size)
		winst := warpInsts(b, r)
		for _, a := range []string{"fermi", "hopper"} {
			cfg := preset(b, a)
			var one float64 // the rate with one worker, measured just before
			for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
				b.Run(fmt.Sprintf("%s/%s/workers=%d", tc.name, a, workers), func(b *testing.B) {
					read := readRate(b, r, winst)
					b.ResetTimer()
					for range b.N {
						if _, err := Memory(context.Background(), r, cfg, Options{Workers: workers}); err != nil {
							b.Fatal(err)
						}
					}
					rate := float64(winst) * float64(b.N) / b.Elapsed().Seconds()
					b.ReportMetric(rate, "winst/s")
					b.ReportMetric(rate/float64(workers), "winst/s/worker")
					b.ReportMetric(rate/float64(workers)/read, "read-frac")
					if workers == 1 {
						one = rate
					} else if one > 0 {
						b.ReportMetric(rate/one, "x-of-1-worker")
					}
				})
			}
		}
	}
}

// BenchmarkMemoryResident reports each engine's peak heap on a launch whose whole grid
// is resident at once with long CTAs: matmul_naive at width 384, 576 CTAs of 22 K
// warp-instructions each on hopper's 132 SMs, 13 M warp-instructions in all. Its groups
// are written in three row windows (format V3), and a resident CTA holds only the
// windows its live warps are in (before V3, its whole decoded batch until it retired:
// 81 bytes a row; the timing engine joined each CTA's windows into copies until stop
// 117); issue 14's target is under 1 GB at 10^9 warp-instructions. B/winst is the peak
// over the warp-instructions.
func BenchmarkMemoryResident(b *testing.B) {
	r := traceOf(b, "matmul_naive", "width=384")
	winst := warpInsts(b, r)
	cfg := preset(b, "hopper")
	resident := func(name string, run func() error) {
		b.Run(name, func(b *testing.B) {
			var peak uint64
			for range b.N {
				runtime.GC()
				peak = max(peak, peakHeap(func() {
					if err := run(); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(winst)*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(peak)/float64(winst), "B/winst")
		})
	}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		resident(fmt.Sprintf("memory/workers=%d", workers), func() error {
			_, err := Memory(context.Background(), r, cfg, Options{Workers: workers})
			return err
		})
	}
	resident("timing", func() error {
		_, err := Timing(context.Background(), r, cfg, Options{})
		return err
	})
}

// peakHeap runs f and returns the most heap its objects occupied meanwhile (live and
// not yet swept), sampled every millisecond.
func peakHeap(f func()) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var p uint64
		for {
			p = max(p, read())
			select {
			case <-stop:
				peak <- p
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	return max(<-peak, read())
}

// readRate is how many warp-instructions per second one core reads and decodes from r,
// the best of three passes: the ceiling of any engine that consumes the trace.
func readRate(b *testing.B, r *format.Reader, winst uint64) float64 {
	b.Helper()
	best := time.Duration(1 << 62)
	for range 3 {
		t := time.Now()
		if got := warpInsts(b, r); got != winst {
			b.Fatalf("read %d warp-instructions, want %d", got, winst)
		}
		best = min(best, time.Since(t))
	}
	return float64(winst) / best.Seconds()
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
