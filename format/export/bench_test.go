package export

import (
	"path/filepath"
	"testing"

	"github.com/gtrace/gtrace/format"
)

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkExport exports the cookbook's synthetic trace to Parquet, per warp-instruction
// and per lane, and reports warp-instructions per second and bytes per warp-instruction.
func BenchmarkExport(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.gtrace")
	writeTrace(b, path)
	r, err := format.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	s, err := format.Summarize(r)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(s.WarpInsts)
	for _, perLane := range []bool{false, true} {
		name := "insts"
		if perLane {
			name = "lanes"
		}
		b.Run(name, func(b *testing.B) {
			var cw countWriter
			for i := 0; i < b.N; i++ {
				cw.n = 0
				if err := Parquet(r, &cw, Options{PerLane: perLane}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "winst/s")
			b.ReportMetric(float64(cw.n)/n, "B/winst")
		})
	}
}
