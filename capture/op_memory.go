package capture

import (
	"fmt"
	"math/bits"

	"github.com/gtrace/gtrace/format"
)

// Loads, stores, asynchronous copies and prefetches (PTX ISA 8.x, "Data Movement and
// Conversion Instructions": ld, ldu, st, cp.async, prefetch).
var memoryFamily = opFamily{name: "memory", rules: []opRule{
	{names: []string{"ld", "ldu", "st"}, mods: modCache, decode: decodeLdSt,
		doc: ".global .shared .local .const .param generic; .v2 .v4; .nc;\n.volatile; .ca .cg .cs .lu .cv .wb .wt; .relaxed/.acquire/\n.release and scopes accepted; 8- to 64-bit and f32/f64"},
	{names: []string{"cp"}, decode: decodeCpAsync,
		doc: ".async.ca/.cg.shared{::cta}.global: 4, 8, 16 bytes (.cg 16), src-size or\nignore-src, .L2:: hints and cache-policy; copies at issue (below);\n.async.commit_group, .async.wait_group n, .async.wait_all: no effect"},
	{names: []string{"prefetch", "prefetchu"}, decode: decodeNoEffect,
		doc: "recorded, no effect"},
}}

func decodeLdSt(r *resolver) error {
	base, m := r.base, &r.m
	in, a := r.in, r.a
	if len(m.other) > 0 {
		return r.fail("unsupported modifier %s", m.other[0])
	}
	if len(a.ops) != 2 {
		return r.fail("wrong number of operands")
	}
	if len(m.types) != 1 || m.types[0] == tPred {
		return r.fail("want one data type")
	}
	t := m.types[0]
	sp := spaceOf(m.space)
	if sp == msNone {
		return r.fail("unsupported state space %s", m.space)
	}
	vec := 1
	if m.vec > 0 {
		vec = m.vec
	}
	in.t, in.vec, in.width = t, uint8(vec), uint8(vec*t.size())
	r.row.Class = format.ClassMem
	r.row.Width = in.width
	r.row.CacheOp = m.cache
	if m.nc {
		if sp != msGlobal {
			return r.fail(".nc needs .global")
		}
		r.row.CacheOp = format.CacheNC
		in.flags |= fNC
	}
	if m.volatile {
		r.row.CacheOp = format.CacheVolatile
		in.flags |= fVolatile
	}
	ai, di := 1, 0
	if base == "st" {
		in.op, ai, di = opSt, 0, 1
		r.row.MemOp = format.MemStore
	} else {
		in.op = opLd
		in.flags |= fSinkOK
		r.row.MemOp = format.MemLoad
	}
	sp, err := r.address(a.ops[ai], sp)
	if err != nil {
		return err
	}
	in.space = sp
	r.row.Space = formatSpace[sp]
	data := a.ops[di]
	elems := []operand{data}
	if vec > 1 {
		if data.kind != oVec || len(data.elems) != vec {
			return r.fail("want a {…} vector of %d registers", vec)
		}
		elems = data.elems
	} else if data.kind == oVec {
		return r.fail("vector operand without .v2/.v4")
	}
	for i, e := range elems {
		if base == "st" {
			if err := r.srcOp(i, e, t); err != nil {
				return err
			}
			in.ns = uint8(i + 1)
		} else {
			if err := r.dstOp(i, e, t); err != nil {
				return err
			}
			in.nd = uint8(i + 1)
		}
	}
	// A load of a sub-word type extends to the destination register's width.
	if base != "st" {
		in.t2 = t
		if e := elems[0]; e.kind == oName {
			if s, ok := r.sc.lookup(e.name); ok && s.kind == symReg {
				in.t2 = s.typ
			}
		}
	}
	return nil
}

// decodeNoEffect records an instruction that changes nothing capture models.
func decodeNoEffect(r *resolver) error {
	r.in.op = opNop
	r.row.Class = format.ClassOther
	return nil
}

// decodeCpAsync decodes cp.async and its groups. Capture copies at issue: a copy's
// bytes are in shared memory before the thread's next instruction, which any program
// may observe only after its cp.async.wait_group or wait_all (PTX ISA 8.x, cp.async:
// the writes are "weak" and unordered until then), so commit_group and wait_group
// change nothing here and are recorded as synchronisation.
//
// Operands of the copy: in.base, in.off and in.amask the global source; in.s[2] the
// shared destination's register (the zero slot for an absolute address), in.imm its
// offset and in.t2 that register's type; in.s[0] src-size's slot (cp-size's when
// absent); in.s[1] ignore-src's predicate (negated: in.sneg bit 1; a constant false
// when absent); in.width the cp-size.
//
// The trace records the copy as a load of cp-size bytes per lane from the global source
// (what SASS's LDGSTS reads, and what the Accel-Sim importer records for it), with each
// lane's shared destination and source bytes in the row's Coords (format.Warp.AppendCopy):
// the shared side is not a store row, and replay counts it as ncu does, in the op_ldgsts
// wavefronts.
func decodeCpAsync(r *resolver) error {
	in, a := r.in, r.a
	parts := r.parts[1:]
	if len(parts) == 0 || parts[0] != "async" {
		return r.fail("unsupported instruction cp (only cp.async)")
	}
	parts = parts[1:]
	r.row.Class = format.ClassSync
	if len(parts) == 1 && (parts[0] == "commit_group" || parts[0] == "wait_all" || parts[0] == "wait_group") {
		in.op = opNop
		if parts[0] != "wait_group" {
			return r.nops(0)
		}
		if err := r.nops(1); err != nil {
			return err
		}
		if a.ops[0].kind != oImm {
			return r.fail("cp.async.wait_group takes an integer constant")
		}
		return nil
	}
	if len(parts) == 0 || parts[0] != "ca" && parts[0] != "cg" {
		if len(parts) > 0 && parts[0] == "mbarrier" {
			return decodeCpAsyncMbarrier(r)
		}
		if len(parts) > 0 && parts[0] == "bulk" {
			return r.fail("unsupported modifier .bulk on cp.async (bulk copies are not modelled)")
		}
		return r.fail("cp.async takes .ca or .cg, .commit_group, .wait_group or .wait_all")
	}
	cache, hint := format.CacheCA, false
	if parts[0] == "cg" {
		cache = format.CacheCG
	}
	if len(parts) < 3 || parts[1] != "shared" && parts[1] != "shared::cta" || parts[2] != "global" {
		return r.fail("cp.async.%s takes .shared.global", parts[0])
	}
	for _, p := range parts[3:] {
		switch p {
		case "L2::64B", "L2::128B", "L2::256B":
		case "L2::cache_hint":
			hint = true
		default:
			return r.fail("unsupported modifier .%s on cp.async", p)
		}
	}
	nhint := 0
	if hint {
		nhint = 1
	}
	if err := r.nops(3+nhint, 4+nhint); err != nil {
		return err
	}
	size := a.ops[2]
	n, err := literal(size.imm.text, size.ineg, tU32)
	if size.kind != oImm || err != nil || n != 4 && n != 8 && n != 16 {
		return r.fail("cp-size must be 4, 8 or 16")
	}
	if cache == format.CacheCG && n != 16 {
		return r.fail("cp.async.cg copies 16 bytes")
	}
	// The destination first: address() leaves its register and offset in in.base and
	// in.off, which the source's then take.
	if _, err := r.address(a.ops[0], msShared); err != nil {
		return err
	}
	if in.off != int64(int32(in.off)) {
		return r.fail("shared offset %d is out of range", in.off)
	}
	in.s[2], in.imm, in.t2 = in.base, uint32(int32(in.off)), tU64
	if in.amask>>32 == 0 {
		in.t2 = tU32
	}
	in.base, in.off, in.amask = -1, 0, ^uint64(0)
	if _, err := r.address(a.ops[1], msGlobal); err != nil {
		return err
	}
	in.s[0], in.s[1] = r.k.imm(n), r.k.constPred(false)
	if len(a.ops) == 4+nhint {
		o := a.ops[3]
		if s, ok := r.sc.lookup(o.name); o.kind == oName && ok && s.kind == symPred {
			if err := r.predSrc(1, o); err != nil { // ignore-src
				return err
			}
		} else if err := r.srcOp(0, o, tU32); err != nil { // src-size
			return err
		}
	}
	if hint { // cache-policy: a hint, read and not used
		if _, err := r.value(a.ops[len(a.ops)-1], tU64); err != nil {
			return err
		}
	}
	in.op, in.width = opCpAsync, uint8(n)
	r.row.Class, r.row.MemOp, r.row.Space = format.ClassMem, format.MemLoad, format.SpaceGlobal
	r.row.Width, r.row.CacheOp = uint8(n), cache
	return nil
}

// cpAsync executes a cp.async (decodeCpAsync) for the lanes in exec: each copies
// cp-size bytes to its shared destination, the first src-size of them (all without
// src-size, none with a true ignore-src) from its global source and zeros after them.
// Both addresses must be aligned to cp-size.
func (w *warpState) cpAsync(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if exec == 0 {
		w.rec.Append(uint32(pc), 0, path, fl)
		return nil
	}
	n := int(in.width)
	dst, size, ignore := w.slot(in.s[2]), w.slot(in.s[0]), w.preds[in.s[1]]
	if in.sneg&2 != 0 {
		ignore = ^ignore
	}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		sa, da := w.laneAddr(in, l), (uint64(int64(int32(in.imm)))+dst[l])&maskFor(in.t2)
		if sa&uint64(n-1) != 0 {
			return w.fault(FaultMisaligned, pc, l, sa, w.c.nearest(msGlobal, sa), fmt.Sprintf("misaligned %d-byte cp.async source at %#x", n, sa))
		}
		k := int(min(uint64(uint32(size[l])), uint64(n))) // src-size > cp-size is undefined: copy cp-size
		if ignore>>l&1 != 0 {
			k = 0
		}
		w.lanes[l] = sa
		var b []byte
		if k > 0 {
			var err error
			if b, w.lanes[l], err = w.access(in, pc, l, msGlobal, sa, k, false); err != nil {
				return err
			}
		}
		d, _, err := w.access(in, pc, l, msShared, da, n, true)
		if err != nil {
			return err
		}
		clear(d[copy(d, b):])
		w.xy[l] = [2]int32{int32(da), int32(k)}
	}
	w.c.epoch++
	w.rec.AppendCopy(uint32(pc), exec, path, w.oobFlag(fl), &w.lanes, &w.xy)
	return nil
}
