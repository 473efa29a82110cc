package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gtrace/gtrace/internal/atomicfile"
)

// Writer streams a trace to an Arrow IPC file, one record batch per group of consecutive
// CTAs (see ctasPerBatch). It holds one batch's columns at a time, so its memory does not
// grow with the trace. A Writer is not safe for concurrent use: a parallel capture must
// hand CTAs to it in order.
type Writer struct {
	meta   Meta
	schema *arrow.Schema
	fw     *ipc.FileWriter
	sink   *posWriter

	// Set by Create only.
	file *atomicfile.File // from Create; nil for NewWriter's stream
	buf  *bufio.Writer

	kernel, cta int   // the next CTA WriteCTA expects
	err         error // sticky: once the output is damaged, every call returns it
	closed      bool

	group []int      // CTAs per batch, per launch
	cols  batchCols  // the group being filled: CTAs group*(cta/group) .. cta-1
	spans []warpSpan // the rows of each warp of the group in cols, in order
	win   batchCols  // a row window of cols being written (see flush)
	// A group of more than winBatch rows is cut into windows of at least winMin rows a
	// warp: windowBatchRows and minWindowRows, or SetWindows's.
	winBatch, winMin int
	lastBase         []uint64 // per pc, the last Base of the batch, for the base delta
	insts            uint64
}

// Create writes a trace to a temporary file next to path and renames it to path when
// Close succeeds. Until then no file named path exists, so an interrupted capture never
// leaves a file that looks whole; the temporary file (".NAME.tmp-*") lacks the Arrow
// footer and is rejected by Open. The file gets the user's umask, or the permissions of
// the file it replaces.
func Create(path string, meta Meta) (*Writer, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := newWriter(bw, meta)
	if err != nil {
		f.Abort()
		return nil, err
	}
	w.file, w.buf = f, bw
	return w, nil
}

// NewWriter writes a trace to a stream. The caller owns w; Close does not close it.
func NewWriter(w io.Writer, meta Meta) (*Writer, error) {
	return newWriter(w, meta)
}

func newWriter(w io.Writer, meta Meta) (*Writer, error) {
	if !littleEndian {
		return nil, errBigEndian
	}
	js, err := encodeMeta(&meta)
	if err != nil {
		return nil, err
	}
	meta.Version = CurrentVersion
	wr := &Writer{meta: meta, schema: arrowSchema(js), sink: &posWriter{w: w}}
	// One compressor, serial: the output does not depend on goroutine timing.
	wr.fw, err = ipc.NewFileWriter(wr.sink, ipc.WithSchema(wr.schema), ipc.WithZstd(),
		ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	maxProg := 0
	for i := range meta.Launches {
		maxProg = max(maxProg, len(meta.Launches[i].Program.Insts))
	}
	wr.lastBase = make([]uint64, maxProg)
	wr.group = make([]int, len(meta.Launches))
	for k := range meta.Launches {
		wr.group[k] = ctasPerBatch(&meta.Launches[k])
	}
	wr.winBatch, wr.winMin = windowBatchRows, minWindowRows
	wr.skipEmpty()
	return wr, nil
}

// SetWindows changes when the writer cuts a group of CTAs into row windows (see Windows
// in doc.go): a group of more than batchRows rows is written in windows of max(minRows,
// batchRows / its warps with rows) rows a warp. Readers need no setting: they find the
// windows in the file. The defaults keep a window of every resident warp of a full GPU
// near a few hundred MB decoded; tests lower them to cut small traces. Call it before
// the first WriteCTA.
func (w *Writer) SetWindows(batchRows, minRows int) {
	w.winBatch, w.winMin = max(1, batchRows), max(1, minRows)
}

// skipEmpty moves the expected position past kernels with no CTAs left.
func (w *Writer) skipEmpty() {
	for w.kernel < len(w.meta.Launches) && w.cta >= w.meta.Launches[w.kernel].NumCTAs() {
		w.kernel++
		w.cta = 0
	}
}

// WriteCTA appends one CTA. It must be called once for every CTA of every launch, in
// order: kernel ascending, then linear CTA id ascending. warps must hold exactly
// WarpsPerCTA warps, warps[i] being warp i, with Kernel and CTA set to kernel and cta.
// A warp that executed nothing is an empty Warp, not nil. Every pc must index the
// kernel's program table. The warps are not retained: the CTA is copied into the batch
// being filled, which is written out when its last CTA arrives. A CTA rejected with a
// *WriteError leaves the batch as it was.
func (w *Writer) WriteCTA(kernel, cta int, warps []*Warp) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("gtrace/format: WriteCTA after Close")
	}
	if kernel != w.kernel || cta != w.cta {
		if w.kernel >= len(w.meta.Launches) {
			return &WriteError{kernel, cta, -1, -1, "every CTA of every launch is already written"}
		}
		return &WriteError{kernel, cta, -1, -1, fmt.Sprintf("out of order: expected kernel %d cta %d", w.kernel, w.cta)}
	}
	l := &w.meta.Launches[kernel]
	if len(warps) != l.WarpsPerCTA() {
		return &WriteError{kernel, cta, -1, -1, fmt.Sprintf("got %d warps, launch has %d per CTA", len(warps), l.WarpsPerCTA())}
	}
	g := w.group[kernel]
	if cta%g == 0 {
		w.cols.reset()
		w.spans = w.spans[:0]
		clear(w.lastBase)
	}
	mark, spans := w.cols.mark(), len(w.spans)
	for i, wp := range warps {
		var err error
		switch {
		case wp == nil:
			err = &WriteError{kernel, cta, i, -1, "nil warp"}
		case wp.Kernel != kernel || wp.CTA != cta || wp.Warp != i:
			err = &WriteError{kernel, cta, i, -1, fmt.Sprintf("warp says kernel %d cta %d warp %d", wp.Kernel, wp.CTA, wp.Warp)}
		default:
			lo := w.cols.rows()
			err = w.appendWarp(len(l.Program.Insts), l.OOBWarn, uint8(cta%g), wp)
			w.spans = append(w.spans, warpSpan{lo, w.cols.rows()})
		}
		if err != nil {
			w.cols.truncate(mark)
			w.spans = w.spans[:spans]
			w.cols.lastBases(w.lastBase)
			return err
		}
	}
	w.insts += uint64(w.cols.rows() - mark.rows)
	w.cta++
	if w.cta%g == 0 || w.cta == l.NumCTAs() {
		if err := w.flush(kernel, cta-cta%g, cta); err != nil {
			w.err = err
			return err
		}
	}
	w.skipEmpty()
	return nil
}

// warpSpan is a warp's rows [lo, hi) in the group's columns.
type warpSpan struct{ lo, hi int }

// windowBatchRows is the most rows a group is written in one batch whatever its warps'
// lengths; a larger group is cut into row windows of W rows a warp, W =
// max(minWindowRows, windowBatchRows / its warps with rows), so that a reader can hold a
// window of each warp instead of its whole stream (see Windows in doc.go). 256 warps of
// 1024 rows decode to about 11 MB; a 132-SM GPU holding 64 warps an SM holds 33 such
// groups at once.
const (
	windowBatchRows = 1 << 18
	minWindowRows   = 1 << 10
)

// flush writes the group in w.cols, kernel's CTAs first..last: one batch, or one per
// row window.
func (w *Writer) flush(kernel, first, last int) error {
	c := &w.cols
	write := func(b *batchCols, what string) error {
		if sz := int64(b.rows())*rowBytes + int64(len(b.deltas))*8 + int64(len(b.coords))*4; sz > maxBatchBytes {
			return &WriteError{kernel, last, -1, -1, fmt.Sprintf("the batch of CTAs %d..%d%s would decode to %d bytes, over the reader's limit of %d", first, last, what, sz, maxBatchBytes)}
		}
		rec := b.record(w.schema)
		err := w.fw.Write(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("gtrace/format: writing kernel %d ctas %d..%d%s: %w", kernel, first, last, what, err)
		}
		return nil
	}
	rows, longest, warps := c.rows(), 0, 0
	for _, sp := range w.spans {
		if n := sp.hi - sp.lo; n > 0 {
			longest, warps = max(longest, n), warps+1
		}
	}
	win := 0
	if rows > w.winBatch {
		win = max(w.winMin, w.winBatch/warps)
	}
	if win == 0 || longest <= win {
		c.window = resize(c.window, rows)
		clear(c.window)
		return write(c, "")
	}
	// Bases back to absolute: the windows chain their base deltas afresh.
	last0 := w.lastBase
	clear(last0)
	for r, pc := range c.pc {
		c.base[r] += last0[pc]
		last0[pc] = c.base[r]
	}
	for j := 0; j*win < longest; j++ {
		b := &w.win
		b.reset()
		clear(last0)
		for _, sp := range w.spans {
			lo, hi := sp.lo+j*win, min(sp.lo+(j+1)*win, sp.hi)
			if lo < hi {
				b.appendRange(c, lo, hi, last0)
			}
		}
		b.window = resize(b.window, b.rows())
		for i := range b.window {
			b.window[i] = uint32(j)
		}
		if err := write(b, fmt.Sprintf(" (row window %d)", j)); err != nil {
			return err
		}
	}
	return nil
}

// appendRange appends rows [lo, hi) of c, whose bases are absolute, chaining their
// bases per pc through last.
func (b *batchCols) appendRange(c *batchCols, lo, hi int, last []uint64) {
	b.cta, b.warp, b.pc = append(b.cta, c.cta[lo:hi]...), append(b.warp, c.warp[lo:hi]...), append(b.pc, c.pc[lo:hi]...)
	b.mask, b.path, b.info = append(b.mask, c.mask[lo:hi]...), append(b.path, c.path[lo:hi]...), append(b.info, c.info[lo:hi]...)
	b.stride = append(b.stride, c.stride[lo:hi]...)
	for r := lo; r < hi; r++ {
		pc := c.pc[r]
		b.base = append(b.base, c.base[r]-last[pc])
		last[pc] = c.base[r]
	}
	d0, dAt := c.doff[lo], uint32(len(b.deltas))
	b.deltas = append(b.deltas, c.deltas[d0:c.doff[hi]]...)
	k0, kAt := c.coff[lo], uint32(len(b.coords))
	b.coords = append(b.coords, c.coords[k0:c.coff[hi]]...)
	for r := lo + 1; r <= hi; r++ {
		b.doff = append(b.doff, dAt+c.doff[r]-d0)
		b.coff = append(b.coff, kAt+c.coff[r]-k0)
	}
}

// appendWarp checks one warp's columns against each other and the launch (progLen rows
// in its program; FlagOOB only where oobWarn) and appends them.
func (w *Writer) appendWarp(progLen int, oobWarn bool, ctaOff uint8, wp *Warp) error {
	n := wp.Len()
	fail := func(row int, format string, args ...any) error {
		return &WriteError{wp.Kernel, wp.CTA, wp.Warp, row, fmt.Sprintf(format, args...)}
	}
	if len(wp.Mask) != n || len(wp.Path) != n || len(wp.Flags) != n || len(wp.Mode) != n ||
		len(wp.Base) != n || len(wp.Stride) != n {
		return fail(-1, "column lengths differ")
	}
	if n == 0 {
		return nil
	}
	if len(wp.DeltaOff) != n+1 || len(wp.CoordOff) != n+1 {
		return fail(-1, "DeltaOff and CoordOff need Len()+1 entries")
	}
	nDeltas, cols := wp.deltaLen()
	if cols > 1 {
		return fail(-1, "deltas in more than one of Deltas, Deltas32 and Deltas16")
	}
	refused := ^Flags(infoFlagsMask) // flags this launch may not have
	if !oobWarn {
		refused |= FlagOOB
	}
	c := &w.cols
	last := w.lastBase[:progLen]
	// Extend every column by n rows up front and fill by index: this loop runs once per
	// warp-instruction written.
	o := len(c.pc)
	c.cta, c.warp, c.pc, c.mask, c.path = extend(c.cta, n), extend(c.warp, n), extend(c.pc, n), extend(c.mask, n), extend(c.path, n)
	c.info, c.base, c.stride = extend(c.info, n), extend(c.base, n), extend(c.stride, n)
	c.doff, c.coff = extend(c.doff, n), extend(c.coff, n)
	warp := uint8(wp.Warp)
	pcs, masks, paths, modes, flags := wp.PC[:n], wp.Mask[:n], wp.Path[:n], wp.Mode[:n], wp.Flags[:n]
	bases, strides := wp.Base[:n], wp.Stride[:n]
	dOff, kOff := wp.DeltaOff[:n+1], wp.CoordOff[:n+1]
	for i, pc := range pcs {
		mask, mode, fl := masks[i], modes[i], flags[i]
		if int(pc) >= len(last) {
			return fail(i, "pc %d outside the program table (%d rows)", pc, progLen)
		}
		if mode > AddrDeltas {
			return fail(i, "address mode %d unknown", mode)
		}
		if fl&refused != 0 {
			if fl&FlagOOB != 0 && fl&^infoFlagsMask == 0 {
				return fail(i, "FlagOOB in a launch without OOBWarn")
			}
			return fail(i, "flags %#x use undefined bits", fl)
		}
		d0, d1, k0, k1 := dOff[i], dOff[i+1], kOff[i], kOff[i+1]
		if d1 != d0 || k1 != k0 || mode == AddrDeltas {
			if d0 > d1 || int(d1) > nDeltas {
				return fail(i, "DeltaOff out of range")
			}
			nd, active := int(d1-d0), bits.OnesCount32(mask)
			if (mode == AddrDeltas && (active == 0 || nd != active-1)) || (mode != AddrDeltas && nd != 0) {
				return fail(i, "%d deltas for mode %d with %d active lanes", nd, mode, active)
			}
			if k0 > k1 || int(k1) > len(wp.Coords) {
				return fail(i, "CoordOff out of range")
			}
			if nk := int(k1 - k0); nk != 0 && nk != 2*active {
				return fail(i, "%d coordinates for %d active lanes (want two a lane)", nk, active)
			}
			c.deltas = wp.appendDeltaRange(c.deltas, d0, d1)
			c.coords = append(c.coords, wp.Coords[k0:k1]...)
		}
		b, s := bases[i], strides[i]
		if s != int64(int32(s)) {
			// Rare (AppendMem never makes such a row): the stride column is int32.
			if mode != AddrStride {
				return fail(i, "stride %d on a row of mode %d", s, mode)
			}
			if mask != 0 {
				b, mode = c.appendStrideDeltas(b, s, mask), AddrDeltas
			}
			s = 0
		}
		r := o + i
		c.cta[r], c.warp[r], c.pc[r], c.mask[r], c.path[r] = ctaOff, warp, pc, mask, paths[i]
		c.info[r] = uint8(fl) | uint8(mode)<<infoModeShift
		c.base[r], last[pc] = b-last[pc], b
		c.stride[r] = int32(s)
		c.doff[r+1], c.coff[r+1] = uint32(len(c.deltas)), uint32(len(c.coords))
	}
	return nil
}

// appendStrideDeltas appends the deltas of an AddrStride row whose stride does not fit
// the stride column, so that the row can be stored as AddrDeltas, and returns the row's
// AddrDeltas base: its first active lane's address.
func (c *batchCols) appendStrideDeltas(base uint64, stride int64, mask uint32) uint64 {
	first := bits.TrailingZeros32(mask)
	prev := first
	for m := mask & (mask - 1); m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		c.deltas = append(c.deltas, stride*int64(l-prev))
		prev = l
	}
	return base + uint64(stride*int64(first))
}

// extend returns s lengthened by n elements, their values unspecified. It doubles the
// capacity when it must grow, where append grows large slices by 1.25: a batch's columns
// grow warp by warp to hundreds of thousands of rows, and copying them at every 25% was
// most of the time a fresh Writer spent on its first batch (BenchmarkWrite).
func extend[T any](s []T, n int) []T {
	if len(s)+n > cap(s) {
		s = slices.Grow(s, max(n, cap(s)))
	}
	return s[:len(s)+n]
}

// Close writes the footer and, for a Writer from Create, syncs and renames the file into
// place. It fails, leaving no file at the final path, if a CTA was not written.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if w.err == nil && w.kernel < len(w.meta.Launches) {
		w.err = &WriteError{w.kernel, w.cta, -1, -1, "Close before every CTA was written"}
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	w.closed = true
	if err := w.fw.Close(); err != nil {
		w.err = err
	} else if w.file != nil {
		w.err = w.finish()
	}
	if w.err != nil && w.file != nil {
		w.file.Abort()
	}
	return w.err
}

func (w *Writer) finish() error {
	if err := w.buf.Flush(); err != nil {
		return err
	}
	return w.file.Commit()
}

// Abort stops writing. For a Writer from Create it removes the temporary file; a stream
// given to NewWriter is left as it is (without a footer, so readers reject it).
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	if w.err == nil {
		w.err = errors.New("gtrace/format: writer aborted")
	}
	if w.file != nil {
		w.file.Abort()
	}
}

// WarpInsts is the number of warp-instructions written so far.
func (w *Writer) WarpInsts() uint64 { return w.insts }

// posWriter gives arrow's file writer the only Seek it uses: asking for the position.
type posWriter struct {
	w   io.Writer
	pos int64
}

func (p *posWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.pos += int64(n)
	return n, err
}

func (p *posWriter) Seek(off int64, whence int) (int64, error) {
	if off == 0 && whence == io.SeekCurrent {
		return p.pos, nil
	}
	return 0, errors.New("gtrace/format: output stream cannot seek")
}

// batchCols holds one batch's columns, as written or as read. Typed slices are reused.
type batchCols struct {
	cta    []uint8
	warp   []uint8
	pc     []uint32
	mask   []uint32
	path   []uint16
	info   []uint8
	base   []uint64
	stride []int32
	doff   []uint32 // list offsets, len rows+1, from 0
	deltas []int64
	coff   []uint32
	coords []int32
	window []uint32 // written only: every row's window (V3)
}

func (c *batchCols) rows() int { return len(c.pc) }

func (c *batchCols) reset() {
	c.cta = c.cta[:0]
	c.warp, c.pc, c.mask, c.path, c.info = c.warp[:0], c.pc[:0], c.mask[:0], c.path[:0], c.info[:0]
	c.base, c.stride, c.deltas, c.coords = c.base[:0], c.stride[:0], c.deltas[:0], c.coords[:0]
	c.doff = append(c.doff[:0], 0)
	c.coff = append(c.coff[:0], 0)
}

// colsMark is the length of the columns at a point, for truncate.
type colsMark struct{ rows, deltas, coords int }

func (c *batchCols) mark() colsMark { return colsMark{c.rows(), len(c.deltas), len(c.coords)} }

// truncate undoes every append since m.
func (c *batchCols) truncate(m colsMark) {
	n := m.rows
	c.cta, c.warp, c.pc, c.mask, c.path = c.cta[:n], c.warp[:n], c.pc[:n], c.mask[:n], c.path[:n]
	c.info, c.base, c.stride = c.info[:n], c.base[:n], c.stride[:n]
	c.doff, c.coff = c.doff[:n+1], c.coff[:n+1]
	c.deltas, c.coords = c.deltas[:m.deltas], c.coords[:m.coords]
}

// lastBases sets last[pc] to the Base of the last row of each pc in the columns, undoing
// the base delta: what the writer's lastBase holds after appending them.
func (c *batchCols) lastBases(last []uint64) {
	clear(last)
	for r, pc := range c.pc {
		last[pc] += c.base[r]
	}
}

// record wraps the columns, without copying, as an Arrow record.
func (c *batchCols) record(schema *arrow.Schema) arrow.Record {
	n := c.rows()
	prim := func(col int, b []byte) arrow.ArrayData {
		return array.NewData(schema.Field(col).Type, n, []*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
	}
	list := func(col int, offs, vals []byte, nvals int) arrow.ArrayData {
		lt := schema.Field(col).Type.(*arrow.ListType)
		child := array.NewData(lt.Elem(), nvals, []*memory.Buffer{nil, memory.NewBufferBytes(vals)}, nil, 0, 0)
		defer child.Release()
		return array.NewData(lt, n, []*memory.Buffer{nil, memory.NewBufferBytes(offs)}, []arrow.ArrayData{child}, 0, 0)
	}
	data := [numCols]arrow.ArrayData{
		colCTA:    prim(colCTA, c.cta),
		colWarp:   prim(colWarp, c.warp),
		colPC:     prim(colPC, asBytes(c.pc)),
		colMask:   prim(colMask, asBytes(c.mask)),
		colPath:   prim(colPath, asBytes(c.path)),
		colInfo:   prim(colInfo, c.info),
		colBase:   prim(colBase, asBytes(c.base)),
		colStride: prim(colStride, asBytes(c.stride)),
		colDeltas: list(colDeltas, asBytes(c.doff), asBytes(c.deltas), len(c.deltas)),
		colCoords: list(colCoords, asBytes(c.coff), asBytes(c.coords), len(c.coords)),
		colWindow: prim(colWindow, asBytes(c.window)),
	}
	arrs := make([]arrow.Array, numCols)
	for i, d := range data {
		arrs[i] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecord(schema, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}
