package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"testing"
)

var corruptFull = flag.Bool("corrupt.full", false, "TestCorruptionNeverSilent flips every bit and cuts at every byte (make fuzz)")

// corruptionTrace is a small trace with the parts corruption can hit: two launches, one of
// them three batches long, every address mode, texture coordinates, and a program table
// with every space and memory operation.
func corruptionTrace() *trace {
	tr := randomTrace(11)
	tr.meta.Launches, tr.ctas = tr.meta.Launches[:1], tr.ctas[:1]
	for _, ws := range tr.ctas[0] {
		for _, w := range ws {
			if w.Len() > 12 {
				*w = *cutWarp(w, 12)
			}
		}
	}
	// A launch of three batches (8 CTAs of 32 warps each, the last one short): a few
	// rows per warp, every non-random address shape.
	const ctas, wpc = 17, 32
	tr.meta.Launches = append(tr.meta.Launches, loopLaunch("three_batches", ctas, wpc))
	cs := make([][]*Warp, ctas)
	for c := range cs {
		cs[c] = make([]*Warp, wpc)
		for w := range cs[c] {
			cs[c][w] = &Warp{}
		}
		loopCTA(shapes[c%6], 1, c, ctas, cs[c], c%2, nil)
	}
	tr.ctas = append(tr.ctas, cs)
	return tr
}

// readDigest reads b and hashes what a replay sees: the metadata and every warp's
// columns. A damaged file either fails with an error or gives this digest; anything else
// is a silent acceptance. (readEverything's other read paths decode the same batches
// with the same checks; FuzzReader and TestCorruptBytes take those.)
func readDigest(b []byte) ([32]byte, error) {
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	js, err := json.Marshal(r.Meta())
	if err != nil {
		return [32]byte{}, err
	}
	h.Write(js)
	for w, err := range r.All() {
		if err != nil {
			return [32]byte{}, err
		}
		c := w.Clone()
		fmt.Fprintf(h, "|%d %d %d", c.Kernel, c.CTA, c.Warp)
		for _, col := range []any{c.PC, c.Mask, c.Path, c.Flags, c.Mode, c.Base, c.Stride, c.DeltaOff, c.Deltas, c.CoordOff, c.Coords} {
			binary.Write(h, binary.LittleEndian, col)
		}
	}
	var d [32]byte
	h.Sum(d[:0])
	return d, nil
}

// typedReadError reports whether err is one of the reader's documented error types.
func typedReadError(err error) bool {
	var ce *CorruptError
	var ve *VersionError
	var se *SchemaError
	var me *MetaError
	return errors.As(err, &ce) || errors.As(err, &ve) || errors.As(err, &se) || errors.As(err, &me)
}

// corruptions makes the damaged copies of b: every bit flip of the footer (the schema
// and metadata the reader uses, and the batch index) and of every record batch's message
// header; bit flips in the head schema message and the batch bodies (one bit of every
// third byte, every bit when full); truncations at every
// message boundary (and at every 61st byte, every byte when full), zeroed runs of 4096
// and 512 bytes, and appended garbage.
// Each is handed to try, in a scratch buffer valid until try returns.
func corruptions(b []byte, full bool, try func(name string, data []byte)) {
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		panic(err)
	}
	flen := int64(binary.LittleEndian.Uint32(b[len(b)-10:]))
	footerAt := int64(len(b)) - 10 - flen
	c := bytes.Clone(b)
	// flipBits flips each bit of [lo, hi), or when sparse is not 0 one bit of every
	// sparse-th byte (a different bit each time).
	flipBits := func(region string, lo, hi int64, sparse int64) {
		for off := lo; off < hi; off++ {
			for bit := range 8 {
				if sparse != 0 && (off%sparse != 0 || int64(bit) != off/sparse%8) {
					continue
				}
				c[off] ^= 1 << bit
				try(fmt.Sprintf("%s: bit %d of byte %d", region, bit, off), c)
				c[off] ^= 1 << bit
			}
		}
	}
	// The reader takes the schema and its metadata from the footer; the copy at the
	// head is for streaming readers, so only a sample of its bits is flipped.
	sparse := int64(3)
	if full {
		sparse = 0
	}
	flipBits("schema message", 8, r.blocks[0].offset, sparse)
	flipBits("footer", footerAt, int64(len(b)), 0)
	cuts := map[int64]bool{footerAt: true, int64(len(b)) - 10: true, int64(len(b)) - 4: true, 8: true}
	for i, blk := range r.blocks {
		bodyAt := blk.offset + blk.metaLen
		flipBits(fmt.Sprintf("batch %d header", i), blk.offset, bodyAt, 0)
		flipBits(fmt.Sprintf("batch %d body", i), bodyAt, bodyAt+blk.bodyLen, sparse)
		cuts[blk.offset], cuts[bodyAt], cuts[bodyAt+blk.bodyLen] = true, true, true
	}
	step := int64(61)
	if full {
		step = 1
	}
	for off := int64(0); off < int64(len(b)); off += step {
		cuts[off] = true
	}
	for off := range cuts {
		try(fmt.Sprintf("cut at %d", off), c[:off:off])
	}
	for _, run := range []int{4096, 512} {
		for off := 0; off < len(b); off += run {
			clear(c[off:min(off+run, len(c))])
			try(fmt.Sprintf("zeroed %d bytes at %d", run, off), c)
			copy(c, b)
		}
	}
	for _, n := range []int{1, 7, 100, 4096} {
		g := bytes.Clone(b)
		for i := range n {
			g = append(g, byte(i*131+7))
		}
		try(fmt.Sprintf("%d bytes appended", n), g)
	}
}

// TestCorruptionNeverSilent is the reliability issue's acceptance: every damaged copy of a
// trace is a typed error or reads exactly as the original. None may change what a
// replay sees while reading cleanly. -corrupt.full (make fuzz) tries every bit and cut.
func TestCorruptionNeverSilent(t *testing.T) {
	// Some groups in row windows (V3), so that their index is attacked too.
	b := corruptionTrace().write(t, func(w *Writer) { w.SetWindows(600, 6) })
	if r := openBytes(t, b); len(r.blocks) <= len(r.groups)-1 {
		t.Fatalf("%d batches for %d groups: no row windows", len(r.blocks), len(r.groups)-1)
	}
	want, err := readDigest(b)
	if err != nil {
		t.Fatal(err)
	}
	var n, typed, same, silent int
	kinds := map[string]int{}
	corruptions(b, *corruptFull, func(name string, data []byte) {
		n++
		got, err := readDigest(data)
		switch {
		case err != nil && typedReadError(err):
			typed++
			kinds[errKind(err)]++
		case err != nil:
			t.Errorf("%s: untyped error: %v", name, err)
		case got == want:
			same++
		default:
			silent++
			if silent <= 20 {
				t.Errorf("%s: read cleanly with a different result", name)
			}
		}
	})
	t.Logf("%d variants of a %d-byte trace: %d typed errors %v, %d unchanged, %d silent", n, len(b), typed, kinds, same, silent)
	if n < 2000 {
		t.Errorf("%d variants, want at least 2000", n)
	}
	if silent > 0 {
		t.Errorf("%d silent acceptances, want 0", silent)
	}
}

// errKind names err's type, and a CorruptError's kind, for the tally.
func errKind(err error) string {
	var ce *CorruptError
	if errors.As(err, &ce) {
		return ce.Kind.Error()
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e.(type) {
		case *VersionError, *SchemaError, *MetaError:
			return fmt.Sprintf("%T", e)
		}
	}
	return fmt.Sprintf("%T", err)
}
