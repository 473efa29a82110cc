package format

import (
	"fmt"
	"strings"
)

// Version names a trace format version. Readers reject versions they do not know.
type Version uint16

const (
	// VersionUnknown is the zero value; it is never written.
	VersionUnknown Version = 0
	// V1 is the first format: one Arrow IPC file, zstd-compressed buffers, schema metadata
	// holding launches and program tables, one record batch per group of consecutive CTAs
	// of a launch (see doc.go).
	V1 Version = 1
	// V2 is V1 plus integrity: the metadata JSON's CRC-32C under KeyMetaCRC, checked on
	// every open, and metadata whose enums and cross-references are validated (MetaError).
	// The columns and batches are V1's; their zstd frames carry content checksums in both.
	V2 Version = 2
	// V3 is V2 plus row windows: a group of CTAs whose warps are long is written as
	// several batches, batch j holding rows j*W .. (j+1)*W-1 of each of its warps, and a
	// window column saying j, so that a replay can hold a window of each resident warp
	// rather than its whole stream (see Windows in doc.go).
	V3 Version = 3
)

// CurrentVersion is the version this package writes.
const CurrentVersion = V3

// Checked reports whether a trace of this version carries a checksum over its metadata.
// V1 traces are read, but a bit flipped in their metadata can go unseen.
func (v Version) Checked() bool { return v >= V2 }

// columns is how many columns a batch of this version has: V3 added window.
func (v Version) columns() int {
	if v >= V3 {
		return numCols
	}
	return numColsV2
}

// Dim3 is a CUDA grid or block extent.
type Dim3 struct{ X, Y, Z uint32 }

// Count is X*Y*Z.
func (d Dim3) Count() uint64 { return uint64(d.X) * uint64(d.Y) * uint64(d.Z) }

func (d Dim3) String() string { return fmt.Sprintf("%d,%d,%d", d.X, d.Y, d.Z) }

// SIMTModel is how a capture handled intra-warp divergence.
type SIMTModel uint8

const (
	// SIMTStack is a pre-Volta reconvergence stack at the immediate post-dominator.
	SIMTStack SIMTModel = iota
	// SIMTITS is Volta+ Independent Thread Scheduling: per-thread PCs.
	SIMTITS
)

func (m SIMTModel) String() string {
	switch m {
	case SIMTStack:
		return "stack"
	case SIMTITS:
		return "its"
	}
	return fmt.Sprintf("simt(%d)", uint8(m))
}

// ParseSIMT reads a SIMT model's name, as String writes it.
func ParseSIMT(s string) (SIMTModel, error) {
	switch s {
	case "stack":
		return SIMTStack, nil
	case "its":
		return SIMTITS, nil
	}
	return 0, fmt.Errorf("%q: want stack or its", s)
}

// Class is an instruction's functional class, the unit a timing model assigns latencies to.
type Class uint8

const (
	ClassOther   Class = iota
	ClassALU           // integer and logic, mov, setp, selp
	ClassFP32          // fadd, fmul, ffma
	ClassFP64          // double precision
	ClassSFU           // rcp, sqrt, sin, cos, ex2, lg2
	ClassConv          // cvt
	ClassMem           // ld, st, atom, red, tex
	ClassControl       // bra, call, ret, exit
	ClassSync          // bar, membar, fence
	ClassWarp          // shfl, vote, activemask, match
	ClassTensor        // mma (SASS HMMA, IMMA, BMMA, DMMA): the tensor cores
	numClasses
)

var classNames = [...]string{"other", "alu", "fp32", "fp64", "sfu", "conv", "mem", "control", "sync", "warp", "tensor"}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Space is a PTX state space of a memory instruction.
type Space uint8

const (
	SpaceNone Space = iota
	SpaceGlobal
	SpaceShared
	SpaceLocal
	SpaceConst
	SpaceParam
	SpaceTexture
	SpaceGeneric // resolved per lane by capture; records carry the resolved space's addresses
	numSpaces
)

var spaceNames = [...]string{"none", "global", "shared", "local", "const", "param", "texture", "generic"}

func (s Space) String() string {
	if s < numSpaces {
		return spaceNames[s]
	}
	return fmt.Sprintf("space(%d)", uint8(s))
}

// MemOp is what a memory instruction does.
type MemOp uint8

const (
	MemNone MemOp = iota
	MemLoad
	MemStore
	MemAtomic // atom: read-modify-write returning a value
	MemReduce // red: read-modify-write, no return
	MemTex    // texture fetch
	numMemOps
)

var memOpNames = [...]string{"none", "ld", "st", "atom", "red", "tex"}

func (m MemOp) String() string {
	if m < numMemOps {
		return memOpNames[m]
	}
	return fmt.Sprintf("memop(%d)", uint8(m))
}

// CacheOp is the PTX cache operator of a load or store.
type CacheOp uint8

const (
	CacheDefault  CacheOp = iota
	CacheCA               // .ca: cache at all levels
	CacheCG               // .cg: cache in L2 only
	CacheCS               // .cs: streaming
	CacheLU               // .lu: last use
	CacheCV               // .cv: don't cache, fetch again
	CacheWB               // .wb: write back
	CacheWT               // .wt: write through
	CacheNC               // ld.global.nc: the non-coherent read-only path (__ldg)
	CacheVolatile         // ld.volatile / st.volatile
	numCacheOps
)

var cacheOpNames = [...]string{"", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "volatile"}

func (c CacheOp) String() string {
	if c < numCacheOps {
		return cacheOpNames[c]
	}
	return fmt.Sprintf("cacheop(%d)", uint8(c))
}

// Inst is one row of a kernel's static program table.
// PredReg marks a predicate register in Inst.RegsRead and Inst.RegsWritten: the ids of
// predicates have this bit set, those of value registers do not.
const PredReg = 0x8000

type Inst struct {
	PC          uint32 // index of this instruction in Program.Insts (dense, from 0)
	Opcode      string // opcode with its modifiers, e.g. "ld.global.nc.v4.f32"
	Class       Class
	Space       Space
	MemOp       MemOp
	Width       uint8 // bytes one lane moves per access, vector included (v4.f32 = 16); 0 if not memory
	CacheOp     CacheOp
	RegsRead    []uint16 // register ids (kernel-unique, predicates included: PredReg set)
	RegsWritten []uint16
	PTX         string // the instruction as written in the PTX
	File        string // source file from .loc/.file, "" if unknown
	Line        uint32 // source line from .loc, 0 if unknown
	// Target is a branch's target pc plus one: 0 for an instruction that is not a
	// branch, or a branch whose target the trace does not record (traces written before
	// gtrace recorded it, SASS imports). Use BranchTarget.
	Target uint32
	// NoUnroll: a `.pragma "nounroll"` came just before this instruction, in the
	// header block of the loop it starts: ptxas keeps that loop's trips as they are
	// (LLVM and nvcc mark the remainder loops of what they unroll so). False in
	// traces written before gtrace recorded it.
	NoUnroll bool
}

// BranchTarget is the pc a branch jumps to, if the trace records it.
func (in *Inst) BranchTarget() (pc int, ok bool) {
	if in.Target == 0 {
		return 0, false
	}
	return int(in.Target) - 1, true
}

// FLOPs is what one lane of the instruction adds to a roofline's floating-point work,
// as Nsight Compute counts it (smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma} and
// the d* forms): 2 for a fused multiply-add (fma, mad), 1 for add, sub and mul, of f32
// or f64; 0 otherwise. fp64 says the instruction is double precision.
func (in *Inst) FLOPs() (flops int, fp64 bool) {
	parts := strings.Split(in.Opcode, ".")
	typ := parts[len(parts)-1]
	if len(parts) < 2 || typ != "f32" && typ != "f64" {
		return 0, false
	}
	switch parts[0] {
	case "fma", "mad":
		return 2, typ == "f64"
	case "add", "sub", "mul":
		return 1, typ == "f64"
	}
	return 0, false
}

// Program is a kernel's static program table: the entry and every .func it can call.
type Program struct {
	Insts []Inst
	// EntryInsts is how many of Insts, from pc 0, are the entry function's own; the .func
	// bodies it calls follow. A ret below it ends the thread (SASS EXIT), one at or past it
	// returns to a caller. 0 when unknown: a trace written before gtrace recorded it, or
	// one imported from SASS, whose opcodes say it.
	EntryInsts uint32
}

// SourceAt is "file:line" of the nearest instruction with a line at or above pc (code
// under ".loc F 0" belongs to no line of its own), or "".
func (p *Program) SourceAt(pc int) string {
	for ; pc >= 0 && pc < len(p.Insts); pc-- {
		if in := &p.Insts[pc]; in.File != "" && in.Line > 0 {
			return fmt.Sprintf("%s:%d", in.File, in.Line)
		}
	}
	return ""
}

// Texture describes one texture a launch reads: a 2D texture object (Handle) in the
// texture address range, or a texture reference bound to linear device memory (Name).
type Texture struct {
	Handle    uint64 // the value the kernel receives as its texture object; 0 for a reference
	Name      string // the texture reference's PTX name; "" for an object
	Base      uint64 // address of texel (0,0): in the texture range, or global for a reference
	Width     uint32 // texels
	Height    uint32
	ElemBytes uint32
	Layout    string // name of the texel layout capture used, documented in capture
}

// SASSProducer starts the PTXProducer of a launch whose instructions are SASS traced on a
// GPU rather than PTX ("SASS sm_90 traced on a GPU ..."): a trace imported by
// format/accelsim.
const SASSProducer = "SASS "

// Launch is one kernel launch in a trace, with its program table.
type Launch struct {
	Kernel         string
	Grid           Dim3
	Block          Dim3   // at most 8192 threads, 256 warps (the warp column is 8 bits); CUDA allows 1024
	SharedBytes    uint32 // static + dynamic shared memory per CTA
	DynSharedBytes uint32 // the dynamic part
	RegsPerThread  uint32 // 0 when unknown
	LocalBytes     uint32 // local memory per thread, as the trace lays it out (see LocalPhysBase); 0 if none or unknown
	SIMT           SIMTModel
	SourceHash     string // hex SHA-256 of the PTX text
	PTXProducer    string // compiler that produced the PTX, e.g. "clang-14", "nvcc 12.4"; SASSProducer... for a trace imported from a GPU (format/accelsim)
	// OOBWarn says the launch was captured under capture's --oob=warn: an access
	// outside every allocation did not stop it (its reads gave zeros, its writes were
	// dropped), and its records carry FlagOOB. Only such a launch may have them.
	OOBWarn bool
	// Stream is the stream a program launched it on (gtrace run): 0 the default stream,
	// else the runtime's handle (as Transfer.Stream and Sync.Stream give it).
	Stream   uint64
	Textures []Texture
	Program  Program
}

// WarpsPerCTA is ceil(block threads / 32).
func (l *Launch) WarpsPerCTA() int { return int((l.Block.Count() + 31) / 32) }

// NumCTAs is the number of CTAs in the grid.
func (l *Launch) NumCTAs() int { return int(l.Grid.Count()) }

// Meta is the self-description of a trace file.
type Meta struct {
	Version  Version
	Producer string // the tool that wrote the file, e.g. "gtrace 0.1.0"
	Launches []Launch
	// Transfers are the program's copies, in its order, when the trace holds a whole
	// program's launches (gtrace run); none for a capture of one kernel.
	Transfers []Transfer
	// Syncs are the program's calls that order its streams or wait for them, in its
	// order among the launches and copies (gtrace run); none for a capture of one kernel.
	Syncs []Sync
}

// Sync is one call by which a program orders the work on its streams, or waits for
// it: with the launches' and copies' streams, what a GPU needs to lay the program out
// in time (plan.FromTrace). After and Copies place it among the launches and copies.
type Sync struct {
	Call   SyncCall
	Stream uint64 // the stream it names (record, wait, stream synchronize, create); 0 the default stream
	Event  uint64 // the event it names (record, wait, event synchronize); 0 for the others
	After  int    // launches the program had made before it
	Copies int    // copies (Meta.Transfers) the program had made before it
}

// SyncCall is what a Sync does, named in the trace by the runtime call.
type SyncCall uint8

const (
	EventRecord       SyncCall = iota // cudaEventRecord(Event, Stream)
	StreamWaitEvent                   // cudaStreamWaitEvent(Stream, Event): the stream's later work waits for the event
	StreamSynchronize                 // cudaStreamSynchronize(Stream): the host waits for the stream's work
	EventSynchronize                  // cudaEventSynchronize(Event): the host waits for the event
	DeviceSynchronize                 // cudaDeviceSynchronize: the host waits for every stream's work
	StreamNonBlocking                 // cudaStreamCreateWithFlags(cudaStreamNonBlocking) made Stream: it does not wait for the default stream, nor it for Stream
	numSyncCalls
)

var syncCallNames = [...]string{"cudaEventRecord", "cudaStreamWaitEvent", "cudaStreamSynchronize",
	"cudaEventSynchronize", "cudaDeviceSynchronize", "cudaStreamNonBlocking"}

func (c SyncCall) String() string {
	if c < numSyncCalls {
		return syncCallNames[c]
	}
	return fmt.Sprintf("SyncCall(%d)", uint8(c))
}

// Transfer is one copy a program made through the CUDA runtime: its direction and size,
// whether the host's side was page-locked, its stream, and where it fell among the
// launches. What a transfer model (models/pcie, plan/) times around the kernels.
type Transfer struct {
	Call   string       // the runtime call, e.g. "cudaMemcpy", "cudaMemcpyToSymbolAsync"
	Kind   TransferKind // the direction, as cudaMemcpyKind resolved it
	Bytes  uint64
	Pinned bool   // the host's side is page-locked (cudaMallocHost, cudaHostAlloc, cudaHostRegister)
	Stream uint64 // the stream the program named; 0 is the default stream
	After  int    // launches the program had made before it: 0 is before the first
}

// TransferKind is a copy's direction, numbered as CUDA's cudaMemcpyKind.
type TransferKind uint8

const (
	HostToHost TransferKind = iota
	HostToDevice
	DeviceToHost
	DeviceToDevice
	numTransferKinds
)

var transferKindNames = [...]string{"h2h", "h2d", "d2h", "d2d"}

func (k TransferKind) String() string {
	if k < numTransferKinds {
		return transferKindNames[k]
	}
	return fmt.Sprintf("TransferKind(%d)", uint8(k))
}
