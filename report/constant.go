package report

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/gtrace/gtrace/format"
)

// span is the bytes a pc's sampled records touch, from the lowest address to the end of
// the highest access.
type span struct {
	lo, hi uint64
	seen   bool
}

// add widens s by the bytes of the active lanes of one record.
func (s *span) add(mask uint32, lanes *[32]uint64, width int) {
	for m := mask; m != 0; m &= m - 1 {
		a := lanes[bits.TrailingZeros32(m)]
		if !s.seen || a < s.lo {
			s.lo = a
		}
		s.hi = max(s.hi, a+uint64(max(width, 1)))
		s.seen = true
	}
}

// union widens s to cover o too.
func (s *span) union(o span) {
	switch {
	case !o.seen:
	case !s.seen:
		*s = o
	default:
		s.lo, s.hi = min(s.lo, o.lo), max(s.hi, o.hi)
	}
}

// overlaps reports whether two spans share a byte.
func (s span) overlaps(o span) bool {
	return s.seen && o.seen && s.lo < o.hi && o.lo < s.hi
}

// broadcastPattern counts a global load's sampled records with active lanes, those that
// read one address in every active lane (a broadcast), and the distinct addresses the
// broadcasts read.
type broadcastPattern struct {
	records, uniform int
	addrs            map[uint64]bool
}

// add counts one record, broadcast or not (uniform); one with no active lane is no read.
func (b *broadcastPattern) add(mask uint32, lanes *[32]uint64, broadcast bool) {
	if mask == 0 {
		return
	}
	b.records++
	if broadcast {
		b.uniform++
		if b.addrs == nil {
			b.addrs = map[uint64]bool{}
		}
		b.addrs[lanes[bits.TrailingZeros32(mask)]] = true
	}
}

// uniformGlobalRead fires at a global load whose every sampled record reads one address
// in all its active lanes, whose addresses are each read by at least reuseFactor warps
// (a word each warp reads once, as coalesce_broadcast's warp w reads word w, would only
// move its misses to the constant cache), span no more than the constant bank
// (const.size), and which no store or atomic of the kernel writes (as far as the sample
// shows: the spans of the written bytes miss it): coefficients, parameters, a filter
// mask, read through the LSU and L1 one request per warp. The seed's lesson is constant
// memory, whose cache serves a warp's one address to every lane; the fix takes the pc's
// global load requests to none (they become constant-cache reads, and where the index is
// known at compile time ptxas folds them into the arithmetic as c[bank][offset] operands).
func uniformGlobalRead(in *kernelInput) []Finding {
	const metric = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
	totalReqs := in.total(metric, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum")
	prog := in.launch.Program.Insts
	written := in.writtenSpans()
	bank := uint64(in.cfg.Const.Size)
	fits := func(s span) bool { return bank == 0 || s.hi-s.lo <= bank } // no size known: no bound
	var out []Finding
	var all span // what every firing pc reads: the array to move
	for _, p := range in.rep.PerPC {
		if int(p.PC) >= len(prog) {
			continue
		}
		inst := &prog[p.PC]
		pat := &in.pats[p.PC]
		b, s := &pat.bcast, pat.span
		reqs := in.pcs[p.PC][metric]
		if inst.Space != format.SpaceGlobal || inst.MemOp != format.MemLoad || b.records == 0 || b.uniform < b.records ||
			float64(b.uniform) < reuseFactor*float64(len(b.addrs)) || reqs == 0 || totalReqs == 0 || !fits(s) || slices.ContainsFunc(written, s.overlaps) {
			continue
		}
		f := in.finding(RuleConstant, p.PC)
		f.Metric = metric
		f.Before, f.After = reqs, 0
		f.Share, f.ShareOf = reqs/totalReqs, "global requests"
		path := "through the L1"
		if inst.CacheOp == format.CacheNC {
			path = "through the read-only path of the L1"
		}
		f.Saw = fmt.Sprintf("global load: in all %d sampled records every active lane reads the same address (a broadcast), %s; %.1f warps read each address, and no store or atomic of the kernel writes what they read: a global request per warp for one word",
			b.records, path, float64(b.uniform)/float64(len(b.addrs)))
		f.Lesson = seedHardware + ": constant memory (small read-only data such as coefficients that every thread reads at once: a cache made for broadcast; divergent reads serialise)"
		f.Fix = "declare the data __constant__ and copy it once with cudaMemcpyToSymbol (or pass a few words by value as kernel arguments): the reads then go to the constant cache, not the LSU and L1. Only where a warp's lanes read the same element: the constant cache serialises different ones. Time falls only where the LSU or the L1 bounds the kernel"
		out = append(out, f)
		all.union(s)
	}
	if bank > 0 && fits(all) {
		for i := range out {
			out[i].Saw += fmt.Sprintf("; the kernel's uniform global reads span %d B, within the %d B constant bank", all.hi-all.lo, in.cfg.Const.Size)
		}
	}
	return out
}
