package capture

import "github.com/gtrace/gtrace/format"

// Loads, stores and prefetches (PTX ISA 8.x, "Data Movement and Conversion
// Instructions": ld, ldu, st, prefetch).
var memoryFamily = opFamily{name: "memory", rules: []opRule{
	{names: []string{"ld", "ldu", "st"}, mods: modCache, decode: decodeLdSt,
		doc: ".global .shared .local .const .param generic; .v2 .v4; .nc;\n.volatile; .ca .cg .cs .lu .cv .wb .wt; .relaxed/.acquire/\n.release and scopes accepted; 8- to 64-bit and f32/f64"},
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
