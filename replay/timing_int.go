package replay

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// Integer instructions by SASS class. The integer probe (scripts/hw/intchain.sh,
// traces/hw/h200-2026-11-26-intchain, docs/issue-15.md item 10) measured what each
// class costs on sm_90: IMAD issues at half the FP32 rate and IMAD.HI at a quarter,
// both on the FP32 pipe (its 16-lane "heavy" half); logic, compare and select (LOP3,
// ISETP, SEL) run on a 16-lane integer pipe per scheduler; an add or move is IADD3 or
// VIADD on the integer pipe or IMAD.IADD, IMAD.MOV or IMAD.SHL on the heavy half, as
// ptxas balances them. Their dependent latencies differ: IMAD 4.2 cycles (lat.alu),
// VIADD and LOP3 about 5 (lat.int), IMAD.HI 9.3 (lat.imad_hi), an ISETP to the use of
// its predicate about 12 (lat.setp). An arch with sm.int32_lanes = 0 keeps every
// integer instruction on its FP32 pipe, and latencies of 0 are lat.alu's.
type intKind uint8

const (
	intNone  intKind = iota // not an integer instruction (float, conversion, divide...)
	intMul                  // mul.lo, mad.lo, mul.wide, mad.wide, mul24, mad24: IMAD
	intMulHi                // mul.hi, mad.hi: IMAD.HI
	intLogic                // logic, right shifts, compare, select, min/max: LOP3, SHF, ISETP, SEL, IMNMX
	intFlex                 // add, sub, mov, neg, left shift: IADD3 or VIADD, or IMAD.IADD/.MOV/.SHL
)

// intKindOf is the class of a plain (non-memory) PTX instruction.
func intKindOf(in *format.Inst) intKind {
	if in.Class != format.ClassALU {
		return intNone
	}
	parts := strings.Split(in.Opcode, ".")
	base, typ := parts[0], parts[len(parts)-1]
	integer := typ == "pred" || (len(parts) > 1 && typ != "" && strings.ContainsRune("usb", rune(typ[0])))
	switch base {
	case "mov", "selp": // moves and selects of any type are integer work in SASS
	default:
		if !integer {
			return intNone
		}
	}
	switch base {
	case "mul", "mad", "madc", "mul24", "mad24":
		if slices.Contains(parts, "hi") {
			return intMulHi
		}
		return intMul
	case "add", "sub", "addc", "subc", "mov", "neg", "shl":
		return intFlex
	case "and", "or", "xor", "not", "cnot", "lop3", "shr", "shf", "setp", "set", "selp", "slct",
		"min", "max", "abs", "bfe", "bfi", "brev", "popc", "clz", "bfind", "prmt", "testp",
		"szext", "bmsk": // SGXT and BMSK in SASS: bit-field logic beside SHF and LOP3
		return intLogic
	}
	return intNone
}

// orALU is a class latency, or lat.alu where the preset has none.
func orALU(v int, l arch.Latency) int64 {
	if v > 0 {
		return int64(v)
	}
	return int64(l.ALU)
}

// intLatency is the dependent latency of an integer instruction of kind k: a
// predicate's from the compare that writes it (lat.setp), else its class's.
func intLatency(in *format.Inst, k intKind, l arch.Latency) int64 {
	for _, r := range in.RegsWritten {
		if r&format.PredReg != 0 {
			return orALU(l.SetP, l)
		}
	}
	switch k {
	case intMulHi:
		return orALU(l.IMADHi, l)
	case intLogic, intFlex:
		return orALU(l.Int, l)
	}
	return int64(l.ALU)
}

// intPipes places an integer instruction of kind k, n SASS instructions long, on a
// scheduler's pipes when the arch has an integer pipe (cfg.SM.INT32Lanes > 0): the
// pipe and its slots, and for an add or move the FP32 pipe's slots as the other
// choice (alt; 0: none). A slot is 32 lanes of its pipe, so a multiply on the FP32
// pipe's INT32Lanes-wide half takes FP32Lanes/INT32Lanes of them, a high multiply
// twice that. What ptxas folds away (fold) still issues once, on whichever pipe is
// free.
func intPipes(k intKind, n int, fold bool, sm arch.SM) (p pipe, slots, alt int) {
	half := max(sm.FP32Lanes/max(sm.INT32Lanes, 1), 1)
	if fold {
		k = intFlex
	}
	switch k {
	case intMul:
		return pALU, n * half, 0
	case intMulHi:
		return pALU, 2 * n * half, 0
	case intLogic:
		return pINT, n, 0
	case intFlex:
		return pINT, n, n * half
	}
	return pALU, n, 0
}

// intDivide is what SASS makes of a PTX integer div or rem by a register (a divisor
// known at compile time becomes a multiply and shift, left as one ALU op): ptxas's
// sm_90 code (traces/hw/h200-2026-11-21-sass.tar.gz) has no divide instruction but a
// Newton-Raphson sequence through the reciprocal unit. rem.u32 in reduce_v1 is 17
// instructions (0x0160-0x0260) whose dependent chain passes I2F, MUFU.RCP and F2I
// (three SFU-class latencies) and 11 integer ops: VIADD, IMAD, IMAD.HI (the
// reciprocal's fix-up), then IMAD.HI, IMAD.MOV, IMAD, ISETP, @P IADD3, ISETP, @P VIADD
// and LOP3 (the quotient's). rem.s32 in testCoalesced adds the sign handling: 24
// instructions, 3 SFU-class and 16 integer ops in the chain (the five more taken as
// adds and logic, not read apart). With an unsigned divisor loop-invariant (hoisted:
// ptxas moves the reciprocal out of the loop, sass.go's divisorInvariant) what stays
// is the quotient's part: 10 instructions (7 fewer), a chain of IMAD.HI, two IMADs,
// two ISETPs and three adds or selects, the integer probe's chain_div and chain_rem
// loop (traces/hw/h200-2026-11-26-intchain/intchain-sass.txt). A signed divide keeps
// its whole chain: cutoff_direct's loop, whose divisors never change, still runs
// I2F.RP and MUFU.RCP for two of its four signed divides (clang-14, 0x0920 and 0x0aa0
// in traces/hw/h200-2026-11-26-binning-sass.tar.gz), where sass.go counts 15 per
// hoisted signed divide from another kernel; which ones ptxas hoists is not known. It returns the
// instructions (issue slots on the ALU pipe) and the chain's latency, or 0 when in is
// not such an instruction. A 64-bit divide, a called subroutine in SASS, takes
// udiv64SASS issue slots (sass.go; its chain, three SFU-class latencies and most of its
// integer ops, is taken as twice the 32-bit one's: not measured).
func intDivide(in *format.Inst, l arch.Latency, hoisted bool) (int, int64) {
	signed, wide, ok := intDivideByRegister(in)
	if !ok {
		return 0, 0
	}
	n, extra := udivSASS, 0
	if signed {
		n, extra = sdivSASS, 5
	}
	hi, imad, setp, add := orALU(l.IMADHi, l), int64(l.ALU), orALU(l.SetP, l), orALU(l.Int, l)
	chain := hi + 2*imad + 2*setp + (3+int64(extra))*add // the quotient
	if hoisted && !wide && !signed {
		_, h := intDivideSASS(in)
		return n - h, chain
	}
	chain += 3*int64(l.SFU) + add + imad + hi // the reciprocal
	if wide {
		n, _ = intDivideSASS(in)
		chain = 2 * chain
	}
	return n, chain
}
