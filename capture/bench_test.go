package capture

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gtrace/gtrace/format"
)

// discardSink drops every CTA, like a writer to /dev/null, and samples the heap.
type discardSink struct{ peak atomic.Uint64 }

func (s *discardSink) WriteCTA(kernel, cta int, warps []*format.Warp) error {
	if cta%256 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > s.peak.Load() {
			s.peak.Store(ms.HeapInuse)
		}
	}
	return nil
}

func benchCapture(b *testing.B, spec Spec) {
	k := load(b, spec)
	var insts uint64
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := k.Run(context.Background(), 0, &discardSink{})
		if err != nil {
			b.Fatal(err)
		}
		insts += res.WarpInsts
	}
	b.ReportMetric(float64(insts)/time.Since(t0).Seconds(), "winst/s")
	b.ReportMetric(float64(insts)/float64(b.N), "winst/op")
}

// BenchmarkTransposeV1: the naive transpose at 2048×2048 with 32×32 blocks.
func BenchmarkTransposeV1(b *testing.B) {
	for _, w := range []int{1, 0} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			benchCapture(b, Spec{Kernel: "transpose_naive", Grid: d3(64, 64, 1), Block: d3(32, 32, 1), Workers: w,
				Args: []string{"buf:f32:4194304", "buf:f32:4194304:rand", "i32:2048", "i32:2048"}})
		})
	}
}

// BenchmarkReductionV3: sequential-addressing reduction of 2^22 floats, 256 threads.
func BenchmarkReductionV3(b *testing.B) {
	for _, w := range []int{1, 0} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			benchCapture(b, Spec{Kernel: "reduce_v3", Grid: d3(16384, 1, 1), Block: d3(256, 1, 1), Workers: w,
				Args: []string{"buf:f32:4194304:rand", "buf:f32:16384"}})
		})
	}
}

// BenchmarkPeakMemory captures 10^8 warp-instructions into a discarding sink and
// reports the heap's high-water mark: it stays near the fixed cost (buffers, one CTA
// state per worker, the reorder window), whatever the trace length.
func BenchmarkPeakMemory(b *testing.B) {
	// busy: 8 warps per CTA, 7 warp-instructions per iteration plus 18 outside the
	// loop: 1526 CTAs × 8 warps × (7×2041+18) ≈ 1.0e8.
	spec := Spec{Kernel: "busy", Grid: d3(1526, 1, 1), Block: d3(256, 1, 1), Args: []string{"buf:f32:390656", "i32:2041"}}
	k := load(b, spec)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		s := &discardSink{}
		res, err := k.Run(context.Background(), 0, s)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.WarpInsts), "winst")
		b.ReportMetric(float64(s.peak.Load())/(1<<20), "peak-heap-MiB")
	}
}
