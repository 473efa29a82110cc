package format

import (
	"bytes"

	"math/rand/v2"
	"testing"
)

// Benchmark traces: 32 CTAs of 8 warps, each warp running 256 iterations of the 8-instruction
// loop body of synth_test.go (3 memory operations per iteration): 524,288 warp-instructions.
const (
	benchCTAs  = 32
	benchWarps = 8
	benchIters = 256
)

func benchTrace(sh shape) *trace {
	rng := rand.New(rand.NewPCG(1, 2))
	t := &trace{meta: Meta{Producer: "bench", Launches: []Launch{loopLaunch(sh.name, benchCTAs, benchWarps)}}}
	ctas := make([][]*Warp, benchCTAs)
	for c := range ctas {
		ws := make([]*Warp, benchWarps)
		for w := range ws {
			ws[w] = &Warp{}
		}
		loopCTA(sh, 0, c, benchCTAs, ws, benchIters, rng)
		ctas[c] = ws
	}
	t.ctas = [][][]*Warp{ctas}
	return t
}

func (t *trace) warpInsts() int {
	n := 0
	for _, k := range t.ctas {
		for _, ws := range k {
			for _, w := range ws {
				n += w.Len()
			}
		}
	}
	return n
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func BenchmarkWrite(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			tr := benchTrace(sh)
			n := tr.warpInsts()
			var cw countWriter
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cw.n = 0
				w, err := NewWriter(&cw, tr.meta)
				if err != nil {
					b.Fatal(err)
				}
				for c, ws := range tr.ctas[0] {
					if err := w.WriteCTA(0, c, ws); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
			b.ReportMetric(float64(cw.n)/float64(n), "B/winst")
			b.SetBytes(cw.n)
		})
	}
}

func BenchmarkRead(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			tr := benchTrace(sh)
			n := tr.warpInsts()
			var buf bytes.Buffer
			w, _ := NewWriter(&buf, tr.meta)
			for c, ws := range tr.ctas[0] {
				if err := w.WriteCTA(0, c, ws); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			tr = nil
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := NewReader(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				for w, err := range r.All() {
					if err != nil {
						b.Fatal(err)
					}
					got += w.Len()
				}
				if got != n {
					b.Fatalf("read %d warp-instructions, want %d", got, n)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
			b.ReportMetric(float64(len(data))/float64(n), "B/winst")
		})
	}
}

// BenchmarkReadCTA reads CTAs into fresh, caller-owned warps (the random-access path).
func BenchmarkReadCTA(b *testing.B) {
	tr := benchTrace(shapes[0])
	n := tr.warpInsts()
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, tr.meta)
	for c, ws := range tr.ctas[0] {
		if err := w.WriteCTA(0, c, ws); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	r := openBytes(b, buf.Bytes())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for c := 0; c < benchCTAs; c++ {
			if _, err := r.ReadCTA(0, c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
}
