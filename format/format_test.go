package format

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
)

// trace is a trace built in memory: its meta and every CTA's warps.
type trace struct {
	meta Meta
	ctas [][][]*Warp // [kernel][cta][warp]
}

// randomTrace builds several kernels of random streams; some warps are empty and one
// launch has a 2D grid.
func randomTrace(seed uint64) *trace {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := &trace{meta: Meta{Producer: "gtrace test"}}
	nk := 1 + rng.IntN(3)
	for k := 0; k < nk; k++ {
		l := Launch{
			Kernel: fmt.Sprintf("k%d_%d", seed, k), Grid: Dim3{uint32(1 + rng.IntN(3)), uint32(1 + rng.IntN(2)), 1},
			Block: Dim3{uint32(1 + rng.IntN(100)), 1, 1}, SharedBytes: uint32(rng.IntN(1 << 16)),
			RegsPerThread: uint32(rng.IntN(64)), SIMT: SIMTModel(rng.IntN(2)), SourceHash: "abc",
			PTXProducer: "clang-14", Program: randomProgram(1+rng.IntN(40), rng),
		}
		l.Program.EntryInsts = uint32(len(l.Program.Insts) / 2) // kept through the round trip
		if rng.IntN(2) == 0 {
			l.Textures = []Texture{{Handle: 1, Base: 0x1000, Width: 256, Height: 256, ElemBytes: 4, Layout: "linear"}}
		}
		t.meta.Launches = append(t.meta.Launches, l)
		ctas := make([][]*Warp, l.NumCTAs())
		for c := range ctas {
			ws := make([]*Warp, l.WarpsPerCTA())
			for w := range ws {
				ws[w] = &Warp{Kernel: k, CTA: c, Warp: w}
				if rng.IntN(5) != 0 {
					randomWarp(ws[w], rng.IntN(200), len(l.Program.Insts), rng)
				}
			}
			ctas[c] = ws
		}
		t.ctas = append(t.ctas, ctas)
	}
	return t
}

func (t *trace) write(tb testing.TB, setup ...func(*Writer)) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, t.meta)
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range setup {
		f(w)
	}
	for k := range t.ctas {
		for c, ws := range t.ctas[k] {
			if err := w.WriteCTA(k, c, ws); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func openBytes(tb testing.TB, b []byte) *Reader {
	tb.Helper()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// sameWarp compares two warps after normalising both (Clone rebases offsets and maps
// empty slices to nil).
func sameWarp(t testing.TB, where string, got, want *Warp) {
	t.Helper()
	g, w := got.Clone(), want.Clone()
	if !reflect.DeepEqual(g, w) {
		gv, wv := reflect.ValueOf(g).Elem(), reflect.ValueOf(w).Elem()
		for i := 0; i < gv.NumField(); i++ {
			if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
				t.Fatalf("%s: warp %d/%d/%d field %s differs:\n got %v\nwant %v", where, w.Kernel, w.CTA, w.Warp,
					gv.Type().Field(i).Name, gv.Field(i), wv.Field(i))
			}
		}
	}
	var ga, wa []uint64
	for i := 0; i < w.Len(); i++ {
		ga, wa = got.Addrs(i, ga[:0]), want.Addrs(i, wa[:0])
		if !slices64Equal(ga, wa) {
			t.Fatalf("%s row %d: addrs %x, want %x", where, i, ga, wa)
		}
	}
}

func slices64Equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRoundTripRandom(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			tr := randomTrace(seed)
			checkRoundTrip(t, tr, openBytes(t, tr.write(t)))
		})
	}
}

// checkRoundTrip checks that r, written from tr, reads back tr's metadata and warps
// through All, ReadCTA, ViewCTA and ReadWarp.
func checkRoundTrip(t *testing.T, tr *trace, r *Reader) {
	t.Helper()
	want := tr.meta
	want.Version = CurrentVersion
	if !reflect.DeepEqual(*r.Meta(), want) {
		t.Fatalf("meta differs:\n got %+v\nwant %+v", *r.Meta(), want)
	}
	n := 0
	for w, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		sameWarp(t, "All", w, tr.ctas[w.Kernel][w.CTA][w.Warp])
		n++
	}
	total := 0
	for k := range tr.ctas {
		if got := r.NumCTAs(k); got != len(tr.ctas[k]) {
			t.Fatalf("NumCTAs(%d) = %d, want %d", k, got, len(tr.ctas[k]))
		}
		for c, ws := range tr.ctas[k] {
			total += len(ws)
			got, err := r.ReadCTA(k, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(ws) {
				t.Fatalf("ReadCTA(%d,%d): %d warps, want %d", k, c, len(got), len(ws))
			}
			views, release, err := r.ViewCTA(k, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(views) != len(ws) {
				t.Fatalf("ViewCTA(%d,%d): %d warps, want %d", k, c, len(views), len(ws))
			}
			for i := range ws {
				sameWarp(t, fmt.Sprintf("ViewCTA(%d,%d)[%d]", k, c, i), views[i], ws[i])
			}
			release()
			for i := range ws {
				sameWarp(t, fmt.Sprintf("ReadCTA(%d,%d)[%d]", k, c, i), got[i], ws[i])
				one, err := r.ReadWarp(k, c, i)
				if err != nil {
					t.Fatal(err)
				}
				sameWarp(t, "ReadWarp", one, ws[i])
			}
		}
	}
	if n != total {
		t.Fatalf("All yielded %d warps, want %d", n, total)
	}
}

// loopTrace is one launch of ctas CTAs of warps warps, each warp one iteration of the
// first loop shape, drawn from seed.
func loopTrace(name string, ctas, warps int, seed uint64) *trace {
	tr := &trace{meta: Meta{Producer: "test", Launches: []Launch{loopLaunch(name, ctas, warps)}}}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	tr.ctas = [][][]*Warp{make([][]*Warp, ctas)}
	for c := range ctas {
		ws := make([]*Warp, warps)
		for w := range ws {
			ws[w] = &Warp{}
		}
		loopCTA(shapes[0], 0, c, ctas, ws, 1, rng)
		tr.ctas[0][c] = ws
	}
	return tr
}

// A CTA's views stay valid while held, however many batches are decoded meanwhile: its
// batch leaves the cache but its decoder is not reused until release.
func TestViewCTAOutlivesEviction(t *testing.T) {
	const warps = 8
	ctas := (cacheEntries + 6) * ctasPerBatch(&Launch{Block: Dim3{32 * warps, 1, 1}})
	tr := loopTrace("many", ctas, warps, 7)
	r := openBytes(t, tr.write(t))
	views, release, err := r.ViewCTA(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for c := 1; c < ctas; c++ { // every other batch: more than the cache holds
		if _, err := r.ReadCTA(0, c); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range views {
		sameWarp(t, fmt.Sprintf("view of warp %d after %d batches", i, cacheEntries+5), w, tr.ctas[0][0][i])
	}
	release()
}

// A batch in use is shared, however far past the cache's bounds: holding a view of every
// CTA of a launch whose batches far exceed the byte bound decodes each batch once (a grid
// that is all resident at once was decoded once per CTA, 22.6 GB for 13 M
// warp-instructions). Released, the batches leave, and the bound holds again.
func TestViewCTASharesBatchInUse(t *testing.T) {
	const warps = 8
	g := ctasPerBatch(&Launch{Block: Dim3{32 * warps, 1, 1}})
	ctas := 5*g + 3
	tr := loopTrace("resident", ctas, warps, 9)
	r := openBytes(t, tr.write(t))
	r.cache.limit = 1 // every batch leaves the cache as soon as it is decoded
	batches := (ctas + g - 1) / g
	var releases []func()
	for _, c := range rand.New(rand.NewPCG(1, 2)).Perm(ctas) {
		views, release, err := r.ViewCTA(0, c)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range views {
			sameWarp(t, fmt.Sprintf("view of cta %d warp %d", c, i), w, tr.ctas[0][c][i])
		}
		releases = append(releases, release)
	}
	if n := r.Held(); n != ctas {
		t.Errorf("Held() = %d with %d views unreleased", n, ctas)
	}
	if r.cache.decodes != batches {
		t.Errorf("%d CTAs held in %d batches took %d decodes, want one per batch", ctas, batches, r.cache.decodes)
	}
	for _, release := range releases {
		release()
	}
	if n := r.Held(); n != 0 {
		t.Errorf("Held() = %d after every release, want 0", n)
	}
	if n, b := len(r.cache.live), r.cache.bytes; n != 0 || b != 0 {
		t.Errorf("after every release %d batches are still live (%d bytes cached), want none", n, b)
	}
	if _, err := r.ReadCTA(0, 0); err != nil {
		t.Fatal(err)
	}
	if r.cache.decodes != batches+1 {
		t.Errorf("a batch read after its release took %d decodes in all, want %d: it must be decoded anew", r.cache.decodes, batches+1)
	}
}

// Prefetch decodes a CTA's batch in the background into the cache, where a later read
// finds it; out-of-range CTAs and kernels are ignored.
func TestPrefetch(t *testing.T) {
	tr := randomTrace(4)
	r := openBytes(t, tr.write(t))
	r.Prefetch(-1, 0)
	r.Prefetch(0, -1)
	r.Prefetch(len(tr.ctas), 0)
	r.Prefetch(0, r.NumCTAs(0))
	last := r.NumCTAs(0) - 1
	idx := r.first[0] + last/r.group[0]
	r.Prefetch(0, last)
	cached := func() bool {
		r.cache.mu.Lock()
		defer r.cache.mu.Unlock()
		for _, e := range r.cache.entries {
			if e.idx == idx {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(10 * time.Second)
	for !cached() {
		if time.Now().After(deadline) {
			t.Fatalf("batch %d not in the cache 10 s after Prefetch", idx)
		}
		time.Sleep(time.Millisecond)
	}
	ws, err := r.ReadCTA(0, last)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ws {
		sameWarp(t, "after Prefetch", ws[i], tr.ctas[0][last][i])
	}
}

// Warps from ReadCTA are the caller's: appending to one must not change its neighbour.
func TestReadCTAWarpsIndependent(t *testing.T) {
	tr := randomTrace(3)
	r := openBytes(t, tr.write(t))
	ws, err := r.ReadCTA(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) < 2 {
		t.Skip("need two warps")
	}
	next := ws[1].Clone()
	n0 := ws[0].Len()
	ws[0].AppendMem(0, 1, 0, 0, &[32]uint64{7})
	if ws[0].Len() != n0+1 {
		t.Fatalf("Len %d after append, want %d", ws[0].Len(), n0+1)
	}
	sameWarp(t, "neighbour after append", ws[1], next)
}

func TestDeterministic(t *testing.T) {
	tr := randomTrace(5)
	a, b := tr.write(t), tr.write(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes of the same trace differ")
	}
	// Create (temp file, rename) gives the same bytes as the stream writer.
	dir := t.TempDir()
	for _, name := range []string{"x.gtrace", "y.gtrace"} {
		path := filepath.Join(dir, name)
		w, err := Create(path, tr.meta)
		if err != nil {
			t.Fatal(err)
		}
		for k := range tr.ctas {
			for c, ws := range tr.ctas[k] {
				if err := w.WriteCTA(k, c, ws); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, a) {
			t.Fatalf("%s differs from the stream write", name)
		}
		// The trace gets the mode a shell's > gives (0666 less the umask), as a file
		// the test creates with 0666 does, not os.CreateTemp's 0600.
		ref := filepath.Join(dir, name+".ref")
		if err := os.WriteFile(ref, nil, 0o666); err != nil {
			t.Fatal(err)
		}
		fi, err1 := os.Stat(path)
		rfi, err2 := os.Stat(ref)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if fi.Mode().Perm() != rfi.Mode().Perm() {
			t.Errorf("%s has mode %v, want %v (0666 less the umask)", name, fi.Mode().Perm(), rfi.Mode().Perm())
		}
	}
}

func TestCreateLeavesNoPartialFile(t *testing.T) {
	tr := randomTrace(2)
	for _, tc := range []struct {
		name   string
		finish func(*Writer) error
	}{
		{"abort", func(w *Writer) error { w.Abort(); return nil }},
		{"close-missing-cta", func(w *Writer) error { return w.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "t.gtrace")
			w, err := Create(path, tr.meta)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteCTA(0, 0, tr.ctas[0][0]); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("final file exists before Close: %v", err)
			}
			err = tc.finish(w)
			if tc.name == "close-missing-cta" {
				var we *WriteError
				if !errors.As(err, &we) {
					t.Fatalf("Close with a missing CTA: %v, want *WriteError", err)
				}
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 0 {
				t.Fatalf("directory not empty after %s: %v", tc.name, ents)
			}
		})
	}
}

func TestWriterRejects(t *testing.T) {
	mk := func() (*Writer, []*Warp) {
		meta := Meta{Launches: []Launch{loopLaunch("k", 2, 2)}}
		w, err := NewWriter(&bytes.Buffer{}, meta)
		if err != nil {
			t.Fatal(err)
		}
		ws := []*Warp{{Kernel: 0, CTA: 0, Warp: 0}, {Kernel: 0, CTA: 0, Warp: 1}}
		ws[0].Append(1, 0xFFFFFFFF, 0, 0)
		return w, ws
	}
	for _, tc := range []struct {
		name string
		edit func(w *Writer, ws []*Warp) error
	}{
		{"cta-out-of-order", func(w *Writer, ws []*Warp) error { return w.WriteCTA(0, 1, ws) }},
		{"no-such-kernel", func(w *Writer, ws []*Warp) error { return w.WriteCTA(1, 0, ws) }},
		{"too-few-warps", func(w *Writer, ws []*Warp) error { return w.WriteCTA(0, 0, ws[:1]) }},
		{"warp-field", func(w *Writer, ws []*Warp) error { ws[1].Warp = 0; return w.WriteCTA(0, 0, ws) }},
		{"cta-field", func(w *Writer, ws []*Warp) error { ws[1].CTA = 1; return w.WriteCTA(0, 0, ws) }},
		{"nil-warp", func(w *Writer, ws []*Warp) error { ws[1] = nil; return w.WriteCTA(0, 0, ws) }},
		{"pc-outside-program", func(w *Writer, ws []*Warp) error { ws[0].PC[0] = 8; return w.WriteCTA(0, 0, ws) }},
		{"short-column", func(w *Writer, ws []*Warp) error { ws[0].Mask = nil; return w.WriteCTA(0, 0, ws) }},
		{"deltas-vs-mask", func(w *Writer, ws []*Warp) error {
			ws[0].Mode[0] = AddrDeltas
			return w.WriteCTA(0, 0, ws)
		}},
		{"undefined-flag", func(w *Writer, ws []*Warp) error { ws[0].Flags[0] = 1 << 7; return w.WriteCTA(0, 0, ws) }},
		{"oob-flag-without-oob-warn", func(w *Writer, ws []*Warp) error { ws[0].Flags[0] = FlagOOB; return w.WriteCTA(0, 0, ws) }},
		{"wide-stride-not-stride-row", func(w *Writer, ws []*Warp) error {
			ws[0].Stride[0] = 1 << 40
			return w.WriteCTA(0, 0, ws)
		}},
		{"twice", func(w *Writer, ws []*Warp) error {
			if err := w.WriteCTA(0, 0, ws); err != nil {
				return nil // the first must succeed; fail the test below by returning nil
			}
			return w.WriteCTA(0, 0, ws)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ws := mk()
			var we *WriteError
			if err := tc.edit(w, ws); !errors.As(err, &we) {
				t.Fatalf("got %v, want a *WriteError", err)
			}
		})
	}
}

// The stride column is 32 bits. AppendMem encodes a wider stride as deltas, and the
// writer stores a hand-built AddrStride row with one as AddrDeltas: the addresses survive
// either way, and a stride that fits keeps its mode.
func TestWideStride(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mask      uint32
		stride    int64
		viaAppend bool
		wantMode  AddrMode
	}{
		{"append-mem", 0xFFFFFFFF, 1 << 33, true, AddrDeltas},
		{"append-mem-int32-min", 0xFFFFFFFF, math.MinInt32, true, AddrStride},
		{"hand-built", 0xFFFFFFFF, 1 << 33, false, AddrDeltas},
		{"hand-built-sparse-negative", 0xA0A00A0A, -(1 << 40), false, AddrDeltas},
		{"hand-built-one-lane", 1 << 7, 1 << 35, false, AddrDeltas},
		{"hand-built-no-lane", 0, 1 << 35, false, AddrStride},
		{"hand-built-int32-max", 0xFFFF0000, math.MaxInt32, false, AddrStride},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const base = 0x7000_0000_0000
			var lanes [32]uint64
			for l := range lanes {
				lanes[l] = base + uint64(tc.stride*int64(l))
			}
			wp := &Warp{}
			if tc.viaAppend {
				wp.AppendMem(0, tc.mask, 0, 0, &lanes)
			} else {
				wp.appendRow(0, tc.mask, 0, 0, AddrStride, base, tc.stride)
			}
			wp.Append(1, tc.mask, 0, 0)
			tr := &trace{meta: Meta{Launches: []Launch{loopLaunch("k", 1, 1)}}, ctas: [][][]*Warp{{{wp}}}}
			got, err := openBytes(t, tr.write(t)).ReadWarp(0, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode[0] != tc.wantMode {
				t.Errorf("mode %d, want %d", got.Mode[0], tc.wantMode)
			}
			var want [32]uint64
			if m := got.LaneAddrs(0, &want); m != tc.mask {
				t.Errorf("mask %#x, want %#x", m, tc.mask)
			}
			for m := tc.mask; m != 0; m &= m - 1 {
				if l := bits.TrailingZeros32(m); want[l] != lanes[l] {
					t.Errorf("lane %d: %#x, want %#x", l, want[l], lanes[l])
				}
			}
			if tc.wantMode == AddrStride && tc.mask != 0 && got.Stride[0] != tc.stride {
				t.Errorf("stride %d, want %d", got.Stride[0], tc.stride)
			}
		})
	}
}

// A launch's block may hold up to 256 warps, the range of the 8-bit warp column.
func TestBlockLimit(t *testing.T) {
	for _, tc := range []struct {
		threads uint32
		ok      bool
	}{{1, true}, {1024, true}, {8192, true}, {8193, false}, {0, false}} {
		_, err := NewWriter(&bytes.Buffer{}, Meta{Launches: []Launch{{Kernel: "k", Grid: Dim3{1, 1, 1}, Block: Dim3{tc.threads, 1, 1}}}})
		if (err == nil) != tc.ok {
			t.Errorf("block of %d threads: err %v, want ok=%v", tc.threads, err, tc.ok)
		}
	}
}

// Every proper prefix of a valid file is a typed truncation error, never a panic and
// never a file that opens.
func TestTruncated(t *testing.T) {
	b := randomTrace(4).write(t)
	step := max(1, len(b)/400)
	for cut := 0; cut < len(b); cut += step {
		_, err := NewReader(bytes.NewReader(b[:cut]), int64(cut))
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut at %d of %d: %v, want ErrTruncated", cut, len(b), err)
		}
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Offset < 0 {
			t.Fatalf("cut at %d: %v carries no offset", cut, err)
		}
	}
}

func TestNotArrow(t *testing.T) {
	for _, in := range [][]byte{[]byte("PAR1 this is parquet....PAR1"), []byte("hello world, not a trace at all"), {0xFF}} {
		_, err := NewReader(bytes.NewReader(in), int64(len(in)))
		if !errors.Is(err, ErrNotArrow) {
			t.Fatalf("%q: %v, want ErrNotArrow", in, err)
		}
	}
}

// writeRawSchema writes an Arrow file with zero batches and the given schema.
func writeRawSchema(t *testing.T, s *arrow.Schema) []byte {
	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&posWriter{w: &buf}, ipc.WithSchema(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestVersionAndSchemaRejected(t *testing.T) {
	js, err := encodeMeta(&Meta{})
	if err != nil {
		t.Fatal(err)
	}
	good := arrowSchema(js)
	withMeta := func(keys, vals []string) *arrow.Schema {
		md := arrow.NewMetadata(keys, vals)
		return arrow.NewSchema(good.Fields(), &md)
	}
	pcInt64 := good.Fields()
	pcInt64[colPC].Type = arrow.PrimitiveTypes.Int64
	md := good.Metadata()

	t.Run("ok", func(t *testing.T) {
		if _, err := NewReader(bytes.NewReader(writeRawSchema(t, good)), int64(len(writeRawSchema(t, good)))); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct {
		name    string
		schema  *arrow.Schema
		version string
		field   string
	}{
		{"version-4", withMeta([]string{KeyVersion, KeyMeta}, []string{"4", string(js)}), "4", ""},
		{"no-version", withMeta([]string{KeyMeta}, []string{string(js)}), "", ""},
		{"pc-int64", arrow.NewSchema(pcInt64, &md), "", "pc"},
		{"fewer-columns", arrow.NewSchema(good.Fields()[:3], &md), "", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := writeRawSchema(t, tc.schema)
			_, err := NewReader(bytes.NewReader(b), int64(len(b)))
			var ve *VersionError
			var se *SchemaError
			switch {
			case tc.field == "":
				if !errors.As(err, &ve) || ve.Got != tc.version {
					t.Fatalf("%v, want VersionError{Got: %q}", err, tc.version)
				}
			case tc.field == "-":
				if !errors.As(err, &se) || se.Field != "" {
					t.Fatalf("%v, want a column-count SchemaError", err)
				}
			default:
				if !errors.As(err, &se) || se.Field != tc.field {
					t.Fatalf("%v, want SchemaError on %s", err, tc.field)
				}
			}
		})
	}
}

// Flipping bytes anywhere in a file gives a typed error or a file that still reads;
// never a panic. The zstd frames carry checksums, so damage inside one is caught.
func TestCorruptBytes(t *testing.T) {
	b := randomTrace(6).write(t)
	step := max(1, len(b)/300)
	sawZstd := false
	for off := 8; off < len(b); off += step {
		c := bytes.Clone(b)
		c[off] ^= 0x5A
		err := readEverything(c)
		if err == nil {
			continue
		}
		if !typedReadError(err) {
			t.Fatalf("flip at %d: untyped error %v", off, err)
		}
		sawZstd = sawZstd || errors.Is(err, ErrCorruptZstd)
	}
	if !sawZstd {
		t.Fatal("no flip was reported as ErrCorruptZstd")
	}
}

// readEverything opens b and reads every warp every way the API allows.
func readEverything(b []byte) error {
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	var addrs []uint64
	for w, err := range r.All() {
		if err != nil {
			return err
		}
		for i := 0; i < w.Len(); i++ {
			addrs = w.Addrs(i, addrs[:0])
			_ = w.TexCoords(i)
		}
	}
	for k := range r.Meta().Launches {
		for c := 0; c < r.NumCTAs(k); c++ {
			if _, err := r.ReadCTA(k, c); err != nil {
				return err
			}
		}
	}
	if _, err := Summarize(r); err != nil {
		return err
	}
	return nil
}

// Goroutines reading at random, in order and interleaved, get the same warps: the batch
// cache hands out, evicts and waits for decodes correctly (run with -race).
func TestConcurrentReads(t *testing.T) {
	tr := randomTrace(8)
	tr.addGrouped(1, 2600) // 11 batches of 256 CTAs: more than the cache holds
	r := openBytes(t, tr.write(t))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			const random, ctas = 200, 2600
			for i := 0; i < random+ctas/8; i++ {
				k := rng.IntN(len(tr.ctas))
				c := rng.IntN(len(tr.ctas[k]))
				if i >= random { // replay's pattern: CTAs in order, goroutines interleaved
					k, c = len(tr.ctas)-1, (i-random)*8+g
				}
				ws, err := r.ReadCTA(k, c)
				if err != nil {
					errs <- err
					return
				}
				for j := range ws {
					if !reflect.DeepEqual(ws[j].Clone(), tr.ctas[k][c][j].Clone()) {
						errs <- fmt.Errorf("goroutine %d: kernel %d cta %d warp %d differs", g, k, c, j)
						return
					}
				}
			}
			for w, err := range r.All() {
				if err != nil {
					errs <- err
					return
				}
				if !reflect.DeepEqual(w.Clone(), tr.ctas[w.Kernel][w.CTA][w.Warp].Clone()) {
					errs <- fmt.Errorf("goroutine %d: All differs at %d/%d/%d", g, w.Kernel, w.CTA, w.Warp)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// The file is plain Arrow: arrow's own reader sees one batch per ctas_per_batch CTAs,
// with the columns doc.go describes.
func TestReadableByArrow(t *testing.T) {
	tr := randomTrace(9)
	tr.addGrouped(24, 21) // 11 CTAs a batch: 2 batches
	b := tr.write(t)
	fr, err := ipc.NewFileReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	batch := 0
	for k := range tr.ctas {
		g := ctasPerBatch(&tr.meta.Launches[k])
		for c0 := 0; c0 < len(tr.ctas[k]); c0 += g {
			rec, err := fr.Record(batch)
			if err != nil {
				t.Fatal(err)
			}
			ctaCol := rec.Column(colCTA).(*array.Uint8).Uint8Values()
			warpCol := rec.Column(colWarp).(*array.Uint8).Uint8Values()
			pcs := rec.Column(colPC).(*array.Uint32).Uint32Values()
			i := 0
			for c := c0; c < min(c0+g, len(tr.ctas[k])); c++ {
				for _, w := range tr.ctas[k][c] {
					for _, pc := range w.PC {
						if i >= len(pcs) {
							t.Fatalf("batch %d: %d rows, want more", batch, len(pcs))
						}
						if int(ctaCol[i]) != c-c0 || int(warpCol[i]) != w.Warp || pcs[i] != pc {
							t.Fatalf("kernel %d cta %d batch %d row %d: cta %d warp %d pc %d, want %d %d %d",
								k, c, batch, i, ctaCol[i], warpCol[i], pcs[i], c-c0, w.Warp, pc)
						}
						i++
					}
				}
			}
			if int(rec.NumRows()) != i {
				t.Fatalf("batch %d: %d rows, want %d", batch, rec.NumRows(), i)
			}
			batch++
		}
	}
	// Seed 9 makes two launches of 4 and 2 CTAs, one batch each; "grouped" has two.
	if batch != 1+1+2 || fr.NumRecords() != batch {
		t.Fatalf("arrow sees %d batches, the columns %d; want 4", fr.NumRecords(), batch)
	}
}

func TestEmptyTrace(t *testing.T) {
	b := (&trace{meta: Meta{Producer: "p"}}).write(t)
	r := openBytes(t, b)
	for _, err := range r.All() {
		t.Fatal("yielded from an empty trace", err)
	}
	if r.Meta().Producer != "p" {
		t.Fatalf("producer %q", r.Meta().Producer)
	}
}

// groupedTrace is one launch of ctas CTAs of wpc warps (see addGrouped).
func groupedTrace(wpc, ctas int) *trace {
	t := &trace{meta: Meta{Producer: "grouped"}}
	t.addGrouped(wpc, ctas)
	return t
}

// addGrouped appends a launch of ctas CTAs of wpc warps, CTA c running c mod 4
// iterations of the loop body in shape c mod len(shapes), so that CTAs differ.
func (t *trace) addGrouped(wpc, ctas int) {
	k := len(t.ctas)
	t.meta.Launches = append(t.meta.Launches, loopLaunch(fmt.Sprintf("g%d", k), ctas, wpc))
	rng := rand.New(rand.NewPCG(uint64(wpc), uint64(ctas)))
	cs := make([][]*Warp, ctas)
	for c := range cs {
		cs[c] = make([]*Warp, wpc)
		for w := range cs[c] {
			cs[c][w] = &Warp{}
		}
		loopCTA(shapes[c%len(shapes)], k, c, ctas, cs[c], c%4, rng)
	}
	t.ctas = append(t.ctas, cs)
}

// countingReaderAt counts ReadAt calls: a reader reads each batch with one.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(1)
	return c.r.ReadAt(p, off)
}

// Consecutive CTAs share a batch of at least 256 warps (at most 256 CTAs), and reading
// a launch's CTAs in order decodes each batch once.
func TestBatchGroups(t *testing.T) {
	for _, tc := range []struct {
		wpc, ctas     int
		group, frames int // CTAs per batch, batches
	}{
		{1, 600, 256, 3},
		{8, 70, 32, 3},
		{24, 21, 11, 2},
		{32, 17, 8, 3},
		{33, 5, 8, 1},
		{256, 3, 1, 3},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.ctas, tc.wpc), func(t *testing.T) {
			tr := groupedTrace(tc.wpc, tc.ctas)
			if g := ctasPerBatch(&tr.meta.Launches[0]); g != tc.group {
				t.Fatalf("ctasPerBatch = %d, want %d", g, tc.group)
			}
			b := tr.write(t)
			cr := &countingReaderAt{r: bytes.NewReader(b)}
			r, err := NewReader(cr, int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.blocks); n != tc.frames {
				t.Fatalf("%d batches, want %d", n, tc.frames)
			}
			opened := cr.n.Load()
			for c := range tc.ctas {
				ws, err := r.ReadCTA(0, c)
				if err != nil {
					t.Fatal(err)
				}
				for w := range ws {
					sameWarp(t, fmt.Sprintf("ReadCTA(0,%d)", c), ws[w], tr.ctas[0][c][w])
				}
			}
			if reads := cr.n.Load() - opened; reads != int64(tc.frames) {
				t.Errorf("reading the CTAs in order read %d batches, want %d", reads, tc.frames)
			}
			for c := tc.ctas - 1; c >= 0; c -= 3 {
				w := c % tc.wpc
				got, err := r.ReadWarp(0, c, w)
				if err != nil {
					t.Fatal(err)
				}
				sameWarp(t, fmt.Sprintf("ReadWarp(0,%d,%d)", c, w), got, tr.ctas[0][c][w])
			}
			if _, err := r.ReadCTA(0, tc.ctas); err == nil {
				t.Errorf("ReadCTA past the last CTA succeeded")
			}
			if _, err := r.ReadWarp(0, 0, tc.wpc); err == nil {
				t.Errorf("ReadWarp past the last warp succeeded")
			}
		})
	}
}

// A CTA the writer rejects leaves the batch it was to join as it was: writing the CTA
// again, correctly, gives the same file as writing it correctly first.
func TestWriterRejectKeepsBatch(t *testing.T) {
	tr := groupedTrace(2, 5)
	want := tr.write(t)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, tr.meta)
	if err != nil {
		t.Fatal(err)
	}
	for c, ws := range tr.ctas[0] {
		if c == 3 {
			bad := []*Warp{ws[0], ws[1].Clone()}
			bad[1].PC[len(bad[1].PC)-1] = 99 // outside the program: found after the rows before it were appended
			var we *WriteError
			if err := w.WriteCTA(0, c, bad); !errors.As(err, &we) {
				t.Fatalf("bad CTA: %v, want *WriteError", err)
			}
		}
		if err := w.WriteCTA(0, c, ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatal("the file differs after a rejected CTA")
	}
}

// The writer refuses a batch the reader would refuse as too large, rather than write a
// file that cannot be read.
func TestWriterBatchLimit(t *testing.T) {
	tr := groupedTrace(8, 4) // one batch; CTA 3 has 3 iterations of 8 rows per warp
	saved := maxBatchBytes
	// CTAs 0-2 hold 8 warps × (0+1+2) iterations × 8 rows = 192 rows; CTA 3 adds 192 more.
	maxBatchBytes = 300 * rowBytes
	defer func() { maxBatchBytes = saved }()
	w, err := NewWriter(&bytes.Buffer{}, tr.meta)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		if err := w.WriteCTA(0, c, tr.ctas[0][c]); err != nil {
			t.Fatalf("CTA %d: %v", c, err)
		}
	}
	var we *WriteError
	if err := w.WriteCTA(0, 3, tr.ctas[0][3]); !errors.As(err, &we) || we.CTA != 3 {
		t.Fatalf("CTA 3: %v, want a *WriteError for cta 3", err)
	}
	if err := w.Close(); !errors.As(err, &we) {
		t.Fatalf("Close after the refused batch: %v, want the *WriteError", err)
	}
}
