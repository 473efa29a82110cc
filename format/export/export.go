// Package export writes gtrace traces as Parquet for DuckDB, pandas and pyarrow, through
// arrow's pqarrow. It is its own package so that format, capture and everything else that
// only reads or writes traces do not link pqarrow's dependencies (gRPC and protobuf come
// with arrow/flight).
package export

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/gtrace/gtrace/format"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// Options configures Parquet. The zero value exports one row per
// warp-instruction in row groups of 1 Mi rows.
type Options struct {
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

// textType is the Arrow type of the text columns: indices into a dictionary of the
// values, which the Parquet writer stores as a dictionary page and run-length-encoded
// indices; readers see plain strings.
var textType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// Columns of the per-instruction export, in order. docs/sql.md documents them. Every
// column is required except addrs, which is null for a record that moves no memory.
var instSchema = arrow.NewSchema([]arrow.Field{
	{Name: "kernel", Type: textType},
	{Name: "cta", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "cta_x", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "cta_y", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "cta_z", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "warp", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "seq", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "pc", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "opcode", Type: textType},
	{Name: "class", Type: textType},
	{Name: "space", Type: textType},
	{Name: "memop", Type: textType},
	{Name: "width", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "mask", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "active", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "path", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "flags", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "addrs", Type: arrow.ListOfNonNullable(arrow.PrimitiveTypes.Uint64), Nullable: true},
	{Name: "file", Type: textType},
	{Name: "line", Type: arrow.PrimitiveTypes.Uint32},
}, nil)

// Columns of the per-lane export, in order.
var laneSchema = arrow.NewSchema([]arrow.Field{
	{Name: "kernel", Type: textType},
	{Name: "cta", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "warp", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "seq", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "pc", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "space", Type: textType},
	{Name: "lane", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "addr", Type: arrow.PrimitiveTypes.Uint64},
}, nil)

// Parquet writes the trace as a zstd-compressed Parquet file for DuckDB, pandas or
// pyarrow: plain columns, text where the trace has enums, addresses expanded (`addrs` is
// list<uint64>, null for a record that moves no memory). Unsigned columns carry Parquet's
// unsigned integer types (DuckDB reads them as UTINYINT, USMALLINT, UINTEGER, UBIGINT).
//
// It streams: memory holds one CTA, one batch of rows and one row group's compressed
// pages. It does not close w.
func Parquet(r *format.Reader, w io.Writer, opts Options) error {
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
		// Numbers in PLAIN pages: zstd removes the repetition a dictionary would, and
		// arrow v17's dictionary encoder hashes every value. Text comes as Arrow
		// dictionaries (textType), written as a Parquet dictionary and indices.
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("kernel", true),
		parquet.WithDictionaryFor("opcode", true),
		parquet.WithDictionaryFor("class", true),
		parquet.WithDictionaryFor("space", true),
		parquet.WithDictionaryFor("memop", true),
		parquet.WithDictionaryFor("file", true),
		// Min/max statistics let DuckDB skip row groups, which only works for columns
		// whose values cluster (rows are in kernel, CTA, warp order). For text they cost
		// a pass over every batch's indices; keep them for kernel only.
		parquet.WithStatsFor("opcode", false),
		parquet.WithStatsFor("class", false),
		parquet.WithStatsFor("space", false),
		parquet.WithStatsFor("memop", false),
		parquet.WithStatsFor("file", false),
	)
	// The Parquet writer closes its sink if it can, and writes many small pieces:
	// hand it a buffer that hides w's Close.
	bw := bufio.NewWriterSize(w, 1<<20)
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{bw}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("gtrace/format/export: %w", err)
	}
	if opts.PerLane {
		err = exportLanes(r, fw)
	} else {
		err = exportInsts(r, fw)
	}
	if cerr := fw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("gtrace/format/export: %w", cerr)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// The export builds each batch in plain slices, reused from batch to batch, and wraps
// them as Arrow arrays without copying; the Parquet writer has encoded them by the time
// WriteBuffered returns. Arrow's builders would allocate every batch anew.

// textDicts holds the dictionaries of the text columns, fixed for the whole export (the
// Parquet writer then writes each column chunk's dictionary once and only indices per
// row), and each launch's indices into them.
type textDicts struct {
	kernel, opcode, class, space, memop, file arrow.Array
	kernelOf                                  []int32   // per launch
	opcodeOf, fileOf                          [][]int32 // per launch, per pc
}

func newTextDicts(meta *format.Meta) *textDicts {
	d := &textDicts{
		class: stringArray(enumNames(func(i int) fmt.Stringer { return format.Class(i) })),
		space: stringArray(enumNames(func(i int) fmt.Stringer { return format.Space(i) })),
		memop: stringArray(enumNames(func(i int) fmt.Stringer { return format.MemOp(i) })),
	}
	var kernels, opcodes, files dictValues
	for k := range meta.Launches {
		l := &meta.Launches[k]
		d.kernelOf = append(d.kernelOf, kernels.id(l.Kernel))
		ops, fs := make([]int32, len(l.Program.Insts)), make([]int32, len(l.Program.Insts))
		for pc := range l.Program.Insts {
			ops[pc], fs[pc] = opcodes.id(l.Program.Insts[pc].Opcode), files.id(l.Program.Insts[pc].File)
		}
		d.opcodeOf, d.fileOf = append(d.opcodeOf, ops), append(d.fileOf, fs)
	}
	d.kernel, d.opcode, d.file = stringArray(kernels.vals), stringArray(opcodes.vals), stringArray(files.vals)
	return d
}

func (d *textDicts) release() {
	for _, a := range []arrow.Array{d.kernel, d.opcode, d.class, d.space, d.memop, d.file} {
		a.Release()
	}
}

// dictValues numbers distinct strings in order of first appearance.
type dictValues struct {
	vals []string
	ids  map[string]int32
}

func (v *dictValues) id(s string) int32 {
	if i, ok := v.ids[s]; ok {
		return i
	}
	if v.ids == nil {
		v.ids = map[string]int32{}
	}
	v.ids[s] = int32(len(v.vals))
	v.vals = append(v.vals, s)
	return v.ids[s]
}

func stringArray(vals []string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

func primArray[T integer](typ arrow.DataType, s []T) arrow.Array {
	return array.MakeFromData(array.NewData(typ, len(s), []*memory.Buffer{nil, memory.NewBufferBytes(asBytes(s))}, nil, 0, 0))
}

func textArray(idx []int32, dict arrow.Array) arrow.Array {
	ind := primArray(arrow.PrimitiveTypes.Int32, idx)
	defer ind.Release()
	return array.NewDictionaryArray(textType, ind, dict)
}

// listCol is a nullable list<uint64> column.
type listCol struct {
	offs  []int32
	valid []byte // bit i set: row i is not null
	nulls int
	vals  []uint64
}

func (l *listCol) add(row int, vals []uint64, null bool) {
	if row>>3 >= len(l.valid) {
		l.valid = append(l.valid, 0)
	}
	if null {
		l.nulls++
	} else {
		bitutil.SetBit(l.valid, row)
		l.vals = append(l.vals, vals...)
	}
	l.offs = append(l.offs, int32(len(l.vals)))
}

func (l *listCol) reset() {
	l.offs, l.valid, l.nulls, l.vals = append(l.offs[:0], 0), l.valid[:0], 0, l.vals[:0]
}

func (l *listCol) array(typ arrow.DataType, n int) arrow.Array {
	child := array.NewData(arrow.PrimitiveTypes.Uint64, len(l.vals),
		[]*memory.Buffer{nil, memory.NewBufferBytes(asBytes(l.vals))}, nil, 0, 0)
	defer child.Release()
	return array.MakeFromData(array.NewData(typ, n,
		[]*memory.Buffer{memory.NewBufferBytes(l.valid), memory.NewBufferBytes(asBytes(l.offs))},
		[]arrow.ArrayData{child}, l.nulls, 0))
}

// writeBatch hands one batch of columns, in schema order, to the Parquet writer.
func writeBatch(fw *pqarrow.FileWriter, schema *arrow.Schema, n int, cols []arrow.Array) error {
	rec := array.NewRecord(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	// WriteBuffered, not Write: Write makes each batch a row group of its own, while
	// this fills row groups of MaxRowGroupLength rows from successive batches.
	if err := fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("gtrace/format/export: %w", err)
	}
	return nil
}

// instBatch holds rows of the per-instruction export.
type instBatch struct {
	kernel, opcode, class, space, memop, file  []int32 // dictionary indices
	cta, ctaX, ctaY, ctaZ, seq, pc, mask, line []uint32
	warp, path                                 []uint16
	width, active, flags                       []uint8
	addrs                                      listCol
}

func (b *instBatch) reset() {
	for _, s := range []*[]int32{&b.kernel, &b.opcode, &b.class, &b.space, &b.memop, &b.file} {
		*s = (*s)[:0]
	}
	for _, s := range []*[]uint32{&b.cta, &b.ctaX, &b.ctaY, &b.ctaZ, &b.seq, &b.pc, &b.mask, &b.line} {
		*s = (*s)[:0]
	}
	b.warp, b.path = b.warp[:0], b.path[:0]
	b.width, b.active, b.flags = b.width[:0], b.active[:0], b.flags[:0]
	b.addrs.reset()
}

func (b *instBatch) write(fw *pqarrow.FileWriter, d *textDicts) error {
	n := len(b.cta)
	if n == 0 {
		return nil
	}
	u8, u16, u32 := arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32
	err := writeBatch(fw, instSchema, n, []arrow.Array{
		textArray(b.kernel, d.kernel), primArray(u32, b.cta), primArray(u32, b.ctaX), primArray(u32, b.ctaY),
		primArray(u32, b.ctaZ), primArray(u16, b.warp), primArray(u32, b.seq), primArray(u32, b.pc),
		textArray(b.opcode, d.opcode), textArray(b.class, d.class), textArray(b.space, d.space),
		textArray(b.memop, d.memop), primArray(u8, b.width), primArray(u32, b.mask), primArray(u8, b.active),
		primArray(u16, b.path), primArray(u8, b.flags), b.addrs.array(instSchema.Field(17).Type, n),
		textArray(b.file, d.file), primArray(u32, b.line),
	})
	b.reset()
	return err
}

func exportInsts(r *format.Reader, fw *pqarrow.FileWriter) error {
	meta := r.Meta()
	d := newTextDicts(meta)
	defer d.release()
	var b instBatch
	b.reset()
	scratch := make([]uint64, 0, 32)
	for wp, err := range r.All() {
		if err != nil {
			return err
		}
		l := &meta.Launches[wp.Kernel]
		kernel, opcodes, files := d.kernelOf[wp.Kernel], d.opcodeOf[wp.Kernel], d.fileOf[wp.Kernel]
		c := uint32(wp.CTA)
		gx, gy := max(l.Grid.X, 1), max(l.Grid.Y, 1)
		for i := 0; i < wp.Len(); i++ {
			pc := wp.PC[i]
			in := &l.Program.Insts[pc] // the reader checked pc against the table
			row := len(b.cta)
			b.kernel = append(b.kernel, kernel)
			b.cta = append(b.cta, c)
			b.ctaX = append(b.ctaX, c%gx)
			b.ctaY = append(b.ctaY, c/gx%gy)
			b.ctaZ = append(b.ctaZ, c/gx/gy)
			b.warp = append(b.warp, uint16(wp.Warp))
			b.seq = append(b.seq, uint32(i))
			b.pc = append(b.pc, pc)
			b.opcode = append(b.opcode, opcodes[pc])
			b.class = append(b.class, int32(in.Class))
			b.space = append(b.space, int32(in.Space))
			b.memop = append(b.memop, int32(in.MemOp))
			b.width = append(b.width, in.Width)
			b.mask = append(b.mask, wp.Mask[i])
			b.active = append(b.active, uint8(bits.OnesCount32(wp.Mask[i])))
			b.path = append(b.path, wp.Path[i])
			b.flags = append(b.flags, uint8(wp.Flags[i]))
			if wp.Mode[i] == format.AddrNone {
				b.addrs.add(row, nil, true)
			} else {
				// A memory record with no active lane is an empty list, not null.
				scratch = wp.Addrs(i, scratch[:0])
				b.addrs.add(row, scratch, false)
			}
			b.file = append(b.file, files[pc])
			b.line = append(b.line, in.Line)
			if row+1 == exportBatchRows {
				if err := b.write(fw, d); err != nil {
					return err
				}
			}
		}
	}
	return b.write(fw, d)
}

// laneBatch holds rows of the per-lane export.
type laneBatch struct {
	kernel, space []int32 // dictionary indices
	cta, seq, pc  []uint32
	warp          []uint16
	lane          []uint8
	addr          []uint64
}

func (b *laneBatch) reset() {
	b.kernel, b.space = b.kernel[:0], b.space[:0]
	b.cta, b.seq, b.pc, b.warp, b.lane, b.addr = b.cta[:0], b.seq[:0], b.pc[:0], b.warp[:0], b.lane[:0], b.addr[:0]
}

func (b *laneBatch) write(fw *pqarrow.FileWriter, d *textDicts) error {
	n := len(b.cta)
	if n == 0 {
		return nil
	}
	u32 := arrow.PrimitiveTypes.Uint32
	err := writeBatch(fw, laneSchema, n, []arrow.Array{
		textArray(b.kernel, d.kernel), primArray(u32, b.cta), primArray(arrow.PrimitiveTypes.Uint16, b.warp),
		primArray(u32, b.seq), primArray(u32, b.pc), textArray(b.space, d.space),
		primArray(arrow.PrimitiveTypes.Uint8, b.lane), primArray(arrow.PrimitiveTypes.Uint64, b.addr),
	})
	b.reset()
	return err
}

func exportLanes(r *format.Reader, fw *pqarrow.FileWriter) error {
	meta := r.Meta()
	d := newTextDicts(meta)
	defer d.release()
	var b laneBatch
	var lanes [32]uint64
	for wp, err := range r.All() {
		if err != nil {
			return err
		}
		l := &meta.Launches[wp.Kernel]
		kernel := d.kernelOf[wp.Kernel]
		for i := 0; i < wp.Len(); i++ {
			space := int32(l.Program.Insts[wp.PC[i]].Space)
			for m := wp.LaneAddrs(i, &lanes); m != 0; m &= m - 1 {
				ln := bits.TrailingZeros32(m)
				b.kernel = append(b.kernel, kernel)
				b.cta = append(b.cta, uint32(wp.CTA))
				b.warp = append(b.warp, uint16(wp.Warp))
				b.seq = append(b.seq, uint32(i))
				b.pc = append(b.pc, wp.PC[i])
				b.space = append(b.space, space)
				b.lane = append(b.lane, uint8(ln))
				b.addr = append(b.addr, lanes[ln])
				if len(b.cta) == exportBatchRows {
					if err := b.write(fw, d); err != nil {
						return err
					}
				}
			}
		}
	}
	return b.write(fw, d)
}

// enumNames lists an enum's names from value 0 up to the first value without one (whose
// String falls back to "kind(N)"), so the dictionary index of a value is the value.
func enumNames(v func(int) fmt.Stringer) []string {
	var names []string
	for i := 0; i < 256; i++ {
		n := v(i).String()
		if strings.HasSuffix(n, ")") {
			break
		}
		names = append(names, n)
	}
	return names
}

type integer interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int32 | ~int64
}

// asBytes views s's memory as bytes (Arrow buffers are little-endian, as is every host
// format supports).
func asBytes[T integer](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}
