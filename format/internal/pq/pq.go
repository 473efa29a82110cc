// Package pq writes flat Parquet files: required integer and string columns, and
// optional lists of unsigned 64-bit integers, PLAIN-encoded in zstd-compressed v1 data
// pages. It is the small subset gtrace's export needs.
//
// Why not arrow's pqarrow: it imports arrow/flight, and with it gRPC and protobuf, which
// would make every user of package format (the CLI, replay) link them; the format
// package is meant to depend on arrow and klauspost/compress only.
//
// The file layout follows the Parquet format specification (parquet-format's
// parquet.thrift, Encodings.md): "PAR1", row groups of column chunks of data pages,
// FileMetaData in the Thrift compact protocol, its length, "PAR1".
package pq

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Kind is a column's type.
type Kind int

const (
	Int32      Kind = iota // INT32 with an INTEGER(Bits, Signed) logical type, Bits 8, 16 or 32
	Int64                  // INT64 with an INTEGER(64, Signed) logical type
	String                 // BYTE_ARRAY, STRING logical type
	ListUint64             // optional LIST of required INT64 INTEGER(64, unsigned)
)

// Column describes one column.
type Column struct {
	Name   string
	Kind   Kind
	Bits   int // Int32 only: 8, 16 or 32
	Signed bool
}

// Parquet enum values (parquet.thrift).
const (
	typeInt32     = 1
	typeInt64     = 2
	typeByteArray = 6

	repRequired = 0
	repOptional = 1
	repRepeated = 2

	convUTF8   = 0
	convList   = 3
	convUint8  = 11
	convInt8   = 15
	codecZstd  = 6
	encPlain   = 0
	encRLE     = 3
	pageData   = 0
	pageRows   = 16 << 10 // rows per data page
	maxListLen = 1 << 20
)

type column struct {
	Column
	i32  []int32
	i64  []int64
	str  []string
	lens []int32 // list length per row; -1 = null

	chunk     []byte // this row group's compressed pages, headers included
	values    int64  // level entries (or values) in chunk
	rawSize   int64  // chunk size had the pages not been compressed
	firstPage int64  // file offset of the chunk, set when the row group is written
}

type rowGroup struct {
	rows  int64
	cols  []chunkMeta
	bytes int64
}

type chunkMeta struct {
	offset, values, raw, size int64
}

// Writer writes one Parquet file. Set every column of a row, then call EndRow.
type Writer struct {
	w         io.Writer
	pos       int64
	cols      []*column
	enc       *zstd.Encoder
	groupRows int
	pageRows  int // rows in the current page
	rows      int // rows in the current row group
	groups    []rowGroup
	total     int64
	page      []byte
	err       error
}

// NewWriter starts a file with the given columns and row group size in rows.
func NewWriter(w io.Writer, cols []Column, rowGroupRows int) (*Writer, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	if rowGroupRows <= 0 {
		return nil, errors.New("pq: row group size must be positive")
	}
	pw := &Writer{w: w, enc: enc, groupRows: rowGroupRows}
	for _, c := range cols {
		if c.Kind == Int32 && c.Bits != 8 && c.Bits != 16 && c.Bits != 32 {
			return nil, errors.New("pq: Int32 column needs Bits 8, 16 or 32: " + c.Name)
		}
		pw.cols = append(pw.cols, &column{Column: c})
	}
	pw.write([]byte("PAR1"))
	return pw, pw.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.pos += int64(n)
	w.err = err
}

// Int32 sets an Int32 column of the current row.
func (w *Writer) Int32(col int, v int32) { c := w.cols[col]; c.i32 = append(c.i32, v) }

// Int64 sets an Int64 column of the current row.
func (w *Writer) Int64(col int, v int64) { c := w.cols[col]; c.i64 = append(c.i64, v) }

// String sets a String column of the current row.
func (w *Writer) String(col int, v string) { c := w.cols[col]; c.str = append(c.str, v) }

// List sets a ListUint64 column of the current row; nil is a null list.
func (w *Writer) List(col int, vals []uint64) {
	c := w.cols[col]
	if vals == nil {
		c.lens = append(c.lens, -1)
		return
	}
	c.lens = append(c.lens, int32(min(len(vals), maxListLen)))
	for _, v := range vals[:min(len(vals), maxListLen)] {
		c.i64 = append(c.i64, int64(v))
	}
}

// EndRow finishes a row; every column must have been set once.
func (w *Writer) EndRow() error {
	w.pageRows++
	if w.pageRows == pageRows {
		w.flushPages()
	}
	w.rows++
	if w.rows == w.groupRows {
		w.flushGroup()
	}
	return w.err
}

// flushPages turns each column's pending values into one compressed data page.
func (w *Writer) flushPages() {
	if w.pageRows == 0 || w.err != nil {
		return
	}
	for _, c := range w.cols {
		p := w.page[:0]
		nvals := w.pageRows
		switch c.Kind {
		case Int32:
			if len(c.i32) != w.pageRows {
				w.err = errors.New("pq: column " + c.Name + " not set once per row")
				return
			}
			for _, v := range c.i32 {
				p = binary.LittleEndian.AppendUint32(p, uint32(v))
			}
		case Int64:
			if len(c.i64) != w.pageRows {
				w.err = errors.New("pq: column " + c.Name + " not set once per row")
				return
			}
			for _, v := range c.i64 {
				p = binary.LittleEndian.AppendUint64(p, uint64(v))
			}
		case String:
			if len(c.str) != w.pageRows {
				w.err = errors.New("pq: column " + c.Name + " not set once per row")
				return
			}
			for _, s := range c.str {
				p = binary.LittleEndian.AppendUint32(p, uint32(len(s)))
				p = append(p, s...)
			}
		case ListUint64:
			if len(c.lens) != w.pageRows {
				w.err = errors.New("pq: column " + c.Name + " not set once per row")
				return
			}
			p, nvals = appendListLevels(p, c.lens)
			for _, v := range c.i64 {
				p = binary.LittleEndian.AppendUint64(p, uint64(v))
			}
		}
		w.page = p
		comp := w.enc.EncodeAll(p, nil)
		var h thrift
		h.i32(1, pageData)
		h.i32(2, int32(len(p)))
		h.i32(3, int32(len(comp)))
		h.beginStruct(5) // DataPageHeader
		h.i32(1, int32(nvals))
		h.i32(2, encPlain)
		h.i32(3, encRLE)
		h.i32(4, encRLE)
		h.endStruct()
		h.stop()
		c.chunk = append(append(c.chunk, h.b...), comp...)
		c.rawSize += int64(len(h.b) + len(p))
		c.values += int64(nvals)
		c.i32, c.i64, c.str, c.lens = c.i32[:0], c.i64[:0], c.str[:0], c.lens[:0]
	}
	w.pageRows = 0
}

// appendListLevels writes the repetition then the definition levels of a page of a
// 3-level list (optional group, repeated group, required element): a null list is
// (rep 0, def 0), an empty list (0, 1), elements (0, 2) then (1, 2). Levels are
// RLE/bit-packed hybrid runs, each with a 4-byte length prefix (Encodings.md).
func appendListLevels(p []byte, lens []int32) ([]byte, int) {
	entries := 0
	for _, n := range lens {
		entries += max(1, int(n))
	}
	var runs runWriter
	// Repetition levels, bit width 1.
	runs.b = p
	at := len(runs.b)
	runs.b = append(runs.b, 0, 0, 0, 0)
	for _, n := range lens {
		runs.add(0, 1)
		if n > 1 {
			runs.add(1, int(n)-1)
		}
	}
	runs.flush()
	binary.LittleEndian.PutUint32(runs.b[at:], uint32(len(runs.b)-at-4))
	// Definition levels, bit width 2.
	at = len(runs.b)
	runs.b = append(runs.b, 0, 0, 0, 0)
	for _, n := range lens {
		switch {
		case n < 0:
			runs.add(0, 1)
		case n == 0:
			runs.add(1, 1)
		default:
			runs.add(2, int(n))
		}
	}
	runs.flush()
	binary.LittleEndian.PutUint32(runs.b[at:], uint32(len(runs.b)-at-4))
	return runs.b, entries
}

// runWriter emits RLE runs: a ULEB128 header (count << 1) and the value in one byte
// (bit widths here are at most 2).
type runWriter struct {
	b     []byte
	value byte
	count int
}

func (r *runWriter) add(v byte, n int) {
	if r.count > 0 && v != r.value {
		r.flush()
	}
	r.value = v
	r.count += n
}

func (r *runWriter) flush() {
	if r.count == 0 {
		return
	}
	r.b = binary.AppendUvarint(r.b, uint64(r.count)<<1)
	r.b = append(r.b, r.value)
	r.count = 0
}

// flushGroup writes the current row group's column chunks.
func (w *Writer) flushGroup() {
	w.flushPages()
	if w.rows == 0 || w.err != nil {
		return
	}
	g := rowGroup{rows: int64(w.rows)}
	for _, c := range w.cols {
		cm := chunkMeta{offset: w.pos, values: c.values, raw: c.rawSize, size: int64(len(c.chunk))}
		w.write(c.chunk)
		g.cols = append(g.cols, cm)
		g.bytes += c.rawSize
		c.chunk, c.values, c.rawSize = c.chunk[:0], 0, 0
	}
	w.groups = append(w.groups, g)
	w.total += int64(w.rows)
	w.rows = 0
}

// Close writes the last row group and the footer. It does not close the underlying
// writer.
func (w *Writer) Close() error {
	w.flushGroup()
	if w.err != nil {
		return w.err
	}
	var t thrift
	t.i32(1, 1) // version
	// Schema: the root, then each column (a list column is three elements).
	nelem := 1
	for _, c := range w.cols {
		nelem++
		if c.Kind == ListUint64 {
			nelem += 2
		}
	}
	t.beginList(2, tStruct, nelem)
	t.beginElem()
	t.bin(4, "schema")
	t.i32(5, int32(len(w.cols)))
	t.endStruct()
	for _, c := range w.cols {
		t.beginElem()
		switch c.Kind {
		case Int32:
			t.i32(1, typeInt32)
			t.i32(3, repRequired)
			t.bin(4, c.Name)
			t.intLogical(c.Bits, c.Signed)
		case Int64:
			t.i32(1, typeInt64)
			t.i32(3, repRequired)
			t.bin(4, c.Name)
			t.intLogical(64, c.Signed)
		case String:
			t.i32(1, typeByteArray)
			t.i32(3, repRequired)
			t.bin(4, c.Name)
			t.i32(6, convUTF8)
			t.beginStruct(10)
			t.beginStruct(1) // STRING
			t.endStruct()
			t.endStruct()
		case ListUint64:
			t.i32(3, repOptional)
			t.bin(4, c.Name)
			t.i32(5, 1)
			t.i32(6, convList)
			t.beginStruct(10)
			t.beginStruct(3) // LIST
			t.endStruct()
			t.endStruct()
			t.endStruct()
			t.beginElem()
			t.i32(3, repRepeated)
			t.bin(4, "list")
			t.i32(5, 1)
			t.endStruct()
			t.beginElem()
			t.i32(1, typeInt64)
			t.i32(3, repRequired)
			t.bin(4, "element")
			t.intLogical(64, false)
		}
		t.endStruct()
	}
	t.i64(3, w.total)
	t.beginList(4, tStruct, len(w.groups))
	for _, g := range w.groups {
		t.beginElem()
		t.beginList(1, tStruct, len(g.cols))
		for i, cm := range g.cols {
			c := w.cols[i]
			t.beginElem()
			t.i64(2, cm.offset)
			t.beginStruct(3) // ColumnMetaData
			switch c.Kind {
			case Int32:
				t.i32(1, typeInt32)
			case String:
				t.i32(1, typeByteArray)
			default:
				t.i32(1, typeInt64)
			}
			t.beginList(2, tI32, 2)
			t.listI32(encPlain)
			t.listI32(encRLE)
			path := []string{c.Name}
			if c.Kind == ListUint64 {
				path = append(path, "list", "element")
			}
			t.beginList(3, tBinary, len(path))
			for _, s := range path {
				t.listBin(s)
			}
			t.i32(4, codecZstd)
			t.i64(5, cm.values)
			t.i64(6, cm.raw)
			t.i64(7, cm.size)
			t.i64(9, cm.offset)
			t.endStruct()
			t.endStruct()
		}
		t.i64(2, g.bytes)
		t.i64(3, g.rows)
		t.endStruct()
	}
	t.bin(6, "gtrace")
	t.stop()
	w.write(t.b)
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:], uint32(len(t.b)))
	copy(tail[4:], "PAR1")
	w.write(tail[:])
	w.enc.Close()
	return w.err
}

// intLogical sets converted_type and the INTEGER logical type of a schema element.
func (t *thrift) intLogical(bits int, signed bool) {
	if bits == 8 || bits == 16 || bits == 32 || bits == 64 {
		base := convUint8
		if signed {
			base = convInt8
		}
		lg := map[int]int{8: 0, 16: 1, 32: 2, 64: 3}[bits]
		t.i32(6, int32(base+lg))
	}
	t.beginStruct(10)
	t.beginStruct(10) // INTEGER
	t.i8(1, int8(bits))
	t.boolean(2, signed)
	t.endStruct()
	t.endStruct()
}

// Thrift compact protocol types.
const (
	tTrue   = 1
	tFalse  = 2
	tI8     = 3
	tI32    = 5
	tI64    = 6
	tBinary = 8
	tList   = 9
	tStruct = 12
)

// thrift encodes a struct in the Thrift compact protocol.
type thrift struct {
	b     []byte
	last  int16
	stack []int16
}

func (t *thrift) field(id int16, typ byte) {
	if d := id - t.last; d > 0 && d <= 15 {
		t.b = append(t.b, byte(d)<<4|typ)
	} else {
		t.b = append(t.b, typ)
		t.b = binary.AppendVarint(t.b, int64(id))
	}
	t.last = id
}

func (t *thrift) i8(id int16, v int8) { t.field(id, tI8); t.b = append(t.b, byte(v)) }
func (t *thrift) i32(id int16, v int32) {
	t.field(id, tI32)
	t.b = binary.AppendVarint(t.b, int64(v))
}
func (t *thrift) i64(id int16, v int64) { t.field(id, tI64); t.b = binary.AppendVarint(t.b, v) }
func (t *thrift) bin(id int16, s string) {
	t.field(id, tBinary)
	t.b = binary.AppendUvarint(t.b, uint64(len(s)))
	t.b = append(t.b, s...)
}
func (t *thrift) boolean(id int16, v bool) {
	if v {
		t.field(id, tTrue)
	} else {
		t.field(id, tFalse)
	}
}
func (t *thrift) beginStruct(id int16) {
	t.field(id, tStruct)
	t.beginElem()
}

// beginElem starts a struct that is a list element (no field header).
func (t *thrift) beginElem() {
	t.stack = append(t.stack, t.last)
	t.last = 0
}

func (t *thrift) endStruct() {
	t.b = append(t.b, 0)
	t.last = t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
}

func (t *thrift) stop() { t.b = append(t.b, 0) }

func (t *thrift) beginList(id int16, elem byte, n int) {
	t.field(id, tList)
	if n < 15 {
		t.b = append(t.b, byte(n)<<4|elem)
	} else {
		t.b = append(t.b, 0xF0|elem)
		t.b = binary.AppendUvarint(t.b, uint64(n))
	}
}

func (t *thrift) listI32(v int32) { t.b = binary.AppendVarint(t.b, int64(v)) }
func (t *thrift) listBin(s string) {
	t.b = binary.AppendUvarint(t.b, uint64(len(s)))
	t.b = append(t.b, s...)
}
