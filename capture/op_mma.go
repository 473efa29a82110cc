package capture

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// mmaForm is what an mma.sync instruction multiplies: the shape, the element types
// and the register slots of its fragments, in the PTX ISA's order ("Matrix Fragments
// for mma.m16n8k16 / m16n8k8 / m16n8k32 / m8n8k4").
type mmaForm struct {
	m, k    int   // m16n8kK (m 16) or m8n8k4 (m 8, f64)
	aT, bT  vtype // A's and B's elements: tF16, tBF16, tF32 (tf32), tS8, tU8 or tF64
	cT, dT  vtype // tF16 (two a register), tF32, tS32 (one a register) or tF64
	tf32    bool  // A and B are .tf32: f32 registers of which the tensor cores read 19 bits
	sat     bool  // .satfinite: an integer D clamps to the s32 range instead of wrapping
	a, b, c []int32
}

// mmaShapes are the shapes each kind of input takes; mmaDims each shape's m and k.
var (
	mmaShapes = map[string][]string{"f16": {".m16n8k16", ".m16n8k8"}, "tf32": {".m16n8k8"},
		"int": {".m16n8k32", ".m16n8k16"}, "f64": {".m8n8k4"}}
	mmaDims = map[string][2]int{".m16n8k16": {16, 16}, ".m16n8k8": {16, 8}, ".m16n8k32": {16, 32}, ".m8n8k4": {8, 4}}
)

// decodeMma decodes mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d,
// a, b, c: .m16n8k16/.m16n8k8 with .f16 inputs (d, c .f16 or .f32) or .bf16 (.f32);
// .m16n8k8 with .tf32 (.f32); .m16n8k32/.m16n8k16 with .s8/.u8 (.s32, .satfinite
// allowed); .m8n8k4 with .f64.
func decodeMma(r *resolver) error {
	in, a, m := r.in, r.a, &r.m
	if !m.sync {
		return r.fail("mma needs .sync.aligned")
	}
	f := &mmaForm{}
	shape := ""
	for _, sh := range slices.Sorted(maps.Keys(mmaDims)) { // in one order: a second shape is refused by name
		if m.take(sh) {
			shape, f.m, f.k = sh, mmaDims[sh][0], mmaDims[sh][1]
		}
	}
	if shape == "" {
		shape = "without a shape"
		for _, o := range m.other {
			if strings.HasPrefix(o, ".m") {
				shape = o
			}
		}
		return r.fail("mma %s is not supported (only .m16n8k16, .m16n8k8, .m16n8k32 and .m8n8k4 are)", shape)
	}
	if !strings.Contains(r.a.opcode, ".row.col") || !m.take(".row") || !m.take(".col") {
		return r.fail("mma %s takes .row.col", shape)
	}
	f.sat = m.take(".satfinite")
	ts := m.types
	if m.take(".tf32") && m.take(".tf32") && len(ts) == 2 {
		f.tf32, ts = true, []vtype{ts[0], tF32, tF32, ts[1]}
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	if len(ts) != 4 {
		return r.fail("mma takes .dtype.atype.btype.ctype")
	}
	f.dT, f.aT, f.bT, f.cT = ts[0], ts[1], ts[2], ts[3]
	var kind string
	var accs []vtype // the accumulator types the inputs take
	switch {
	case f.tf32:
		kind, accs = "tf32", []vtype{tF32}
	case f.aT == tF16 && f.bT == tF16:
		kind, accs = "f16", []vtype{tF32, tF16}
	case f.aT == tBF16 && f.bT == tBF16:
		kind, accs = "f16", []vtype{tF32}
	case (f.aT == tS8 || f.aT == tU8) && (f.bT == tS8 || f.bT == tU8):
		kind, accs = "int", []vtype{tS32}
	case f.aT == tF64 && f.bT == tF64:
		kind, accs = "f64", []vtype{tF64}
	case f.aT == f.bT:
		return r.fail("mma with .%s inputs is not supported (only .f16, .bf16, .tf32, .s8, .u8 and .f64 are)", f.aT)
	default:
		return r.fail("mma takes .atype = .btype (or two of .s8 and .u8), not .%s and .%s", f.aT, f.bT)
	}
	if !slices.Contains(mmaShapes[kind], shape) {
		return r.fail("mma %s does not take .%s inputs (%s does)", shape, f.aT, strings.Join(mmaShapes[kind], ", "))
	}
	for _, t := range []vtype{f.dT, f.cT} {
		if !slices.Contains(accs, t) {
			in := f.aT.String()
			if f.tf32 {
				in = "tf32"
			}
			names := make([]string, len(accs))
			for i, a := range accs {
				names[i] = "." + a.String()
			}
			return r.fail("mma with .%s inputs accumulates in %s, not .%s", in, strings.Join(names, " or "), t)
		}
	}
	if f.sat && kind != "int" {
		return r.fail("unsupported modifier .satfinite on mma with .%s inputs (only integer mma takes it)", f.aT)
	}
	if err := r.nops(4); err != nil {
		return err
	}
	regT := tB32
	if kind == "f64" {
		regT = tB64
	}
	// The registers a lane holds of a rows×cols fragment of t: 32-bit registers hold
	// 4/size elements (a tf32 is an f32), a 64-bit one an f64.
	frag := func(rows, cols int, t vtype) int { return rows * cols / 32 / max(1, 4/t.size()) }
	list := func(i, want int, what string) ([]operand, error) {
		o := a.ops[i]
		es := []operand{o}
		if o.kind == oVec {
			es = o.elems
		}
		if len(es) != want {
			return nil, r.fail("mma %s.%s.%s.%s.%s: %s is {…} %d registers, not %d", shape, f.dT, f.aT, f.bT, f.cT, what, want, len(es))
		}
		return es, nil
	}
	ds, err := list(0, frag(f.m, 8, f.dT), "d")
	if err != nil {
		return err
	}
	for i, e := range ds {
		if e.kind == oSink {
			return r.fail("mma writes registers, not _")
		}
		if err := r.dstOp(i, e, regT); err != nil {
			return err
		}
	}
	in.nd = uint8(len(ds))
	for i, src := range []struct {
		name  string
		n     int
		slots *[]int32
	}{{"a", frag(f.m, f.k, f.aT), &f.a}, {"b", frag(f.k, 8, f.bT), &f.b}, {"c", frag(f.m, 8, f.cT), &f.c}} {
		es, err := list(i+1, src.n, src.name)
		if err != nil {
			return err
		}
		*src.slots = make([]int32, src.n)
		for j, e := range es {
			if (*src.slots)[j], err = r.value(e, regT); err != nil {
				return err
			}
		}
	}
	in.op, in.mma = opMma, f
	r.row.Class = format.ClassTensor
	return nil
}

// mma executes decodeMma's instruction for the lanes in exec, which must be the whole
// warp (.aligned: every thread executes it, and each holds part of every matrix).
// Lane l (group g = l/4, t = l%4) holds, per the PTX ISA's fragment layouts, with e the
// elements one 32-bit register holds (2 for f16 and bf16, 4 for s8 and u8, 1 for tf32):
// of A (m×k, row-major) element i at row g+8·(i/e%2), column e·t+i%e+4e·(i/2e); of B
// (k×8) element i at row e·t+i%e+4e·(i/e), column g; of C and D element i at row
// g+8·(i/2), column 2t+i%2. For m8n8k4.f64 a lane holds A's (g, t), B's (t, g) and C's
// and D's (g, 2t) and (g, 2t+1).
func (w *warpState) mma(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if want := w.valid &^ w.exited; exec != want || exec != 1<<32-1 {
		return w.fault(FaultUnsupported, pc, bits.TrailingZeros32(^exec), 0, "",
			fmt.Sprintf("mma executed by lanes %#08x: it needs all 32 lanes of the warp (.sync.aligned; each holds part of every matrix)", exec))
	}
	f := in.mma
	reg := func(slots []int32, l, i int) uint64 { return w.regs[int(slots[i])*32+l] }
	if f.aT == tF64 {
		w.mmaF64(in, reg)
		w.rec.Append(uint32(pc), exec, path, fl)
		return nil
	}
	elem := func(slots []int32, t vtype, l, i int) uint64 { // element i of a lane's fragment
		if t.size() == 4 {
			return reg(slots, l, i)
		}
		n := 4 / t.size()
		return reg(slots, l, i/n) >> (32 / n * (i % n)) & (1<<(32/n) - 1)
	}
	e := 4 / f.aT.size() // elements a register holds (a tf32 is an f32)
	var A [16][32]uint64
	var B [32][8]uint64
	var C [16][8]uint64
	for l := range 32 {
		g, t := l/4, l%4
		for i := range 16 * f.k / 32 {
			A[g+8*(i/e%2)][e*t+i%e+4*e*(i/(2*e))] = elem(f.a, f.aT, l, i)
		}
		for i := range f.k * 8 / 32 {
			B[e*t+i%e+4*e*(i/e)][g] = elem(f.b, f.bT, l, i)
		}
		for i := range 4 {
			C[g+8*(i/2)][2*t+i%2] = elem(f.c, f.cT, l, i)
		}
	}
	var D [16][8]uint32
	switch {
	case f.aT == tS8 || f.aT == tU8:
		for i := range 16 {
			for j := range 8 {
				sum := int64(int32(C[i][j]))
				for k := range f.k {
					sum += int64(f.aT.ext8(A[i][k])) * int64(f.bT.ext8(B[k][j]))
				}
				if f.sat {
					sum = min(max(sum, math.MinInt32), math.MaxInt32)
				}
				D[i][j] = uint32(sum)
			}
		}
	default:
		// A tf32 input is its f32 register with the 13 fraction bits below tf32's 10
		// dropped (truncated, not rounded: traces/hw/h100-2026-11-27-mma-more).
		term := func(t vtype, x uint64, input bool) mmaTerm {
			switch {
			case input && f.tf32:
				return f32Term(uint32(x) &^ (1<<13 - 1))
			case t == tF32:
				return f32Term(uint32(x))
			}
			return fmtOf(t).term(uint16(x))
		}
		var p [17]mmaTerm
		for i := range 16 {
			for j := range 8 {
				for k := range f.k {
					p[k] = term(f.aT, A[i][k], true).mul(term(f.bT, B[k][j], true))
				}
				p[f.k] = term(f.cT, C[i][j], false)
				D[i][j] = tensorDot(p[:f.k+1])
			}
		}
	}
	for l := range 32 {
		g, t := l/4, l%4
		for i := range 4 {
			v := D[g+8*(i/2)][2*t+i%2]
			if f.dT != tF16 {
				w.regs[int(in.d[i])*32+l] = uint64(v)
				continue
			}
			h := f16Fmt.round(float64(math.Float32frombits(v)), 0, rndN)
			if h&0x7fff == 0 {
				h = 0 // +0, as for f32
			}
			s := &w.regs[int(in.d[i/2])*32+l]
			*s = *s&^(0xffff<<(16*(i%2))) | uint64(h)<<(16*(i%2))
		}
	}
	w.rec.Append(uint32(pc), exec, path, fl)
	return nil
}

// ext8 is the 8-bit element x of type t (s8 or u8) as an integer.
func (t vtype) ext8(x uint64) int64 {
	if t == tS8 {
		return int64(int8(x))
	}
	return int64(uint8(x))
}

// mmaF64 computes m8n8k4.f64: lane l (g = l/4, t = l%4) holds A's (g, t), B's (t, g) and
// C's and D's (g, 2t), (g, 2t+1). Each element of D is four fused multiply-adds in k's
// order from C's element (mmaDot64).
func (w *warpState) mmaF64(in *instr, reg func(slots []int32, l, i int) uint64) {
	f := in.mma
	var A [8][4]float64
	var B [4][8]float64
	var C [8][8]float64
	for l := range 32 {
		g, t := l/4, l%4
		A[g][t] = math.Float64frombits(reg(f.a, l, 0))
		B[t][g] = math.Float64frombits(reg(f.b, l, 0))
		for i := range 2 {
			C[g][2*t+i] = math.Float64frombits(reg(f.c, l, i))
		}
	}
	for l := range 32 {
		g, t := l/4, l%4
		for i := range 2 {
			j := 2*t + i
			w.regs[int(in.d[i])*32+l] = math.Float64bits(mmaDot64(A[g], [4]float64{B[0][j], B[1][j], B[2][j], B[3][j]}, C[g][j]))
		}
	}
}

// mmaDot64 is c + a·b as an H100's DMMA computes it: fma(a3, b3, fma(a2, b2, fma(a1,
// b1, fma(a0, b0, c)))), each rounded to nearest, bit for bit on 8192 elements of
// traces/hw/h100-2026-11-27-mma-more (one rounding of the exact sum misses 1977 of
// them, the reverse order 2554). A NaN result is the canonical NaN (not measured).
func mmaDot64(a, b [4]float64, c float64) float64 {
	x := c
	for k := range 4 {
		x = math.FMA(a[k], b[k], x)
	}
	if math.IsNaN(x) {
		return math.Float64frombits(0x7fffffffffffffff)
	}
	return x
}

// mmaTerm is one addend of a tensor-core dot product: (-1)^neg · m · 2^e, or an
// infinity or NaN. exp is its exponent as the hardware aligns by it: an input's
// exponent field (the minimum normal exponent for a subnormal), and for a product
// the sum of its factors', whatever the product's leading bit.
type mmaTerm struct {
	neg      bool
	m        uint64
	e, exp   int
	inf, nan bool
}

// term is h as an mmaTerm.
func (f *halfFmt) term(h uint16) mmaTerm {
	frac := uint64(h) & (1<<f.frac - 1)
	ex := int(h&0x7fff) >> f.frac
	t := mmaTerm{neg: h&0x8000 != 0}
	switch {
	case h&f.expMask() == f.expMask():
		t.nan, t.inf = frac != 0, frac == 0
	case ex == 0:
		t.m, t.exp = frac, f.emin()
	default:
		t.m, t.exp = frac|1<<f.frac, ex-f.emax
	}
	t.e = t.exp - int(f.frac)
	return t
}

func f32Term(x uint32) mmaTerm {
	frac := uint64(x) & (1<<23 - 1)
	ex := int(x>>23) & 0xff
	t := mmaTerm{neg: x>>31 != 0}
	switch {
	case ex == 0xff:
		t.nan, t.inf = frac != 0, frac == 0
	case ex == 0:
		t.m, t.exp = frac, -126
	default:
		t.m, t.exp = frac|1<<23, ex-127
	}
	t.e = t.exp - 23
	return t
}

// mul is the exact product x·y.
func (x mmaTerm) mul(y mmaTerm) mmaTerm {
	p := mmaTerm{neg: x.neg != y.neg, m: x.m * y.m, e: x.e + y.e, exp: x.exp + y.exp}
	p.nan = x.nan || y.nan || x.inf && y.m == 0 && !y.inf || y.inf && x.m == 0 && !x.inf
	p.inf = !p.nan && (x.inf || y.inf)
	return p
}

// tensorAlign is how many bits below the largest addend's exponent a tensor core keeps
// of every addend.
const tensorAlign = 25

// tensorDot is the f32 bits of the sum of ts (k products and the accumulator) as an
// H100's tensor cores compute it for f16, bf16 and tf32 inputs, bit for bit on 81920
// dot products of traces/hw/h100-2026-11-27-mma and 16384 of -mma-more (TestMmaOnH100): every addend is aligned to
// the largest exponent among them (mmaTerm.exp) and truncated toward zero to a multiple
// of 2^(exp-25), the fixed-point sum is rounded toward zero to f32, and a zero result
// is +0 whatever the signs. Infinities and NaNs follow IEEE 754 (not measured): a NaN
// or inf-inf gives the canonical NaN, an infinity its sign.
func tensorDot(ts []mmaTerm) uint32 {
	E, nan, pinf, ninf := math.MinInt, false, false, false
	for _, t := range ts {
		switch {
		case t.nan:
			nan = true
		case t.inf:
			pinf, ninf = pinf || !t.neg, ninf || t.neg
		case t.m != 0:
			E = max(E, t.exp)
		}
	}
	switch {
	case nan || pinf && ninf:
		return 0x7fffffff
	case pinf:
		return 0x7f800000
	case ninf:
		return 0xff800000
	case E == math.MinInt:
		return 0
	}
	q := E - tensorAlign
	var sum int64
	for _, t := range ts {
		if t.m == 0 {
			continue
		}
		var v int64
		switch sh := t.e - q; {
		case sh >= 0:
			v = int64(t.m << sh)
		case sh > -64:
			v = int64(t.m >> -sh)
		}
		if t.neg {
			v = -v
		}
		sum += v
	}
	x := math.Ldexp(float64(sum), q) // exact: |sum| < 2^34
	r := float32(x)
	if math.Abs(float64(r)) > math.Abs(x) {
		r = math.Nextafter32(r, 0)
	}
	if r == 0 {
		return 0
	}
	return math.Float32bits(r)
}
