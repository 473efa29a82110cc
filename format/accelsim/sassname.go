package accelsim

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// sassName is the SASS opcode the exporter writes for a PTX program row: the
// instruction ptxas would make of it in generation gen, or the nearest one of the same
// class where ptxas makes several (a PTX integer divide is a sequence; its first
// instruction stands for it). Its row in sassOps has the class of in, so an import of
// the export gives every row its class back (TestExportRoundTrip), and its modifiers
// give widthOf the width of a memory access. inEntry says the row is the entry
// function's own (format.Program.EntryInsts): its ret ends the thread.
func sassName(in *format.Inst, gen int, inEntry bool) string {
	base, rest, _ := strings.Cut(in.Opcode, ".")
	if _, ok := sassOps[base]; ok {
		return in.Opcode // a trace imported from SASS keeps its opcodes
	}
	mods := strings.Split(rest, ".")
	has := func(m string) bool { return slices.Contains(mods, m) }
	if in.MemOp != format.MemNone {
		return sassMemName(in, base, has, gen)
	}
	f64 := has("f64")
	switch in.Class {
	case format.ClassFP32, format.ClassFP64:
		var op string
		switch base {
		case "add", "sub", "abs", "neg":
			op = "ADD"
		case "mul":
			op = "MUL"
		case "min", "max":
			if !f64 {
				return "FMNMX"
			}
			op = "SETP" // no DMNMX: ptxas compares and selects
		case "setp", "set":
			op = "SETP"
		default:
			op = "FMA"
		}
		if in.Class == format.ClassFP64 {
			return "D" + op
		}
		return "F" + op
	case format.ClassSFU:
		fn := map[string]string{"rcp": "RCP", "div": "RCP", "sqrt": "SQRT", "rsqrt": "RSQ", "sin": "SIN",
			"cos": "COS", "ex2": "EX2", "lg2": "LG2", "tanh": "TANH"}[base]
		if fn == "" {
			fn = "RCP"
		}
		if f64 {
			fn += "64H"
		}
		return "MUFU." + fn
	case format.ClassConv:
		return convName(base, mods)
	case format.ClassWarp:
		switch base {
		case "shfl":
			for _, m := range []string{"up", "down", "bfly", "idx"} {
				if has(m) {
					return "SHFL." + strings.ToUpper(m)
				}
			}
			return "SHFL.IDX"
		case "vote", "activemask":
			if has("all") {
				return "VOTE.ALL"
			}
			return "VOTE.ANY"
		case "match":
			if has("all") {
				return "MATCH.ALL"
			}
			return "MATCH.ANY"
		case "redux":
			if gen >= smAmpere {
				return "REDUX"
			}
		}
		return "SHFL.IDX"
	case format.ClassControl:
		switch base {
		case "call":
			return "CALL.REL"
		case "ret":
			// ptxas makes the entry's ret an EXIT, and Accel-Sim ends a thread only at an
			// EXIT: a warp that ends in RET.REL never completes there (its scheduler
			// then reads past the warp's last instruction and crashes).
			if inEntry {
				return "EXIT"
			}
			return "RET.REL"
		case "exit":
			return "EXIT"
		case "trap", "brkpt":
			return "BPT.TRAP"
		}
		return "BRA"
	case format.ClassSync:
		switch {
		case base == "mbarrier" || base == "cp" && has("mbarrier"):
			return mbarrierName(base, has, gen)
		case base == "membar" || base == "fence":
			scope := "GPU"
			switch {
			case has("cta"):
				scope = "CTA"
			case has("sys"):
				scope = "SYS"
			}
			return "MEMBAR.SC." + scope
		case has("warp"):
			return "WARPSYNC"
		case has("red"):
			return "BAR.RED.POPC"
		case gen >= smAmpere:
			return "BAR.SYNC.DEFER_BLOCKING"
		}
		return "BAR.SYNC"
	case format.ClassOther:
		switch base {
		case "nanosleep":
			return "NANOSLEEP"
		case "pmevent":
			return "PMTRIG"
		}
		return "CCTL.E.PF2" // prefetch
	case format.ClassTensor:
		return mmaName(mods, has, gen)
	}
	// ClassALU.
	switch base {
	case "mul", "mad", "madc", "mul24", "mad24", "div", "rem":
		if has("wide") {
			return "IMAD.WIDE"
		}
		return "IMAD"
	case "setp", "set":
		return "ISETP"
	case "mov":
		for _, sr := range []string{"%tid", "%ctaid", "%laneid", "%warpid", "%smid", "%lanemask", "%clock"} {
			if strings.Contains(in.PTX, sr) {
				return "S2R" // a special register
			}
		}
		return "MOV"
	case "selp", "slct":
		return "SEL"
	case "and", "or", "xor", "not", "cnot", "lop3", "bfi":
		return "LOP3.LUT"
	case "shl":
		return "SHF.L"
	case "shr", "shf", "bfe":
		return "SHF.R"
	case "popc":
		return "POPC"
	case "clz":
		return "FLO"
	case "brev":
		return "BREV"
	case "prmt":
		return "PRMT"
	case "szext":
		return "SGXT"
	case "bmsk":
		return "BMSK"
	case "dp4a", "dp2a":
		return "IDP.4A"
	case "min", "max":
		return "IMNMX"
	case "abs":
		return "IABS"
	case "mbarrier": // pending_count: bits of the state (ptxas 11.8: SHF.R, LOP3, IADD3; sm_80 LOP3, IADD3)
		if gen >= smHopper {
			return "SHF.R"
		}
		return "LOP3.LUT"
	}
	return "IADD3"
}

// mbarrierName names an mbarrier instruction or cp.async.mbarrier.arrive as ptxas 11.8
// makes it (scripts/hw/mbarrier.cu, traces/hw/h100-2026-11-27-mbarrier): on sm_90 the
// SYNCS unit's instructions, on sm_80 ARRIVES for the cp.async forms, and for the others
// the MEMBAR.ALL.CTA ptxas puts before an arrive, since its shared-memory accesses
// there (STS.64, ATOMS.ARRIVE.64, LDS) need addresses the trace's sync rows do not keep.
func mbarrierName(base string, has func(string) bool, gen int) string {
	if base == "cp" {
		if has("noinc") {
			return "ARRIVES.LDGSTSBAR.64.ARVCNT"
		}
		return "ARRIVES.LDGSTSBAR.64.TRANSCNT"
	}
	if gen < smHopper {
		return "MEMBAR.ALL.CTA"
	}
	switch {
	case has("init"):
		return "SYNCS.EXCH.64"
	case has("inval"):
		return "SYNCS.CCTL.IV"
	case has("arrive_drop"):
		return "SYNCS.ARRIVE.TRANS64.OPTOUT.A1T0"
	case has("test_wait"):
		return "SYNCS.PHASECHK.TRANS64"
	case has("try_wait"):
		return "SYNCS.PHASECHK.TRANS64.TRYWAIT"
	}
	return "SYNCS.ARRIVE.TRANS64.A1T0"
}

// mmaName names an mma as ptxas 11.8 does (scripts/hw/mma.sh's SASS and its sm_80
// build): HMMA.16816.F32, HMMA.1688.F32.BF16, HMMA.16816.F16, HMMA.1688.F32.TF32;
// IMMA.16832.S8.S8 (.U8.S8 and the like by the input types, .SAT for .satfinite) and
// IMMA.16816; DMMA.884 (DMMA.8x8x4 from sm_90).
func mmaName(mods []string, has func(string) bool, gen int) string {
	if has("m8n8k4") && has("f64") {
		if gen >= smHopper {
			return "DMMA.8x8x4"
		}
		return "DMMA.884"
	}
	var ints []string // the input types of an integer mma
	for _, m := range mods {
		if m == "s8" || m == "u8" {
			ints = append(ints, strings.ToUpper(m))
		}
	}
	if len(ints) == 2 {
		name := "IMMA.16816." + ints[0] + "." + ints[1]
		if has("m16n8k32") {
			name = "IMMA.16832." + ints[0] + "." + ints[1]
		}
		if has("satfinite") {
			name += ".SAT"
		}
		return name
	}
	shape := "16816"
	if has("m16n8k8") {
		shape = "1688"
	}
	name := "HMMA." + shape + ".F32"
	if i := slices.Index(mods, "col"); i >= 0 && i+1 < len(mods) && mods[i+1] == "f16" { // .dtype
		name = "HMMA." + shape + ".F16"
	}
	switch {
	case has("bf16"):
		name += ".BF16"
	case has("tf32"):
		name += ".TF32"
	}
	return name
}

// convName names a cvt by its destination and source types (cvt.rn.f32.s32: to f32 from
// s32): F2F, F2I, I2F or I2I; a float rounded to an integral float is FRND.
func convName(base string, mods []string) string {
	var types []string
	for _, m := range mods {
		if len(m) >= 2 && strings.ContainsRune("usbf", rune(m[0])) && m[1] >= '0' && m[1] <= '9' {
			types = append(types, m)
		}
	}
	if base != "cvt" || len(types) < 2 {
		return "I2I"
	}
	to, from := types[0][0] == 'f', types[1][0] == 'f'
	switch {
	case to && from && slices.ContainsFunc(mods, func(m string) bool { return m == "rni" || m == "rzi" || m == "rmi" || m == "rpi" }):
		return "FRND"
	case to && from:
		return "F2F"
	case to:
		return "I2F"
	case from:
		return "F2I"
	}
	return "I2I"
}

// sassMemName names a memory instruction by space and operation, with the width as the
// modifier widthOf reads (.U8 .U16 .64 .128; 32 bits is the default).
func sassMemName(in *format.Inst, base string, has func(string) bool, gen int) string {
	w := map[uint8]string{1: ".U8", 2: ".U16", 8: ".64", 16: ".128"}[in.Width]
	atomOp := func() string {
		for _, m := range []string{"add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec"} {
			if has(m) {
				op := "." + strings.ToUpper(m)
				switch {
				case has("f32"):
					op += ".F32"
				case has("f64"):
					op += ".F64"
				case in.Width == 8:
					op += ".64"
				}
				return op
			}
		}
		return ".ADD"
	}
	switch in.Space {
	case format.SpaceGlobal:
		switch in.MemOp {
		case format.MemLoad:
			if base == "cp" { // cp.async: its global source, as the importer reads LDGSTS
				if in.CacheOp == format.CacheCG {
					return "LDGSTS.E.BYPASS" + w
				}
				return "LDGSTS.E" + w
			}
			if in.CacheOp == format.CacheNC {
				return "LDG.E" + w + ".CONSTANT"
			}
			return "LDG.E" + w
		case format.MemStore:
			return "STG.E" + w
		case format.MemAtomic:
			return "ATOMG.E" + atomOp()
		}
		if gen >= smHopper {
			return "REDG.E" + atomOp()
		}
		return "RED.E" + atomOp()
	case format.SpaceShared:
		switch in.MemOp {
		case format.MemLoad:
			if base == "ldmatrix" { // LDSM.16.M88 (.MT88 transposed), .2 or .4 for .x2, .x4
				name := "LDSM.16.M88"
				if has("trans") {
					name = "LDSM.16.MT88"
				}
				if has("x2") {
					return name + ".2"
				}
				if has("x4") {
					return name + ".4"
				}
				return name
			}
			return "LDS" + w
		case format.MemStore:
			return "STS" + w
		}
		return "ATOMS" + atomOp() // shared reductions are ATOMS in SASS
	case format.SpaceLocal:
		if in.MemOp == format.MemStore {
			return "STL" + w
		}
		return "LDL" + w
	case format.SpaceConst:
		return "LDC" + w
	case format.SpaceParam:
		// ptxas makes a kernel parameter a constant-bank operand (or an LDC/ULDC whose
		// address NVBit does not trace) and a function parameter a register: no memory
		// access either way (paramMove).
		if in.MemOp == format.MemStore {
			return "MOV"
		}
		return "LDC" + w
	case format.SpaceTexture:
		return "TEX.SCR.LL"
	}
	// Generic.
	switch in.MemOp {
	case format.MemLoad:
		return "LD.E" + w
	case format.MemStore:
		return "ST.E" + w
	case format.MemAtomic:
		return "ATOM.E" + atomOp()
	}
	return "RED.E" + atomOp()
}
