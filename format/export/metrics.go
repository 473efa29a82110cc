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
//
// It reads the column chunks itself, a few thousand rows at a time, rather than through
// pqarrow's record reader: that one opens columns on goroutines of its own, where a
// damaged file's panic (a negative chunk length in GetStream, found by FuzzReadMetrics)
// kills the process before any recover can see it. It checks each row group's page
// headers first (checkPages), since arrow's page reader can loop forever on a damaged one.
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
	schema, err := pqarrow.FromParquet(pf.MetaData().Schema, nil, pf.MetaData().KeyValueMetadata())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if got, want := columns(schema), columns(metricSchema); got != want {
		return fmt.Errorf("%s: not a metrics file: columns %s, want %s", path, got, want)
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	for g := 0; g < pf.NumRowGroups(); g++ {
		err := checkPages(f, st.Size(), pf.MetaData().RowGroup(g))
		if err == nil {
			err = readMetricGroup(ctx, pf.RowGroup(g), fn)
		}
		if err != nil {
			if errors.Is(err, errMetricFile) {
				return fmt.Errorf("%s: row group %d: %w", path, g, err)
			}
			return err
		}
	}
	return nil
}

// errMetricFile marks a metrics file's own damage, as against fn's errors.
var errMetricFile = errors.New("damaged metrics file")

// chunkReader is column i of a row group, as the reader type R its values need.
func chunkReader[R file.ColumnChunkReader](rg *file.RowGroupReader, i int) (R, error) {
	var r R
	cr, err := rg.Column(i)
	if err != nil {
		return r, fmt.Errorf("%w: %v", errMetricFile, err)
	}
	r, ok := cr.(R)
	if !ok {
		return r, fmt.Errorf("%w: column %d holds %s", errMetricFile, i, cr.Type())
	}
	return r, nil
}

// readMetricGroup reads one row group of a metrics file, metricChunk rows at a time.
func readMetricGroup(ctx context.Context, rg *file.RowGroupReader, fn func(MetricRow) error) error {
	const metricChunk = 4096
	var strs [5]*file.ByteArrayColumnChunkReader // arch, gpu, kernel, ptx, metric
	for i, c := range []int{0, 1, 2, 4, 5} {
		var err error
		if strs[i], err = chunkReader[*file.ByteArrayColumnChunkReader](rg, c); err != nil {
			return err
		}
	}
	pcs, err := chunkReader[*file.Int32ColumnChunkReader](rg, 3)
	if err != nil {
		return err
	}
	vals, err := chunkReader[*file.Float64ColumnChunkReader](rg, 6)
	if err != nil {
		return err
	}
	var (
		text  [5][]parquet.ByteArray
		pc    = make([]int32, metricChunk)
		pcDef = make([]int16, metricChunk)
		value = make([]float64, metricChunk)
	)
	for i := range text {
		text[i] = make([]parquet.ByteArray, metricChunk)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, _, err := vals.ReadBatch(metricChunk, value, nil, nil)
		if err != nil {
			return fmt.Errorf("%w: %v", errMetricFile, err)
		}
		for i, cr := range strs {
			got, _, err := cr.ReadBatch(metricChunk, text[i], nil, nil)
			if err == nil && got != n {
				err = fmt.Errorf("a column of %d rows beside one of %d", got, n)
			}
			if err != nil {
				return fmt.Errorf("%w: %v", errMetricFile, err)
			}
		}
		got, present, err := pcs.ReadBatch(metricChunk, pc, pcDef, nil)
		if err == nil && got != n {
			err = fmt.Errorf("a pc column of %d rows beside %d", got, n)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errMetricFile, err)
		}
		if n == 0 {
			return nil
		}
		next := 0 // the pc values are packed: one per row whose level says present
		for r := 0; r < int(n); r++ {
			row := MetricRow{Arch: string(text[0][r]), GPU: string(text[1][r]), Kernel: string(text[2][r]), PC: -1,
				PTX: string(text[3][r]), Metric: string(text[4][r]), Value: value[r]}
			if pcDef[r] > 0 {
				if next >= present {
					return fmt.Errorf("%w: more pcs marked present than stored", errMetricFile)
				}
				row.PC = int(pc[next])
				next++
			}
			if err := fn(row); err != nil {
				return err
			}
		}
	}
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
