package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

// rawTrace is an Arrow file with no batches whose schema metadata holds version, the
// given metadata JSON, and crc (omitted when "").
func rawTrace(t *testing.T, version, metaJSON, crc string) []byte {
	keys, vals := []string{KeyVersion, KeyMeta}, []string{version, metaJSON}
	if crc != "" {
		keys, vals = append(keys, KeyMetaCRC), append(vals, crc)
	}
	md := arrow.NewMetadata(keys, vals)
	fields := arrowSchema(nil).Fields()
	if v, err := parseVersion(version); err == nil {
		fields = fields[:v.columns()] // the columns of that version
	}
	return writeRawSchema(t, arrow.NewSchema(fields, &md))
}

// validMetaJSON is the metadata of a one-launch trace, as the writer encodes it.
func validMetaJSON(t *testing.T) string {
	l := loopLaunch("k", 1, 1)
	l.Textures = []Texture{{Handle: 1, Width: 4, Height: 4, ElemBytes: 4, Layout: "linear"}}
	js, err := encodeMeta(&Meta{Producer: "p", Launches: []Launch{l}})
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// The example: one flipped bit turns "global" into a name no space has. V2's
// checksum catches it; with the checksum recomputed, the name check does, naming the
// field. Either way the trace is refused, where V1 dropped the loads from the counts.
func TestMetaFlipIsCaught(t *testing.T) {
	good := validMetaJSON(t)
	bad := strings.Replace(good, `"space":"global"`, `"space":"globam"`, 1)
	if bad == good {
		t.Fatal("no global load in the metadata")
	}
	open := func(b []byte) error {
		_, err := NewReader(bytes.NewReader(b), int64(len(b)))
		return err
	}
	// rawTrace writes no batches, so valid metadata gets as far as the batch count.
	if err := open(rawTrace(t, "2", good, metaCRC([]byte(good)))); err == nil || !strings.Contains(err.Error(), "footer lists 0 record batches") {
		t.Fatalf("valid metadata: %v, want it accepted and the missing batch found", err)
	}
	if err := open(rawTrace(t, "2", bad, metaCRC([]byte(good)))); !errors.Is(err, ErrChecksum) {
		t.Errorf("flipped metadata under the old checksum: %v, want ErrChecksum", err)
	}
	if err := open(rawTrace(t, "2", good, "")); !errors.Is(err, ErrChecksum) {
		t.Errorf("V2 without a checksum: %v, want ErrChecksum", err)
	}
	var me *MetaError
	if err := open(rawTrace(t, "2", bad, metaCRC([]byte(bad)))); !errors.As(err, &me) || me.Field != "space" || me.PC != 0 {
		t.Errorf("unknown space under a matching checksum: %v, want a MetaError on pc 0's space", err)
	}
	// V1 has no checksum: the name check alone stands between the flip and replay.
	if err := open(rawTrace(t, "1", bad, "")); !errors.As(err, &me) || me.Field != "space" {
		t.Errorf("V1 with an unknown space: %v, want a MetaError on space", err)
	}
}

// Metadata that names only known things but contradicts itself is refused by the writer
// and by the reader, with the field named.
func TestMetaContradictions(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(l *Launch)
	}{
		{"grid", func(l *Launch) { l.Grid.Y = 0 }},
		{"block", func(l *Launch) { l.Block.Z = 0 }},
		{"dyn_shared_bytes", func(l *Launch) { l.DynSharedBytes = l.SharedBytes + 1 }},
		{"entry_insts", func(l *Launch) { l.Program.EntryInsts = uint32(len(l.Program.Insts) + 1) }},
		{"textures[0].elem_bytes", func(l *Launch) { l.Textures[0].ElemBytes = 3 }},
		{"textures[1].handle", func(l *Launch) { l.Textures = append(l.Textures, l.Textures[0]) }},
		{"space", func(l *Launch) { l.Program.Insts[0].Space = SpaceNone }},    // a load with no space
		{"space", func(l *Launch) { l.Program.Insts[0].Space = SpaceTexture }}, // ld from the texture space
		{"space", func(l *Launch) { l.Program.Insts[1].Space = SpaceGlobal }},  // an add with a space
		{"class", func(l *Launch) { l.Program.Insts[0].Class = ClassALU }},     // a load that is not memory
		{"width", func(l *Launch) { l.Program.Insts[0].Width = 3 }},            // 3 bytes a lane
		{"width", func(l *Launch) { l.Program.Insts[1].Width = 4 }},            // an add that moves bytes
		{"memop", func(l *Launch) { l.Program.Insts[0].MemOp = numMemOps }},    // out of range
		{"target", func(l *Launch) { l.Program.Insts[1].Target = 1 }},          // an add that branches
		{"target", func(l *Launch) { l.Program.Insts[7].Target = 9 }},          // past the 8 instructions
	} {
		t.Run(tc.field, func(t *testing.T) {
			l := loopLaunch("k", 1, 1)
			l.Textures = []Texture{{Handle: 1, Width: 4, Height: 4, ElemBytes: 4, Layout: "linear"}}
			tc.edit(&l)
			m := &Meta{Producer: "p", Launches: []Launch{l}}
			_, err := encodeMeta(m)
			var me *MetaError
			if !errors.As(err, &me) || !strings.Contains(me.Field, tc.field) {
				t.Fatalf("writer: %v, want a MetaError on %s", err, tc.field)
			}
			if tc.field == "memop" {
				return // an out-of-range enum has no name to write
			}
			// The reader meets the same metadata through JSON the writer would not write.
			js := encodeUnchecked(m)
			b := rawTrace(t, "2", js, metaCRC([]byte(js)))
			_, err = NewReader(bytes.NewReader(b), int64(len(b)))
			if !errors.As(err, &me) || !strings.Contains(me.Field, tc.field) {
				t.Fatalf("reader: %v, want a MetaError on %s", err, tc.field)
			}
		})
	}
}

// encodeUnchecked is the JSON a buggy or hostile writer would produce for m: its first
// launch written field by field, with no check.
func encodeUnchecked(m *Meta) string {
	return `{"producer":` + strconv.Quote(m.Producer) + `,"launches":[` + wireLaunchOf(&m.Launches[0]) + `]}`
}

func wireLaunchOf(l *Launch) string {
	b := strings.Builder{}
	b.WriteString(`{"kernel":` + strconv.Quote(l.Kernel))
	b.WriteString(`,"grid":[` + u32s(l.Grid.X, l.Grid.Y, l.Grid.Z) + `],"block":[` + u32s(l.Block.X, l.Block.Y, l.Block.Z) + `]`)
	b.WriteString(`,"shared_bytes":` + u32s(l.SharedBytes) + `,"dyn_shared_bytes":` + u32s(l.DynSharedBytes))
	b.WriteString(`,"simt":"stack","ctas_per_batch":1,"textures":[`)
	for j, tx := range l.Textures {
		if j > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"handle":` + strconv.FormatUint(tx.Handle, 10) + `,"width":` + u32s(tx.Width) + `,"height":` + u32s(tx.Height) + `,"elem_bytes":` + u32s(tx.ElemBytes) + `}`)
	}
	b.WriteString(`],"entry_insts":` + u32s(l.Program.EntryInsts) + `,"program":[`)
	for i, in := range l.Program.Insts {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"op":"x","class":"` + in.Class.String() + `","width":` + strconv.Itoa(int(in.Width)))
		if in.Space != SpaceNone {
			b.WriteString(`,"space":"` + in.Space.String() + `"`)
		}
		if in.MemOp != MemNone {
			b.WriteString(`,"memop":"` + in.MemOp.String() + `"`)
		}
		if in.Target != 0 {
			b.WriteString(`,"target":` + u32s(in.Target))
		}
		b.WriteString(`}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

func u32s(v ...uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, ",")
}

// A V1 trace (testdata/v1-loop.gtrace, written before V2) still reads, as V1, and
// unchecked; its warps are those the V2 writer stores for the same trace.
func TestReadsV1Unchecked(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v1-loop.gtrace"))
	if err != nil {
		t.Fatal(err)
	}
	old := openBytes(t, b)
	if v := old.Meta().Version; v != V1 || v.Checked() {
		t.Fatalf("version %d, checked %v; want 1, unchecked", v, v.Checked())
	}
	cur := openBytes(t, benchTraceSmall().write(t))
	if v := cur.Meta().Version; v != CurrentVersion || !v.Checked() {
		t.Fatalf("new trace: version %d, checked %v", v, v.Checked())
	}
	var want []*Warp
	for w, err := range cur.All() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, w.Clone())
	}
	i := 0
	for w, err := range old.All() {
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Fatalf("V1 trace has more than %d warps", len(want))
		}
		sameWarp(t, "v1", w, want[i])
		i++
	}
	if i != len(want) || i == 0 {
		t.Fatalf("V1 trace has %d warps, want %d", i, len(want))
	}
}

// TestFLOPsPerInstruction: the FLOPs one lane adds, as ncu's roofline counts them.
func TestFLOPsPerInstruction(t *testing.T) {
	for _, tc := range []struct {
		op    string
		flops int
		fp64  bool
	}{
		{"fma.rn.f32", 2, false}, {"fma.rn.ftz.sat.f32", 2, false}, {"mad.f32", 2, false}, {"fma.rn.f64", 2, true},
		{"add.f32", 1, false}, {"sub.rn.f32", 1, false}, {"mul.rn.f64", 1, true}, {"add.rn.ftz.f32", 1, false},
		{"mad.lo.s32", 0, false}, {"add.s64", 0, false}, {"fma.rn.f16", 0, false}, {"add.f16x2", 0, false},
		{"div.rn.f32", 0, false}, {"sqrt.rn.f32", 0, false}, {"min.f32", 0, false}, {"ld.global.f32", 0, false},
		{"mul.wide.s32", 0, false}, {"ret", 0, false},
	} {
		f, fp64 := (&Inst{Opcode: tc.op}).FLOPs()
		if f != tc.flops || fp64 != tc.fp64 {
			t.Errorf("%s: %d FLOPs (fp64 %v), want %d (%v)", tc.op, f, fp64, tc.flops, tc.fp64)
		}
	}
}

// A program's copies round-trip through the metadata in order, and copies that
// contradict themselves or the launches are refused by the writer and the reader,
// the field named.
func TestMetaTransfers(t *testing.T) {
	l := loopLaunch("k", 1, 1)
	want := []Transfer{
		{Call: "cudaMemcpy", Kind: HostToDevice, Bytes: 4000, After: 0},
		{Call: "cudaMemcpyAsync", Kind: DeviceToHost, Bytes: 4000, Pinned: true, Stream: 7, After: 1},
		{Call: "cudaMemcpyToSymbol", Kind: DeviceToDevice, Bytes: 64, After: 1},
	}
	js, err := encodeMeta(&Meta{Producer: "p", Launches: []Launch{l}, Transfers: want})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := decodeMeta(js, V2)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Transfers) != len(want) {
		t.Fatalf("read %d transfers, wrote %d", len(m.Transfers), len(want))
	}
	for i := range want {
		if m.Transfers[i] != want[i] {
			t.Errorf("transfer %d: read %+v, wrote %+v", i, m.Transfers[i], want[i])
		}
	}
	if js, _ := encodeMeta(&Meta{Producer: "p", Launches: []Launch{l}}); strings.Contains(string(js), "transfers") {
		t.Errorf("a trace with no copies writes a transfers key: %s", js)
	}
	for _, tc := range []struct {
		field string
		edit  func(ts []Transfer)
	}{
		{"transfers[0].kind", func(ts []Transfer) { ts[0].Kind = numTransferKinds }},
		{"transfers[2].after", func(ts []Transfer) { ts[2].After = 0 }}, // before the copy ahead of it
		{"transfers[1].after", func(ts []Transfer) { ts[1].After = 2 }}, // past the one launch
		{"transfers[0].after", func(ts []Transfer) { ts[0].After = -1 }},
		{"transfers[2].pinned", func(ts []Transfer) { ts[2].Pinned = true }},
		{"transfers[1].call", func(ts []Transfer) { ts[1].Call = "" }},
	} {
		ts := slices.Clone(want)
		tc.edit(ts)
		_, err := encodeMeta(&Meta{Producer: "p", Launches: []Launch{l}, Transfers: ts})
		var me *MetaError
		if !errors.As(err, &me) || me.Field != tc.field {
			t.Errorf("writer, %s: %v, want a MetaError on it", tc.field, err)
		}
	}
	// The reader checks the same; a kind with no name is an unknown name.
	for field, edit := range map[string][2]string{
		"transfers[1].kind":  {`"kind":"d2h"`, `"kind":"d2x"`},
		"transfers[0].after": {`"after":0`, `"after":3`},
	} {
		bad := strings.Replace(string(js), edit[0], edit[1], 1)
		_, _, err := decodeMeta([]byte(bad), V2)
		var me *MetaError
		if bad == string(js) || !errors.As(err, &me) || me.Field != field {
			t.Errorf("reader, %s: %v, want a MetaError on it", field, err)
		}
	}
}

// A program's syncs and its launches' streams round-trip through the metadata, and
// syncs out of the program's order, or naming what their call does not take, are
// refused by the writer and the reader, the field named.
func TestMetaSyncs(t *testing.T) {
	l0, l1 := loopLaunch("k", 1, 1), loopLaunch("k", 1, 1)
	l1.Stream = 0x51000010
	transfers := []Transfer{
		{Call: "cudaMemcpyAsync", Kind: HostToDevice, Bytes: 4000, Stream: 0x51000010, After: 0},
		{Call: "cudaMemcpy", Kind: DeviceToHost, Bytes: 4000, After: 2},
	}
	want := []Sync{
		{Call: StreamNonBlocking, Stream: 0x51000010},
		{Call: EventRecord, Stream: 0x51000010, Event: 0x5e000010, Copies: 1},
		{Call: StreamWaitEvent, Event: 0x5e000010, After: 1, Copies: 1},
		{Call: StreamSynchronize, Stream: 0x51000010, After: 2, Copies: 1},
		{Call: EventSynchronize, Event: 0x5e000010, After: 2, Copies: 2},
		{Call: DeviceSynchronize, After: 2, Copies: 2},
	}
	meta := func(ys []Sync) *Meta {
		return &Meta{Producer: "p", Launches: []Launch{l0, l1}, Transfers: transfers, Syncs: ys}
	}
	js, err := encodeMeta(meta(want))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := decodeMeta(js, V2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Syncs, want) {
		t.Errorf("read syncs %+v, wrote %+v", m.Syncs, want)
	}
	if m.Launches[0].Stream != 0 || m.Launches[1].Stream != l1.Stream {
		t.Errorf("read launch streams %#x, %#x, wrote 0, %#x", m.Launches[0].Stream, m.Launches[1].Stream, l1.Stream)
	}
	if js, _ := encodeMeta(&Meta{Producer: "p", Launches: []Launch{l0}}); strings.Contains(string(js), "syncs") || strings.Contains(string(js), "stream") {
		t.Errorf("a trace with no syncs on the default stream writes syncs or stream keys: %s", js)
	}
	for _, tc := range []struct {
		field string
		edit  func(ys []Sync)
	}{
		{"syncs[0].call", func(ys []Sync) { ys[0].Call = numSyncCalls }},
		{"syncs[2].after", func(ys []Sync) { ys[2].After = 3 }},   // past the two launches
		{"syncs[3].after", func(ys []Sync) { ys[3].After = 0 }},   // before the sync ahead of it
		{"syncs[1].copies", func(ys []Sync) { ys[1].Copies = 3 }}, // past the two copies
		{"syncs[4].copies", func(ys []Sync) { ys[4].Copies = 0 }}, // before the sync ahead of it
		{"syncs[2].copies", func(ys []Sync) { ys[2].Copies = 2 }}, // copy 1 came after 2 launches, this sync after 1
		{"syncs[0].copies", func(ys []Sync) { ys[0].After = 1 }},  // copy 0, after it, came before launch 1
		{"syncs[1].event", func(ys []Sync) { ys[1].Event = 0 }},   // a record names its event
		{"syncs[5].event", func(ys []Sync) { ys[5].Event = 1 }},   // a device synchronize names none
		{"syncs[4].stream", func(ys []Sync) { ys[4].Stream = 7 }}, // an event synchronize names no stream
		{"syncs[0].stream", func(ys []Sync) { ys[0].Stream = 0 }}, // the default stream is not created
	} {
		ys := slices.Clone(want)
		tc.edit(ys)
		_, err := encodeMeta(meta(ys))
		var me *MetaError
		if !errors.As(err, &me) || me.Field != tc.field {
			t.Errorf("writer, %s: %v, want a MetaError on it", tc.field, err)
		}
	}
	bad := strings.Replace(string(js), `"call":"cudaDeviceSynchronize"`, `"call":"cudaDeviceReset"`, 1)
	var me *MetaError
	if _, _, err := decodeMeta([]byte(bad), V2); bad == string(js) || !errors.As(err, &me) || me.Field != "syncs[5].call" {
		t.Errorf("reader, an unknown call: %v, want a MetaError on syncs[5].call", err)
	}
}
