package format

import (
	"encoding/binary"
	"fmt"
)

// This file reads the parts of the Arrow IPC file format that a v1 trace uses: the
// footer, the schema, and record batch messages. The trace is written by arrow's own
// ipc.FileWriter; it is read here rather than with ipc.FileReader because that reader
// trusts the lengths in the file (it allocates whatever a buffer header claims and
// panics on bad offsets), builds a new zstd decoder per batch, and materialises Arrow
// arrays that would then be copied again into Warps. Reading the flatbuffers directly
// lets every offset be checked and every buffer be decompressed straight into reused
// typed slices.
//
// Flatbuffer field numbers below are those of Arrow's format/File.fbs, Schema.fbs and
// Message.fbs.

// fbFault is raised (panicked) by the flatbuffer accessors on an out-of-range offset and
// recovered by the caller, which turns it into a CorruptError with a file position.
type fbFault struct{ reason string }

func fbFail(format string, args ...any) { panic(fbFault{fmt.Sprintf(format, args...)}) }

type fbBuf []byte

func (b fbBuf) check(off, n int) {
	if off < 0 || n < 0 || off > len(b)-n {
		fbFail("flatbuffer offset %d+%d outside %d bytes", off, n, len(b))
	}
}

func (b fbBuf) u8(off int) uint8   { b.check(off, 1); return b[off] }
func (b fbBuf) u16(off int) uint16 { b.check(off, 2); return binary.LittleEndian.Uint16(b[off:]) }
func (b fbBuf) u32(off int) uint32 { b.check(off, 4); return binary.LittleEndian.Uint32(b[off:]) }
func (b fbBuf) u64(off int) uint64 { b.check(off, 8); return binary.LittleEndian.Uint64(b[off:]) }

// fbTable is a flatbuffer table: its bytes and the position of its start.
type fbTable struct {
	b   fbBuf
	pos int
}

func fbRoot(b []byte) fbTable { return fbTable{b, int(fbBuf(b).u32(0))} }

// field returns the absolute position of field i, or 0 when the field is absent.
func (t fbTable) field(i int) int {
	vt := t.pos - int(int32(t.b.u32(t.pos)))
	vtLen := int(t.b.u16(vt))
	slot := 4 + 2*i
	if slot+2 > vtLen {
		return 0
	}
	o := int(t.b.u16(vt + slot))
	if o == 0 {
		return 0
	}
	return t.pos + o
}

func (t fbTable) i64(i int, def int64) int64 {
	if p := t.field(i); p != 0 {
		return int64(t.b.u64(p))
	}
	return def
}

func (t fbTable) i32(i int, def int32) int32 {
	if p := t.field(i); p != 0 {
		return int32(t.b.u32(p))
	}
	return def
}

func (t fbTable) i16(i int, def int16) int16 {
	if p := t.field(i); p != 0 {
		return int16(t.b.u16(p))
	}
	return def
}

func (t fbTable) u8(i int, def uint8) uint8 {
	if p := t.field(i); p != 0 {
		return t.b.u8(p)
	}
	return def
}

func (t fbTable) table(i int) (fbTable, bool) {
	p := t.field(i)
	if p == 0 {
		return fbTable{}, false
	}
	return fbTable{t.b, p + int(t.b.u32(p))}, true
}

// vector returns the position of the first element of vector field i and its length,
// having checked that n elements of elemSize bytes fit.
func (t fbTable) vector(i, elemSize int) (start, n int) {
	p := t.field(i)
	if p == 0 {
		return 0, 0
	}
	v := p + int(t.b.u32(p))
	n = int(t.b.u32(v))
	start = v + 4
	if n > len(t.b)/elemSize {
		fbFail("vector of %d elements outside %d bytes", n, len(t.b))
	}
	t.b.check(start, n*elemSize)
	return start, n
}

// tableAt is element j of a vector of tables starting at start.
func (t fbTable) tableAt(start, j int) fbTable {
	p := start + 4*j
	return fbTable{t.b, p + int(t.b.u32(p))}
}

func (t fbTable) str(i int) string {
	start, n := t.vector(i, 1)
	return string(t.b[start : start+n])
}

// fileBlock is a footer entry: where a message starts, the length of its metadata
// (continuation marker, length prefix and padding included), and the length of its body.
type fileBlock struct {
	offset  int64
	metaLen int64
	bodyLen int64
}

// Footer (File.fbs): version 0, schema 1, dictionaries 2, recordBatches 3.
// Block struct: offset int64, metaDataLength int32, (pad), bodyLength int64: 24 bytes.
func parseFooter(b []byte) (schema fbTable, blocks []fileBlock, ndicts int) {
	root := fbRoot(b)
	schema, ok := root.table(1)
	if !ok {
		fbFail("footer has no schema")
	}
	_, ndicts = root.vector(2, 24)
	start, n := root.vector(3, 24)
	blocks = make([]fileBlock, n)
	for j := range blocks {
		p := start + 24*j
		blocks[j] = fileBlock{
			offset:  int64(root.b.u64(p)),
			metaLen: int64(int32(root.b.u32(p + 8))),
			bodyLen: int64(root.b.u64(p + 16)),
		}
	}
	return schema, blocks, ndicts
}

// schemaMetadata returns the custom metadata of a Schema table (field 2: [KeyValue]).
func schemaMetadata(s fbTable) map[string]string {
	start, n := s.vector(2, 4)
	md := make(map[string]string, n)
	for j := 0; j < n; j++ {
		kv := s.tableAt(start, j)
		md[kv.str(0)] = kv.str(1)
	}
	return md
}

// Arrow Type union tags (Schema.fbs).
const (
	fbTypeInt  = 2
	fbTypeList = 12
)

// describeField renders a Field table's type the way colSpec.typeName does, so a
// mismatch can be reported as want/got. Field: name 0, nullable 1, type_type 2, type 3,
// dictionary 4, children 5.
func describeField(f fbTable, depth int) string {
	if _, dict := f.table(4); dict {
		return "dictionary"
	}
	tt := f.u8(2, 0)
	switch tt {
	case fbTypeInt:
		typ, ok := f.table(3)
		if !ok {
			return "int(?)"
		}
		s := fmt.Sprintf("int%d", typ.i32(0, 0))
		if typ.u8(1, 0) == 0 {
			s = "u" + s
		}
		return s
	case fbTypeList:
		start, n := f.vector(5, 4)
		if n != 1 || depth > 0 {
			return "list(?)"
		}
		return "list<" + describeField(f.tableAt(start, 0), depth+1) + ">"
	}
	return fmt.Sprintf("arrow type %d", tt)
}

// checkSchema compares a Schema table with the v1 columns.
func checkSchema(s fbTable, v Version) error {
	if e := s.i16(0, 0); e != 0 {
		return &SchemaError{Reason: "big-endian buffers"}
	}
	start, n := s.vector(1, 4)
	if want := v.columns(); n != want {
		return &SchemaError{Reason: fmt.Sprintf("%d columns, v%d has %d", n, v, want)}
	}
	for i, c := range colSpecs[:n] {
		f := s.tableAt(start, i)
		name, want, got := f.str(0), c.typeName(), describeField(f, 0)
		if name != c.name {
			return &SchemaError{Field: c.name, Want: "column " + c.name, Got: "column " + name}
		}
		if got != want {
			return &SchemaError{Field: c.name, Want: want, Got: got}
		}
	}
	return nil
}

// Message header tags and compression codecs (Message.fbs).
const (
	fbHeaderRecordBatch = 3
	fbCodecZstd         = 1
)

type fbNode struct{ length, nulls int64 }
type fbBuffer struct{ offset, length int64 }

type batchMeta struct {
	rows       int64
	nodes      []fbNode
	buffers    []fbBuffer
	compressed bool
}

// parseMessage reads a record batch message's metadata. meta is the block's metadata
// region: an optional 0xFFFFFFFF continuation marker, an int32 length, the flatbuffer.
// Message: version 0, header_type 1, header 2, bodyLength 3.
// RecordBatch: length 0, nodes 1, buffers 2, compression 3 (BodyCompression: codec 0).
func parseMessage(meta []byte, bm *batchMeta) {
	b := fbBuf(meta)
	p := 0
	if b.u32(0) == 0xFFFFFFFF {
		p = 4
	}
	n := int(int32(b.u32(p)))
	p += 4
	b.check(p, n)
	msg := fbRoot(meta[p : p+n])
	if ht := msg.u8(1, 0); ht != fbHeaderRecordBatch {
		fbFail("message type %d is not a record batch", ht)
	}
	rb, ok := msg.table(2)
	if !ok {
		fbFail("record batch message without header")
	}
	bm.rows = rb.i64(0, 0)
	start, nn := rb.vector(1, 16)
	bm.nodes = bm.nodes[:0]
	for j := 0; j < nn; j++ {
		q := start + 16*j
		bm.nodes = append(bm.nodes, fbNode{int64(rb.b.u64(q)), int64(rb.b.u64(q + 8))})
	}
	start, nb := rb.vector(2, 16)
	bm.buffers = bm.buffers[:0]
	for j := 0; j < nb; j++ {
		q := start + 16*j
		bm.buffers = append(bm.buffers, fbBuffer{int64(rb.b.u64(q)), int64(rb.b.u64(q + 8))})
	}
	bm.compressed = false
	if c, ok := rb.table(3); ok {
		if codec := c.u8(0, 0); codec != fbCodecZstd {
			fbFail("compression codec %d; v1 uses zstd", codec)
		}
		bm.compressed = true
	}
}
