package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadMetrics feeds damaged metrics files (a sweep's results, replay -o) to
// ReadMetrics: it gives rows or an error naming the file, never panics.
func FuzzReadMetrics(f *testing.F) {
	var buf bytes.Buffer
	err := Metrics(&buf, func(emit func(MetricRow) error) error {
		for pc := -1; pc < 4; pc++ {
			if err := emit(MetricRow{"hopper", "h100", "k", pc, "ld.global.f32 %f1, [%rd1];", "dram__bytes_read.sum", float64(pc * 32)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	path := filepath.Join(f.TempDir(), "m.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := ReadMetrics(context.Background(), path, func(MetricRow) error { return nil })
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the file", err)
		}
	})
}
