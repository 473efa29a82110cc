package export

import (
	"bufio"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
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
