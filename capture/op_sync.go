package capture

import (
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Barriers and memory ordering (PTX ISA 8.x, "Parallel Synchronization and
// Communication Instructions": bar, barrier, membar, fence, nanosleep; pmevent from
// "Miscellaneous Instructions").
var syncFamily = opFamily{name: "synchronisation", rules: []opRule{
	{names: []string{"bar", "barrier"}, decode: decodeBar,
		doc: ".sync: id, optional thread count; bar.warp.sync"},
	{names: []string{"membar", "fence"}, decode: decodeFence,
		doc: "recorded, no effect (capture is sequentially consistent)"},
	{names: []string{"nanosleep", "pmevent"}, decode: decodeNoEffect,
		doc: "recorded, no effect"},
}}

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
	if err := r.unknownMods(".cta"); err != nil {
		return err
	}
	if !m.sync && len(r.parts) != 1 {
		return r.fail("only bar.sync / barrier.sync are supported")
	}
	in.op = opBar
	if err := r.nops(1, 2); err != nil {
		return err
	}
	if err := r.src(0, 0, tU32); err != nil {
		return err
	}
	if len(a.ops) == 2 {
		in.flags |= fHasDPred // reuse: thread count present
		return r.src(1, 1, tU32)
	}
	return nil
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
