package replay

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// Warp-aggregated atomics. Since CUDA 9, ptxas compiles a global integer atomic add
// whose address and operand are the same in every lane of the warp into one atomic per
// warp: VOTEU.ANY takes the active mask, FLO picks its first lane, POPC counts it, that
// lane alone adds operand × count (ATOMG, or RED when the result is unused), and a
// SHFL.IDX plus the popcount of the lanes below give every lane its own old value, as
// serial atomics in lane order would (traces/hw/h200-2026-11-26-compaction-sass.tar.gz,
// compact_atomic 0x00f0-0x01b0, clang-14 and nvcc alike; NVIDIA's "Optimized filtering
// with warp-aggregated atomics"). The L2 then sees one operation per warp instruction:
// one sector and one pass where the PTX's lanes would take a pass each. The emulator's
// values are unchanged (lane order is one of the orders the GPU may give); only the
// replay's passes and the SASS count follow the compiled form.

// aggregateAtomSASS is what the aggregation adds to an ATOM in SASS (compact_atomic, clang-14,
// 0x00f0-0x01b0 against its PTX): S2R SR_LANEID, VOTEU.ANY, FLO, POPC, ISETP (first
// lane), S2R SR_LTMASK, LOP3 and POPC (the lanes below), SHFL.IDX and IADD3 (base plus
// rank): 10. A RED needs only the first five (no result to hand out): derived from the
// ATOM's sequence, not measured apart.
const (
	aggregateAtomSASS = 10
	aggregateRedSASS  = 5
)

// Aggregated reports, per pc, whether ptxas makes the instruction a warp-aggregated
// atomic: a global atom or red .add of an integer type (.u32, .s32, .u64; a float add
// would round differently as one sum) whose address and operand registers are warp
// uniform (not divergent: kernel parameters, constants, block indices and what is
// computed from them) and each written by one instruction only (a register written in
// two places may hold either value, per lane, after divergent control flow). nil when
// no instruction is, when cfg's toolkit does not aggregate (sm.aggregate_atomics), or for
// a trace of SASS, whose atomics are already what ran.
func Aggregated(prog format.Program, producer string, cfg *arch.Config) []bool {
	if !cfg.SM.AggregateAtomics || strings.HasPrefix(producer, format.SASSProducer) {
		return nil
	}
	insts := prog.Insts
	var varying map[uint16]bool
	var writers map[uint16]int
	var out []bool
	for pc := range insts {
		in := &insts[pc]
		if !aggregatable(in) {
			continue
		}
		if varying == nil { // the analysis, once, for a program with a candidate
			varying, writers = divergent(insts, entryLen(prog)), map[uint16]int{}
			for i := range insts {
				for _, r := range insts[i].RegsWritten {
					writers[r]++
				}
			}
		}
		if slices.ContainsFunc(in.RegsRead, func(r uint16) bool {
			return r&format.PredReg == 0 && (varying[r] || writers[r] != 1)
		}) {
			continue
		}
		if out == nil {
			out = make([]bool, len(insts))
		}
		out[pc] = true
	}
	return out
}

// aggregatable: a global atomic or reduction add of .u32, .s32 or .u64.
func aggregatable(in *format.Inst) bool {
	if in.Space != format.SpaceGlobal || (in.MemOp != format.MemAtomic && in.MemOp != format.MemReduce) {
		return false
	}
	parts := strings.Split(in.Opcode, ".")
	switch parts[len(parts)-1] {
	case "u32", "s32", "u64":
		return slices.Contains(parts, "add")
	}
	return false
}

// aggregateSASS is what the aggregation adds to an aggregated atomic's SASS count.
func aggregateSASS(in *format.Inst) int {
	if in.MemOp == format.MemReduce {
		return aggregateRedSASS
	}
	return aggregateAtomSASS
}
