package format

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// ExportOptions configures ExportParquet. The zero value exports one row per
// warp-instruction in row groups of 1 Mi rows.
type ExportOptions struct {
	// PerLane writes one row per lane access of a memory instruction (columns kernel,
	// cta, warp, seq, pc, space, lane, addr) instead of one row per warp-instruction.
	PerLane bool
	// RowGroupRows is the number of rows per Parquet row group; 0 means 1<<20.
	RowGroupRows int
}

// exportBatchRows is how many rows ExportParquet builds as Arrow arrays before handing
// them to the Parquet writer: large enough that the per-batch cost vanishes, small
// enough (a few MB) that memory does not grow with the trace.
const exportBatchRows = 64 << 10

// Columns of the per-instruction export, in order. docs/sql.md documents them. Every
// column is required except addrs, which is null for a record that moves no memory.
var instSchema = arrow.NewSchema([]arrow.Field{
	{Name: "kernel", Type: arrow.BinaryTypes.String},
	{Name: "cta", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "cta_x", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "cta_y", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "cta_z", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "warp", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "seq", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "pc", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "opcode", Type: arrow.BinaryTypes.String},
	{Name: "class", Type: arrow.BinaryTypes.String},
	{Name: "space", Type: arrow.BinaryTypes.String},
	{Name: "memop", Type: arrow.BinaryTypes.String},
	{Name: "width", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "mask", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "active", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "path", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "flags", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "addrs", Type: arrow.ListOfNonNullable(arrow.PrimitiveTypes.Uint64), Nullable: true},
	{Name: "file", Type: arrow.BinaryTypes.String},
	{Name: "line", Type: arrow.PrimitiveTypes.Uint32},
}, nil)

// Columns of the per-lane export, in order.
var laneSchema = arrow.NewSchema([]arrow.Field{
	{Name: "kernel", Type: arrow.BinaryTypes.String},
	{Name: "cta", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "warp", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "seq", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "pc", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "space", Type: arrow.BinaryTypes.String},
	{Name: "lane", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "addr", Type: arrow.PrimitiveTypes.Uint64},
}, nil)

// ExportParquet writes the trace as a zstd-compressed Parquet file for DuckDB, pandas or
// pyarrow: plain columns, text where the trace has enums, addresses expanded (`addrs` is
// list<uint64>, null for a record that moves no memory). Unsigned columns carry Parquet's
// unsigned integer types (DuckDB reads them as UTINYINT, USMALLINT, UINTEGER, UBIGINT);
// text columns are dictionary-encoded in the file.
//
// It streams: memory holds one CTA, one batch of Arrow arrays and one row group's
// compressed pages. It does not close w.
func ExportParquet(r *Reader, w io.Writer, opts ExportOptions) error {
	schema := instSchema
	if opts.PerLane {
		schema = laneSchema
	}
	groupRows := opts.RowGroupRows
	if groupRows <= 0 {
		groupRows = 1 << 20
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(groupRows)),
	)
	// The Parquet writer closes its sink if it can, and writes many small pieces:
	// hand it a buffer that hides w's Close.
	bw := bufio.NewWriterSize(w, 1<<20)
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{bw}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("gtrace/format: export: %w", err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	if opts.PerLane {
		err = exportLanes(r, rb, fw)
	} else {
		err = exportInsts(r, rb, fw)
	}
	if cerr := fw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("gtrace/format: export: %w", cerr)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// flushRows writes the rows built so far as one record batch; the builders start empty.
func flushRows(rb *array.RecordBuilder, fw *pqarrow.FileWriter) error {
	rec := rb.NewRecord()
	defer rec.Release()
	if rec.NumRows() == 0 {
		return nil
	}
	// WriteBuffered, not Write: Write makes each batch a row group of its own, while
	// this fills row groups of MaxRowGroupLength rows from successive batches.
	if err := fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("gtrace/format: export: %w", err)
	}
	return nil
}

func exportInsts(r *Reader, rb *array.RecordBuilder, fw *pqarrow.FileWriter) error {
	var (
		kernel  = rb.Field(0).(*array.StringBuilder)
		cta     = rb.Field(1).(*array.Uint32Builder)
		ctaX    = rb.Field(2).(*array.Uint32Builder)
		ctaY    = rb.Field(3).(*array.Uint32Builder)
		ctaZ    = rb.Field(4).(*array.Uint32Builder)
		warp    = rb.Field(5).(*array.Uint16Builder)
		seq     = rb.Field(6).(*array.Uint32Builder)
		pc      = rb.Field(7).(*array.Uint32Builder)
		opcode  = rb.Field(8).(*array.StringBuilder)
		class   = rb.Field(9).(*array.StringBuilder)
		space   = rb.Field(10).(*array.StringBuilder)
		memop   = rb.Field(11).(*array.StringBuilder)
		width   = rb.Field(12).(*array.Uint8Builder)
		mask    = rb.Field(13).(*array.Uint32Builder)
		active  = rb.Field(14).(*array.Uint8Builder)
		path    = rb.Field(15).(*array.Uint16Builder)
		flags   = rb.Field(16).(*array.Uint8Builder)
		addrs   = rb.Field(17).(*array.ListBuilder)
		addr    = addrs.ValueBuilder().(*array.Uint64Builder)
		file    = rb.Field(18).(*array.StringBuilder)
		line    = rb.Field(19).(*array.Uint32Builder)
		meta    = r.Meta()
		rows    = 0
		scratch = make([]uint64, 0, 32)
	)
	for wp, err := range r.All() {
		if err != nil {
			return err
		}
		l := &meta.Launches[wp.Kernel]
		c := uint32(wp.CTA)
		gx, gy := max(l.Grid.X, 1), max(l.Grid.Y, 1)
		for i := 0; i < wp.Len(); i++ {
			in := &l.Program.Insts[wp.PC[i]] // the reader checked pc against the table
			kernel.Append(l.Kernel)
			cta.Append(c)
			ctaX.Append(c % gx)
			ctaY.Append(c / gx % gy)
			ctaZ.Append(c / gx / gy)
			warp.Append(uint16(wp.Warp))
			seq.Append(uint32(i))
			pc.Append(wp.PC[i])
			opcode.Append(in.Opcode)
			class.Append(in.Class.String())
			space.Append(in.Space.String())
			memop.Append(in.MemOp.String())
			width.Append(in.Width)
			mask.Append(wp.Mask[i])
			active.Append(uint8(bits.OnesCount32(wp.Mask[i])))
			path.Append(wp.Path[i])
			flags.Append(uint8(wp.Flags[i]))
			if wp.Mode[i] == AddrNone {
				addrs.AppendNull()
			} else {
				// A memory record with no active lane is an empty list, not null.
				addrs.Append(true)
				scratch = wp.Addrs(i, scratch[:0])
				addr.AppendValues(scratch, nil)
			}
			file.Append(in.File)
			line.Append(in.Line)
			if rows++; rows == exportBatchRows {
				if err := flushRows(rb, fw); err != nil {
					return err
				}
				rows = 0
			}
		}
	}
	return flushRows(rb, fw)
}

func exportLanes(r *Reader, rb *array.RecordBuilder, fw *pqarrow.FileWriter) error {
	var (
		kernel = rb.Field(0).(*array.StringBuilder)
		cta    = rb.Field(1).(*array.Uint32Builder)
		warp   = rb.Field(2).(*array.Uint16Builder)
		seq    = rb.Field(3).(*array.Uint32Builder)
		pc     = rb.Field(4).(*array.Uint32Builder)
		space  = rb.Field(5).(*array.StringBuilder)
		lane   = rb.Field(6).(*array.Uint8Builder)
		addr   = rb.Field(7).(*array.Uint64Builder)
		meta   = r.Meta()
		rows   = 0
		lanes  [32]uint64
	)
	for wp, err := range r.All() {
		if err != nil {
			return err
		}
		l := &meta.Launches[wp.Kernel]
		for i := 0; i < wp.Len(); i++ {
			sp := l.Program.Insts[wp.PC[i]].Space.String()
			m := wp.LaneAddrs(i, &lanes)
			for ; m != 0; m &= m - 1 {
				ln := bits.TrailingZeros32(m)
				kernel.Append(l.Kernel)
				cta.Append(uint32(wp.CTA))
				warp.Append(uint16(wp.Warp))
				seq.Append(uint32(i))
				pc.Append(wp.PC[i])
				space.Append(sp)
				lane.Append(uint8(ln))
				addr.Append(lanes[ln])
				if rows++; rows == exportBatchRows {
					if err := flushRows(rb, fw); err != nil {
						return err
					}
					rows = 0
				}
			}
		}
	}
	return flushRows(rb, fw)
}
