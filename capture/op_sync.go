package capture

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Barriers and memory ordering (PTX ISA 8.x, "Parallel Synchronization and
// Communication Instructions": bar, barrier, membar, fence, nanosleep; pmevent from
// "Miscellaneous Instructions").
var syncFamily = opFamily{name: "synchronisation", rules: []opRule{
	{names: []string{"bar", "barrier"}, decode: decodeBar,
		doc: ".sync .arrive, .red.popc.u32, .red.and.pred, .red.or.pred (with\n.cta, .aligned): id, thread count; bar.warp.sync"},
	{names: []string{"membar", "fence"}, decode: decodeFence,
		doc: "recorded, no effect (capture is sequentially consistent)"},
	{names: []string{"nanosleep", "pmevent"}, decode: decodeNoEffect,
		doc: "recorded, no effect"},
}}

// bar modes (in.bop): bar.sync waits; bar.arrive counts its threads and goes on; bar.red
// waits and gives every thread that took part the reduction of their predicates.
const (
	barSync uint8 = iota
	barArrive
	barRedPopc
	barRedAnd
	barRedOr
)

// barReds are bar.red's operations, named by their modifiers.
var barReds = map[string]uint8{".popc": barRedPopc, ".and": barRedAnd, ".or": barRedOr}

func decodeBar(r *resolver) error {
	in, a, m := r.in, r.a, &r.m
	r.row.Class = format.ClassSync
	if len(m.other) == 1 && m.other[0] == ".warp" && m.sync {
		in.op = opBarWarp
		if err := r.nops(1); err != nil {
			return err
		}
		return r.src(0, 0, tU32)
	}
	if slices.Contains(r.parts, "cluster") { // parseMods drops scopes: .cta is the default
		return r.fail("unsupported modifier .cluster on %s (cluster barriers are not modelled)", r.base)
	}
	in.op, in.bop = opBar, barSync
	first, nops := 0, []int{1, 2} // the barrier id's operand; the operand counts
	switch {
	case m.take(".arrive"):
		in.bop, nops = barArrive, []int{2}
	case m.take(".red"):
		op, err := r.mode(barReds, ".popc .and .or")
		if err != nil {
			return err
		}
		name := m.other[0]
		m.other = nil
		want := tPred
		if op == barRedPopc {
			want = tU32
		}
		if len(m.types) != 1 || m.types[0] != want {
			return r.fail("%s.red%s takes .%s", r.base, name, want)
		}
		in.bop, first, nops = op, 1, []int{3, 4}
	case !m.sync && len(r.parts) != 1:
		return r.fail("%s takes .sync, .arrive or .red", r.base)
	}
	if in.bop < barRedPopc && len(m.types) > 0 {
		return r.fail("%s takes no type here", r.base)
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(nops...); err != nil {
		return err
	}
	if err := r.src(0, first, tU32); err != nil {
		return err
	}
	if len(a.ops) == nops[len(nops)-1] { // the longest form has the thread count
		in.flags |= fHasDPred // reuse: thread count present
		if err := r.src(1, first+1, tU32); err != nil {
			return err
		}
	}
	switch in.bop {
	case barRedPopc:
		if err := r.dst(0, 0, tU32); err != nil {
			return err
		}
	case barRedAnd, barRedOr:
		if err := r.predDst(0, a.ops[0]); err != nil {
			return err
		}
	default:
		return nil
	}
	return r.predSrc(2, a.ops[len(a.ops)-1])
}

func decodeFence(r *resolver) error {
	m := &r.m
	r.in.op = opNop
	r.row.Class = format.ClassSync
	if len(m.other) > 0 && !(len(m.other) == 1 && m.other[0] == ".gl") {
		if r.base == "fence" && strings.HasPrefix(m.other[0], ".proxy") {
			return nil
		}
		return r.fail("unsupported modifier %s", m.other[0])
	}
	return r.nops(0)
}
