package capture

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// mmaForm is what an mma.sync instruction multiplies: the shape's k, the element types
// and the register slots of its fragments, in the PTX ISA's order ("Matrix Fragments
// for mma.m16n8k16 / mma.m16n8k8 with floating point type").
type mmaForm struct {
	k       int     // 8 or 16 (m16n8kK)
	abT     vtype   // tF16 or tBF16: A's and B's elements
	cT, dT  vtype   // tF16 (two a register) or tF32 (one a register)
	a, b, c []int32 // the fragments' register slots
}

// decodeMma decodes mma.sync.aligned.m16n8k{8,16}.row.col.dtype.atype.btype.ctype d, a, b,
// c with atype = btype .f16 (dtype, ctype .f16 or .f32) or .bf16 (dtype, ctype .f32).
func decodeMma(r *resolver) error {
	in, a, m := r.in, r.a, &r.m
	if !m.sync {
		return r.fail("mma needs .sync.aligned")
	}
	f := &mmaForm{}
	switch {
	case m.take(".m16n8k16"):
		f.k = 16
	case m.take(".m16n8k8"):
		f.k = 8
	default:
		shape := "without a shape"
		for _, o := range m.other {
			if strings.HasPrefix(o, ".m") {
				shape = o
			}
		}
		return r.fail("mma %s is not supported (only .m16n8k16 and .m16n8k8 are)", shape)
	}
	if !strings.Contains(r.a.opcode, ".row.col") || !m.take(".row") || !m.take(".col") {
		return r.fail("mma .m16n8k%d takes .row.col", f.k)
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	ts := m.types
	if len(ts) != 4 || ts[1] != ts[2] {
		return r.fail("mma takes .dtype.atype.btype.ctype with atype = btype")
	}
	if ts[1] != tF16 && ts[1] != tBF16 {
		return r.fail("mma with .%s inputs is not supported (only .f16 and .bf16 are)", ts[1])
	}
	f.dT, f.abT, f.cT = ts[0], ts[1], ts[3]
	for _, t := range []vtype{f.dT, f.cT} {
		if t != tF32 && (t != tF16 || f.abT != tF16) {
			return r.fail("mma with .%s inputs accumulates in .f32%s, not .%s", f.abT, map[bool]string{true: " or .f16"}[f.abT == tF16], t)
		}
	}
	if err := r.nops(4); err != nil {
		return err
	}
	regs := func(t vtype) int { // registers of a 16x8 accumulator fragment
		if t == tF16 {
			return 2
		}
		return 4
	}
	list := func(i, want int, what string) ([]operand, error) {
		o := a.ops[i]
		es := []operand{o}
		if o.kind == oVec {
			es = o.elems
		}
		if len(es) != want {
			return nil, r.fail("mma .m16n8k%d.%s.%s.%s.%s: %s is {…} %d registers, not %d", f.k, f.dT, f.abT, f.abT, f.cT, what, want, len(es))
		}
		return es, nil
	}
	ds, err := list(0, regs(f.dT), "d")
	if err != nil {
		return err
	}
	for i, e := range ds {
		if e.kind == oSink {
			return r.fail("mma writes registers, not _")
		}
		if err := r.dstOp(i, e, tB32); err != nil {
			return err
		}
	}
	in.nd = uint8(len(ds))
	for i, src := range []struct {
		name  string
		n     int
		slots *[]int32
	}{{"a", f.k / 4, &f.a}, {"b", f.k / 8, &f.b}, {"c", regs(f.cT), &f.c}} {
		es, err := list(i+1, src.n, src.name)
		if err != nil {
			return err
		}
		*src.slots = make([]int32, src.n)
		for j, e := range es {
			if (*src.slots)[j], err = r.value(e, tB32); err != nil {
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
// Lane l (group g = l/4, t = l%4) holds, per the PTX ISA's fragment layouts: of A
// (16×k, row-major) element i of its 2k/8 halves at row g+8·(i/2%2), column
// 2t+i%2+8·(i/4); of B (k×8) element i at row 2t+i%2+8·(i/2), column g; of C and D
// element i at row g+8·(i/2), column 2t+i%2.
func (w *warpState) mma(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if want := w.valid &^ w.exited; exec != want || exec != 1<<32-1 {
		return w.fault(FaultUnsupported, pc, bits.TrailingZeros32(^exec), 0, "",
			fmt.Sprintf("mma executed by lanes %#08x: it needs all 32 lanes of the warp (.sync.aligned; each holds part of every matrix)", exec))
	}
	f := in.mma
	ab := fmtOf(f.abT)
	half := func(slots []int32, l, i int) uint16 { return uint16(w.regs[int(slots[i/2])*32+l] >> (16 * (i % 2))) }
	var A [16][16]mmaTerm
	var B [16][8]mmaTerm
	var C [16][8]mmaTerm
	for l := range 32 {
		g, t := l/4, l%4
		for i := range f.k / 2 {
			row, col := g+8*(i/2%2), 2*t+i%2+8*(i/4)
			if f.k == 8 {
				row, col = g+8*(i/2), 2*t+i%2
			}
			A[row][col] = ab.term(half(f.a, l, i))
		}
		for i := range f.k / 4 {
			B[2*t+i%2+8*(i/2)][g] = ab.term(half(f.b, l, i))
		}
		for i := range 4 {
			if f.cT == tF16 {
				C[g+8*(i/2)][2*t+i%2] = f16Fmt.term(half(f.c, l, i))
			} else {
				C[g+8*(i/2)][2*t+i%2] = f32Term(uint32(w.regs[int(f.c[i])*32+l]))
			}
		}
	}
	var D [16][8]uint32
	var p [17]mmaTerm
	for i := range 16 {
		for j := range 8 {
			for k := range f.k {
				p[k] = A[i][k].mul(B[k][j])
			}
			p[f.k] = C[i][j]
			D[i][j] = tensorDot(p[:f.k+1])
		}
	}
	for l := range 32 {
		g, t := l/4, l%4
		for i := range 4 {
			v := D[g+8*(i/2)][2*t+i%2]
			if f.dT == tF32 {
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
// H100's tensor cores compute it for f16 and bf16 inputs, bit for bit on 81920 dot
// products of traces/hw/h100-2026-11-27-mma (TestMmaOnH100): every addend is aligned to
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
