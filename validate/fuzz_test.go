package validate

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadGroundTruth feeds arbitrary ground-truth CSVs (validate --hw) to the reader: it
// returns the rows or an error naming the line, never panics; every row it keeps is a
// finite number, found again by its kernel, producer and metric.
func FuzzReadGroundTruth(f *testing.F) {
	files, _ := filepath.Glob("../traces/hw/*.csv")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("# gpu: h200\n# sm_clock_mhz: 1755\nkernel,producer,metric,unit,value\nk,ncu,m,B,1\nk,ncu,\"a,b\",,2e3\n"))
	f.Add([]byte("kernel,producer,metric,unit,value\nk,ncu,m,B,NaN\nk,ncu,m,B,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadGroundTruth(bytes.NewReader(data))
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "ground truth") && !strings.Contains(msg, "token too long") {
				t.Errorf("error %q does not say it is the ground truth", msg)
			}
			return
		}
		for _, r := range g.Rows {
			v, ok := g.Value(r.Kernel, r.Producer, r.Metric)
			if !ok || v != r.Value || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("row %+v: Value gives %v, %v", r, v, ok)
			}
		}
	})
}
