package capture

import (
	"math/bits"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Warp-level instructions (PTX ISA 8.x: shfl.sync, vote.sync, redux.sync, match.sync,
// activemask, elect.sync). vote, redux, match and elect share opVote: warp-synchronous over the
// membermask in their second source (simt.go's syncMask).
var warpFamily = opFamily{name: "warp-level", rules: []opRule{
	{names: []string{"shfl"}, decode: decodeShfl,
		doc: "(.sync) .up .down .bfly .idx .b32, optional predicate destination"},
	{names: []string{"vote"}, mods: modUniMode, decode: decodeVote,
		doc: "(.sync) .all .any .uni .ballot; each lane over its own membermask"},
	{names: []string{"redux"}, decode: decodeRedux,
		doc: ".sync .add .min .max (u32 s32), .and .or .xor (b32)"},
	{names: []string{"match"}, decode: decodeMatch,
		doc: ".sync .any .all (b32 b64; .all with an optional predicate)"},
	{names: []string{"activemask"}, decode: decodeActivemask,
		doc: "b32"},
	{names: []string{"elect"}, decode: decodeElect,
		doc: ".sync d|p, membermask: the lowest lane of the membermask leads"},
}}

// shflModes and voteModes are the modes of shfl and vote, each named by its modifier.
var (
	shflModes = map[string]uint8{".up": shflUp, ".down": shflDown, ".bfly": shflBfly, ".idx": shflIdx}
	voteModes = map[string]uint8{".all": voteAll, ".any": voteAny, ".uni": voteUni, ".ballot": voteBallot}
)

// mode is the one mode modifier an instruction needs (all lists the choices).
func (r *resolver) mode(modes map[string]uint8, all string) (uint8, error) {
	if len(r.m.other) != 1 {
		return 0, r.fail("%s needs one of %s", r.base, all)
	}
	mode, ok := modes[r.m.other[0]]
	if !ok {
		return 0, r.fail("unsupported %s mode %s", r.base, r.m.other[0])
	}
	return mode, nil
}

// modeAndType reads an opcode's one mode (as mode does), then checks its form as typed
// does: testp, redux, match.
func (r *resolver) modeAndType(modes map[string]uint8, all string, nops int) (uint8, vtype, error) {
	mode, err := r.mode(modes, all)
	if err != nil {
		return 0, tNone, err
	}
	r.m.other = nil
	t, err := r.typed(nil, nops)
	return mode, t, err
}

func decodeShfl(r *resolver) error {
	m := &r.m
	in, a := r.in, r.a
	mode, err := r.mode(shflModes, ".up .down .bfly .idx")
	if err != nil {
		return err
	}
	if len(m.types) != 1 || m.types[0].size() != 4 {
		return r.fail("shfl needs .b32")
	}
	in.op, in.bop, in.t, in.run = opShfl, mode, tB32, runShfl
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
	mode, err := r.mode(voteModes, ".all .any .uni .ballot")
	if err != nil {
		return err
	}
	in.op, in.bop, in.run = opVote, mode, runVote
	if mode != voteBallot {
		in.flags |= fSinkOK
	}
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

// reduxOps are redux.sync's operations, named by the atomic operation each is.
var reduxOps = map[string]uint8{".add": atomAdd, ".min": atomMin, ".max": atomMax, ".and": atomAnd, ".or": atomOr, ".xor": atomXor}

func decodeRedux(r *resolver) error {
	in := r.in
	name := strings.Join(r.m.other, "")
	op, t, err := r.modeAndType(reduxOps, ".add .min .max .and .or .xor", 3)
	if err != nil {
		return err
	}
	if !r.m.sync {
		return r.fail("redux needs .sync")
	}
	switch op {
	case atomAnd, atomOr, atomXor:
		if t != tB32 {
			return r.fail("redux.sync%s takes .b32", name)
		}
	default:
		if t != tU32 && t != tS32 {
			return r.fail("redux.sync .add .min .max take .u32 or .s32")
		}
	}
	in.op, in.bop, in.t, in.run = opVote, op, t, runRedux
	r.row.Class = format.ClassWarp
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	if err := r.src(0, 1, t); err != nil {
		return err
	}
	return r.src(1, 2, tB32)
}

// match modes (in.bop).
const (
	matchAny uint8 = iota
	matchAll
)

func decodeMatch(r *resolver) error {
	in, a := r.in, r.a
	mode, t, err := r.modeAndType(map[string]uint8{".any": matchAny, ".all": matchAll}, ".any .all", 3)
	if err != nil {
		return err
	}
	if !r.m.sync {
		return r.fail("match needs .sync")
	}
	if t != tB32 && t != tB64 {
		return r.fail("match takes .b32 or .b64")
	}
	in.op, in.bop, in.t, in.run = opVote, mode, t, runMatch
	r.row.Class = format.ClassWarp
	d := a.ops[0]
	if d.kind == oPair {
		if mode != matchAll {
			return r.fail("only match.all has a predicate destination")
		}
		if err := r.predDstP(d.elems[1]); err != nil {
			return err
		}
		d = d.elems[0]
	}
	if err := r.dstOp(0, d, tB32); err != nil {
		return err
	}
	in.nd = 1
	if err := r.src(0, 1, t); err != nil {
		return err
	}
	return r.src(1, 2, tB32)
}

func decodeActivemask(r *resolver) error {
	if err := r.nops(1); err != nil {
		return err
	}
	r.in.op, r.in.t, r.in.run = opCompute, tB32, runActivemask
	r.row.Class = format.ClassWarp
	return r.dst(0, 0, tB32)
}

// Execution.

// runShfl implements shfl.sync (PTX ISA, "shfl.sync": source lane j from b and c; out of
// range keeps the lane's own value and clears the optional predicate).
func runShfl(w *warpState, in *instr, exec, _ uint32) {
	d, a, b, c := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	var src [32]uint64
	copy(src[:], a[:])
	var ok uint32
	for m := exec; m != 0; m &= m - 1 {
		lane := int32(bits.TrailingZeros32(m))
		bval := int32(b[lane] & 31)
		cval := int32(c[lane] & 31)
		segmask := int32(c[lane] >> 8 & 31)
		maxLane := lane&segmask | cval&^segmask
		minLane := lane & segmask
		var j int32
		var pval bool
		switch in.bop {
		case shflUp:
			j = lane - bval
			pval = j >= maxLane
		case shflDown:
			j = lane + bval
			pval = j <= maxLane
		case shflBfly:
			j = lane ^ bval
			pval = j <= maxLane
		case shflIdx:
			j = minLane | bval&^segmask
			pval = j <= maxLane
		}
		if !pval {
			j = lane
		} else {
			ok |= 1 << lane
		}
		d[lane] = src[j] & 0xffffffff
	}
	if in.dp >= 0 {
		w.preds[in.dp] = w.preds[in.dp]&^exec | ok
	}
}

// runVote evaluates vote(.sync) for each lane over the lanes of its own membermask: the
// lanes of a warp may name different masks (a tile of 8 passes its 8 lanes), and each
// lane's result covers only the lanes its mask names (PTX ISA, vote.sync).
func runVote(w *warpState, in *instr, exec, _ uint32) {
	src := w.preds[in.s[0]]
	if in.sneg&1 != 0 {
		src = ^src
	}
	ms := w.slot(in.s[1])
	var d *[32]uint64
	if in.bop == voteBallot {
		d = w.slot(in.d[0])
	}
	var truth uint32
	for m := exec; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		part := exec & uint32(ms[lane])
		v := src & part
		var r bool
		switch in.bop {
		case voteBallot:
			d[lane] = uint64(v)
			continue
		case voteAll:
			r = v == part
		case voteAny:
			r = v != 0
		case voteUni:
			r = v == 0 || v == part
		}
		if r {
			truth |= 1 << lane
		}
	}
	if in.bop != voteBallot && in.d[0] >= 0 {
		w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | truth
	}
}

// runRedux reduces a over the executing lanes of each lane's membermask (PTX ISA,
// redux.sync); .min and .max compare as the type's signedness says.
func runRedux(w *warpState, in *instr, exec, _ uint32) {
	d, a, ms := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	var done, acc uint32 // the last membermask reduced, and its result
	for m := exec; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		part := exec&uint32(ms[lane]) | 1<<lane // the lane itself always takes part
		if part != done {
			done, acc = part, redux(in, a, part)
		}
		d[lane] = uint64(acc)
	}
}

// redux reduces a over the lanes of part.
func redux(in *instr, a *[32]uint64, part uint32) uint32 {
	acc := uint32(a[bits.TrailingZeros32(part)])
	for p := part & (part - 1); p != 0; p &= p - 1 {
		x := uint32(a[bits.TrailingZeros32(p)])
		switch in.bop {
		case atomAdd:
			acc += x
		case atomMin:
			if in.t.signed() && int32(x) < int32(acc) || !in.t.signed() && x < acc {
				acc = x
			}
		case atomMax:
			if in.t.signed() && int32(x) > int32(acc) || !in.t.signed() && x > acc {
				acc = x
			}
		case atomAnd:
			acc &= x
		case atomOr:
			acc |= x
		case atomXor:
			acc ^= x
		}
	}
	return acc
}

// runMatch: match.any gives each lane the lanes of its membermask holding its value;
// match.all gives the membermask's executing lanes if all hold the same value, else 0,
// and sets the predicate to whether they do (PTX ISA, match.sync).
func runMatch(w *warpState, in *instr, exec, _ uint32) {
	d, a, ms := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
	mask := in.t.mask()
	var all uint32
	for m := exec; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		part := exec&uint32(ms[lane]) | 1<<lane
		var same uint32
		for p := part; p != 0; p &= p - 1 {
			j := bits.TrailingZeros32(p)
			if a[j]&mask == a[lane]&mask {
				same |= 1 << j
			}
		}
		switch {
		case in.bop == matchAny:
			d[lane] = uint64(same)
		case same == part:
			d[lane] = uint64(part)
			all |= 1 << lane
		default:
			d[lane] = 0
		}
	}
	if in.dp >= 0 {
		w.preds[in.dp] = w.preds[in.dp]&^exec | all
	}
}

// runActivemask writes the warp's active lanes (whatever the guard) to every lane.
func runActivemask(w *warpState, in *instr, exec, active uint32) {
	d := w.slot(in.d[0])
	for m := exec; m != 0; m &= m - 1 {
		d[bits.TrailingZeros32(m)] = uint64(active)
	}
}

// decodeElect decodes elect.sync d|p, membermask (PTX ISA 8.x, sm_90): d, or the sink
// _, is the leader's lane, p is true on the leader only.
func decodeElect(r *resolver) error {
	in, a := r.in, r.a
	if !r.m.sync {
		return r.fail("elect needs .sync")
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	if len(r.m.types) > 0 {
		return r.fail("elect.sync takes no type")
	}
	if err := r.nops(2); err != nil {
		return err
	}
	d := a.ops[0]
	if d.kind != oPair {
		return r.fail("elect.sync takes d|p, membermask")
	}
	in.op, in.run = opVote, runElect
	r.row.Class = format.ClassWarp
	if err := r.dstOp(0, d.elems[0], tU32); err != nil {
		return err
	}
	in.nd = 1
	if d.elems[1].kind == oSink {
		return r.fail("elect.sync's predicate p cannot be the sink _ (only d can)")
	}
	if err := r.predDstP(d.elems[1]); err != nil {
		return err
	}
	in.s[0] = r.k.imm(0) // unused: syncMask reads opVote's membermask from s[1]
	return r.src(1, 1, tB32)
}

// runElect elects the lowest lane of each lane's membermask among the executing lanes.
// The PTX ISA leaves the choice to the GPU but for being the same for the same mask;
// the H100 takes the lowest (traces/hw/h100-2026-11-26-syncops).
func runElect(w *warpState, in *instr, exec, _ uint32) {
	ms := w.slot(in.s[1])
	var d *[32]uint64
	if in.d[0] >= 0 {
		d = w.slot(in.d[0])
	}
	var lead uint32
	for m := exec; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		leader := bits.TrailingZeros32(exec&uint32(ms[lane]) | 1<<lane)
		if d != nil {
			d[lane] = uint64(leader)
		}
		if leader == lane {
			lead |= 1 << lane
		}
	}
	if in.flags&fHasDPred != 0 {
		w.preds[in.dp] = w.preds[in.dp]&^exec | lead
	}
}
