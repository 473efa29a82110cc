package capture

import "github.com/gtrace/gtrace/format"

// Control flow (PTX ISA 8.x, "Control Flow Instructions": bra, call, ret, exit, and
// trap and brkpt from "Miscellaneous Instructions").
var controlFamily = opFamily{name: "control flow", rules: []opRule{
	{names: []string{"bra"}, decode: decodeBra,
		doc: "(.uni) to a label of the same function"},
	{names: []string{"call"}, decode: decodeCall,
		doc: "(.uni) direct, with .param arguments and results; no recursion; the system calls vprintf (printf), __assertfail, malloc and free"},
	{names: []string{"ret"}, decode: decodeRet,
		doc: "from a .func; in the kernel, as exit"},
	{names: []string{"exit"}, decode: decodeExit,
		doc: "the thread ends"},
	{names: []string{"trap", "brkpt"}, decode: decodeTrap,
		doc: "a trap Fault"},
}}

func decodeBra(r *resolver) error {
	in, a := r.in, r.a
	if err := r.unknownMods(); err != nil {
		return err
	}
	if err := r.nops(1); err != nil {
		return err
	}
	in.op = opBra
	r.row.Class = format.ClassControl
	if r.m.uni {
		in.flags |= fUni
	}
	s, ok := r.sc.lookup(a.ops[0].name)
	if a.ops[0].kind != oName || !ok || s.kind != symLabel {
		return r.fail("branch target %s is not a label of this function", a.ops[0].name)
	}
	in.target = int32(s.addr)
	r.row.Target = uint32(s.addr) + 1
	return nil
}

func decodeRet(r *resolver) error {
	if err := r.unknownMods(); err != nil {
		return err
	}
	r.in.op = opRet
	r.row.Class = format.ClassControl
	if r.sc.fi == r.k.funcs[0] {
		r.in.op = opExit
	}
	return r.nops(0)
}

func decodeExit(r *resolver) error {
	r.in.op = opExit
	r.row.Class = format.ClassControl
	return r.nops(0)
}

func decodeTrap(r *resolver) error {
	r.in.op = opTrap
	r.row.Class = format.ClassControl
	return r.nops(0)
}

func decodeCall(r *resolver) error {
	m := &r.m
	in, a := r.in, r.a
	if len(m.other) > 0 {
		return r.fail("unsupported modifier %s", m.other[0])
	}
	in.op = opCall
	r.row.Class = format.ClassControl
	if m.uni {
		in.flags |= fUni
	}
	ops := a.ops
	var retOps, argOps []operand
	if len(ops) > 0 && ops[0].kind == oParen {
		retOps = ops[0].elems
		ops = ops[1:]
	}
	if len(ops) == 0 || ops[0].kind != oName {
		return r.fail("call needs a function name")
	}
	name := ops[0].name
	ops = ops[1:]
	if len(ops) > 0 {
		if ops[0].kind != oParen {
			return r.fail("indirect calls and call prototypes are not supported")
		}
		argOps = ops[0].elems
		ops = ops[1:]
	}
	if len(ops) > 0 {
		return r.fail("indirect calls and call prototypes are not supported")
	}
	if r.k.syscall(name) {
		return decodeSyscall(r, name, retOps, argOps)
	}
	fidx := -1
	for i, fi := range r.k.funcs {
		if fi.f.name == name {
			fidx = i
		}
	}
	if fidx < 0 {
		return r.fail("call to unknown function %s", name)
	}
	callee := r.k.funcs[fidx]
	in.target = int32(fidx)
	if len(argOps) != len(callee.f.params) || len(retOps) != len(callee.f.rets) {
		return r.fail("call to %s passes %d arguments and %d results; it takes %d and %d", name, len(argOps), len(retOps), len(callee.f.params), len(callee.f.rets))
	}
	// Callee parameters may be laid out after this function is decoded: resolve the
	// copies once every function is decoded (see bindArgs).
	for i, o := range argOps {
		s, ok := r.sc.lookup(o.name)
		if o.kind != oName || !ok || s.kind != symVar || s.space != msParamF {
			return r.fail("call argument %s must be a .param variable", o.name)
		}
		in.copies = append(in.copies, paramCopy{from: int32(s.addr), to: int32(-1 - i), size: int32(s.size)})
	}
	for i, o := range retOps {
		s, ok := r.sc.lookup(o.name)
		if o.kind != oName || !ok || s.kind != symVar || s.space != msParamF {
			return r.fail("call result %s must be a .param variable", o.name)
		}
		in.rcopies = append(in.rcopies, paramCopy{from: int32(-1 - i), to: int32(s.addr), size: int32(s.size)})
	}
	return nil
}
