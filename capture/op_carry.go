package capture

import (
	"math/bits"
	"slices"

	"github.com/gtrace/gtrace/format"
)

// Extended-precision integer arithmetic (PTX ISA 8.x, "Extended-Precision Integer
// Arithmetic Instructions"): add.cc, addc, sub.cc, subc, mad.cc, madc on .u32 .s32
// .u64 .s64. The condition code's carry flag CC.CF is one more register of each
// thread (Kernel.carry): .cc writes it, addc/subc/madc read it, so a timing replay
// orders a carry chain as the hardware's scoreboard does. sub.cc and subc carry a
// borrow: d = a - (b + CC.CF), and the borrow out is CC.CF.
var carryFamily = opFamily{name: "extended-precision arithmetic", rules: []opRule{
	{names: []string{"addc", "subc"}, decode: decodeCarry,
		doc: "u32 s32 u64 s64, .cc (with add.cc, sub.cc: the carry flag\nCC.CF as a register of each thread; sub's is a borrow)"},
	{names: []string{"madc"}, decode: decodeCarry,
		doc: ".lo .hi, u32 s32 u64 s64, .cc (with mad.lo.cc, mad.hi.cc)"},
}}

// Carry operations: in.bop holds the operation and whether it reads and writes CC.CF.
const (
	carryAdd uint8 = iota
	carrySub
	carryMadLo
	carryMadHi
	carryIn  uint8 = 1 << 6
	carryOut uint8 = 1 << 7
)

// carrySlot is the slot of the carry flag, allocated on first use.
func (k *Kernel) carrySlot() int32 {
	if k.carry < 0 {
		k.carry = int32(k.nslots)
		k.nslots++
	}
	return k.carry
}

// decodeCarry decodes addc, subc, madc, and add, sub, mad with .cc.
func decodeCarry(r *resolver) error {
	in, m := r.in, &r.m
	n := len(m.other)
	m.other = slices.DeleteFunc(m.other, func(o string) bool { return o == ".cc" })
	out := len(m.other) < n
	if err := r.unknownMods(); err != nil {
		return err
	}
	t, err := r.needType()
	if err != nil {
		return err
	}
	if !slices.Contains([]vtype{tU32, tS32, tU64, tS64}, t) {
		return r.fail("%s with a carry takes .u32, .s32, .u64 or .s64", r.base)
	}
	if m.sat {
		return r.fail(".sat with a carry is not supported")
	}
	var op uint8
	nsrc := 2
	switch r.base {
	case "add", "addc":
		op = carryAdd
	case "sub", "subc":
		op = carrySub
	case "mad", "madc":
		op, nsrc = carryMadLo, 3
		switch {
		case m.hi && !m.lo:
			op = carryMadHi
		case !m.lo || m.hi:
			return r.fail("%s with a carry needs .lo or .hi", r.base)
		}
	}
	if err := r.nops(nsrc + 1); err != nil {
		return err
	}
	in.op, in.t, in.run = opCompute, t, runCarry
	r.row.Class = format.ClassALU
	if err := r.dst(0, 0, t); err != nil {
		return err
	}
	for i := 0; i < nsrc; i++ {
		if err := r.src(i, i+1, t); err != nil {
			return err
		}
	}
	cc := r.k.carrySlot()
	if r.base[len(r.base)-1] == 'c' { // addc, subc, madc
		op |= carryIn
		in.s[3] = cc
		r.read(cc)
	}
	if out {
		op |= carryOut
		in.d[1] = cc
		r.write(cc)
	}
	in.bop = op
	return nil
}

// runCarry executes a carry operation on the executing lanes.
func runCarry(w *warpState, in *instr, exec, _ uint32) {
	d, a, b, c := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	var cin, cout *[32]uint64
	if in.bop&carryIn != 0 {
		cin = w.slot(in.s[3])
	}
	if in.bop&carryOut != 0 {
		cout = w.slot(in.d[1])
	}
	wide, op := in.t.size() == 8, in.bop&^(carryIn|carryOut)
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		var ci uint64
		if cin != nil {
			ci = cin[l] & 1
		}
		x, y := a[l], b[l]
		switch op {
		case carryMadLo:
			x, y = (a[l]*b[l])&in.t.mask(), c[l]
		case carryMadHi:
			x, y = mulHi(in.t, a[l], b[l]), c[l]
		}
		var v, co uint64
		switch {
		case op == carrySub && wide:
			v, co = bits.Sub64(x, y, ci)
		case op == carrySub:
			v32, co32 := bits.Sub32(uint32(x), uint32(y), uint32(ci))
			v, co = uint64(v32), uint64(co32)
		case wide:
			v, co = bits.Add64(x, y, ci)
		default:
			v32, co32 := bits.Add32(uint32(x), uint32(y), uint32(ci))
			v, co = uint64(v32), uint64(co32)
		}
		d[l] = v
		if cout != nil {
			cout[l] = co
		}
	}
}
