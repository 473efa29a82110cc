package export

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/gtrace/gtrace/format"
)

// Parquet page types (parquet.thrift, PageType) and the PageHeader fields checkPages reads.
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3

	fieldType         = 1 // PageHeader.type
	fieldUncompressed = 2 // PageHeader.uncompressed_page_size
	fieldCompressed   = 3 // PageHeader.compressed_page_size
	fieldDataHeader   = 5 // PageHeader.data_page_header, whose field 1 is num_values
	fieldDataHeaderV2 = 8 // PageHeader.data_page_header_v2, whose field 1 is num_values
)

// checkPages walks the page headers of every column chunk of row group g before arrow's
// reader sees them. arrow v17's page reader can loop forever on a damaged chunk: it
// skips a page of a type it does not know by its header alone, and once past the
// chunk's end its buffered reader's Peek hands back stale bytes (with no error after
// the first EOF), which it parses as headers again while the chunk still owes values.
// So every page here is of a type gtrace writes (data, dictionary or data v2), lies
// inside its chunk, and cannot claim to decode to more than zstd can give; the pages
// fill the chunk exactly; and the data pages' values add up to the chunk's count,
// which is the row group's (every metrics column is flat).
func checkPages(r io.ReaderAt, size int64, rg *metadata.RowGroupMetaData) error {
	for c := 0; c < rg.NumColumns(); c++ {
		col, err := rg.ColumnChunk(c)
		if err != nil {
			return fmt.Errorf("%w: column %d: %v", errMetricFile, c, err)
		}
		start := col.DataPageOffset()
		if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
			start = col.DictionaryPageOffset() // as arrow's RowGroupReader chooses it
		}
		n := col.TotalCompressedSize()
		if start < 0 || n <= 0 || start > size-n {
			return fmt.Errorf("%w: column %d's chunk {offset %d, length %d} outside the %d-byte file", errMetricFile, c, start, n, size)
		}
		if col.NumValues() != rg.NumRows() {
			return fmt.Errorf("%w: column %d holds %d values in a row group of %d rows", errMetricFile, c, col.NumValues(), rg.NumRows())
		}
		chunk := make([]byte, n)
		if _, err := r.ReadAt(chunk, start); err != nil {
			return fmt.Errorf("%w: column %d: %v", errMetricFile, c, err)
		}
		if err := checkChunk(chunk, col.NumValues()); err != nil {
			return fmt.Errorf("%w: column %d's chunk at byte %d: %v", errMetricFile, c, start, err)
		}
	}
	return nil
}

// checkChunk checks the pages of one column chunk, which must hold want values.
func checkChunk(chunk []byte, want int64) error {
	var values int64
	for at := 0; at < len(chunk); {
		h, hlen, err := readPageHeader(chunk[at:])
		if err != nil {
			return fmt.Errorf("page header at %d: %v", at, err)
		}
		body := at + hlen
		switch {
		case h.typ != pageData && h.typ != pageDictionary && h.typ != pageDataV2:
			return fmt.Errorf("page at %d is of type %d, not a data or dictionary page", at, h.typ)
		case h.compressed < 0 || int64(h.compressed) > int64(len(chunk)-body):
			return fmt.Errorf("page at %d claims %d bytes, the chunk has %d after its header", at, h.compressed, len(chunk)-body)
		case h.uncompressed < 0 || int64(h.uncompressed) > int64(h.compressed)*format.MaxZstdRatio:
			return fmt.Errorf("page at %d claims %d bytes decoded from %d", at, h.uncompressed, h.compressed)
		case h.typ != pageDictionary && h.values < 0:
			return fmt.Errorf("page at %d has no count of values", at)
		}
		if h.typ != pageDictionary {
			values += int64(h.values)
		}
		at = body + int(h.compressed)
	}
	if values != want {
		return fmt.Errorf("pages hold %d values, the chunk %d", values, want)
	}
	return nil
}

// pageHeader is what checkChunk needs of a Parquet PageHeader; values is -1 when the
// page's data header is missing.
type pageHeader struct {
	typ, uncompressed, compressed, values int32
}

// readPageHeader decodes the thrift compact PageHeader at the start of b, as arrow's
// reader does, and says how many bytes it took.
func readPageHeader(b []byte) (h pageHeader, n int, err error) {
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(b)}
	p := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	ctx := context.Background()
	h = pageHeader{typ: -1, uncompressed: -1, compressed: -1, values: -1}
	err = readStruct(ctx, p, func(id int16, t thrift.TType) (bool, error) {
		var err error
		switch {
		case t == thrift.I32 && id == fieldType:
			h.typ, err = p.ReadI32(ctx)
		case t == thrift.I32 && id == fieldUncompressed:
			h.uncompressed, err = p.ReadI32(ctx)
		case t == thrift.I32 && id == fieldCompressed:
			h.compressed, err = p.ReadI32(ctx)
		case t == thrift.STRUCT && (id == fieldDataHeader && h.typ == pageData || id == fieldDataHeaderV2 && h.typ == pageDataV2):
			err = readStruct(ctx, p, func(id int16, t thrift.TType) (bool, error) {
				if id != 1 || t != thrift.I32 {
					return false, nil
				}
				var err error
				h.values, err = p.ReadI32(ctx)
				return true, err
			})
		default:
			return false, nil
		}
		return true, err
	})
	return h, len(b) - int(buf.RemainingBytes()), err
}

// readStruct reads one thrift struct, calling field for each field; a field it does not
// read (false) is skipped.
func readStruct(ctx context.Context, p thrift.TProtocol, field func(id int16, t thrift.TType) (bool, error)) error {
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return err
	}
	for {
		_, t, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		read, err := field(id, t)
		if err == nil && !read {
			err = thrift.SkipDefaultDepth(ctx, p, t)
		}
		if err == nil {
			err = p.ReadFieldEnd(ctx)
		}
		if err != nil {
			return err
		}
	}
	return p.ReadStructEnd(ctx)
}
