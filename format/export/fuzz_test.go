package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/parquet/file"
)

// readAll reads a metrics file with ReadMetrics, giving up (as a failure) after limit:
// arrow's page reader has looped forever on damaged files.
func readAll(t *testing.T, path string, limit time.Duration) ([]MetricRow, error) {
	t.Helper()
	type result struct {
		rows []MetricRow
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = ReadMetrics(context.Background(), path, func(m MetricRow) error { r.rows = append(r.rows, m); return nil })
		done <- r
	}()
	select {
	case r := <-done:
		return r.rows, r.err
	case <-time.After(limit):
		t.Fatalf("ReadMetrics(%s) still running after %v", path, limit)
		return nil, nil
	}
}

// Two flipped bytes in the kernel column's data page (FuzzReadMetrics found them: the
// page's type becomes 4, and a later varint runs on) made arrow v17's page reader loop
// forever. checkPages refuses the file first.
func TestReadMetricsRefusesLoopingFile(t *testing.T) {
	const path = "testdata/unknown-page.parquet"
	_, err := readAll(t, path, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), path+": row group 0: damaged metrics file: column 2's chunk") {
		t.Errorf("ReadMetrics(%s) = %v, want an error naming the file and the chunk", path, err)
	}
}

// A page of a type arrow does not know: its reader skips such a page by its header
// alone, then reads the page's body as the next header.
func TestReadMetricsRefusesUnknownPageType(t *testing.T) {
	var buf bytes.Buffer
	if err := Metrics(&buf, func(emit func(MetricRow) error) error {
		return emit(MetricRow{"hopper", "h100", "k", -1, "", "m", 1})
	}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	col, err := pf.MetaData().RowGroup(0).ColumnChunk(6)
	if err != nil {
		t.Fatal(err)
	}
	// A compact PageHeader opens with field 1 (type), an i32: 0x15, then the type's
	// zigzag varint, 0 for a data page.
	at := col.DataPageOffset()
	if data[at] != 0x15 || data[at+1] != 0 {
		t.Fatalf("the value column's data page header opens % x, want 15 00", data[at:at+2])
	}
	data[at+1] = 8 // type 4
	path := filepath.Join(t.TempDir(), "m.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = readAll(t, path, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "column 6's chunk") || !strings.Contains(err.Error(), "is of type 4, not a data or dictionary page") {
		t.Errorf("ReadMetrics = %v, want the page of type 4 named", err)
	}
}

// FuzzReadMetrics feeds damaged metrics files (a sweep's results, replay -o) to
// ReadMetrics: each is an error naming the file or rows, never a panic or a loop, and a
// file read twice gives the same rows.
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
	for _, name := range []string{"unknown-page.parquet", "damaged-chunk.parquet"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	path := filepath.Join(f.TempDir(), "m.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readAll(t, path, 10*time.Second)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		again, err := readAll(t, path, 10*time.Second)
		if err != nil || !reflect.DeepEqual(rows, again) {
			t.Errorf("read again: %d rows and %v, first %d rows", len(again), err, len(rows))
		}
	})
}
