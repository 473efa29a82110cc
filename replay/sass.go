package replay

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// SASS estimates. ncu counts SASS instructions (smsp__inst_executed.sum), a PTX trace
// counts PTX ones, and the two differ by -69% to +34% on the reference kernels
// (docs/VALIDATION.md, "Instruction counts: PTX to SASS"). sassWeights estimates, for each PTX
// instruction of a program, how many SASS instructions ptxas makes of it for sm_90, so
// that Σ executions × weight is the SASS count. Every rule below is read from ptxas's
// sm_90 output for the reference kernels (traces/hw/h200-2026-11-21-sass.tar.gz,
// `cuobjdump -sass`; the offsets cited are in clang-14's files unless marked nvcc),
// never fitted to ncu's counts, which check it: validate's band on
// smsp__inst_executed.sum (TestValidateAgainstHardware). TestSASSEstimateRules shows
// each rule alone.
//
// The rules, in program order:
//
//   - Prologue: every kernel starts with LDC R1, c[0x0][0x28] (the stack pointer), and
//     one that touches global or generic memory loads its memory descriptor once,
//     ULDC.64 c[0x0][0x208] (add_vectors_kernel 0x0000, 0x0090): 1 or 2 per warp,
//     charged to pc 0.
//   - Kernel parameters are LDC or ULDC loads: ld.param in the entry is 1 (add_vectors
//     0x0080-0x00b0: three ld.param.u64, three LDC.64). In a .func, parameters arrive
//     in registers: 0. st.param of a call argument is a move per 32-bit half and
//     call is MOV (return address) plus CALL: divergence_if_else 0x00a0-0x00d0.
//   - Free in SASS: cvta.to.* (generic and global addresses are the same on sm_90), mov
//     between registers or of an immediate (register allocation), mul.wide.{s,u}32 and
//     cvt.{u,s}64.{u,s}32 (folded with the 64-bit add they feed into IMAD.WIDE:
//     add_vectors 0x00c0, three IMAD.WIDE for one mul.wide and three add.s64).
//     Special registers are S2R/S2UR, %ntid an LDC: 1. Predicate logic (and, or, xor,
//     not .pred) folds into the ISETP that makes an operand: 0
//     (matrixTransposeShared 0x00a0 ISETP.GE.OR; nvcc's divergence_nested 0x00d0).
//   - A 32-bit add of a mul.hi's result that dies there is one IMAD.HI with the add's
//     other operand as its addend: 0 (fusedAdd; the integer probe's chain_mulhi,
//     traces/hw/h200-2026-11-26-intchain/intchain-sass.txt).
//   - A shl.b32 by an immediate that only 32-bit adds read is part of each add, a
//     LEA or IMAD by the power of two: 0 (shiftIntoAdd; nvcc's shared_sweep and
//     hist_shared in traces/hw/h200-2026-11-25-heldout-sass.tar.gz).
//   - A symbol's address (symbolAddress): a shared variable's is S2R SR_CgaCtaId, MOV
//     and LEA, 3; a constant's is LDC's bank offset, 0, and so is a 64-bit add of it
//     that only constant loads read (constAddress), while a mul.wide scaling the
//     index for it is a shift, 1. Inside a loop ptxas takes the address once, before
//     the loop: the cost moves to the instruction before the loop's head.
//   - Integer divide and remainder by a register have no instruction: 17 (unsigned,
//     reduce_v1 0x0160-0x0260) or 24 (signed, testScattered 0x0050-0x0220). Inside a
//     loop whose body never writes the divisor, ptxas hoists the reciprocal (I2F.RP,
//     MUFU.RCP, F2I and the fix-up multiplies) out of the loop and the loop runs 15 per
//     signed divide (deviceLoadRowAfterRowTex 0x01d0-0x0330, 23 instructions of which 8
//     are the loop's other PTX instructions), 10 per unsigned one (the same 7
//     reciprocal instructions hoisted; not measured apart).
//   - An atomic add ptxas aggregates per warp (Aggregated, aggregate.go) carries the
//     aggregation: 10 for an ATOM (compact_atomic 0x00f0-0x01b0,
//     traces/hw/h200-2026-11-26-compaction-sass.tar.gz), 5 for a RED (derived).
//   - A .func that touches global memory loads the descriptor again (ULDC.64 at the
//     start of each callee of divergence_if_else, 0x0170, 0x01e0, 0x0240).
//   - A conditional forward branch that stays a branch and may diverge (its predicate
//     depends on the lane, see divergent) is bracketed by a convergence barrier: BSSY
//     before it, BSYNC where the paths meet, 2 for every warp that reaches it (nvcc's
//     reduce_v2 0x0060/0x0120 and 0x0190/0x0260). A branch to the kernel's exit is a
//     predicated EXIT and needs none.
//   - Block layout: ptxas places blocks so that an unconditional bra right after a
//     conditional one (the pair is one inverted branch) and a loop's back edge (loops
//     are rotated: the exit test moves to the bottom) fall through: 0 (reduce_v3
//     0x0140-0x0200). Other bra.uni stay: 1.
//   - If-conversion: a block of at most ifConvertMax SASS instructions (as estimated
//     here) with no control or barrier instruction, entered only from a conditional
//     branch that skips it, becomes predicated code that every warp reaching the branch issues, and the
//     branch disappears: the branch carries the block's weight and the block none
//     (matrixTransposeShared 0x00b0-0x0180: 10 PTX instructions, 7 SASS, with a global
//     load and a shared store). A block of 8 stays behind its branch (nvcc's reduce_v2
//     0x00a0-0x0110). Where the block ends in a bra.uni to the branch's own target (a
//     "continue" in a loop), one BRA stays (reduce_v3 0x0150-0x0200: its loop's
//     predicated block of 8 PTX instructions and one branch back).
//
// What it does not model, each a documented miss in validate.KnownDifferences: loops
// ptxas unrolls further, the barrier around a loop whose trip count diverges, exits
// ptxas duplicates instead of reconverging, values it rematerialises inside a loop (a
// texture handle), 64-bit shared addresses that SASS computes in 32 bits, and 64-bit
// adds on a base held in a uniform register (IADD3 pairs, not IMAD.WIDE).

// ifConvertMax is the largest block, in SASS instructions, seen predicated in the
// measured SASS (matrixTransposeShared's 7); the smallest seen behind a branch is 8
// (nvcc's reduce_v2, its first block and its loop's).
const ifConvertMax = 7

// sassWeights returns the estimated SASS instructions per execution of each pc, or nil
// where the program is not PTX for an arch whose SASS was measured (cc 9.0): then each
// PTX instruction counts 1. agg marks the atomics ptxas aggregates per warp (Aggregated,
// nil: none), which carry the aggregation's instructions (aggregateSASS).
func sassWeights(prog format.Program, producer, cc string, agg []bool) []int {
	w, _, _ := sassEstimate(prog, producer, cc, agg)
	return w
}

// sassEstimate returns sassWeights, and each instruction's own SASS count, which is
// what the timing engine issues: the same but for if-conversion, where the count moves
// a predicated block's instructions onto its branch (every warp reaching the branch
// issues them) and own keeps them in place (with their latencies) and drops the branch;
// and folded, the instructions ptxas merges into another (foldsOf).
func sassEstimate(prog format.Program, producer, cc string, agg []bool) (count, own []int, folded []bool) {
	if cc != "9.0" || strings.HasPrefix(producer, format.SASSProducer) || len(prog.Insts) == 0 {
		return nil, nil, nil
	}
	insts := prog.Insts
	entry := entryLen(prog)
	w := make([]int, len(insts))
	varying := divergent(insts, entry)
	targeted := make([]bool, len(insts)+1) // a branch lands here
	for pc := range insts {
		if t, ok := insts[pc].BranchTarget(); ok {
			targeted[t] = true
		}
	}
	loops := loopsIn(insts)
	uses := usesOf(insts)
	folded = foldsOf(insts, loops, uses)
	for pc := range insts {
		in := &insts[pc]
		w[pc] = sassOf(in, pc < entry)
		if symbol, space := symbolAddress(insts, uses, pc); symbol {
			w[pc] = symbolSASS(space)
			// Hoisted out of its loops (so folded: its own count is 0 below), the
			// address is taken once, before them; not placed when the outer loop is
			// entered only by a jump.
			if pre, ok := preheader(insts, loopsOf(loops, pc)); ok && hoisted(insts, loops, pc) {
				w[pre] += w[pc]
			}
		}
		if folded[pc] {
			w[pc] = 0
		}
		if scalesConstAddress(insts, uses, pc) {
			w[pc] = 1 // a shift of its own
		}
		if agg != nil && agg[pc] {
			w[pc] += aggregateSASS(in)
		}
		if n, hoistable := intDivideSASS(in); n > 0 {
			w[pc] = n
			if hoistedDivide(insts, pc, loops) {
				w[pc] = n - hoistable
			}
		}
	}
	exit := earlyExit(insts, entry, targeted)
	if exit >= 0 {
		sinkParams(insts, uses, w, exit)
	}
	own = slices.Clone(w)
	for pc := range insts {
		in := &insts[pc]
		if !isBranch(in) {
			continue
		}
		t, ok := in.BranchTarget()
		if !ok {
			continue
		}
		switch {
		case !conditional(in):
			if t <= pc || (pc > 0 && isBranch(&insts[pc-1]) && conditional(&insts[pc-1])) {
				w[pc], own[pc] = 0, 0
			}
			continue
		case exits(insts, t, entry):
			continue // a predicated EXIT: the warps that take it leave, the others go on
		default:
			end, jump, ok := ifBody(insts, w, targeted, pc, t)
			if !ok {
				break
			}
			sum := 0
			for i := pc + 1; i < end; i++ {
				sum, w[i] = sum+w[i], 0
			}
			own[pc] = 0
			if jump {
				sum++ // the block's bra.uni to the same target: one BRA for every warp
				w[end], own[pc] = 0, 1
			}
			w[pc] = sum
			continue
		}
		if g, ok := guard(in); ok && t > pc && varying[g] {
			w[pc] += 2 // BSSY before the branch, BSYNC where the paths meet
			own[pc] += 2
		}
	}
	for _, f := range functions(insts, entry) {
		if targeted[f[0]] {
			continue
		}
		if f[0] == 0 {
			w[0]++ // LDC R1, the stack pointer
			own[0]++
		}
		for i, in := range insts[f[0]:f[1]] {
			if in.Space == format.SpaceGlobal || in.Space == format.SpaceGeneric {
				at := f[0] // ULDC.64 of the memory descriptor, once per function
				if f[0] == 0 && exit >= 0 && i > exit {
					at = exit + 1 // first needed past the early exit
				}
				w[at]++
				own[at]++
				break
			}
		}
	}
	return w, own, folded
}

// earlyExit is the pc of the entry's `if (i >= n) return;`: a conditional branch to
// the entry's ret that every warp reaches, in straight-line code from pc 0 (no branch
// or barrier before it, no branch landing before it or just after it). -1 if none.
func earlyExit(insts []format.Inst, entry int, targeted []bool) int {
	for pc := 0; pc+1 < entry; pc++ {
		in := &insts[pc]
		if targeted[pc] {
			return -1
		}
		if in.Class != format.ClassControl && in.Class != format.ClassSync {
			continue
		}
		if t, ok := in.BranchTarget(); ok && isBranch(in) && conditional(in) && exits(insts, t, entry) && !targeted[pc+1] {
			return pc
		}
		return -1
	}
	return -1
}

// sinkParams moves the kernel parameter loads before the early exit at exit whose
// value nothing up to the exit reads to the instruction after it: ptxas loads a
// parameter where it is first needed, so the warps that leave never load it (nvcc's
// copy, traces/hw/h200-2026-11-25-heldout-sass.tar.gz: N at 0x0030, read by the
// exit's ISETP; both pointers, and the memory descriptor ULDC.64, at 0x0080-0x00c0,
// after @P0 EXIT at 0x0070; clang-14's PTX loads the pointers after its branch itself).
func sinkParams(insts []format.Inst, u regUses, w []int, exit int) {
	for pc := 0; pc < exit; pc++ {
		in := &insts[pc]
		if !strings.HasPrefix(in.Opcode, "ld.param") {
			continue
		}
		read := false
		for _, r := range in.RegsWritten {
			read = read || slices.ContainsFunc(u.readers[r], func(i int) bool { return i > pc && i <= exit })
		}
		if !read {
			w[exit+1], w[pc] = w[exit+1]+w[pc], 0
		}
	}
}

// functions are the [start, end) pcs of the entry and of each .func after it: a .func
// starts after a ret (PTX functions end in one; one that returns early from the middle
// is taken for two functions, which only adds a descriptor load).
func functions(insts []format.Inst, entry int) [][2]int {
	fs := [][2]int{{0, entry}}
	for pc := entry; pc < len(insts); pc++ {
		if pc == entry || insts[pc-1].Opcode == "ret" {
			fs = append(fs, [2]int{pc, len(insts)})
			if n := len(fs); n > 2 {
				fs[n-2][1] = pc
			}
		}
	}
	return fs
}

// entryLen is how many of prog's instructions, from pc 0, are the entry function's own:
// all of them when the trace does not say (format.Program.EntryInsts).
func entryLen(prog format.Program) int {
	if prog.EntryInsts == 0 {
		return len(prog.Insts)
	}
	return int(prog.EntryInsts)
}

// divergent marks the registers (predicates included) whose value may differ between
// the lanes of a warp: those written from %tid, %laneid and the like, from memory
// other than kernel parameters and constants, from a .func's parameters, or from
// another such register. A branch on any other predicate is uniform: ptxas emits no
// convergence barrier for it (reduce_v2's test of blockDim.x at 0x0140).
func divergent(insts []format.Inst, entry int) map[uint16]bool {
	varying := map[uint16]bool{}
	for changed := true; changed; {
		changed = false
		for pc := range insts {
			in := &insts[pc]
			v := false
			switch {
			case in.MemOp != format.MemNone:
				v = in.Space != format.SpaceConst && (in.Space != format.SpaceParam || pc >= entry)
			case strings.HasPrefix(in.Opcode, "mov"):
				src := lastOperand(in.PTX)
				v = specialRegister(src) && !strings.HasPrefix(src, "%ntid") && !strings.HasPrefix(src, "%nctaid") &&
					!strings.HasPrefix(src, "%ctaid") && !strings.HasPrefix(src, "%gridid")
			}
			for _, r := range in.RegsRead {
				if varying[r] {
					v = true
				}
			}
			if !v {
				continue
			}
			for _, r := range in.RegsWritten {
				if !varying[r] {
					varying[r], changed = true, true
				}
			}
		}
	}
	return varying
}

// guard is the predicate register a conditional branch tests.
func guard(in *format.Inst) (uint16, bool) {
	if !conditional(in) {
		return 0, false
	}
	for _, r := range in.RegsRead {
		if r&format.PredReg != 0 {
			return r, true
		}
	}
	return 0, false
}

// exits: the instruction at pc ends the thread (a ret of the entry). A branch to it is
// a predicated EXIT, with no convergence barrier (add_vectors_kernel 0x0070).
func exits(insts []format.Inst, pc, entry int) bool {
	return pc < entry && insts[pc].Opcode == "ret"
}

// sassOf is one instruction's SASS count outside divides and branches.
func sassOf(in *format.Inst, inEntry bool) int {
	op := in.Opcode
	switch {
	case strings.HasPrefix(op, "ld.param"):
		if inEntry {
			return 1
		}
		return 0
	case strings.HasPrefix(op, "st.param"):
		return max(1, int(in.Width)/4)
	case strings.HasPrefix(op, "call"):
		return 2
	case predLogic(op):
		return 0 // folded into the ISETP that makes one of its operands
	case strings.HasPrefix(op, "cvta.to."), strings.HasPrefix(op, "mul.wide."),
		op == "cvt.u64.u32", op == "cvt.s64.s32", op == "cvt.u64.s32", op == "cvt.s64.u32":
		return 0
	case strings.HasPrefix(op, "mov"):
		src := lastOperand(in.PTX)
		switch {
		case specialRegister(src):
			return 1 // S2R, S2UR, or LDC for %ntid and %nctaid
		case !isSymbol(src):
			return 0 // a register or an immediate
		}
		return 1 // a symbol's address
	}
	return 1
}

// s2rRegister: a PTX special register that SASS reads with S2R, one the SM keeps per
// thread, warp or CTA (the SASS of scripts/hw/s2r.cu; ptxas may make a CTA-uniform one
// an S2UR). Not %ntid and %nctaid (constant bank), nor the clocks (CS2R).
func s2rRegister(s string) bool {
	switch specialName(s) {
	case "tid", "ctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid",
		"lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt":
		return true
	}
	return false
}

// clockRegister: a PTX clock register (%clock, %clock64, %clock_hi), which SASS reads
// with CS2R.
func clockRegister(s string) bool {
	n := specialName(s)
	return n == "clock" || n == "clock_hi"
}

// specialName is operand s without its %, component and number (%tid.x: tid,
// %clock64: clock, %envreg3: envreg), or "" if s is not a register.
func specialName(s string) string {
	name, ok := strings.CutPrefix(s, "%")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, ".")
	return strings.TrimRight(name, "0123456789")
}

// specialRegister: a PTX special register (%tid.x, %ctaid.y, %laneid, %clock64...),
// which SASS reads with S2R, S2UR or LDC.
func specialRegister(s string) bool {
	switch specialName(s) {
	case "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid", "gridid",
		"clock", "clock_hi", "globaltimer", "globaltimer_lo", "globaltimer_hi", "lanemask_eq", "lanemask_le",
		"lanemask_lt", "lanemask_ge", "lanemask_gt", "dynamic_smem_size", "total_smem_size", "envreg", "pm":
		return true
	}
	return false
}

func lastOperand(ptx string) string {
	ptx = strings.TrimSuffix(strings.TrimSpace(ptx), ";")
	i := strings.LastIndexAny(ptx, ", \t")
	return strings.TrimSpace(ptx[i+1:])
}

// udivSASS and sdivSASS are ptxas's sequences for a 32-bit unsigned and signed divide
// by a register (reduce_v1 0x0160-0x0260; testScattered 0x0050-0x0220).
const udivSASS, sdivSASS = 17, 24

// udiv64SASS is ptxas's rem.u64 by a register whose dividend has high bits set (as
// a 64-bit index's usually has): a test of both high words and a branch (3), the call
// (MOV, CALL.REL.NOINC, BRA: 3), a 65-instruction subroutine (I2F.U64.RP, MUFU.RCP,
// F2I.U64.TRUNC and 62 integer ops through RET), and the convergence barrier around
// the test (BSSY, BSYNC): kernel reuse in
// traces/hw/h200-2026-11-29-reuse-order/reuse-sass.txt.gz, 0x03e0-0x05b0 and
// 0x0ab0-0x0eb0. When both high words are zero a 32-bit path of about 22 runs instead;
// the trace does not keep values, so the 64-bit path is the one counted. A signed one
// adds the 32-bit signed divide's sign handling (sdivSASS - udivSASS; not read).
const udiv64SASS = 73

// intDivideSASS is the SASS count of an integer div or rem by a register, and the
// part of it that ptxas hoists out of a loop whose divisor does not change (none of a
// 64-bit one's, a called subroutine).
func intDivideSASS(in *format.Inst) (n, hoistable int) {
	signed, wide, ok := intDivideByRegister(in)
	switch {
	case !ok:
		return 0, 0
	case wide && signed:
		return udiv64SASS + sdivSASS - udivSASS, 0
	case wide:
		return udiv64SASS, 0
	case signed:
		return sdivSASS, 9
	}
	return udivSASS, 7
}

// hoistedDivide: the instruction at pc is an integer divide by a register whose
// divisor no loop around it writes (loops: every loop of the program), so ptxas
// hoists the reciprocal.
func hoistedDivide(insts []format.Inst, pc int, loops [][2]int) bool {
	if _, _, ok := intDivideByRegister(&insts[pc]); !ok {
		return false
	}
	return divisorInvariant(insts, pc, loopsOf(loops, pc))
}

// divisorInvariant reports whether the divide at pc sits in a loop that never writes
// its divisor (the last register it reads).
func divisorInvariant(insts []format.Inst, pc int, loops [][2]int) bool {
	rd := insts[pc].RegsRead
	var div uint16
	found := false
	for _, r := range rd {
		if r&format.PredReg == 0 {
			div, found = r, true
		}
	}
	if !found || len(loops) == 0 {
		return false
	}
	for _, l := range loops {
		for i := l[0]; i <= l[1]; i++ {
			for _, r := range insts[i].RegsWritten {
				if r == div {
					return false
				}
			}
		}
	}
	return true
}

// loopsIn lists the [head, tail] of each backward branch.
func loopsIn(insts []format.Inst) [][2]int {
	var loops [][2]int
	for pc := range insts {
		if t, ok := insts[pc].BranchTarget(); ok && t <= pc {
			loops = append(loops, [2]int{t, pc})
		}
	}
	return loops
}

// fusedAdd: the instruction at pc is a 32-bit add of the result of the mul.hi just
// before it, which dies there (the add overwrites it or nothing else reads it):
// ptxas makes the pair one IMAD.HI, whose addend is the add's other operand (the
// integer probe's chain_mulhi, traces/hw/h200-2026-11-26-intchain/intchain-sass.txt).
func fusedAdd(insts []format.Inst, u regUses, pc int) bool {
	if pc == 0 {
		return false
	}
	in, prev := &insts[pc], &insts[pc-1]
	if (in.Opcode != "add.u32" && in.Opcode != "add.s32") || !strings.HasPrefix(prev.Opcode, "mul.hi.") ||
		!strings.HasSuffix(prev.Opcode, "32") || len(prev.RegsWritten) != 1 {
		return false
	}
	r := prev.RegsWritten[0]
	if !slices.Contains(in.RegsRead, r) {
		return false
	}
	return slices.Contains(in.RegsWritten, r) || slices.Equal(u.readers[r], []int{pc})
}

// foldsOf marks the instructions that ptxas merges into the one that makes their
// operand or the one that reads their result, which have no SASS of their own: an add
// into IMAD.HI (fusedAdd), predicate logic into the ISETP (sassOf), a move of a
// register or an immediate into its consumers (foldedMove), a shift into the adds
// that read it (shiftIntoAdd), a 64-bit add into the constant load it addresses
// (constAddress), and a symbol's address taken inside a loop, which ptxas computes
// once before it (symbolAddress). In the timing engine each adds one cycle to its
// consumer's wait, not an ALU latency.
// loops are every loop of the program (loopsIn).
func foldsOf(insts []format.Inst, loops [][2]int, u regUses) []bool {
	f := make([]bool, len(insts))
	for pc := range insts {
		symbol, space := symbolAddress(insts, u, pc)
		f[pc] = fusedAdd(insts, u, pc) || predLogic(insts[pc].Opcode) || foldedMove(&insts[pc]) ||
			shiftIntoAdd(insts, u, pc) || constAddress(insts, u, pc) ||
			symbol && (space == format.SpaceConst || hoisted(insts, loops, pc))
	}
	return f
}

// regUses is, for each register, the pcs that read it and how many instructions
// write it: the def-use chains of the rules below, exact where a register has one
// writer (PTX from clang-14 and nvcc is nearly in SSA form; a loop's counters are
// the exception, and no rule folds those).
type regUses struct {
	readers map[uint16][]int
	writers map[uint16]int
}

func usesOf(insts []format.Inst) regUses {
	u := regUses{readers: map[uint16][]int{}, writers: map[uint16]int{}}
	for pc := range insts {
		for _, r := range insts[pc].RegsRead {
			if rs := u.readers[r]; len(rs) == 0 || rs[len(rs)-1] != pc {
				u.readers[r] = append(rs, pc)
			}
		}
		for _, r := range insts[pc].RegsWritten {
			u.writers[r]++
		}
	}
	return u
}

// only is the one register the instruction at pc writes, if it writes one that no
// other instruction writes and some instruction reads, and the pcs that read it.
func (u regUses) only(insts []format.Inst, pc int) (readers []int, ok bool) {
	in := &insts[pc]
	if len(in.RegsWritten) != 1 || u.writers[in.RegsWritten[0]] != 1 {
		return nil, false
	}
	rs := u.readers[in.RegsWritten[0]]
	return rs, len(rs) > 0
}

// shiftIntoAdd: the instruction at pc is a 32-bit shift left by an immediate whose
// result only 32-bit adds read: ptxas makes each add a LEA (or an IMAD by the power
// of two) that shifts its operand itself, and the shift has no SASS. Read in the
// held-out SASS (traces/hw/h200-2026-11-25-heldout-sass.tar.gz, nvcc.access.sass):
// shared_sweep's loop `shl.b32; add.s32; st.shared` is IMAD R5, R0, 0x4, R3 and STS
// (0x00f0, 0x0110), hist_shared's IMAD R9, R9, 0x4, R10 before ATOMS (0x0280); and in
// nvcc's matrixTransposeShared (traces/hw/h200-2026-11-21-sass.tar.gz) `shl.b32 %r10,
// %r9, 5` read by two adds is two IMAD/LEA by 0x20 (0x0090, 0x0100), no SHF.
func shiftIntoAdd(insts []format.Inst, u regUses, pc int) bool {
	in := &insts[pc]
	if in.Opcode != "shl.b32" || !immediate(lastOperand(in.PTX)) {
		return false
	}
	rs, ok := u.only(insts, pc)
	if !ok {
		return false
	}
	for _, r := range rs {
		if op := insts[r].Opcode; op != "add.s32" && op != "add.u32" {
			return false
		}
	}
	return true
}

// constAddress: the instruction at pc is a 64-bit add whose result only constant
// loads read as their address: LDC takes a register offset into the bank,
// c[0x3][R], so ptxas drops the add of the bank's base (nvcc.access.sass,
// constant_lanes 0x0230-0x0370: 25 PTX instructions a trip of its unrolled loop, 21
// SASS, one add.s64 fewer for each of the four LDC).
func constAddress(insts []format.Inst, u regUses, pc int) bool {
	op := insts[pc].Opcode
	if op != "add.s64" && op != "add.u64" {
		return false
	}
	rs, ok := u.only(insts, pc)
	if !ok {
		return false
	}
	for _, r := range rs {
		if in := &insts[r]; in.MemOp != format.MemLoad || in.Space != format.SpaceConst {
			return false
		}
	}
	return true
}

// scalesConstAddress: the instruction at pc is a mul.wide whose result only constant
// addresses (constAddress) read. With no IMAD.WIDE to fold into, the scaling is a
// shift of its own, SHF.L or IMAD.SHL (clang-14.access.sass, constant_lanes 0x02c0,
// 0x0320 before each LDC): 1 where sassOf says 0.
func scalesConstAddress(insts []format.Inst, u regUses, pc int) bool {
	if !strings.HasPrefix(insts[pc].Opcode, "mul.wide.") {
		return false
	}
	rs, ok := u.only(insts, pc)
	if !ok {
		return false
	}
	for _, r := range rs {
		if !constAddress(insts, u, r) {
			return false
		}
	}
	return true
}

// symbolAddress: the instruction at pc moves a symbol's address into a register, and
// the space of that symbol as its uses show: the memory instructions its register
// reaches through integer adds, SpaceShared if one of them is shared, SpaceConst if
// all are constant loads, SpaceNone otherwise (the address stored, converted, or
// read by anything else).
func symbolAddress(insts []format.Inst, u regUses, pc int) (bool, format.Space) {
	in := &insts[pc]
	if !strings.HasPrefix(in.Opcode, "mov") || len(in.RegsWritten) != 1 {
		return false, format.SpaceNone
	}
	if !isSymbol(lastOperand(in.PTX)) {
		return false, format.SpaceNone
	}
	shared, other, consts := false, false, 0
	seen := map[int]bool{}
	todo := []uint16{in.RegsWritten[0]}
	for len(todo) > 0 && len(seen) < 64 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, pc := range u.readers[r] {
			if seen[pc] {
				continue
			}
			seen[pc] = true
			in := &insts[pc]
			switch op := in.Opcode; {
			case in.MemOp != format.MemNone && in.Space == format.SpaceShared:
				shared = true
			case in.MemOp == format.MemLoad && in.Space == format.SpaceConst:
				consts++
			case strings.HasPrefix(op, "add.") && !strings.Contains(op, ".f") && len(in.RegsWritten) == 1:
				todo = append(todo, in.RegsWritten[0])
			default:
				other = true
			}
		}
	}
	switch {
	case shared:
		return true, format.SpaceShared
	case consts > 0 && !other:
		return true, format.SpaceConst
	}
	return true, format.SpaceNone
}

// symbolSASS is what taking a symbol's address costs in SASS on sm_90. A shared
// variable's address is its offset in the CTA's window of the cluster's shared
// memory: S2R (or S2UR) SR_CgaCtaId, a MOV of the window's base 0x400 and a LEA that
// puts the CTA's id above it, 3 (nvcc.access.sass shared_sweep 0x0180-0x01c0,
// clang-14's 0x0040-0x00a0 in uniform registers; nvcc's matrixTransposeShared has one
// S2R SR_CgaCtaId for each of its PTX moves of the tile's address). A constant's is
// the offset in bank 3 that LDC takes as an immediate: 0 (constant_lanes, both
// corpora). Any other (a global variable's) is taken for one instruction, not read.
func symbolSASS(space format.Space) int {
	switch space {
	case format.SpaceShared:
		return 3
	case format.SpaceConst:
		return 0
	}
	return 1
}

// preheader is where ptxas puts what it hoists out of loops (those loopsOf gives for
// the hoisted instruction): just before the head of the outermost, which the code
// above falls into. Not found (false) when there is no loop, or when the instruction
// before the head does not fall into it (a jump or a return).
func preheader(insts []format.Inst, loops [][2]int) (int, bool) {
	if len(loops) == 0 {
		return 0, false
	}
	head := loops[0][0]
	for _, l := range loops[1:] {
		head = min(head, l[0])
	}
	if head == 0 {
		return 0, false
	}
	if in := &insts[head-1]; in.Opcode == "ret" || isBranch(in) && !conditional(in) {
		return 0, false
	}
	return head - 1, true
}

// hoisted: ptxas moves the instruction at pc, loop-invariant, out of the loops
// around it (loops: every loop of the program), which it runs in on every trip.
func hoisted(insts []format.Inst, loops [][2]int, pc int) bool {
	in := loopsOf(loops, pc)
	return len(in) > 0 && everyTrip(insts, in, pc)
}

// everyTrip: the instruction at pc runs on every trip of each loop around it: no
// branch between a loop's head and pc jumps past it. ptxas does not hoist what runs
// only under a condition: nvcc's reduce_v2 (traces/hw/h200-2026-11-21-sass.tar.gz)
// takes the shared tile's address (S2UR SR_CgaCtaId, UMOV, ULEA at 0x01c0-0x01f0)
// inside its loop's `if`, on each trip that enters it.
func everyTrip(insts []format.Inst, loops [][2]int, pc int) bool {
	for _, l := range loops {
		for i := l[0]; i < pc; i++ {
			if t, ok := insts[i].BranchTarget(); ok && isBranch(&insts[i]) && t > pc {
				return false
			}
		}
	}
	return true
}

// immediate: the operand s is a number.
func immediate(s string) bool {
	return s != "" && strings.ContainsAny(s[:1], "0123456789-")
}

// isSymbol: a mov's source operand s names a variable (its address is what moves),
// not a register or an immediate.
func isSymbol(s string) bool {
	return s != "" && !strings.HasPrefix(s, "%") && !immediate(s)
}

// foldedMove: a mov whose source is a register or an immediate, which has no SASS of
// its own (sassOf): ptxas renames the register, or hoists the constant out of the
// loop or makes it its consumer's immediate operand (an FFMA with an immediate: the
// spin kernel of scripts/hw/streamtime.cu, TestRun/plan-h100, whose loop moves two
// constants into registers every trip in PTX and none in SASS). Its consumer waits
// for it no longer than for a fused instruction.
func foldedMove(in *format.Inst) bool {
	return strings.HasPrefix(in.Opcode, "mov") && sassOf(in, false) == 0
}

// predLogic: and, or, xor or not of predicates.
func predLogic(op string) bool {
	return strings.HasSuffix(op, ".pred") && (strings.HasPrefix(op, "and.") || strings.HasPrefix(op, "or.") ||
		strings.HasPrefix(op, "xor.") || strings.HasPrefix(op, "not."))
}

func loopsOf(loops [][2]int, pc int) [][2]int {
	var in [][2]int
	for _, l := range loops {
		if l[0] <= pc && pc <= l[1] {
			in = append(in, l)
		}
	}
	return in
}

// redirects: taking the branch at pc is a taken BRA in the SASS that sassEstimate's
// own describes (nil: no estimate, every bra is one), so the warp's next issue waits
// lat.branch. Where ptxas lays the code out otherwise (sassEstimate's "block layout"):
//   - a conditional branch it if-converts (own 0) has no BRA;
//   - "@p bra A; bra.uni B; A:" is one inverted branch, @!p BRA B falling into A: the
//     conditional's taken side falls through and the dropped bra.uni's side is the BRA;
//   - a dropped bra.uni after a conditional branch elsewhere (a loop's backward test,
//     then the exit) falls through: ptxas places its target next;
//   - a dropped bra.uni at a loop's back edge is still a taken BRA, the rotated loop's
//     bottom test.
func redirects(insts []format.Inst, own []int, pc int) bool {
	in := &insts[pc]
	if !isBranch(in) {
		return false
	}
	if own == nil {
		return true
	}
	t, _ := in.BranchTarget()
	if conditional(in) {
		n := pc + 1
		inverted := n < len(insts) && isBranch(&insts[n]) && !conditional(&insts[n]) && own[n] == 0 && t == pc+2
		return own[pc] > 0 && !inverted
	}
	if own[pc] > 0 || t <= pc {
		return true
	}
	if pc > 0 && conditional(&insts[pc-1]) && isBranch(&insts[pc-1]) {
		pt, _ := insts[pc-1].BranchTarget()
		return pt == pc+1
	}
	return false
}

// ptxasUnroll is how many trips of a counted loop (countedBackEdge) ptxas puts in one
// trip of its SASS, so that one taken BRA serves them: scripts/hw/unroll.sh
// (traces/hw/h100-2026-11-27-unroll/unroll.txt) finds 4 for every small counted loop
// of nvcc's PTX (unit step, a step of 3, a constant trip count, a chain of loads) and
// for clang-14's hist_warp summing loop (traces/hw/h200-2026-11-26-lessons-sass.tar.gz:
// 8 PTX trips of LDS, 32 in SASS), none for a block-stride loop, whose step is a
// register. clang-14's small counted FMA and load loops there stay as they are (x1):
// what decides it is not known, and the engine takes 4 for all.
const ptxasUnroll = 4

// unrolledBRAs is how many taken BRAs ptxas's unrolled form of a counted loop takes at
// one of its PTX back edges: at the taken back edge after trips trips of this entry
// (exit false), or where the warp leaves the loop after trips taken back edges, that
// is trips+1 trips of its body (exit true). The SASS of such a loop (scripts/hw/
// sumloop.sh, traces/hw/h100-2026-11-28-sumloop/sumloop-sass.txt, sum_plain from
// 0x02f0; the same in traces/hw/h100-2026-11-28-histphase for nvcc's PTX) is a main
// loop of ptxasUnroll trips a BRA, entered while more than ptxasUnroll-1 trips
// remain, then a block of two trips for a remainder of two or three, then the single
// trip for what is left:
//
//	if left > 3 { do { 4 trips } while left > 3 } else skip (a taken BRA)
//	if left > 1 { 2 trips } else skip (a taken BRA)
//	if left == 0 && the main loop or the pair ran { skip (a taken BRA) } else 1 trip
//
// An entry of n trips takes main-loop back edges n/4 - 1 times (n >= 8), and the
// tests' skips as they fall. The main loop's back edges are charged when they are
// known to come: at the PTX back edge that ends the third trip of the next round
// (trips 7, 11, 15, ...); the skips where the warp leaves.
func unrolledBRAs(trips uint32, exit bool) int {
	const u = ptxasUnroll
	if !exit {
		if trips >= 2*u-1 && trips%u == u-1 {
			return 1
		}
		return 0
	}
	n := trips + 1
	taken := 0
	if n/u == 0 {
		taken++ // no round of the main loop
	}
	left := n % u
	if left <= 1 {
		taken++ // no pair
	} else {
		left -= 2
	}
	if left == 0 {
		taken++ // nothing for the single trip: ran the main loop or the pair
	}
	return taken
}

// countedBackEdge: the branch at pc closes a loop ptxas can unroll: it goes back (a
// conditional branch, or the bra.uni after the loop's conditional exit), and the
// predicate that decides it is a compare of a register the loop steps by a constant
// (an add or sub whose only register operand is the one it writes). A loop whose
// header carries `.pragma "nounroll"` (format.Inst.NoUnroll on its first instruction,
// where clang-14 and nvcc put it on the remainder loops they make) ptxas keeps as it
// is: one BRA a trip (scripts/hw/sumloop.sh, traces/hw/h100-2026-11-28-sumloop:
// the remainder loop of clang-14's sum_plain stays one LDS a trip in SASS).
func countedBackEdge(insts []format.Inst, pc int) bool {
	in := &insts[pc]
	head, ok := in.BranchTarget()
	if !ok || head > pc || !isBranch(in) || insts[head].NoUnroll {
		return false
	}
	test := in
	if !conditional(in) {
		if pc == 0 || !isBranch(&insts[pc-1]) || !conditional(&insts[pc-1]) {
			return false
		}
		test = &insts[pc-1]
	}
	p, ok := guard(test)
	if !ok {
		return false
	}
	p &^= format.PredReg
	for i := pc - 1; i >= head; i-- {
		if !slices.ContainsFunc(insts[i].RegsWritten, func(r uint16) bool { return r&format.PredReg != 0 && r&^format.PredReg == p }) {
			continue
		}
		for _, r := range insts[i].RegsRead {
			if r&format.PredReg == 0 && steppedByConstant(insts[head:pc+1], r) {
				return true
			}
		}
		return false
	}
	return false
}

// steppedByConstant: in the loop body, r is written once, by an add or sub of a
// constant to itself.
func steppedByConstant(body []format.Inst, r uint16) bool {
	n := 0
	for i := range body {
		in := &body[i]
		if !slices.Contains(in.RegsWritten, r) {
			continue
		}
		n++
		op := in.Opcode
		if !(strings.HasPrefix(op, "add.") || strings.HasPrefix(op, "sub.")) || strings.Contains(op, ".f") ||
			len(in.RegsWritten) != 1 || len(in.RegsRead) != 1 || in.RegsRead[0] != r {
			return false
		}
	}
	return n == 1
}

func isBranch(in *format.Inst) bool {
	return in.Class == format.ClassControl && strings.HasPrefix(in.Opcode, "bra")
}

// conditional: the branch has a guard predicate (@%p bra).
func conditional(in *format.Inst) bool {
	return strings.HasPrefix(strings.TrimSpace(in.PTX), "@")
}

// ifBody finds the block that the conditional branch at pc to t skips, if ptxas can
// predicate it: the instructions up to t (a forward branch), or up to an unconditional
// bra to t (any direction: "if (c) continue;" in a loop). end is the first pc after
// the block; jump says the block ends in that bra, at end.
func ifBody(insts []format.Inst, w []int, targeted []bool, pc, t int) (end int, jump, ok bool) {
	if t > pc+1 && predicable(insts[pc+1:t], w[pc+1:t], targeted[pc+1:t]) {
		return t, false, true
	}
	for j := pc + 1; j < len(insts); j++ {
		in := &insts[j]
		if in.Class != format.ClassControl && in.Class != format.ClassSync {
			continue
		}
		if jt, has := in.BranchTarget(); has && jt == t && isBranch(in) && !conditional(in) && !targeted[j] &&
			predicable(insts[pc+1:j], w[pc+1:j], targeted[pc+1:j]) {
			return j, true, true
		}
		break
	}
	return 0, false, false
}

// predicable: a branch body ptxas turns into predicated code: at most ifConvertMax
// SASS instructions, no control or barrier instruction, and no other way in.
func predicable(body []format.Inst, w []int, targeted []bool) bool {
	n := 0
	for i := range body {
		if n += w[i]; n > ifConvertMax || targeted[i] || body[i].Class == format.ClassControl || body[i].Class == format.ClassSync {
			return false
		}
	}
	return true
}

// sassCount is n executions of pc in SASS instructions.
func sassCount(n uint64, weights []int, pc int) uint64 {
	if weights == nil {
		return n
	}
	return n * uint64(weights[pc])
}
