package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/bits"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

var arrowMagic = []byte("ARROW1")

// IsTraceFile says whether the file at path starts as a trace does (the Arrow file
// format's magic): what tells a trace from another file a command accepts in its place.
func IsTraceFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(arrowMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, arrowMagic)
}

// maxBatchBytes bounds the decoded size of one record batch, so that a corrupt file
// cannot make the reader allocate whatever a length field claims. 4 GiB is about 100 M
// warp-instructions in one batch. Tests lower it to keep fuzzing within memory.
var maxBatchBytes int64 = 4 << 30

// Reader reads a trace. It is safe for concurrent use by several goroutines: the only
// state it changes after opening is pools of decoders and scratch space, and a cache of
// recently decoded batches.
type Reader struct {
	r      io.ReaderAt
	size   int64
	closer io.Closer

	meta   *Meta
	blocks []fileBlock
	// A launch's CTAs come in groups of group[k]; group i of the file (over all
	// launches) is batches groups[i] .. groups[i+1]-1, its row windows (one batch before
	// V3). first[k] is the index in groups of kernel k's first group; groups ends with
	// len(blocks).
	first  []int
	group  []int
	groups []int
	pool   sync.Pool // *decoder
	spool  sync.Pool // *scratch
	cache  batchCache
	// prefetched is 1 + the batch the last Prefetch asked for.
	prefetched atomic.Int64
}

// Open opens a trace file. Close it when done.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.closer = f
	return r, nil
}

// NewReader reads a trace of size bytes from r. r must allow concurrent ReadAt calls (an
// *os.File and a *bytes.Reader do) for the Reader to be used concurrently.
func NewReader(r io.ReaderAt, size int64) (rd *Reader, err error) {
	defer guard(&err, -1, -1)
	if !littleEndian {
		return nil, errBigEndian
	}
	rd = &Reader{r: r, size: size}
	if err := rd.open(); err != nil {
		return nil, err
	}
	return rd, nil
}

func (rd *Reader) open() error {
	// File layout: "ARROW1" pad(2) | messages | footer | int32 footer length | "ARROW1".
	head := make([]byte, min(rd.size, 8))
	if _, err := rd.r.ReadAt(head, 0); err != nil && err != io.EOF {
		return err
	}
	if !bytes.HasPrefix(arrowMagic, head[:min(len(head), 6)]) {
		return corrupt(ErrNotArrow, 0, -1, "file starts with %q", head)
	}
	const tail = 10
	if rd.size < 8+tail {
		return corrupt(ErrTruncated, rd.size, -1, "%d bytes", rd.size)
	}
	trailer := make([]byte, tail)
	if _, err := rd.r.ReadAt(trailer, rd.size-tail); err != nil {
		return err
	}
	if !bytes.Equal(trailer[4:], arrowMagic) {
		return corrupt(ErrTruncated, rd.size, -1, "no Arrow footer at the end (interrupted write?)")
	}
	flen := int64(int32(binary.LittleEndian.Uint32(trailer)))
	footerAt := rd.size - tail - flen
	if flen <= 0 || footerAt < 8 {
		return corrupt(ErrCorrupt, rd.size-tail, -1, "footer length %d", flen)
	}
	footer := make([]byte, flen)
	if _, err := rd.r.ReadAt(footer, footerAt); err != nil {
		return err
	}

	var (
		schema fbTable
		ndicts int
		md     map[string]string
		serr   error
	)
	if err := catchFB(footerAt, -1, func() {
		schema, rd.blocks, ndicts = parseFooter(footer)
		md = schemaMetadata(schema)
	}); err != nil {
		return err
	}
	// The version decides what the rest means, so it is checked before the columns.
	version, err := parseVersion(md[KeyVersion])
	if err != nil {
		return err
	}
	if err := catchFB(footerAt, -1, func() { serr = checkSchema(schema, version) }); err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	if ndicts != 0 {
		return &SchemaError{Reason: fmt.Sprintf("%d dictionary batches; v1 has none", ndicts)}
	}
	// The checksum first: a flipped bit anywhere in the metadata is reported as such,
	// not as whatever name or number it happened to change.
	if version.Checked() {
		if got, want := md[KeyMetaCRC], metaCRC([]byte(md[KeyMeta])); got != want {
			return corrupt(ErrChecksum, footerAt, -1, "schema metadata %s is %q, the metadata's CRC-32C is %q", KeyMetaCRC, got, want)
		}
	}
	meta, group, err := decodeMeta([]byte(md[KeyMeta]), version)
	if me := (*MetaError)(nil); errors.As(err, &me) {
		return err
	}
	if err != nil {
		return corrupt(ErrCorrupt, footerAt, -1, "schema metadata %s: %v", KeyMeta, err)
	}
	rd.meta, rd.group = meta, group

	for i, b := range rd.blocks {
		if b.offset < 8 || b.metaLen < 8 || b.bodyLen < 0 || b.offset > footerAt-b.metaLen-b.bodyLen {
			return corrupt(ErrCorrupt, footerAt, i, "footer block {offset %d, meta %d, body %d} outside the file", b.offset, b.metaLen, b.bodyLen)
		}
	}
	// A launch of N CTAs has ceil(N/group[k]) groups, each at least one batch.
	rd.first = make([]int, len(meta.Launches)+1)
	total := uint64(0)
	for k := range meta.Launches {
		rd.first[k] = int(total)
		ctas := meta.Launches[k].Grid.Count()
		total += (ctas + uint64(group[k]) - 1) / uint64(group[k])
		if ctas > uint64(len(rd.blocks))*maxCTAsPerBatch || total > uint64(len(rd.blocks)) {
			total = max(total, uint64(len(rd.blocks))+1)
			break
		}
	}
	if total > uint64(len(rd.blocks)) || (version < V3 && total != uint64(len(rd.blocks))) {
		return corrupt(ErrCorrupt, footerAt, -1, "footer lists %d record batches, the launches need %d or more", len(rd.blocks), total)
	}
	rd.first[len(meta.Launches)] = int(total)
	if version < V3 {
		rd.groups = make([]int, total+1)
		for i := range rd.groups {
			rd.groups[i] = i
		}
		return nil
	}
	return rd.indexWindows(int(total))
}

// indexWindows finds the groups of a V3 file, ngroups of them: a group starts at each
// batch whose window column says 0, and its later batches say 1, 2, ... in order.
// Every value of every window column is read (and its zstd checksum checked), so the
// index cannot silently differ from the columns.
func (rd *Reader) indexWindows(ngroups int) (err error) {
	rd.groups = make([]int, 0, ngroups+1)
	sc := rd.scratch()
	defer rd.spool.Put(sc)
	last := uint32(0)
	for idx := range rd.blocks {
		j, err := rd.batchWindow(sc, idx)
		if err != nil {
			return err
		}
		switch {
		case j == 0 && len(rd.groups) == ngroups:
			return corrupt(ErrCorrupt, rd.blocks[idx].offset, idx, "a group past the launches' %d", ngroups)
		case j == 0:
			rd.groups = append(rd.groups, idx)
		case len(rd.groups) == 0 || j != last+1:
			return corrupt(ErrCorrupt, rd.blocks[idx].offset, idx, "window %d after window %d", j, last)
		}
		last = j
	}
	if len(rd.groups) != ngroups {
		return corrupt(ErrCorrupt, -1, -1, "%d record batches hold %d groups, the launches need %d", len(rd.blocks), len(rd.groups), ngroups)
	}
	rd.groups = append(rd.groups, len(rd.blocks))
	return nil
}

// batchWindow reads batch idx's header and window column, checks that every row has
// one window, and returns it (0 for a batch of no rows).
func (rd *Reader) batchWindow(sc *scratch, idx int) (j uint32, err error) {
	blk := rd.blocks[idx]
	defer guard(&err, blk.offset, idx)
	sc.raw = resize(sc.raw, int(blk.metaLen))
	if err := rd.readAt(sc.raw, blk.offset, idx); err != nil {
		return 0, err
	}
	if err := catchFB(blk.offset, idx, func() { parseMessage(sc.raw, &sc.bm) }); err != nil {
		return 0, err
	}
	if err := sc.checkLayout(blk.offset, idx, V3); err != nil {
		return 0, err
	}
	b := sc.bm.buffers[windowBuffer]
	if b.offset < 0 || b.length < 0 || b.offset > blk.bodyLen-b.length {
		return 0, corrupt(ErrCorrupt, blk.offset+blk.metaLen, idx, "buffer %d {offset %d, length %d} outside the %d-byte body", windowBuffer, b.offset, b.length, blk.bodyLen)
	}
	if sc.bm.rows < 0 || sc.bm.rows > maxBatchBytes/rowBytes {
		return 0, corrupt(ErrCorrupt, blk.offset, idx, "batch claims %d rows", sc.bm.rows)
	}
	n := int(sc.bm.rows)
	if n == 0 {
		return 0, nil
	}
	// The buffer alone, placed where checkBuffer and readBuffer look for it.
	at := blk.offset + blk.metaLen + b.offset
	body := resize(sc.body, int(b.length))
	sc.body = body
	if err := rd.readAt(body, at, idx); err != nil {
		return 0, err
	}
	sc.bm.buffers[windowBuffer].offset = 0
	if err := sc.checkBuffer(body, at, idx, windowBuffer, 4*n); err != nil {
		return 0, err
	}
	col := resizeSlack(&sc.window, n)
	if err := sc.readBuffer(body, at, idx, windowBuffer, col); err != nil {
		return 0, err
	}
	w := sc.window[:n]
	for r, v := range w {
		if v != w[0] {
			return 0, corrupt(ErrCorrupt, at, idx, "row %d: window %d in a batch of window %d", r, v, w[0])
		}
	}
	return w[0], nil
}

// readAt fills p from the file at off, a part of batch idx.
func (rd *Reader) readAt(p []byte, off int64, idx int) error {
	if n, err := rd.r.ReadAt(p, off); n < len(p) {
		if err == nil || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return corrupt(ErrTruncated, off+int64(n), idx, "record batch ends past the end of the file")
		}
		return fmt.Errorf("gtrace/format: reading batch %d: %w", idx, err)
	}
	return nil
}

// parseVersion reads the KeyVersion value: a version this package reads, or a
// *VersionError.
func parseVersion(s string) (Version, error) {
	for v := V1; v <= CurrentVersion; v++ {
		if s == strconv.Itoa(int(v)) {
			return v, nil
		}
	}
	return VersionUnknown, &VersionError{Got: s}
}

// Close closes the file opened by Open. It does nothing for a Reader from NewReader.
func (rd *Reader) Close() error {
	if rd.closer != nil {
		return rd.closer.Close()
	}
	return nil
}

// Meta is the trace's self-description. The caller must not modify it.
func (rd *Reader) Meta() *Meta { return rd.meta }

// Size is the size of the trace in bytes.
func (rd *Reader) Size() int64 { return rd.size }

// NumCTAs is the number of CTAs of kernel (a launch index), 0 if there is no such launch.
func (rd *Reader) NumCTAs(kernel int) int {
	if kernel < 0 || kernel >= len(rd.meta.Launches) {
		return 0
	}
	return rd.meta.Launches[kernel].NumCTAs()
}

// ReadCTA returns the warps of one CTA, warps[i] being warp i; a warp that executed
// nothing is empty. The warps are the caller's. They share backing arrays, each slice
// capped at its own end, so appending to one warp never changes another.
//
// It decodes the CTA's batch, or finds it among the last few decoded: reading the CTAs
// of a batch one after another, from one goroutine or several, decodes it once. A CTA
// whose rows span several windows (Windows) is joined from them.
func (rd *Reader) ReadCTA(kernel, cta int) ([]*Warp, error) {
	gi, err := rd.groupIndex(kernel, cta)
	if err != nil {
		return nil, err
	}
	if n := rd.groups[gi+1] - rd.groups[gi]; n > 1 {
		return rd.joinCTA(kernel, cta, n, -1)
	}
	e, err := rd.cache.acquire(rd, kernel, rd.groups[gi])
	if err != nil {
		return nil, err
	}
	defer rd.cache.release(rd, e)
	d := e.d
	return d.cloneCTA(cta - d.cta0), nil
}

// ViewCTA returns the warps of one CTA as ReadCTA does, without copying them: they are
// views into the decoded batch, which stays decoded (and counts against no cache bound)
// until release is called. The caller must not modify them or use them after release;
// release must be called exactly once. An engine that keeps a CTA only while it is
// resident saves ReadCTA's copy of every column. A CTA whose rows span several windows
// is joined into copies, as ReadCTA does; ViewWindow views one window at a time.
func (rd *Reader) ViewCTA(kernel, cta int) (ws []*Warp, release func(), err error) {
	gi, err := rd.groupIndex(kernel, cta)
	if err != nil {
		return nil, nil, err
	}
	if n := rd.groups[gi+1] - rd.groups[gi]; n > 1 {
		ws, err := rd.joinCTA(kernel, cta, n, -1)
		return ws, func() {}, err
	}
	return rd.viewBatch(kernel, cta, rd.groups[gi])
}

// Windows is how many row windows kernel's CTA cta is stored in: 1 unless its batch's
// warps were long enough for the writer to split them (see Windows in doc.go); 0 for
// a CTA the trace does not have.
func (rd *Reader) Windows(kernel, cta int) int {
	gi, err := rd.groupIndex(kernel, cta)
	if err != nil {
		return 0
	}
	return rd.groups[gi+1] - rd.groups[gi]
}

// ViewWindow is ViewCTA for row window j of the CTA (0 <= j < Windows): warp i's rows
// there come after its rows in the windows before j, and a warp with none is empty. A
// warp with rows in window j+1 has a full window j; one without has ended. Release the
// window when done with it; windows are held and released independently.
func (rd *Reader) ViewWindow(kernel, cta, j int) (ws []*Warp, release func(), err error) {
	gi, err := rd.groupIndex(kernel, cta)
	if err != nil {
		return nil, nil, err
	}
	if n := rd.groups[gi+1] - rd.groups[gi]; j < 0 || j >= n {
		return nil, nil, fmt.Errorf("gtrace/format: kernel %d cta %d has no window %d (%d windows)", kernel, cta, j, n)
	}
	return rd.viewBatch(kernel, cta, rd.groups[gi]+j)
}

// viewBatch views kernel's CTA cta in batch idx.
func (rd *Reader) viewBatch(kernel, cta, idx int) (ws []*Warp, release func(), err error) {
	e, err := rd.cache.acquire(rd, kernel, idx)
	if err != nil {
		return nil, nil, err
	}
	d := e.d
	o := cta - d.cta0
	views := make([]Warp, d.wpc)
	ws = make([]*Warp, d.wpc)
	for w := range views {
		d.view(&views[w], o*d.wpc+w)
		ws[w] = &views[w]
	}
	return ws, func() { rd.cache.release(rd, e) }, nil
}

// joinCTA copies the warps of kernel's CTA cta out of its n windows, each warp into
// storage of its exact size, its deltas in the narrowest width its windows hold them in;
// only >= 0 joins that warp alone (the others are left empty).
func (rd *Reader) joinCTA(kernel, cta, n, only int) (out []*Warp, err error) {
	wins := make([][]*Warp, 0, n)
	for j := range n {
		ws, release, err := rd.ViewWindow(kernel, cta, j)
		if err != nil {
			return nil, err
		}
		defer release()
		wins = append(wins, ws)
	}
	out = make([]*Warp, len(wins[0]))
	for w := range out {
		out[w] = &Warp{Kernel: kernel, CTA: cta, Warp: w}
		if only >= 0 && w != only {
			continue
		}
		rows, deltas, coords, width := 0, 0, 0, 2
		for _, ws := range wins {
			if v := ws[w]; v.Len() > 0 {
				rows += v.Len()
				deltas += int(v.DeltaOff[v.Len()] - v.DeltaOff[0])
				coords += int(v.CoordOff[v.Len()] - v.CoordOff[0])
				width = max(width, v.deltaWidth())
			}
		}
		out[w].reserve(rows, deltas, coords, width)
		for _, ws := range wins {
			out[w].appendRows(ws[w], width)
		}
	}
	return out, nil
}

// Held is how many ViewCTA views (and reads in progress) have not been released yet:
// 0 once an engine that uses ViewCTA has returned, whether it finished or stopped early.
func (rd *Reader) Held() int {
	c := &rd.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.live {
		n += e.refs
	}
	return n
}

// Prefetch starts decoding the batch holding kernel's CTA cta in the background, so that
// a later ReadCTA or ViewCTA of it finds it decoded: an engine that takes CTAs in order
// calls it with the next CTA it will take, and the decode runs on an idle core instead
// of stalling the goroutine that reaches the batch first. It returns at once. A batch
// the last Prefetch asked for is not asked for again, and one already decoded or being
// decoded is not decoded twice; errors are left for the read itself to report.
func (rd *Reader) Prefetch(kernel, cta int) {
	if kernel < 0 || kernel >= len(rd.meta.Launches) || cta < 0 || cta >= rd.NumCTAs(kernel) {
		return
	}
	idx := rd.groups[rd.first[kernel]+cta/rd.group[kernel]]
	if rd.prefetched.Swap(int64(idx)+1) == int64(idx)+1 {
		return
	}
	go func() {
		if e, err := rd.cache.acquire(rd, kernel, idx); err == nil {
			rd.cache.release(rd, e)
		}
	}()
}

// ReadWarp returns one warp of one CTA. Like ReadCTA it decodes the CTA's whole batch
// (columns are compressed per batch) unless it was decoded recently, and copies out only
// the warp.
func (rd *Reader) ReadWarp(kernel, cta, warp int) (*Warp, error) {
	if kernel >= 0 && kernel < len(rd.meta.Launches) {
		if wpc := rd.meta.Launches[kernel].WarpsPerCTA(); warp < 0 || warp >= wpc {
			return nil, fmt.Errorf("gtrace/format: kernel %d has no warp %d (%d per CTA)", kernel, warp, wpc)
		}
	}
	gi, err := rd.groupIndex(kernel, cta)
	if err != nil {
		return nil, err
	}
	if n := rd.groups[gi+1] - rd.groups[gi]; n > 1 {
		ws, err := rd.joinCTA(kernel, cta, n, warp)
		if err != nil {
			return nil, err
		}
		return ws[warp], nil
	}
	e, err := rd.cache.acquire(rd, kernel, rd.groups[gi])
	if err != nil {
		return nil, err
	}
	defer rd.cache.release(rd, e)
	d := e.d
	var v Warp
	d.view(&v, (cta-d.cta0)*d.wpc+warp)
	return v.Clone(), nil
}

// All iterates over every warp of every kernel, in file order (kernel, CTA, warp). On an
// error it yields (nil, err) and stops.
//
// The yielded *Warp is reused: it, and the slices it holds, are valid only until the
// iteration continues. It is a view into the decoded batch: DeltaOff and CoordOff index
// the whole batch's Deltas and Coords, so they need not start at 0. Call Clone to keep
// a warp. Reuse is what makes a full pass cheap: no allocation per warp.
func (rd *Reader) All() iter.Seq2[*Warp, error] {
	return func(yield func(*Warp, error) bool) {
		d := rd.decoder()
		defer rd.pool.Put(d)
		var v Warp
		for k := range rd.meta.Launches {
			g := rd.group[k]
			for gi := rd.first[k]; gi < rd.first[k+1]; gi++ {
				idx := rd.groups[gi]
				if n := rd.groups[gi+1] - idx; n > 1 {
					// Windows: each CTA joined, one at a time.
					cta0 := (gi - rd.first[k]) * g
					for cta := cta0; cta < min(cta0+g, rd.NumCTAs(k)); cta++ {
						ws, err := rd.joinCTA(k, cta, n, -1)
						if err != nil {
							yield(nil, err)
							return
						}
						for _, w := range ws {
							if !yield(w, nil) {
								return
							}
						}
					}
					continue
				}
				if err := rd.decode(d, k, idx); err != nil {
					yield(nil, err)
					return
				}
				for slot := range len(d.warpStart) - 1 {
					d.view(&v, slot)
					if !yield(&v, nil) {
						return
					}
				}
			}
		}
	}
}

// groupIndex is the group (an index in rd.groups) holding kernel's CTA cta.
func (rd *Reader) groupIndex(kernel, cta int) (int, error) {
	if kernel < 0 || kernel >= len(rd.meta.Launches) {
		return 0, fmt.Errorf("gtrace/format: no kernel %d (trace has %d launches)", kernel, len(rd.meta.Launches))
	}
	if cta < 0 || cta >= rd.NumCTAs(kernel) {
		return 0, fmt.Errorf("gtrace/format: kernel %d has no cta %d (%d CTAs)", kernel, cta, rd.NumCTAs(kernel))
	}
	return rd.first[kernel] + cta/rd.group[kernel], nil
}

// groupOf is the group (an index in rd.groups) that batch idx belongs to.
func (rd *Reader) groupOf(idx int) int {
	return sort.Search(len(rd.groups), func(i int) bool { return rd.groups[i] > idx }) - 1
}

// decoder holds one decoded batch: its columns and what check derives from them. A
// cached batch keeps its decoder, so the zstd decoder and the compressed bytes, needed
// only while decoding, are apart in scratch.
type decoder struct {
	// slab holds the per-row columns below, cols' and mode, flags and stride, in one
	// allocation with zstdSlack spare bytes at its end only (sized exactly, it is reused
	// by the next batch whose columns fit).
	slab []byte
	// cols.deltas holds the deltas only when one needs 64 bits; cols.cta, warp, info
	// and stride stay empty (scratch holds them while the batch is checked).
	cols      batchCols
	deltas32  []int32 // the deltas, when they all fit 32 bits but not 16
	deltas16  []int16 // the deltas, when they all fit 16 bits
	mode      []AddrMode
	flags     []Flags
	stride    []int64 // the stride column, widened
	warpStart []int   // the rows of warp slot s, cta*wpc + warp, are [warpStart[s], warpStart[s+1])
	lastBase  []uint64

	// The batch decoded: row window window of kernel's CTAs cta0 .. cta0+ctas-1, of wpc
	// warps each.
	kernel, cta0, ctas, wpc, window int
}

func (rd *Reader) decoder() *decoder {
	if d, ok := rd.pool.Get().(*decoder); ok {
		return d
	}
	return &decoder{}
}

// scratch is what decoding a batch needs and the decoded batch does not.
type scratch struct {
	zd     *zstd.Decoder
	raw    []byte // the batch as stored
	body   []byte // a buffer as stored, read alone
	window []uint32
	bm     batchMeta
	deltas []int64 // the deltas column as stored, before narrow
	// The columns check reads and no view does: each row's CTA, warp and info byte
	// (split into the decoder's mode and flags), and its stride as stored (widened
	// into the decoder's stride). Here rather than in the decoder, a cached batch does
	// not keep them: 7 bytes a row.
	cta, warp, info []uint8
	stride          []int32
}

func (rd *Reader) scratch() *scratch {
	if s, ok := rd.spool.Get().(*scratch); ok {
		return s
	}
	// Concurrency 1: parallelism comes from callers decoding different batches. The cap
	// limit makes DecodeAll stop at the column size the batch header announced.
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxMemory(uint64(maxBatchBytes)))
	if err != nil {
		panic(err) // only on invalid options, fixed above
	}
	return &scratch{zd: zd}
}

// Data buffer index of each column in a v1 record batch: buffers come depth-first, two per
// primitive (validity, values) and two per list (validity, offsets) before its child's.
var (
	dataBuffer  = [numCols]int{1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25} // lists: the offsets buffer
	childBuffer = [numCols]int{colDeltas: 19, colCoords: 23}
	childNode   = [numCols]int{colDeltas: 9, colCoords: 11}
)

// windowBuffer is the window column's values (V3).
var windowBuffer = dataBuffer[colWindow]

// rowBytes is what decoding takes per row: the columns as stored, the list offsets, and
// mode, flags and the widened stride. heldRowBytes is what a decoded batch keeps a row
// in its slab (cut): all that but the CTA, warp and info bytes and the stride as
// stored (scratch's).
const (
	rowBytes     = 1 + 1 + 4 + 4 + 2 + 1 + 8 + 4 + 4 + 4 + 2 + 8
	heldRowBytes = rowBytes - 1 - 1 - 1 - 4
)

// footprint is about how many bytes the decoded batch occupies.
func (d *decoder) footprint() int64 {
	return int64(cap(d.slab) + 8*len(d.cols.deltas) + 4*len(d.deltas32) + 2*len(d.deltas16) + 8*len(d.warpStart))
}

// slabBytes is b, a column in the slab, with the rest of the slab as its capacity: the
// zstd decoder's room to write past it.
func (d *decoder) slabBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	off := int(uintptr(unsafe.Pointer(&b[0])) - uintptr(unsafe.Pointer(&d.slab[0])))
	return d.slab[off : off+len(b)]
}

// cut lays out the slab for a batch of n rows and nCoords coordinates, widest elements
// first so that none needs padding: base and the stride check fills, then the columns
// read from the batch in the order decode reads them (pc, mask, the two list offsets,
// coords, path), then mode and flags (check's), then zstdSlack bytes, which the last
// column read needs and every earlier one has through the columns after it.
func (d *decoder) cut(n, nCoords int) {
	need := heldRowBytes*n + 2*4 + 4*nCoords + zstdSlack // the list offsets have n+1 entries
	if cap(d.slab) < need {
		d.slab = make([]byte, need)
	}
	at := 0
	c := &d.cols
	c.base, d.stride = carve[uint64](d.slab, &at, n), carve[int64](d.slab, &at, n)
	c.pc, c.mask = carve[uint32](d.slab, &at, n), carve[uint32](d.slab, &at, n)
	c.doff, c.coff = carve[uint32](d.slab, &at, n+1), carve[uint32](d.slab, &at, n+1)
	c.coords = carve[int32](d.slab, &at, nCoords)
	c.path = carve[uint16](d.slab, &at, n)
	d.mode, d.flags = carve[AddrMode](d.slab, &at, n), carve[Flags](d.slab, &at, n)
}

// decode reads batch idx of kernel into d, checking everything a later step indexes with.
func (rd *Reader) decode(d *decoder, kernel, idx int) (err error) {
	blk := rd.blocks[idx]
	defer guard(&err, blk.offset, idx)
	sc := rd.scratch()
	defer rd.spool.Put(sc)
	sc.raw = resize(sc.raw, int(blk.metaLen+blk.bodyLen))
	if err := rd.readAt(sc.raw, blk.offset, idx); err != nil {
		return err
	}
	if err := catchFB(blk.offset, idx, func() { parseMessage(sc.raw[:blk.metaLen], &sc.bm) }); err != nil {
		return err
	}
	bodyAt := blk.offset + blk.metaLen
	body := sc.raw[blk.metaLen:]
	bm := &sc.bm
	if err := sc.checkLayout(blk.offset, idx, rd.meta.Version); err != nil {
		return err
	}
	rows := bm.rows
	nDeltas, nCoords := bm.nodes[childNode[colDeltas]].length, bm.nodes[childNode[colCoords]].length
	if rows < 0 || nDeltas < 0 || nCoords < 0 || rows > maxBatchBytes/rowBytes ||
		nDeltas > maxBatchBytes/8 || nCoords > maxBatchBytes/4 ||
		rows*rowBytes+nDeltas*8+nCoords*4 > maxBatchBytes {
		return corrupt(ErrCorrupt, blk.offset, idx, "batch claims %d rows, %d deltas, %d coordinates", rows, nDeltas, nCoords)
	}
	n := int(rows)
	// Every buffer's claim is checked against the bytes it has before anything is
	// allocated: a damaged length must not make the reader ask for gigabytes.
	sizes := [...]struct{ buf, size int }{
		{dataBuffer[colCTA], n}, {dataBuffer[colWarp], n}, {dataBuffer[colPC], 4 * n},
		{dataBuffer[colMask], 4 * n}, {dataBuffer[colPath], 2 * n}, {dataBuffer[colInfo], n},
		{dataBuffer[colBase], 8 * n}, {dataBuffer[colStride], 4 * n},
		{dataBuffer[colDeltas], 4 * (n + 1)}, {childBuffer[colDeltas], 8 * int(nDeltas)},
		{dataBuffer[colCoords], 4 * (n + 1)}, {childBuffer[colCoords], 4 * int(nCoords)},
	}
	for _, x := range sizes {
		if err := sc.checkBuffer(body, bodyAt, idx, x.buf, x.size); err != nil {
			return err
		}
	}
	c := &d.cols
	d.cut(n, int(nCoords))
	// The slab's columns are read in the order cut lays them out: a zstd frame may write
	// past its column into the next ones' space, which they overwrite when read (or
	// check does, when it fills them).
	dsts := [...]struct {
		buf int
		dst []byte
	}{
		{dataBuffer[colCTA], resizeSlack(&sc.cta, n)},
		{dataBuffer[colWarp], resizeSlack(&sc.warp, n)},
		{dataBuffer[colInfo], resizeSlack(&sc.info, n)},
		{dataBuffer[colStride], resizeSlack(&sc.stride, n)},
		{childBuffer[colDeltas], resizeSlack(&sc.deltas, int(nDeltas))},
		{dataBuffer[colBase], d.slabBytes(asBytes(c.base))},
		{dataBuffer[colPC], d.slabBytes(asBytes(c.pc))},
		{dataBuffer[colMask], d.slabBytes(asBytes(c.mask))},
		{dataBuffer[colDeltas], d.slabBytes(asBytes(c.doff))},
		{dataBuffer[colCoords], d.slabBytes(asBytes(c.coff))},
		{childBuffer[colCoords], d.slabBytes(asBytes(c.coords))},
		{dataBuffer[colPath], d.slabBytes(asBytes(c.path))},
	}
	for _, x := range dsts {
		if err := sc.readBuffer(body, bodyAt, idx, x.buf, x.dst); err != nil {
			return err
		}
	}
	if n == 0 {
		// An empty list array may be written without offsets.
		c.doff[0], c.coff[0] = 0, 0
	}
	d.narrow(sc)
	l := &rd.meta.Launches[kernel]
	g := rd.group[kernel]
	gi := rd.groupOf(idx)
	d.kernel, d.cta0, d.wpc = kernel, (gi-rd.first[kernel])*g, l.WarpsPerCTA()
	d.window = idx - rd.groups[gi]
	d.ctas = min(g, l.NumCTAs()-d.cta0)
	return d.check(sc, len(l.Program.Insts), l.OOBWarn, blk.offset, idx)
}

// checkLayout checks the field nodes and buffers of the batch header in sc.bm against
// the columns of version v: their count, no nulls, a row count per column.
func (sc *scratch) checkLayout(off int64, idx int, v Version) error {
	bm := &sc.bm
	cols := v.columns()
	if nodes := cols + 2; len(bm.nodes) != nodes || len(bm.buffers) != 2*nodes {
		return corrupt(ErrCorrupt, off, idx, "%d field nodes and %d buffers; v%d has %d and %d", len(bm.nodes), len(bm.buffers), v, nodes, 2*nodes)
	}
	for i, nd := range bm.nodes {
		if nd.nulls != 0 {
			return corrupt(ErrCorrupt, off, idx, "field node %d has %d nulls; v%d has none", i, nd.nulls, v)
		}
	}
	for c := range cols {
		if l := bm.nodes[c+max(0, c-colDeltas)].length; l != bm.rows {
			return corrupt(ErrCorrupt, off, idx, "column %s has %d rows, batch has %d", colSpecs[c].name, l, bm.rows)
		}
	}
	return nil
}

// MaxZstdRatio bounds how many bytes a zstd frame can decode to per byte it occupies. A
// block holds at most 128 KiB (RFC 8878, Block_Maximum_Size) and costs at least 4 bytes
// (a 3-byte header and an RLE block's one byte), so no frame expands more than 32768
// times.
const MaxZstdRatio = (128 << 10) / 4

// checkBuffer checks, before anything is allocated for it, that buffer bi of body lies
// inside the body and can hold a column of size bytes: its length prefix says so, and a
// zstd frame of its length can decode to that much.
func (sc *scratch) checkBuffer(body []byte, bodyAt int64, batch, bi, size int) error {
	b := sc.bm.buffers[bi]
	if b.offset < 0 || b.length < 0 || b.offset > int64(len(body))-b.length {
		return corrupt(ErrCorrupt, bodyAt, batch, "buffer %d {offset %d, length %d} outside the %d-byte body", bi, b.offset, b.length, len(body))
	}
	if size == 0 {
		return nil
	}
	at, have := bodyAt+b.offset, b.length
	if sc.bm.compressed {
		if have < 8 {
			return corrupt(ErrCorrupt, at, batch, "compressed buffer %d has no length prefix", bi)
		}
		ulen := int64(binary.LittleEndian.Uint64(body[b.offset:]))
		have -= 8
		if ulen != -1 { // -1: stored uncompressed
			if ulen != int64(size) {
				return corrupt(ErrCorrupt, at, batch, "buffer %d holds %d bytes, its column needs %d", bi, ulen, size)
			}
			if int64(size) > have*MaxZstdRatio {
				return corrupt(ErrCorruptZstd, at, batch, "buffer %d: %d compressed bytes cannot decode to the %d its column needs", bi, have, size)
			}
			return nil
		}
	}
	if have < int64(size) {
		return corrupt(ErrCorrupt, at, batch, "buffer %d has %d bytes, its column needs %d", bi, have, size)
	}
	return nil
}

// readBuffer decompresses buffer bi of body, which checkBuffer accepted, into dst, which
// has exactly the size the column needs.
func (sc *scratch) readBuffer(body []byte, bodyAt int64, batch, bi int, dst []byte) error {
	b := sc.bm.buffers[bi]
	at := bodyAt + b.offset
	src := body[b.offset : b.offset+b.length]
	if len(dst) == 0 {
		return nil
	}
	if sc.bm.compressed {
		ulen := int64(binary.LittleEndian.Uint64(src))
		src = src[8:]
		if ulen != -1 {
			out, err := sc.zd.DecodeAll(src, dst[:0]) // dst's spare capacity is zstdSlack
			if err != nil {
				return &CorruptError{Kind: ErrCorruptZstd, Offset: at, Batch: batch, Reason: fmt.Sprintf("buffer %d", bi), Err: err}
			}
			if len(out) != len(dst) || &out[0] != &dst[0] {
				return corrupt(ErrCorruptZstd, at, batch, "buffer %d decompressed to %d bytes, want %d", bi, len(out), len(dst))
			}
			return nil
		}
	}
	copy(dst, src)
	return nil
}

// deltaCols is the batch's delta columns as a Warp's, for takeDeltas.
func (d *decoder) deltaCols() Warp {
	return Warp{Deltas: d.cols.deltas, Deltas32: d.deltas32, Deltas16: d.deltas16}
}

// narrow moves the deltas column, read into sc.deltas, into the narrowest of d's three
// delta columns that holds every value; the others are left empty.
func (d *decoder) narrow(sc *scratch) {
	all := sc.deltas
	lo, hi := int64(0), int64(0)
	for _, v := range all {
		lo, hi = min(lo, v), max(hi, v)
	}
	c := &d.cols
	c.deltas, d.deltas32, d.deltas16 = c.deltas[:0], d.deltas32[:0], d.deltas16[:0]
	switch {
	case len(all) == 0:
	case lo >= math.MinInt16 && hi <= math.MaxInt16:
		d.deltas16 = resize(d.deltas16, len(all))
		for i, v := range all {
			d.deltas16[i] = int16(v)
		}
	case lo >= math.MinInt32 && hi <= math.MaxInt32:
		d.deltas32 = resize(d.deltas32, len(all))
		for i, v := range all {
			d.deltas32[i] = int32(v)
		}
	default:
		// Rare: keep the column as read, handing sc the decoder's storage instead.
		c.deltas, sc.deltas = all, c.deltas[:0]
	}
}

// check validates the decoded columns (with sc's) against each other and the launch
// (progLen rows in its program; FlagOOB only where oobWarn), splits info into mode and
// flags, widens the stride, finds each warp's rows, and undoes the base delta.
func (d *decoder) check(sc *scratch, progLen int, oobWarn bool, off int64, batch int) error {
	c := &d.cols
	n := c.rows()
	bad := func(row int, format string, args ...any) error {
		return corrupt(ErrCorrupt, off, batch, "row %d: %s", row, fmt.Sprintf(format, args...))
	}
	all := d.deltaCols()
	if nDeltas, _ := all.deltaLen(); c.doff[0] != 0 || c.doff[n] != uint32(nDeltas) || c.coff[0] != 0 || c.coff[n] != uint32(len(c.coords)) {
		return bad(-1, "list offsets do not span their values")
	}
	wpc, slots := d.wpc, d.ctas*d.wpc
	d.warpStart = resize(d.warpStart, slots+1)
	last := resize(d.lastBase, progLen)
	d.lastBase = last
	clear(last)
	// Locals sliced to n let the compiler drop most bounds checks in this loop, which runs
	// once per warp-instruction read.
	cta, warp, pcs, mask, info, base := sc.cta[:n], sc.warp[:n], c.pc[:n], c.mask[:n], sc.info[:n], c.base[:n]
	doff, coff := c.doff[1:n+1], c.coff[1:n+1]
	mode, flags, stride, stride32 := d.mode[:n], d.flags[:n], d.stride[:n], sc.stride[:n]
	var refused uint8 // info bits this launch may not have
	if !oobWarn {
		refused = uint8(FlagOOB)
	}
	cur := -1
	d0, k0 := uint32(0), uint32(0)
	for i := range pcs {
		if s := int(cta[i])*wpc + int(warp[i]); s != cur {
			if int(warp[i]) >= wpc || s >= slots || s < cur {
				return bad(i, "cta %d warp %d after slot %d (batch has %d CTAs of %d warps)", cta[i], warp[i], cur, d.ctas, wpc)
			}
			for cur < s {
				cur++
				d.warpStart[cur] = i
			}
		}
		pc := pcs[i]
		if int(pc) >= len(last) {
			return bad(i, "pc %d outside the program table (%d rows)", pc, progLen)
		}
		in := info[i]
		if in&refused != 0 {
			return bad(i, "out-of-bounds flag in a launch not captured under --oob=warn")
		}
		m := AddrMode(in >> infoModeShift)
		mode[i], flags[i], stride[i] = m, Flags(in&infoFlagsMask), int64(stride32[i])
		d1, k1 := doff[i], coff[i]
		if d1 < d0 || k1 < k0 {
			return bad(i, "list offsets decrease")
		}
		nd, nk := int(d1-d0), int(k1-k0)
		d0, k0 = d1, k1
		if nd|nk != 0 || m == AddrDeltas {
			active := bits.OnesCount32(mask[i])
			if (m == AddrDeltas && (active == 0 || nd != active-1)) || (m != AddrDeltas && nd != 0) {
				return bad(i, "%d deltas for mode %d with %d active lanes", nd, m, active)
			}
			if nk != 0 && nk != 2*active {
				return bad(i, "%d coordinates for %d active lanes (want two a lane)", nk, active)
			}
		}
		b := last[pc] + base[i]
		base[i], last[pc] = b, b
	}
	for cur < slots {
		cur++
		d.warpStart[cur] = n
	}
	return nil
}

// view points v at warp slot s (cta*wpc + warp) of the decoded batch, without copying.
func (d *decoder) view(v *Warp, s int) {
	c := &d.cols
	lo, hi := d.warpStart[s], d.warpStart[s+1]
	*v = Warp{Kernel: d.kernel, CTA: d.cta0 + s/d.wpc, Warp: s % d.wpc}
	if lo == hi {
		return
	}
	v.PC, v.Mask, v.Path, v.Flags = c.pc[lo:hi:hi], c.mask[lo:hi:hi], c.path[lo:hi:hi], d.flags[lo:hi:hi]
	v.Mode, v.Base, v.Stride = d.mode[lo:hi:hi], c.base[lo:hi:hi], d.stride[lo:hi:hi]
	v.DeltaOff = c.doff[lo : hi+1 : hi+1]
	all := d.deltaCols()
	v.takeDeltas(&all, 0, c.doff[hi])
	v.CoordOff, v.Coords = c.coff[lo:hi+1:hi+1], c.coords[:c.coff[hi]:c.coff[hi]]
}

// cloneCTA copies the warps of the batch's CTA cta0+o out, one allocation per column.
func (d *decoder) cloneCTA(o int) []*Warp {
	c := &d.cols
	nw := d.wpc
	s0 := o * nw
	r0, r1 := d.warpStart[s0], d.warpStart[s0+nw]
	d0, d1, k0, k1 := c.doff[r0], c.doff[r1], c.coff[r0], c.coff[r1]
	pc, mask, path := slices.Clone(c.pc[r0:r1]), slices.Clone(c.mask[r0:r1]), slices.Clone(c.path[r0:r1])
	flags, mode := slices.Clone(d.flags[r0:r1]), slices.Clone(d.mode[r0:r1])
	base, stride := slices.Clone(c.base[r0:r1]), slices.Clone(d.stride[r0:r1])
	all := d.deltaCols()
	var deltas Warp // the CTA's deltas, copied, in the width the batch holds them
	deltas.takeDeltas(&all, d0, d1)
	deltas.Deltas, deltas.Deltas32, deltas.Deltas16 = slices.Clone(deltas.Deltas), slices.Clone(deltas.Deltas32), slices.Clone(deltas.Deltas16)
	coords := slices.Clone(c.coords[k0:k1])
	offs := make([]uint32, 2*(r1-r0+nw)) // DeltaOff then CoordOff, Len()+1 per warp
	ws := make([]Warp, nw)
	out := make([]*Warp, nw)
	o2 := 0
	for w := range ws {
		v := &ws[w]
		*v = Warp{Kernel: d.kernel, CTA: d.cta0 + o, Warp: w}
		out[w] = v
		lo, hi := d.warpStart[s0+w], d.warpStart[s0+w+1]
		if lo == hi {
			continue
		}
		// Row i of the batch is row i-r0 of the copies.
		wd0, wd1, wk0, wk1 := c.doff[lo], c.doff[hi], c.coff[lo], c.coff[hi]
		v.takeDeltas(&deltas, wd0-d0, wd1-d0)
		v.Coords = coords[wk0-k0 : wk1-k0 : wk1-k0]
		lo, hi = lo-r0, hi-r0
		v.PC, v.Mask, v.Path, v.Flags = pc[lo:hi:hi], mask[lo:hi:hi], path[lo:hi:hi], flags[lo:hi:hi]
		v.Mode, v.Base, v.Stride = mode[lo:hi:hi], base[lo:hi:hi], stride[lo:hi:hi]
		m := hi - lo + 1
		v.DeltaOff, v.CoordOff = offs[o2:o2+m:o2+m], offs[o2+m:o2+2*m:o2+2*m]
		for i := 0; i < m; i++ {
			v.DeltaOff[i] = c.doff[r0+lo+i] - wd0
			v.CoordOff[i] = c.coff[r0+lo+i] - wk0
		}
		o2 += 2 * m
	}
	return out
}

// catchFB runs f, turning a flatbuffer fault into a CorruptError at off.
func catchFB(off int64, batch int, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			fault, ok := p.(fbFault)
			if !ok {
				panic(p)
			}
			err = corrupt(ErrCorrupt, off, batch, "%s", fault.reason)
		}
	}()
	f()
	return nil
}

// guard is deferred at every entry point that parses file content: no input may panic
// out of this package. A panic here is a bug, reported as corruption with its position
// rather than crashing the caller.
func guard(errp *error, off int64, batch int) {
	if p := recover(); p != nil {
		*errp = corrupt(ErrCorrupt, off, batch, "internal error on malformed input: %v", p)
	}
}
