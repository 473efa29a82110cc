package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
)

// Schema metadata keys of a v1 trace.
const (
	// KeyVersion holds the format version as a decimal string ("1").
	KeyVersion = "gtrace.format.version"
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
	colCoords        // list<int32>: texel x,y per active lane (texture fetches; empty otherwise)
	numCols
)

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

// arrowSchema builds the v1 Arrow schema carrying meta in its metadata.
func arrowSchema(metaJSON []byte) *arrow.Schema {
	fields := make([]arrow.Field, numCols)
	for i, c := range colSpecs {
		fields[i] = arrow.Field{Name: c.name, Type: arrowType(c)}
	}
	md := arrow.NewMetadata(
		[]string{KeyVersion, KeyMeta},
		[]string{strconv.Itoa(int(CurrentVersion)), string(metaJSON)},
	)
	return arrow.NewSchema(fields, &md)
}

// The JSON form of Meta. Enums are written by name so that the file stays readable if an
// enum grows, and so that a Python user sees "global", not 1. A program table row's pc is
// its index in "program".
type wireMeta struct {
	Producer string       `json:"producer"`
	Launches []wireLaunch `json:"launches"`
}

type wireLaunch struct {
	Kernel         string        `json:"kernel"`
	Grid           [3]uint32     `json:"grid"`
	Block          [3]uint32     `json:"block"`
	SharedBytes    uint32        `json:"shared_bytes"`
	DynSharedBytes uint32        `json:"dyn_shared_bytes"`
	RegsPerThread  uint32        `json:"regs_per_thread"`
	SIMT           string        `json:"simt"`
	SourceHash     string        `json:"source_hash"`
	PTXProducer    string        `json:"ptx_producer"`
	CTAsPerBatch   int           `json:"ctas_per_batch"`
	Textures       []wireTexture `json:"textures,omitempty"`
	Program        []wireInst    `json:"program"`
}

type wireTexture struct {
	Handle    uint64 `json:"handle"`
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
	wm := wireMeta{Producer: m.Producer, Launches: make([]wireLaunch, len(m.Launches))}
	for k := range m.Launches {
		l := &m.Launches[k]
		if l.Block.Count() == 0 || l.Block.Count() > 32*maxWarpsPerCTA {
			return nil, fmt.Errorf("gtrace/format: launch %d (%s): block %v out of range", k, l.Kernel, l.Block)
		}
		if l.SIMT > SIMTITS {
			return nil, fmt.Errorf("gtrace/format: launch %d (%s): unknown SIMT model %d", k, l.Kernel, l.SIMT)
		}
		wl := wireLaunch{
			Kernel: l.Kernel, Grid: [3]uint32{l.Grid.X, l.Grid.Y, l.Grid.Z},
			Block:       [3]uint32{l.Block.X, l.Block.Y, l.Block.Z},
			SharedBytes: l.SharedBytes, DynSharedBytes: l.DynSharedBytes, RegsPerThread: l.RegsPerThread,
			SIMT: l.SIMT.String(), SourceHash: l.SourceHash, PTXProducer: l.PTXProducer,
			CTAsPerBatch: ctasPerBatch(l), Program: make([]wireInst, len(l.Program.Insts)),
		}
		for _, t := range l.Textures {
			wl.Textures = append(wl.Textures, wireTexture(t))
		}
		for i := range l.Program.Insts {
			in := &l.Program.Insts[i]
			if in.PC != uint32(i) {
				return nil, fmt.Errorf("gtrace/format: launch %d (%s): program row %d has pc %d; pcs must be dense from 0", k, l.Kernel, i, in.PC)
			}
			if in.Class >= numClasses || in.Space >= numSpaces || in.MemOp >= numMemOps || in.CacheOp >= numCacheOps {
				return nil, fmt.Errorf("gtrace/format: launch %d (%s): pc %d has an enum out of range", k, l.Kernel, i)
			}
			wi := wireInst{
				Opcode: in.Opcode, Class: in.Class.String(), Width: in.Width, CacheOp: in.CacheOp.String(),
				RegsRead: in.RegsRead, RegsWritten: in.RegsWritten, PTX: in.PTX, File: in.File, Line: in.Line,
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&wm); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func lookupName(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	return 0, false
}

// decodeMeta parses the KeyMeta JSON and returns it with each launch's CTAs per batch;
// errors are plain and get wrapped by the caller.
func decodeMeta(data []byte) (*Meta, []int, error) {
	var wm wireMeta
	if err := json.Unmarshal(data, &wm); err != nil {
		return nil, nil, err
	}
	m := &Meta{Version: CurrentVersion, Producer: wm.Producer, Launches: make([]Launch, len(wm.Launches))}
	group := make([]int, len(wm.Launches))
	for k, wl := range wm.Launches {
		simt, ok := lookupName([]string{"stack", "its"}, wl.SIMT)
		if !ok {
			return nil, nil, fmt.Errorf("launch %d: unknown simt model %q", k, wl.SIMT)
		}
		if wl.CTAsPerBatch < 1 || wl.CTAsPerBatch > maxCTAsPerBatch {
			return nil, nil, fmt.Errorf("launch %d: ctas_per_batch %d outside 1..%d", k, wl.CTAsPerBatch, maxCTAsPerBatch)
		}
		group[k] = wl.CTAsPerBatch
		l := Launch{
			Kernel: wl.Kernel, Grid: Dim3{wl.Grid[0], wl.Grid[1], wl.Grid[2]},
			Block:       Dim3{wl.Block[0], wl.Block[1], wl.Block[2]},
			SharedBytes: wl.SharedBytes, DynSharedBytes: wl.DynSharedBytes, RegsPerThread: wl.RegsPerThread,
			SIMT: SIMTModel(simt), SourceHash: wl.SourceHash, PTXProducer: wl.PTXProducer,
			Program: Program{Insts: make([]Inst, len(wl.Program))},
		}
		if l.Block.Count() == 0 || l.Block.Count() > 32*maxWarpsPerCTA {
			return nil, nil, fmt.Errorf("launch %d: block %v out of range", k, l.Block)
		}
		for _, t := range wl.Textures {
			l.Textures = append(l.Textures, Texture(t))
		}
		for i, wi := range wl.Program {
			in := Inst{PC: uint32(i), Opcode: wi.Opcode, Width: wi.Width, RegsRead: wi.RegsRead,
				RegsWritten: wi.RegsWritten, PTX: wi.PTX, File: wi.File, Line: wi.Line}
			c, ok1 := lookupName(classNames[:], wi.Class)
			sp, ok2 := 0, true
			if wi.Space != "" {
				sp, ok2 = lookupName(spaceNames[:], wi.Space)
			}
			mo, ok3 := 0, true
			if wi.MemOp != "" {
				mo, ok3 = lookupName(memOpNames[:], wi.MemOp)
			}
			co, ok4 := lookupName(cacheOpNames[:], wi.CacheOp)
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return nil, nil, fmt.Errorf("launch %d pc %d: unknown class/space/memop/cache name", k, i)
			}
			in.Class, in.Space, in.MemOp, in.CacheOp = Class(c), Space(sp), MemOp(mo), CacheOp(co)
			l.Program.Insts[i] = in
		}
		m.Launches[k] = l
	}
	return m, group, nil
}
