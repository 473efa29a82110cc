package capture

// The compact internal form of an instruction. Operands are slot numbers into a warp's
// register file (registers, special registers and immediates all live there), or
// predicate numbers; nothing is looked up by name at execution time.

// opcode is what the SIMT layer, the linker and the memory path must know of an
// instruction; everything else is opCompute, executed by its run function.
type opcode uint8

const (
	opNop     opcode = iota // membar, fence, prefetch, nanosleep: recorded, no effect
	opCompute               // executed by instr.run (the families' op_*.go)
	opLd
	opSt
	// Control and warp-level.
	opBra
	opCall
	opRet
	opExit
	opBar
	opBarWarp
	opAtom
	opRed
	opShfl
	opVote
	opTex
	opTrap
	opSyscall // call of a system call, vprintf or __assertfail (printf.go); target says which
	opCpAsync // cp.async: a global load and a shared store (op_memory.go)
	opLdmatrix
	opMma      // mma.sync (op_mma.go)
	opMbarrier // mbarrier.*, cp.async.mbarrier.arrive (op_mbarrier.go)
)

// A runFunc executes a computing instruction over the executing lanes (exec) of a
// warp whose active lanes are active; its family's decoder picks it.
type runFunc func(w *warpState, in *instr, exec, active uint32)

// A laneFunc evaluates one lane of a lanewise instruction. Values are held in uint64
// slots: integers of n bits in the low n bits (zero above), f32 as its bits in the low
// 32, f64 as its bits; the result is returned in the same canonical form.
type laneFunc func(in *instr, a, b, c uint64) uint64

// Modifier bits.
const (
	fFTZ uint16 = 1 << iota
	fSat
	fApprox
	fUni
	fVolatile
	fNC
	fHasDPred // setp/shfl second destination predicate
	fVoteNegSrc
	fRoundInt // cvt .rni/.rzi/.rmi/.rpi on float→float
	fClamp    // shf, szext, bmsk .clamp (not .wrap)
	fCmpBool  // setp/set combine with a third predicate operand
	fNaN      // min/max.NaN: a NaN input gives the canonical NaN
	fXorSign  // min/max.xorsign.abs: compare magnitudes, sign = xor of the inputs' signs
	fShiftAmt // bfind.shiftamt: the left shift that brings the bit to the top, not its position
	fSinkOK   // d[0] may stay -1 (a sink): a predicate, or execution skips sinks; others get a scratch slot
)

// Rounding modes.
const (
	rndDefault uint8 = iota
	rndN
	rndZ
	rndM
	rndP
)

// Comparison operators (setp, set).
const (
	cmpEQ uint8 = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
	cmpLO
	cmpLS
	cmpHI
	cmpHS
	cmpEQU
	cmpNEU
	cmpLTU
	cmpLEU
	cmpGTU
	cmpGEU
	cmpNUM
	cmpNAN
)

// Boolean combiners and predicate logic ops.
const (
	bopNone uint8 = iota
	bopAnd
	bopOr
	bopXor
	bopNot // not.pred
	bopMov // mov.pred
)

// Atomic operations.
const (
	atomAdd uint8 = iota
	atomMin
	atomMax
	atomExch
	atomCAS
	atomAnd
	atomOr
	atomXor
	atomInc
	atomDec
)

// Shuffle and vote modes.
const (
	shflUp uint8 = iota
	shflDown
	shflBfly
	shflIdx
	voteAll = iota - 4
	voteAny
	voteUni
	voteBallot
)

// mspace is the state space of a memory access as the emulator resolves it.
type mspace uint8

const (
	msNone    mspace = iota
	msGlobal         // also .global variables
	msShared         // per CTA
	msLocal          // per thread
	msConst          // the constant bank
	msParamK         // kernel parameters: one buffer, uniform
	msParamF         // .func and call-site parameters: per lane
	msGeneric        // resolved per lane through the address windows
	msTex
)

// instr is one decoded instruction.
type instr struct {
	op    opcode
	t     vtype // operation type (destination type for cvt, set, slct)
	t2    vtype // cvt source, set/slct compare type, cp.async's destination register
	flags uint16
	rnd   uint8
	cmp   uint8
	bop   uint8 // boolean combiner, predicate op, atomic op, shuffle or vote mode, ldmatrix .trans
	space mspace
	vec   uint8 // vector length of ld/st/tex (1, 2, 4)
	width uint8 // bytes one lane moves: vec * size(t)

	guard int32 // predicate guarding the instruction, -1 if none
	gneg  bool

	d    [4]int32 // destination slots (or predicates for predicate destinations); -1 = sink
	nd   uint8
	s    [4]int32 // source slots (or predicates for predicate sources)
	sneg uint8    // bit i: source i is a negated predicate
	ns   uint8
	dp   int32 // second destination predicate (setp p|q, shfl d|p), -1 if none

	base int32 // ld/st/atom/tex address register slot, -1 for an absolute address
	off  int64 // address offset (symbol address included)
	// amask: the address register's width. [%r+off] through a 32-bit register is
	// computed in 32 bits (PTX ISA, "Addresses as Operands": the address size is the
	// register's), so a negative offset in a .u32 register wraps as on a GPU.
	amask uint64

	// target is bra's target pc, call's callee function index, and for a tex through
	// a texture reference that reference's index in k.trefs.
	target int32
	fn     int32 // function this instruction belongs to
	imm    uint32

	run  runFunc  // opCompute: the execution
	lane laneFunc // runLanes and the fast loops on a partial warp: one lane's value

	mma     *mmaForm    // mma.sync: its shape, types and fragment registers
	copies  []paramCopy // call: argument copies, caller .param → callee parameter
	rcopies []paramCopy // call: result copies at return, callee result → caller .param
}

// paramCopy moves a per-lane parameter between call-site and callee storage.
type paramCopy struct{ from, to, size int32 }
