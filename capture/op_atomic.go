package capture

import (
	"math"

	"github.com/gtrace/gtrace/format"
)

// Atomics and reductions (PTX ISA 8.x, "Parallel Synchronization and Communication
// Instructions": atom, red).
var atomicFamily = opFamily{name: "atomics", rules: []opRule{
	{names: []string{"atom", "red"}, decode: decodeAtomic,
		doc: ".global .shared generic; add min max exch cas and or xor\ninc dec; b32 b64 u32 u64 s32 s64 f32 f64 (add/exch/min/max);\ncas.b16; a global or generic atom whose result no instruction reads,\nof an operation red has, is recorded as red (MemReduce), as\nptxas emits SASS RED for it and ncu counts it under op_red"},
}}

func decodeAtomic(r *resolver) error {
	base, m := r.base, &r.m
	if m.vec != 0 {
		return r.fail("unsupported modifier .v%d on %s (vector atomics)", m.vec, base)
	}
	in, a := r.in, r.a
	ops := map[string]uint8{".add": atomAdd, ".min": atomMin, ".max": atomMax, ".exch": atomExch, ".cas": atomCAS,
		".and": atomAnd, ".or": atomOr, ".xor": atomXor, ".inc": atomInc, ".dec": atomDec}
	found := false
	for _, o := range m.other {
		v, ok := ops[o]
		if !ok || found {
			return r.fail("unsupported modifier %s", o)
		}
		in.bop, found = v, true
	}
	if !found {
		return r.fail("%s needs an operation", base)
	}
	if len(m.types) != 1 {
		return r.fail("want one type")
	}
	t := m.types[0]
	if t.size() != 4 && t.size() != 8 && !t.half() && !(t == tB16 && in.bop == atomCAS) || t == tPred {
		return r.fail("only 32- and 64-bit atomics (and cas.b16) are supported")
	}
	if t.float() && in.bop != atomAdd && in.bop != atomExch && in.bop != atomMin && in.bop != atomMax {
		return r.fail("float %s is not supported", base)
	}
	if (in.bop == atomInc || in.bop == atomDec) && t != tU32 {
		return r.fail("inc/dec need .u32")
	}
	sp := spaceOf(m.space)
	if sp != msGlobal && sp != msShared && sp != msGeneric {
		return r.fail("atomics need .global, .shared or a generic address")
	}
	in.t, in.width, in.vec = t, uint8(t.size()), 1
	r.row.Class, r.row.Width = format.ClassMem, in.width
	nsrc := 1
	if in.bop == atomCAS {
		nsrc = 2
	}
	first := 0
	if base == "atom" {
		in.op = opAtom
		r.row.MemOp = format.MemAtomic
		if err := r.dst(0, 0, t); err != nil {
			return err
		}
		first = 1
	} else {
		in.op = opRed
		r.row.MemOp = format.MemReduce
	}
	if len(a.ops) != first+1+nsrc {
		return r.fail("wrong number of operands")
	}
	sp, err := r.address(a.ops[first], sp)
	if err != nil {
		return err
	}
	in.space = sp
	r.row.Space = formatSpace[sp]
	for i := 0; i < nsrc; i++ {
		if err := r.src(i, first+1+i, t); err != nil {
			return err
		}
	}
	return nil
}

// Execution: memInst (exec.go) finds each lane's bytes, then:

// atomic performs one lane's read-modify-write. Lanes are served in ascending lane
// order, warps in the CTA's round-robin order: the order is part of the capture.
func (w *warpState) atomic(in *instr, l int, b []byte) {
	old := loadN(b)
	x := w.regs[int(in.s[0])*32+l]
	t := in.t
	var nv uint64
	switch in.bop {
	case atomAdd:
		switch t {
		case tF32:
			nv = uint64(math.Float32bits(f32(old) + f32(x)))
		case tF64:
			nv = f64r(f64(old) + f64(x))
		case tF16, tBF16, tF16x2, tBF16x2:
			nv = halfAtomAdd(t, old, x)
		default:
			nv = (old + x) & t.mask()
		}
	case atomMin, atomMax:
		tmp := instr{t: t}
		if t == tB32 {
			tmp.t = tU32
		} else if t == tB64 {
			tmp.t = tU64
		}
		nv = minMax(&tmp, old, x, in.bop == atomMax)
	case atomExch:
		nv = x
	case atomCAS:
		nv = old
		if old == x&t.mask() {
			nv = w.regs[int(in.s[1])*32+l]
		}
	case atomAnd:
		nv = old & x
	case atomOr:
		nv = old | x
	case atomXor:
		nv = old ^ x
	case atomInc:
		if uint32(old) >= uint32(x) {
			nv = 0
		} else {
			nv = old + 1
		}
	case atomDec:
		if uint32(old) == 0 || uint32(old) > uint32(x) {
			nv = x
		} else {
			nv = old - 1
		}
	}
	nv &= t.mask()
	if nv != old {
		storeN(b, nv)
		w.c.epoch++
	}
	if in.op == opAtom && in.d[0] >= 0 {
		w.regs[int(in.d[0])*32+l] = old
	}
}
