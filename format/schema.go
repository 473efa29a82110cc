package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
)

// Schema metadata keys of a trace.
const (
	// KeyVersion holds the format version as a decimal string ("2").
	KeyVersion = "gtrace.format.version"
	// KeyMetaCRC holds the CRC-32C of KeyMeta's value (see metaCRC); V2 and later.
	KeyMetaCRC = "gtrace.meta.crc32c"
	// KeyMeta holds the producer, the launches and their program tables as JSON (see
	// wireMeta). JSON, not a binary blob, so that a pyarrow user can read it with
	// json.loads(schema.metadata[b"gtrace.meta"]).
	KeyMeta = "gtrace.meta"
)

// Column indexes of the v1 record batch schema. Each row is one warp-instruction.
const (
	colCTA    = iota // uint8: CTA index within the batch (linear CTA id minus the batch's first)
	colWarp          // uint8: warp index within the CTA; rows are sorted by cta, warp, then issue order
	colPC            // uint32: index into the kernel's program table
	colMask          // uint32: active lanes
	colPath          // uint16: divergence path id
	colInfo          // uint8: Flags in bits 0..5, AddrMode in bits 6..7
	colBase          // uint64: Base minus the Base of the previous row with the same pc in this warp (wrapping)
	colStride        // int32: Stride (AddrStride rows; 0 otherwise)
	colDeltas        // list<int64>: Deltas of the row (AddrDeltas rows; empty otherwise)
	colCoords        // list<int32>: two per active lane (texel x,y; a cp.async's destination and bytes)
	colWindow        // uint32 (V3): the batch's row window within its CTAs' warps (see Windows in doc.go)
	numCols
)

// numColsV2 is the columns of a V1 or V2 batch: all but window.
const numColsV2 = colWindow

const (
	infoModeShift = 6
	infoFlagsMask = 1<<infoModeShift - 1
)

// colSpec is what the reader expects of a column: an integer of width bytes, or a list of
// such integers.
type colSpec struct {
	name   string
	width  int
	signed bool
	list   bool
}

var colSpecs = [numCols]colSpec{
	{"cta", 1, false, false},
	{"warp", 1, false, false},
	{"pc", 4, false, false},
	{"mask", 4, false, false},
	{"path", 2, false, false},
	{"info", 1, false, false},
	{"base", 8, false, false},
	{"stride", 4, true, false},
	{"deltas", 8, true, true},
	{"coords", 4, true, true},
	{"window", 4, false, false},
}

func (c colSpec) typeName() string {
	s := fmt.Sprintf("int%d", c.width*8)
	if !c.signed {
		s = "u" + s
	}
	if c.list {
		s = "list<" + s + ">"
	}
	return s
}

func intType(width int, signed bool) arrow.DataType {
	switch {
	case width == 1 && !signed:
		return arrow.PrimitiveTypes.Uint8
	case width == 2 && !signed:
		return arrow.PrimitiveTypes.Uint16
	case width == 4 && !signed:
		return arrow.PrimitiveTypes.Uint32
	case width == 4 && signed:
		return arrow.PrimitiveTypes.Int32
	case width == 8 && !signed:
		return arrow.PrimitiveTypes.Uint64
	case width == 8 && signed:
		return arrow.PrimitiveTypes.Int64
	}
	panic("format: no such column type") // unreachable: colSpecs is fixed
}

func arrowType(c colSpec) arrow.DataType {
	t := intType(c.width, c.signed)
	if c.list {
		return arrow.ListOfNonNullable(t)
	}
	return t
}

// arrowSchema builds the Arrow schema carrying meta in its metadata.
func arrowSchema(metaJSON []byte) *arrow.Schema {
	fields := make([]arrow.Field, numCols)
	for i, c := range colSpecs {
		fields[i] = arrow.Field{Name: c.name, Type: arrowType(c)}
	}
	md := arrow.NewMetadata(
		[]string{KeyVersion, KeyMeta, KeyMetaCRC},
		[]string{strconv.Itoa(int(CurrentVersion)), string(metaJSON), metaCRC(metaJSON)},
	)
	return arrow.NewSchema(fields, &md)
}

// The JSON form of Meta. Enums are written by name so that the file stays readable if an
// enum grows, and so that a Python user sees "global", not 1. A program table row's pc is
// its index in "program".
type wireMeta struct {
	Producer  string         `json:"producer"`
	Launches  []wireLaunch   `json:"launches"`
	Transfers []wireTransfer `json:"transfers,omitempty"`
	Syncs     []wireSync     `json:"syncs,omitempty"`
}

type wireSync struct {
	Call   string `json:"call"`
	Stream uint64 `json:"stream,omitempty"`
	Event  uint64 `json:"event,omitempty"`
	After  int    `json:"after"`
	Copies int    `json:"copies"`
}

type wireTransfer struct {
	Call   string `json:"call"`
	Kind   string `json:"kind"`
	Bytes  uint64 `json:"bytes"`
	Pinned bool   `json:"pinned,omitempty"`
	Stream uint64 `json:"stream,omitempty"`
	After  int    `json:"after"`
}

type wireLaunch struct {
	Kernel         string        `json:"kernel"`
	Grid           [3]uint32     `json:"grid"`
	Block          [3]uint32     `json:"block"`
	SharedBytes    uint32        `json:"shared_bytes"`
	DynSharedBytes uint32        `json:"dyn_shared_bytes"`
	RegsPerThread  uint32        `json:"regs_per_thread"`
	LocalBytes     uint32        `json:"local_bytes,omitempty"`
	SIMT           string        `json:"simt"`
	SourceHash     string        `json:"source_hash"`
	PTXProducer    string        `json:"ptx_producer"`
	OOB            string        `json:"oob,omitempty"` // "warn" under capture --oob=warn; absent = "fault"
	Stream         uint64        `json:"stream,omitempty"`
	CTAsPerBatch   int           `json:"ctas_per_batch"`
	Textures       []wireTexture `json:"textures,omitempty"`
	Program        []wireInst    `json:"program"`
	EntryInsts     uint32        `json:"entry_insts,omitempty"`
}

type wireTexture struct {
	Handle    uint64 `json:"handle"`
	Name      string `json:"name,omitempty"`
	Base      uint64 `json:"base"`
	Width     uint32 `json:"width"`
	Height    uint32 `json:"height"`
	ElemBytes uint32 `json:"elem_bytes"`
	Layout    string `json:"layout"`
}

type wireInst struct {
	Opcode      string   `json:"op"`
	Class       string   `json:"class"`
	Space       string   `json:"space,omitempty"`
	MemOp       string   `json:"memop,omitempty"`
	Width       uint8    `json:"width,omitempty"`
	CacheOp     string   `json:"cache,omitempty"`
	RegsRead    []uint16 `json:"rd,omitempty"`
	RegsWritten []uint16 `json:"wr,omitempty"`
	PTX         string   `json:"ptx,omitempty"`
	File        string   `json:"file,omitempty"`
	Line        uint32   `json:"line,omitempty"`
	Target      uint32   `json:"target,omitempty"` // branch target pc + 1
	NoUnroll    bool     `json:"nounroll,omitempty"`
}

// maxWarpsPerCTA bounds a launch's block so that the warp column fits in uint8. CUDA
// allows at most 1024 threads, 32 warps, per block on every compute capability (CUDA C++
// Programming Guide, "Features and Technical Specifications", maximum number of threads
// per block).
const maxWarpsPerCTA = 1 << 8

// maxCTAsPerBatch bounds a batch's CTAs so that the cta column fits in uint8.
const maxCTAsPerBatch = 1 << 8

// minBatchWarps is how many warps the writer puts in a record batch at least (the last
// batch of a launch aside): a batch costs about 1 KB before its rows (flatbuffer
// metadata, and a length prefix and zstd frame header per buffer), which a CTA of a few
// short warps does not amortise. See "Batches" in doc.go.
const minBatchWarps = 256

// ctasPerBatch is the writer's rule for how many consecutive CTAs of launch l share a
// record batch. It depends on the launch alone, so a CTA's batch is arithmetic; the
// writer records it in the metadata as ctas_per_batch, and the reader uses that.
func ctasPerBatch(l *Launch) int {
	wpc := l.WarpsPerCTA()
	return min((minBatchWarps+wpc-1)/wpc, maxCTAsPerBatch)
}

// encodeMeta validates meta and returns its JSON.
func encodeMeta(m *Meta) ([]byte, error) {
	if m.Version != VersionUnknown && m.Version != CurrentVersion {
		return nil, fmt.Errorf("gtrace/format: cannot write version %d (this build writes %d)", m.Version, CurrentVersion)
	}
	for k := range m.Launches {
		for i := range m.Launches[k].Program.Insts {
			if in := &m.Launches[k].Program.Insts[i]; in.PC != uint32(i) {
				return nil, &MetaError{k, m.Launches[k].Kernel, i, "pc", strconv.Itoa(int(in.PC)), "pcs must be dense from 0"}
			}
		}
	}
	if err := checkMeta(m); err != nil {
		return nil, err
	}
	wm := wireMeta{Producer: m.Producer, Launches: make([]wireLaunch, len(m.Launches))}
	for k := range m.Launches {
		l := &m.Launches[k]
		wl := wireLaunch{
			Kernel: l.Kernel, Grid: [3]uint32{l.Grid.X, l.Grid.Y, l.Grid.Z},
			Block:       [3]uint32{l.Block.X, l.Block.Y, l.Block.Z},
			SharedBytes: l.SharedBytes, DynSharedBytes: l.DynSharedBytes, RegsPerThread: l.RegsPerThread,
			LocalBytes: l.LocalBytes, SIMT: l.SIMT.String(), SourceHash: l.SourceHash, PTXProducer: l.PTXProducer,
			CTAsPerBatch: ctasPerBatch(l), Program: make([]wireInst, len(l.Program.Insts)),
			EntryInsts: l.Program.EntryInsts, Stream: l.Stream,
		}
		if l.OOBWarn {
			wl.OOB = "warn"
		}
		for _, t := range l.Textures {
			wl.Textures = append(wl.Textures, wireTexture(t))
		}
		for i := range l.Program.Insts {
			in := &l.Program.Insts[i]
			wi := wireInst{
				Opcode: in.Opcode, Class: in.Class.String(), Width: in.Width, CacheOp: in.CacheOp.String(),
				RegsRead: in.RegsRead, RegsWritten: in.RegsWritten, PTX: in.PTX, File: in.File, Line: in.Line,
				Target: in.Target, NoUnroll: in.NoUnroll,
			}
			if in.Space != SpaceNone {
				wi.Space = in.Space.String()
			}
			if in.MemOp != MemNone {
				wi.MemOp = in.MemOp.String()
			}
			wl.Program[i] = wi
		}
		wm.Launches[k] = wl
	}
	for _, t := range m.Transfers {
		wm.Transfers = append(wm.Transfers, wireTransfer{Call: t.Call, Kind: t.Kind.String(), Bytes: t.Bytes,
			Pinned: t.Pinned, Stream: t.Stream, After: t.After})
	}
	for _, y := range m.Syncs {
		wm.Syncs = append(wm.Syncs, wireSync{Call: y.Call.String(), Stream: y.Stream, Event: y.Event, After: y.After, Copies: y.Copies})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&wm); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// metaCRC is the checksum stored under KeyMetaCRC: the CRC-32C of the KeyMeta value's
// bytes, as 8 lowercase hex digits. CRC-32C (Castagnoli, as in iSCSI, ext4 and pebble)
// detects every error of up to 3 bits in messages far longer than any program table,
// and every burst of up to 32 bits.
func metaCRC(metaJSON []byte) string {
	return fmt.Sprintf("%08x", crc32.Checksum(metaJSON, crc32.MakeTable(crc32.Castagnoli)))
}

func lookupName(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	return 0, false
}

// decodeMeta parses the KeyMeta JSON of a trace of version v and returns it with each
// launch's CTAs per batch. A name no enum has, or metadata checkMeta rejects, is a
// *MetaError; other errors are plain and get wrapped by the caller.
func decodeMeta(data []byte, v Version) (*Meta, []int, error) {
	var wm wireMeta
	if err := json.Unmarshal(data, &wm); err != nil {
		return nil, nil, err
	}
	m := &Meta{Version: v, Producer: wm.Producer, Launches: make([]Launch, len(wm.Launches))}
	group := make([]int, len(wm.Launches))
	for k, wl := range wm.Launches {
		unknown := func(pc int, field, value string) error {
			return &MetaError{k, wl.Kernel, pc, field, strconv.Quote(value), "unknown name"}
		}
		simt, ok := lookupName([]string{"stack", "its"}, wl.SIMT)
		if !ok {
			return nil, nil, unknown(-1, "simt", wl.SIMT)
		}
		if wl.OOB != "" && wl.OOB != "warn" {
			return nil, nil, unknown(-1, "oob", wl.OOB)
		}
		if wl.CTAsPerBatch < 1 || wl.CTAsPerBatch > maxCTAsPerBatch {
			return nil, nil, &MetaError{k, wl.Kernel, -1, "ctas_per_batch", strconv.Itoa(wl.CTAsPerBatch), fmt.Sprintf("outside 1..%d", maxCTAsPerBatch)}
		}
		group[k] = wl.CTAsPerBatch
		l := Launch{
			Kernel: wl.Kernel, Grid: Dim3{wl.Grid[0], wl.Grid[1], wl.Grid[2]},
			Block:       Dim3{wl.Block[0], wl.Block[1], wl.Block[2]},
			SharedBytes: wl.SharedBytes, DynSharedBytes: wl.DynSharedBytes, RegsPerThread: wl.RegsPerThread,
			LocalBytes: wl.LocalBytes, SIMT: SIMTModel(simt), SourceHash: wl.SourceHash, PTXProducer: wl.PTXProducer,
			OOBWarn: wl.OOB == "warn", Program: Program{Insts: make([]Inst, len(wl.Program)), EntryInsts: wl.EntryInsts},
			Stream: wl.Stream,
		}
		for _, t := range wl.Textures {
			l.Textures = append(l.Textures, Texture(t))
		}
		for i, wi := range wl.Program {
			in := Inst{PC: uint32(i), Opcode: wi.Opcode, Width: wi.Width, RegsRead: wi.RegsRead,
				RegsWritten: wi.RegsWritten, PTX: wi.PTX, File: wi.File, Line: wi.Line, Target: wi.Target,
				NoUnroll: wi.NoUnroll}
			for _, f := range []struct {
				field, value string
				names        []string
				dst          *uint8
			}{
				{"class", wi.Class, classNames[:], (*uint8)(&in.Class)},
				{"space", wi.Space, spaceNames[:], (*uint8)(&in.Space)},
				{"memop", wi.MemOp, memOpNames[:], (*uint8)(&in.MemOp)},
				{"cache", wi.CacheOp, cacheOpNames[:], (*uint8)(&in.CacheOp)},
			} {
				// An absent space or memop is written as "" and means none.
				if f.value == "" && (f.field == "space" || f.field == "memop") {
					continue
				}
				x, ok := lookupName(f.names, f.value)
				if !ok {
					return nil, nil, unknown(i, f.field, f.value)
				}
				*f.dst = uint8(x)
			}
			l.Program.Insts[i] = in
		}
		m.Launches[k] = l
	}
	for j, wt := range wm.Transfers {
		kind, ok := lookupName(transferKindNames[:], wt.Kind)
		if !ok {
			return nil, nil, entryError("transfers", j)("kind", strconv.Quote(wt.Kind), "unknown name")
		}
		m.Transfers = append(m.Transfers, Transfer{Call: wt.Call, Kind: TransferKind(kind), Bytes: wt.Bytes,
			Pinned: wt.Pinned, Stream: wt.Stream, After: wt.After})
	}
	for j, ws := range wm.Syncs {
		c, ok := lookupName(syncCallNames[:], ws.Call)
		if !ok {
			return nil, nil, entryError("syncs", j)("call", strconv.Quote(ws.Call), "unknown name")
		}
		m.Syncs = append(m.Syncs, Sync{Call: SyncCall(c), Stream: ws.Stream, Event: ws.Event, After: ws.After, Copies: ws.Copies})
	}
	if err := checkMeta(m); err != nil {
		return nil, nil, err
	}
	return m, group, nil
}

// checkMeta checks what the writer and the reader both require of metadata beyond its
// names: launch geometry CUDA can have, and program rows whose class, space, memory
// operation and width agree, as capture writes them.
func checkMeta(m *Meta) error {
	for k := range m.Launches {
		l := &m.Launches[k]
		bad := func(pc int, field string, value any, reason string, args ...any) error {
			return &MetaError{k, l.Kernel, pc, field, fmt.Sprint(value), fmt.Sprintf(reason, args...)}
		}
		if l.Block.X == 0 || l.Block.Y == 0 || l.Block.Z == 0 || l.Block.Count() > 32*maxWarpsPerCTA {
			return bad(-1, "block", l.Block, "each extent at least 1 and at most %d threads", 32*maxWarpsPerCTA)
		}
		if l.Grid.X == 0 || l.Grid.Y == 0 || l.Grid.Z == 0 {
			return bad(-1, "grid", l.Grid, "each extent at least 1")
		}
		if l.SIMT > SIMTITS {
			return bad(-1, "simt", l.SIMT, "unknown SIMT model")
		}
		if l.LocalBytes%4 != 0 {
			return bad(-1, "local_bytes", l.LocalBytes, "local memory is laid out in 4-byte words (a multiple of 4)")
		}
		if int64(l.Program.EntryInsts) > int64(len(l.Program.Insts)) {
			return bad(-1, "entry_insts", l.Program.EntryInsts, "more than the program's %d instructions", len(l.Program.Insts))
		}
		if l.DynSharedBytes > l.SharedBytes {
			return bad(-1, "dyn_shared_bytes", l.DynSharedBytes, "more than shared_bytes (%d), which includes it", l.SharedBytes)
		}
		for j, t := range l.Textures {
			f := fmt.Sprintf("textures[%d]", j)
			switch {
			case t.Width == 0 || t.Height == 0:
				return bad(-1, f+".width,height", fmt.Sprintf("%d,%d", t.Width, t.Height), "a texture has at least one texel")
			case t.ElemBytes == 0 || t.ElemBytes > 16 || t.ElemBytes&(t.ElemBytes-1) != 0:
				return bad(-1, f+".elem_bytes", t.ElemBytes, "a texel is 1, 2, 4, 8 or 16 bytes")
			}
			if (t.Handle == 0) == (t.Name == "") {
				return bad(-1, f+".handle,name", fmt.Sprintf("%d,%q", t.Handle, t.Name), "a texture object has a handle, a texture reference a name, and not both")
			}
			for _, u := range l.Textures[:j] {
				if u.Handle == t.Handle && u.Name == t.Name {
					return bad(-1, f+".handle,name", fmt.Sprintf("%d,%q", t.Handle, t.Name), "bound twice")
				}
			}
		}
		for i := range l.Program.Insts {
			in := &l.Program.Insts[i]
			if in.Class >= numClasses || in.Space >= numSpaces || in.MemOp >= numMemOps || in.CacheOp >= numCacheOps {
				return bad(i, "class,space,memop,cache", fmt.Sprintf("%d,%d,%d,%d", in.Class, in.Space, in.MemOp, in.CacheOp), "enum out of range")
			}
			if in.Target != 0 && (in.Class != ClassControl || int64(in.Target) > int64(len(l.Program.Insts))) {
				return bad(i, "target", in.Target, "a branch target (pc + 1) of a control instruction, at most the program's %d instructions", len(l.Program.Insts))
			}
			if in.MemOp == MemNone {
				switch {
				case in.Space != SpaceNone:
					return bad(i, "space", in.Space, "on an instruction that moves no memory (memop none)")
				case in.Width != 0:
					return bad(i, "width", in.Width, "on an instruction that moves no memory (memop none)")
				}
				continue
			}
			switch {
			case in.Class != ClassMem:
				return bad(i, "class", in.Class, "memop %s needs class mem", in.MemOp)
			case in.Space == SpaceNone:
				return bad(i, "space", in.Space, "memop %s needs a state space", in.MemOp)
			case (in.MemOp == MemTex) != (in.Space == SpaceTexture):
				return bad(i, "space", in.Space, "texture fetches, and only they, read the texture space (memop %s)", in.MemOp)
			case in.Width == 0 || in.Width&(in.Width-1) != 0:
				return bad(i, "width", in.Width, "a memory access moves a power-of-two number of bytes per lane")
			}
		}
	}
	after := 0
	for j, t := range m.Transfers {
		bad := entryError("transfers", j)
		switch {
		case t.Kind >= numTransferKinds:
			return bad("kind", t.Kind, "enum out of range")
		case t.After < after || t.After > len(m.Launches):
			return bad("after", t.After, "copies are in the program's order: from %d (the copy before) to the %d launches", after, len(m.Launches))
		case t.Pinned && t.Kind == DeviceToDevice:
			return bad("pinned", t.Pinned, "a device-to-device copy has no host side to page-lock")
		case t.Call == "":
			return bad("call", `""`, "every copy names its runtime call")
		}
		after = t.After
	}
	return checkSyncs(m)
}

// entryError makes the errors of entry j of the metadata's list (transfers, syncs):
// bad(field, value, reason, args...) names list[j].field and its value.
func entryError(list string, j int) func(field string, value any, reason string, args ...any) error {
	return func(field string, value any, reason string, args ...any) error {
		return &MetaError{-1, "", -1, fmt.Sprintf("%s[%d].%s", list, j, field), fmt.Sprint(value), fmt.Sprintf(reason, args...)}
	}
}

// checkSyncs checks that the syncs are in the program's order among the launches and
// copies, and that each names what its call takes.
func checkSyncs(m *Meta) error {
	after, copies := 0, 0
	for j, y := range m.Syncs {
		bad := entryError("syncs", j)
		switch {
		case y.Call >= numSyncCalls:
			return bad("call", y.Call, "enum out of range")
		case y.After < after || y.After > len(m.Launches):
			return bad("after", y.After, "syncs are in the program's order: from %d (the sync before) to the %d launches", after, len(m.Launches))
		case y.Copies < copies || y.Copies > len(m.Transfers):
			return bad("copies", y.Copies, "syncs are in the program's order: from %d (the sync before) to the %d copies", copies, len(m.Transfers))
		case y.Copies > 0 && m.Transfers[y.Copies-1].After > y.After:
			return bad("copies", y.Copies, "copy %d, before this sync, came after %d launches, this sync after %d", y.Copies-1, m.Transfers[y.Copies-1].After, y.After)
		case y.Copies < len(m.Transfers) && m.Transfers[y.Copies].After < y.After:
			return bad("copies", y.Copies, "copy %d, after this sync, came after %d launches, this sync after %d", y.Copies, m.Transfers[y.Copies].After, y.After)
		case (y.Event != 0) != (y.Call == EventRecord || y.Call == StreamWaitEvent || y.Call == EventSynchronize):
			return bad("event", y.Event, "%s names an event and the other calls none", "cudaEventRecord, cudaStreamWaitEvent and cudaEventSynchronize")
		case y.Stream != 0 && (y.Call == EventSynchronize || y.Call == DeviceSynchronize):
			return bad("stream", y.Stream, "%s names no stream", y.Call)
		case y.Stream == 0 && y.Call == StreamNonBlocking:
			return bad("stream", y.Stream, "the default stream is not one a program creates")
		}
		after, copies = y.After, y.Copies
	}
	return nil
}
