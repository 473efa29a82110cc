package accelsim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// A SASS generation: the first compute capability of an instruction-set table in NVIDIA's
// CUDA Binary Utilities, "Instruction Set Reference" (§ Volta, § Turing, § NVIDIA Ampere
// GPU and Ada, § Hopper).
const (
	smVolta  = 70 // sm_70, sm_72
	smTuring = 75 // sm_75
	smAmpere = 80 // sm_80, sm_86, sm_87, sm_89 (Ada shares Ampere's table)
	smHopper = 90 // sm_90
)

// generation is the table a binary version reads: 70..90 as the tracer's
// "-binary version" gives it (cuFuncGetAttribute CU_FUNC_ATTRIBUTE_BINARY_VERSION,
// major*10+minor).
func generation(binaryVersion int) (int, error) {
	switch binaryVersion {
	case 70, 72:
		return smVolta, nil
	case 75:
		return smTuring, nil
	case 80, 86, 87, 89:
		return smAmpere, nil
	case 90:
		return smHopper, nil
	}
	return 0, fmt.Errorf("binary version %d: gtrace's SASS tables cover sm_70, 72, 75, 80, 86, 87, 89 and 90", binaryVersion)
}

// sassOp is one row of the opcode table: what gtrace's models make of a SASS opcode
// (the part before the first '.').
type sassOp struct {
	class format.Class
	space format.Space // memory instructions: the space the opcode names (generic for LD/ST/ATOM/RED)
	memop format.MemOp // none for every instruction that carries no traced address
	width uint8        // bytes per lane when fixed by the opcode (LDSM/STSM: one 16-byte row); 0 = from the modifiers
	since int          // the first generation whose table lists it
	// texture: a texture or surface instruction, imported without addresses (counted)
	texture bool
}

// Rows are grouped as the CUDA Binary Utilities tables group them; each row's source is
// the table of its `since` generation, whose one-line description says what the
// instruction does. gtrace's class follows from that description: the pipe a timing
// model charges (fp32 for FP32 and paired-FP16 arithmetic, fp64, sfu for MUFU, conv for
// conversions, alu for integer, move and predicate work, warp for cross-lane, sync for
// barriers and fences, warp synchronisation included, control for branches), and mem for
// instructions whose addresses the tracer records. Instructions the timing model has no
// unit for (matrix multiply, TMA, texture, cache control, sleep, performance-monitor
// triggers) are class other, as capture classes prefetch, nanosleep and pmevent.
var sassOps = map[string]sassOp{
	// Floating point 32 (and FP16x2, which issues to the same FMA pipe on sm_70+).
	"FADD": {class: format.ClassFP32, since: smVolta}, "FADD32I": {class: format.ClassFP32, since: smVolta},
	"FCHK": {class: format.ClassFP32, since: smVolta}, "FFMA": {class: format.ClassFP32, since: smVolta},
	"FFMA32I": {class: format.ClassFP32, since: smVolta}, "FMNMX": {class: format.ClassFP32, since: smVolta},
	"FMUL": {class: format.ClassFP32, since: smVolta}, "FMUL32I": {class: format.ClassFP32, since: smVolta},
	"FSEL": {class: format.ClassFP32, since: smVolta}, "FSET": {class: format.ClassFP32, since: smVolta},
	"FSETP": {class: format.ClassFP32, since: smVolta}, "FSWZADD": {class: format.ClassFP32, since: smVolta},
	"HADD2": {class: format.ClassFP32, since: smVolta}, "HADD2_32I": {class: format.ClassFP32, since: smVolta},
	"HFMA2": {class: format.ClassFP32, since: smVolta}, "HFMA2_32I": {class: format.ClassFP32, since: smVolta},
	"HMUL2": {class: format.ClassFP32, since: smVolta}, "HMUL2_32I": {class: format.ClassFP32, since: smVolta},
	"HSET2": {class: format.ClassFP32, since: smVolta}, "HSETP2": {class: format.ClassFP32, since: smVolta},
	"HMNMX2": {class: format.ClassFP32, since: smAmpere},
	"MUFU":   {class: format.ClassSFU, since: smVolta},
	// Floating point 64.
	"DADD": {class: format.ClassFP64, since: smVolta}, "DFMA": {class: format.ClassFP64, since: smVolta},
	"DMUL": {class: format.ClassFP64, since: smVolta}, "DSETP": {class: format.ClassFP64, since: smVolta},
	// Matrix multiply and accumulate: a warp's mma on the tensor cores (PTX ISA, mma);
	// the warpgroup's asynchronous wgmma (Hopper's *GMMA) is not modelled.
	"HMMA": {class: format.ClassTensor, since: smVolta}, "IMMA": {class: format.ClassTensor, since: smTuring},
	"BMMA": {class: format.ClassTensor, since: smTuring}, "DMMA": {class: format.ClassTensor, since: smAmpere},
	"HGMMA": {class: format.ClassOther, since: smHopper}, "IGMMA": {class: format.ClassOther, since: smHopper},
	"QGMMA": {class: format.ClassOther, since: smHopper}, "BGMMA": {class: format.ClassOther, since: smHopper},
	// Integer.
	"BMSK": {class: format.ClassALU, since: smVolta}, "BREV": {class: format.ClassALU, since: smVolta},
	"FLO": {class: format.ClassALU, since: smVolta}, "IABS": {class: format.ClassALU, since: smVolta},
	"IADD": {class: format.ClassALU, since: smVolta}, "IADD3": {class: format.ClassALU, since: smVolta},
	"IADD32I": {class: format.ClassALU, since: smVolta}, "IDP": {class: format.ClassALU, since: smVolta},
	"IDP4A": {class: format.ClassALU, since: smVolta}, "IMAD": {class: format.ClassALU, since: smVolta},
	"IMNMX": {class: format.ClassALU, since: smVolta}, "IMUL": {class: format.ClassALU, since: smVolta},
	"IMUL32I": {class: format.ClassALU, since: smVolta}, "ISCADD": {class: format.ClassALU, since: smVolta},
	"ISCADD32I": {class: format.ClassALU, since: smVolta}, "ISETP": {class: format.ClassALU, since: smVolta},
	"LEA": {class: format.ClassALU, since: smVolta}, "LOP": {class: format.ClassALU, since: smVolta},
	"LOP3": {class: format.ClassALU, since: smVolta}, "LOP32I": {class: format.ClassALU, since: smVolta},
	"POPC": {class: format.ClassALU, since: smVolta}, "SHF": {class: format.ClassALU, since: smVolta},
	"SHL": {class: format.ClassALU, since: smVolta}, "SHR": {class: format.ClassALU, since: smVolta},
	"VABSDIFF": {class: format.ClassALU, since: smVolta}, "VABSDIFF4": {class: format.ClassALU, since: smVolta},
	"VIADD": {class: format.ClassALU, since: smHopper}, "VIMNMX": {class: format.ClassALU, since: smHopper},
	"VIADDMNMX": {class: format.ClassALU, since: smHopper}, "VHMNMX": {class: format.ClassFP32, since: smHopper},
	// Conversion.
	"F2F": {class: format.ClassConv, since: smVolta}, "F2I": {class: format.ClassConv, since: smVolta},
	"I2F": {class: format.ClassConv, since: smVolta}, "I2I": {class: format.ClassConv, since: smVolta},
	"I2IP": {class: format.ClassConv, since: smVolta}, "FRND": {class: format.ClassConv, since: smVolta},
	"F2FP": {class: format.ClassConv, since: smAmpere}, "I2FP": {class: format.ClassConv, since: smAmpere},
	"F2IP": {class: format.ClassConv, since: smAmpere},
	// Movement and predicates.
	"MOV": {class: format.ClassALU, since: smVolta}, "MOV32I": {class: format.ClassALU, since: smVolta},
	"PRMT": {class: format.ClassALU, since: smVolta}, "SEL": {class: format.ClassALU, since: smVolta},
	"SGXT": {class: format.ClassALU, since: smVolta}, "MOVM": {class: format.ClassALU, since: smTuring},
	"PLOP3": {class: format.ClassALU, since: smVolta}, "PSETP": {class: format.ClassALU, since: smVolta},
	"P2R": {class: format.ClassALU, since: smVolta}, "R2P": {class: format.ClassALU, since: smVolta},
	"S2R": {class: format.ClassALU, since: smVolta}, "CS2R": {class: format.ClassALU, since: smVolta},
	"B2R": {class: format.ClassALU, since: smVolta}, "R2B": {class: format.ClassALU, since: smVolta},
	"LEPC": {class: format.ClassALU, since: smVolta}, "NOP": {class: format.ClassALU, since: smVolta},
	"PMTRIG": {class: format.ClassOther, since: smVolta}, "GETLMEMBASE": {class: format.ClassALU, since: smVolta},
	"SETLMEMBASE": {class: format.ClassALU, since: smVolta}, "SETCTAID": {class: format.ClassALU, since: smVolta},
	// LDC, ULDC: constant-bank reads. NVBit gives them no memory reference, so the tracer
	// records no address; a line with addresses (gtrace's exporter) is a constant load.
	"LDC": {class: format.ClassALU, since: smVolta},
	// Uniform datapath (one value per warp).
	"R2UR": {class: format.ClassALU, since: smTuring}, "S2UR": {class: format.ClassALU, since: smTuring},
	"UBMSK": {class: format.ClassALU, since: smTuring}, "UBREV": {class: format.ClassALU, since: smTuring},
	"UCLEA": {class: format.ClassALU, since: smTuring}, "UFLO": {class: format.ClassALU, since: smTuring},
	"UIADD3": {class: format.ClassALU, since: smTuring}, "UIMAD": {class: format.ClassALU, since: smTuring},
	"UISETP": {class: format.ClassALU, since: smTuring}, "ULEA": {class: format.ClassALU, since: smTuring},
	"ULOP": {class: format.ClassALU, since: smTuring}, "ULOP3": {class: format.ClassALU, since: smTuring},
	"ULOP32I": {class: format.ClassALU, since: smTuring}, "UMOV": {class: format.ClassALU, since: smTuring},
	"UP2UR": {class: format.ClassALU, since: smTuring}, "UPLOP3": {class: format.ClassALU, since: smTuring},
	"UPOPC": {class: format.ClassALU, since: smTuring}, "UPRMT": {class: format.ClassALU, since: smTuring},
	"UPSETP": {class: format.ClassALU, since: smTuring}, "UR2UP": {class: format.ClassALU, since: smTuring},
	"USEL": {class: format.ClassALU, since: smTuring}, "USGXT": {class: format.ClassALU, since: smTuring},
	"USHF": {class: format.ClassALU, since: smTuring}, "USHL": {class: format.ClassALU, since: smTuring},
	"USHR": {class: format.ClassALU, since: smTuring}, "ULEPC": {class: format.ClassALU, since: smHopper},
	"USETMAXREG": {class: format.ClassALU, since: smHopper},
	"ULDC":       {class: format.ClassALU, since: smTuring},
	// Cross-lane.
	"SHFL": {class: format.ClassWarp, since: smVolta}, "VOTE": {class: format.ClassWarp, since: smVolta},
	"VOTEU": {class: format.ClassWarp, since: smTuring}, "MATCH": {class: format.ClassWarp, since: smVolta},
	"REDUX": {class: format.ClassWarp, since: smAmpere}, "ELECT": {class: format.ClassWarp, since: smHopper},
	// Loads and stores: the tracer records one address per active lane.
	"LD":  {class: format.ClassMem, space: format.SpaceGeneric, memop: format.MemLoad, since: smVolta},
	"LDG": {class: format.ClassMem, space: format.SpaceGlobal, memop: format.MemLoad, since: smVolta},
	"LDL": {class: format.ClassMem, space: format.SpaceLocal, memop: format.MemLoad, since: smVolta},
	"LDS": {class: format.ClassMem, space: format.SpaceShared, memop: format.MemLoad, since: smVolta},
	// LDSM (ldmatrix) and STSM (stmatrix): each lane's address names one 16-byte row (PTX
	// ISA, ldmatrix). LDGSTS (cp.async): the traced address is the global source; the
	// shared store is not traced.
	"LDSM":   {class: format.ClassMem, space: format.SpaceShared, memop: format.MemLoad, width: 16, since: smTuring},
	"LDGSTS": {class: format.ClassMem, space: format.SpaceGlobal, memop: format.MemLoad, since: smAmpere},
	"ST":     {class: format.ClassMem, space: format.SpaceGeneric, memop: format.MemStore, since: smVolta},
	"STG":    {class: format.ClassMem, space: format.SpaceGlobal, memop: format.MemStore, since: smVolta},
	"STL":    {class: format.ClassMem, space: format.SpaceLocal, memop: format.MemStore, since: smVolta},
	"STS":    {class: format.ClassMem, space: format.SpaceShared, memop: format.MemStore, since: smVolta},
	"STSM":   {class: format.ClassMem, space: format.SpaceShared, memop: format.MemStore, width: 16, since: smHopper},
	"ATOM":   {class: format.ClassMem, space: format.SpaceGeneric, memop: format.MemAtomic, since: smVolta},
	"ATOMG":  {class: format.ClassMem, space: format.SpaceGlobal, memop: format.MemAtomic, since: smVolta},
	"ATOMS":  {class: format.ClassMem, space: format.SpaceShared, memop: format.MemAtomic, since: smVolta},
	"RED":    {class: format.ClassMem, space: format.SpaceGeneric, memop: format.MemReduce, since: smVolta},
	"REDG":   {class: format.ClassMem, space: format.SpaceGlobal, memop: format.MemReduce, since: smHopper},
	// Texture and surface: the timing and memory models need texel coordinates, which
	// NVBit does not record; imported as class other, counted in the Report.
	"TEX": {class: format.ClassOther, since: smVolta, texture: true}, "TLD": {class: format.ClassOther, since: smVolta, texture: true},
	"TLD4": {class: format.ClassOther, since: smVolta, texture: true}, "TMML": {class: format.ClassOther, since: smVolta, texture: true},
	"TXD": {class: format.ClassOther, since: smVolta, texture: true}, "TXQ": {class: format.ClassOther, since: smVolta, texture: true},
	"SUATOM": {class: format.ClassOther, since: smVolta, texture: true}, "SULD": {class: format.ClassOther, since: smVolta, texture: true},
	"SURED": {class: format.ClassOther, since: smVolta, texture: true}, "SUST": {class: format.ClassOther, since: smVolta, texture: true},
	// Bulk and tensor-memory copies (Hopper TMA): no per-lane addresses.
	"UBLKCP": {class: format.ClassOther, since: smHopper}, "UBLKPF": {class: format.ClassOther, since: smHopper},
	"UBLKRED": {class: format.ClassOther, since: smHopper}, "UTMALDG": {class: format.ClassOther, since: smHopper},
	"UTMASTG": {class: format.ClassOther, since: smHopper}, "UTMAPF": {class: format.ClassOther, since: smHopper},
	"UTMAREDG": {class: format.ClassOther, since: smHopper}, "UTMACCTL": {class: format.ClassOther, since: smHopper},
	"UTMACMDFLUSH": {class: format.ClassOther, since: smHopper},
	// Barriers, fences, cache control.
	"BAR": {class: format.ClassSync, since: smVolta}, "MEMBAR": {class: format.ClassSync, since: smVolta},
	"ERRBAR": {class: format.ClassSync, since: smVolta}, "DEPBAR": {class: format.ClassSync, since: smVolta},
	"CCTL": {class: format.ClassOther, since: smVolta}, "CCTLL": {class: format.ClassOther, since: smVolta},
	"CCTLT": {class: format.ClassOther, since: smVolta}, "LDGDEPBAR": {class: format.ClassSync, since: smAmpere},
	"ARRIVES": {class: format.ClassSync, since: smAmpere}, "FENCE": {class: format.ClassSync, since: smHopper},
	"SYNCS": {class: format.ClassSync, since: smHopper}, "WARPGROUP": {class: format.ClassSync, since: smHopper},
	"UCGABAR_ARV": {class: format.ClassSync, since: smHopper}, "UCGABAR_WAIT": {class: format.ClassSync, since: smHopper},
	"ACQBULK": {class: format.ClassSync, since: smHopper},
	// Control.
	"BMOV": {class: format.ClassControl, since: smVolta}, "BPT": {class: format.ClassControl, since: smVolta},
	"BRA": {class: format.ClassControl, since: smVolta}, "BREAK": {class: format.ClassControl, since: smVolta},
	"BRX": {class: format.ClassControl, since: smVolta}, "BSSY": {class: format.ClassControl, since: smVolta},
	"BSYNC": {class: format.ClassControl, since: smVolta}, "CALL": {class: format.ClassControl, since: smVolta},
	"EXIT": {class: format.ClassControl, since: smVolta}, "JMP": {class: format.ClassControl, since: smVolta},
	"JMX": {class: format.ClassControl, since: smVolta}, "KILL": {class: format.ClassControl, since: smVolta},
	"NANOSLEEP": {class: format.ClassOther, since: smVolta}, "RET": {class: format.ClassControl, since: smVolta},
	"RPCMOV": {class: format.ClassControl, since: smVolta}, "RTT": {class: format.ClassControl, since: smVolta},
	"WARPSYNC": {class: format.ClassSync, since: smVolta}, "YIELD": {class: format.ClassControl, since: smVolta},
	"BRXU": {class: format.ClassControl, since: smTuring}, "JMXU": {class: format.ClassControl, since: smTuring},
	"ENDCOLLECTIVE": {class: format.ClassControl, since: smHopper},
}

// opInfo is what the importer records for one SASS opcode with its modifiers.
type opInfo struct {
	class   format.Class
	space   format.Space
	memop   format.MemOp
	width   uint8
	cacheOp format.CacheOp
	texture bool // a texture or surface instruction (counted: imported without addresses)
}

// errUnknownOpcode marks an opcode the table of the trace's generation lacks.
type errUnknownOpcode struct {
	opcode string
	gen    int
	later  int // the generation that lists it, 0 if none does
}

func (e *errUnknownOpcode) Error() string {
	if e.later != 0 {
		return fmt.Sprintf("SASS opcode %s is listed from sm_%d on, but this kernel's binary is sm_%d", e.opcode, e.later, e.gen)
	}
	return fmt.Sprintf("unknown SASS opcode %s (not in gtrace's sm_%d table; --unknown-opcode=alu imports it as an integer instruction)", e.opcode, e.gen)
}

// lookup returns what gtrace makes of opcode (with modifiers, "LDG.E.128.SYS") in
// generation gen, for a line with addresses or without.
func lookup(opcode string, gen int, hasAddrs bool) (opInfo, error) {
	base, mods, _ := strings.Cut(opcode, ".")
	row, ok := sassOps[base]
	if !ok {
		return opInfo{}, &errUnknownOpcode{opcode: base, gen: gen}
	}
	if row.since > gen {
		return opInfo{}, &errUnknownOpcode{opcode: base, gen: gen, later: row.since}
	}
	if hasAddrs && (base == "LDC" || base == "ULDC") {
		// The exporter writes PTX ld.const as LDC with its offsets in the bank, which
		// NVBit's tracer never records.
		row = sassOp{class: format.ClassMem, space: format.SpaceConst, memop: format.MemLoad}
	}
	in := opInfo{class: row.class, space: row.space, memop: row.memop, texture: row.texture}
	if row.memop == format.MemNone {
		return in, nil
	}
	in.width = row.width
	if in.width == 0 {
		in.width = widthOf(mods)
	}
	in.cacheOp = cacheOpOf(mods)
	return in, nil
}

// widthOf is the bytes per lane that a memory opcode's modifiers name: the first
// modifier that is a size in bits (".64", ".128") or a type with one (".U8", ".S16",
// ".F64"), as Accel-Sim's trace parser reads it (it also falls back to 4); types it
// does not know (".F16x2") leave the 32-bit default.
func widthOf(mods string) uint8 {
	for _, m := range strings.Split(mods, ".") {
		bits := m
		if len(m) > 1 && strings.ContainsRune("USFB", rune(m[0])) {
			bits = m[1:]
		}
		n, err := strconv.Atoi(bits)
		if err != nil || n < 8 || n > 128 || n&(n-1) != 0 {
			continue
		}
		return uint8(n / 8)
	}
	return 4
}

// cacheOpOf maps the modifiers with a PTX counterpart: .CONSTANT is ld.global.nc (the
// read-only path), .BYPASS an L1 bypass (cp.async.cg), .STRONG.* a coherent access that
// may not be served from a stale L1 line (volatile or relaxed-scope atomics in PTX).
func cacheOpOf(mods string) format.CacheOp {
	for _, m := range strings.Split(mods, ".") {
		switch m {
		case "CONSTANT":
			return format.CacheNC
		case "BYPASS":
			return format.CacheCG
		case "STRONG":
			return format.CacheVolatile
		}
	}
	return format.CacheDefault
}
