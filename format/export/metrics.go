package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// MetricRow is one value of a replay report: a kernel total (PC < 0) or one
// instruction's share.
type MetricRow struct {
	Arch, GPU, Kernel string
	PC                int
	PTX               string
	Metric            string
	Value             float64
}

var metricSchema = arrow.NewSchema([]arrow.Field{
	{Name: "arch", Type: arrow.BinaryTypes.String},
	{Name: "gpu", Type: arrow.BinaryTypes.String},
	{Name: "kernel", Type: arrow.BinaryTypes.String},
	{Name: "pc", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "ptx", Type: arrow.BinaryTypes.String},
	{Name: "metric", Type: arrow.BinaryTypes.String},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// Metrics writes replay statistics as a zstd Parquet file with columns arch, gpu, kernel,
// pc (null for kernel totals), ptx, metric and value. rows calls its argument once per
// row and stops at its first error. It does not close w.
func Metrics(w io.Writer, rows func(func(MetricRow) error) error) error {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	// arrow's Parquet writer panics if its first write (the magic number) fails, as a
	// cancelled atomic file's does: it writes into a buffer, flushed at the end.
	bw := bufio.NewWriter(w)
	fw, err := pqarrow.NewFileWriter(metricSchema, struct{ io.Writer }{bw}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, metricSchema)
	defer b.Release()
	flush := func() error {
		rec := b.NewRecord()
		defer rec.Release()
		return fw.WriteBuffered(rec)
	}
	n := 0
	err = rows(func(r MetricRow) error {
		b.Field(0).(*array.StringBuilder).Append(r.Arch)
		b.Field(1).(*array.StringBuilder).Append(r.GPU)
		b.Field(2).(*array.StringBuilder).Append(r.Kernel)
		if r.PC >= 0 {
			b.Field(3).(*array.Int32Builder).Append(int32(r.PC))
		} else {
			b.Field(3).(*array.Int32Builder).AppendNull()
		}
		b.Field(4).(*array.StringBuilder).Append(r.PTX)
		b.Field(5).(*array.StringBuilder).Append(r.Metric)
		b.Field(6).(*array.Float64Builder).Append(r.Value)
		if n++; n%65536 == 0 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("gtrace/format/export: metrics: %w", err)
	}
	return nil
}

// ReadMetrics reads a file Metrics wrote (a replay's -o file, a sweep task's result)
// and calls fn once per row, in the file's order, stopping at fn's first error. A file
// that is not Parquet, or not of Metrics's columns, is an error naming it.
func ReadMetrics(ctx context.Context, path string, fn func(MetricRow) error) (err error) {
	defer func() {
		// arrow's Parquet reader can panic on a damaged file rather than return an error.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: not a readable Parquet file: %v", path, p)
		}
	}()
	// Opened here, not by file.OpenParquetFile, which leaves its file open when the
	// footer is bad (FuzzReadMetrics ran out of descriptors).
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 65536}, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	schema, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if got, want := columns(schema), columns(metricSchema); got != want {
		return fmt.Errorf("%s: not a metrics file: columns %s, want %s", path, got, want)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.Record()
		str := func(i int) *array.String { return rec.Column(i).(*array.String) }
		arch, gpu, kernel, ptx, metric := str(0), str(1), str(2), str(4), str(5)
		pc := rec.Column(3).(*array.Int32)
		value := rec.Column(6).(*array.Float64)
		for i := 0; i < int(rec.NumRows()); i++ {
			row := MetricRow{Arch: arch.Value(i), GPU: gpu.Value(i), Kernel: kernel.Value(i), PC: -1,
				PTX: ptx.Value(i), Metric: metric.Value(i), Value: value.Value(i)}
			if pc.IsValid(i) {
				row.PC = int(pc.Value(i))
			}
			if err := fn(row); err != nil {
				return err
			}
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// columns names a schema's fields and types, as "arch utf8, pc int32?, ..." (? for
// nullable), leaving out the metadata Parquet adds.
func columns(s *arrow.Schema) string {
	var b strings.Builder
	for i, f := range s.Fields() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " " + f.Type.String())
		if f.Nullable {
			b.WriteString("?")
		}
	}
	return b.String()
}
