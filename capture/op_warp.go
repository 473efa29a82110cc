package capture

import "github.com/gtrace/gtrace/format"

// Warp-level instructions (PTX ISA 8.x: shfl.sync, vote.sync, activemask).
var warpFamily = opFamily{name: "warp-level", rules: []opRule{
	{names: []string{"shfl"}, decode: decodeShfl,
		doc: "(.sync) .up .down .bfly .idx .b32, optional predicate destination"},
	{names: []string{"vote"}, mods: modUniMode, decode: decodeVote,
		doc: "(.sync) .all .any .uni .ballot; each lane over its own membermask"},
	{names: []string{"activemask"}, decode: decodeActivemask,
		doc: "b32"},
}}

func decodeShfl(r *resolver) error {
	m := &r.m
	in, a := r.in, r.a
	modes := map[string]uint8{".up": shflUp, ".down": shflDown, ".bfly": shflBfly, ".idx": shflIdx}
	if len(m.other) != 1 {
		return r.fail("shfl needs one of .up .down .bfly .idx")
	}
	mode, ok := modes[m.other[0]]
	if !ok {
		return r.fail("unsupported shfl mode %s", m.other[0])
	}
	if len(m.types) != 1 || m.types[0].size() != 4 {
		return r.fail("shfl needs .b32")
	}
	in.op, in.bop, in.t = opShfl, mode, tB32
	r.row.Class = format.ClassWarp
	want := 4
	if m.sync {
		want = 5
	}
	if len(a.ops) != want {
		return r.fail("wrong number of operands")
	}
	d := a.ops[0]
	if d.kind == oPair {
		if err := r.dstOp(0, d.elems[0], tB32); err != nil {
			return err
		}
		if err := r.predDstP(d.elems[1]); err != nil {
			return err
		}
	} else if err := r.dstOp(0, d, tB32); err != nil {
		return err
	}
	in.nd = 1
	for i := 1; i < want; i++ {
		if err := r.src(i-1, i, tB32); err != nil {
			return err
		}
	}
	if !m.sync {
		in.s[3] = r.k.imm(0xffffffff)
		in.ns = 4
	}
	return nil
}

func decodeVote(r *resolver) error {
	m := &r.m
	in, a := r.in, r.a
	modes := map[string]uint8{".all": voteAll, ".any": voteAny, ".uni": voteUni, ".ballot": voteBallot}
	if len(m.other) != 1 {
		return r.fail("vote needs one of .all .any .uni .ballot")
	}
	mode, ok := modes[m.other[0]]
	if !ok {
		return r.fail("unsupported vote mode %s", m.other[0])
	}
	in.op, in.bop = opVote, mode
	r.row.Class = format.ClassWarp
	want := 2
	if m.sync {
		want = 3
	}
	if len(a.ops) != want {
		return r.fail("wrong number of operands")
	}
	if mode == voteBallot {
		if err := r.dst(0, 0, tB32); err != nil {
			return err
		}
	} else if err := r.predDst(0, a.ops[0]); err != nil {
		return err
	}
	if err := r.predSrc(0, a.ops[1]); err != nil {
		return err
	}
	if m.sync {
		if err := r.src(1, 2, tB32); err != nil {
			return err
		}
	} else {
		in.s[1] = r.k.imm(0xffffffff)
		in.ns = 2
	}
	return nil
}

func decodeActivemask(r *resolver) error {
	if err := r.nops(1); err != nil {
		return err
	}
	r.in.op, r.in.t = opActivemask, tB32
	r.row.Class = format.ClassWarp
	return r.dst(0, 0, tB32)
}
