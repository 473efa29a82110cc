package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// The H100 runs of scripts/hw/mma.sh that TestMmaOnH100 checks against: the first with
// the f16 and bf16 variants, the second (the same script, extended) with the others too.
const (
	mmaRun     = "../traces/hw/h100-2026-11-27-mma"
	mmaMoreRun = "../traces/hw/h100-2026-11-27-mma-more"
)

// mmaVariant is one of scripts/hw/mma.cu's variants: its name (the .bin's), PTX
// opcode, fragment words of A, B and C (D has as many as C), input formats and the run
// that holds its results.
type mmaVariant struct {
	name, op    string
	nA, nB, nC  int
	bf16, f16CD bool
	in          int // mmaHalf, mmaTF32, mmaInt8 or mmaF64: how mma.cu draws the inputs
	run         string
}

const (
	mmaHalf = iota
	mmaTF32
	mmaInt8
	mmaF64
)

var mmaVariants = []mmaVariant{
	{"m16n8k16.f32.f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4, false, false, mmaHalf, mmaRun},
	{"m16n8k16.f32.bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 4, true, false, mmaHalf, mmaRun},
	{"m16n8k16.f16.f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 4, 2, 2, false, true, mmaHalf, mmaRun},
	{"m16n8k8.f32.f16", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4, false, false, mmaHalf, mmaRun},
	{"m16n8k8.f32.bf16", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 2, 1, 4, true, false, mmaHalf, mmaRun},
	{"m16n8k8.f32.tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 4, false, false, mmaTF32, mmaMoreRun},
	{"m16n8k32.s32.s8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 4, 2, 4, false, false, mmaInt8, mmaMoreRun},
	{"m16n8k32.s32.u8", "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", 4, 2, 4, false, false, mmaInt8, mmaMoreRun},
	{"m16n8k32.satfinite.s32.s8", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", 4, 2, 4, false, false, mmaInt8, mmaMoreRun},
	{"m16n8k16.s32.s8", "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", 2, 1, 4, false, false, mmaInt8, mmaMoreRun},
	{"m8n8k4.f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 2, 2, 4, false, false, mmaF64, mmaMoreRun},
}

const (
	mmaWords = 14  // per lane: A[4] B[2] C[4] D[4], as mma.cu lays them out
	mmaN     = 128 // warps (mma instances) per variant
)

// mmaRand is mma.cu's input stream (splitmix64) and its draws, in the same order.
type mmaRand uint64

func (r *mmaRand) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *mmaRand) n(n uint32) uint32 { return uint32(r.next() % uint64(n)) }

// gen16 draws an f16 (or bf16) from distribution d: exponents within 3 of 0, the whole
// normal range (bf16: ±30), exponent 0 only, or zeros, subnormals and the smallest
// normals.
func (r *mmaRand) gen16(d int, bf bool) uint32 {
	s := uint32(r.next() & 1)
	mb, bias := uint32(10), uint32(15)
	if bf {
		mb, bias = 7, 127
	}
	m := uint32(r.next()) & (1<<mb - 1)
	var e uint32
	switch d {
	case 0:
		e = bias - 3 + r.n(7)
	case 1:
		if bf {
			e = bias - 30 + r.n(61)
		} else {
			e = 1 + r.n(30)
		}
	case 2:
		e = bias
	default:
		var zero bool
		if e, zero = r.tiny(); zero {
			return s << 15
		}
	}
	return s<<15 | e<<mb | m
}

// tiny draws the exponent field of distribution 3 (zeros, subnormals and the smallest
// normals): one in eight a zero, three a subnormal (0), four an exponent of 1 to 5.
func (r *mmaRand) tiny() (e uint32, zero bool) {
	k := r.n(8)
	switch {
	case k == 0:
		return 0, true
	case k < 4:
		return 0, false
	}
	return 1 + r.n(5), false
}

// signFrac draws an f32's sign and fraction bits, the first two draws of gen32 and
// gentf.
func (r *mmaRand) signFrac() (s, m uint32) {
	s = uint32(r.next() & 1)
	return s, uint32(r.next()) & 0x7fffff
}

// gen32 draws an f32 accumulator from distribution d.
func (r *mmaRand) gen32(d int) uint32 {
	s, m := r.signFrac()
	var e uint32
	switch d {
	case 0:
		e = 124 + r.n(7)
	case 1:
		e = 107 + r.n(41)
	case 2:
		e = 127 + r.n(3)
	default:
		if r.n(4) == 0 {
			return s << 31
		}
		e = 100 + r.n(10)
	}
	return s<<31 | e<<23 | m
}

// gentf draws a tf32 input (an f32 word with all 23 fraction bits random) from
// distribution d.
func (r *mmaRand) gentf(d int) uint32 {
	s, m := r.signFrac()
	var e uint32
	switch d {
	case 0:
		e = 124 + r.n(7)
	case 1:
		e = 97 + r.n(61)
	case 2:
		e = 127
	default:
		var zero bool
		if e, zero = r.tiny(); zero {
			return s << 31
		}
	}
	return s<<31 | e<<23 | m
}

// gen64 draws an f64 from distribution d into two words, low first.
func (r *mmaRand) gen64(d int, w []uint32) {
	s := r.next() & 1
	m := r.next() & (1<<52 - 1)
	var e uint64
	switch d {
	case 0:
		e = 1020 + uint64(r.n(7))
	case 1:
		e = 963 + uint64(r.n(121))
	case 2:
		e = 1023
	default:
		t, zero := r.tiny()
		if e = uint64(t); zero {
			m = 0
		}
	}
	x := s<<63 | e<<52 | m
	w[0], w[1] = uint32(x), uint32(x>>32)
}

// genacc draws an s32 accumulator from distribution d: small, any, near the largest,
// near the smallest.
func (r *mmaRand) genacc(d int) uint32 {
	x := uint32(r.next())
	switch d {
	case 0:
		return uint32(int32(x&0x1fffff) - 0x100000)
	case 1:
		return x
	case 2:
		return 0x7fffffff - x&0xfffff
	}
	return 0x80000000 + x&0xfffff
}

// mmaInputs is variant vi's input words as mma.cu draws them, and their FNV-1a hash
// (mma.csv's inputs_fnv).
func mmaInputs(vi int) ([]uint32, uint64) {
	v := mmaVariants[vi]
	r := mmaRand(1000003*uint64(vi) + 1)
	w := make([]uint32, mmaN*32*mmaWords)
	for i := range mmaN {
		for l := range 32 {
			p := w[(i*32+l)*mmaWords:]
			d := i % 4
			switch v.in {
			case mmaHalf:
				for k := range v.nA {
					p[k] = r.gen16(d, v.bf16) | r.gen16(d, v.bf16)<<16
				}
				for k := range v.nB {
					p[4+k] = r.gen16(d, v.bf16) | r.gen16(d, v.bf16)<<16
				}
				for k := range v.nC {
					if v.f16CD {
						p[6+k] = r.gen16(d, false) | r.gen16(d, false)<<16
					} else {
						p[6+k] = r.gen32(d)
					}
				}
			case mmaTF32:
				for k := range v.nA {
					p[k] = r.gentf(d)
				}
				for k := range v.nB {
					p[4+k] = r.gentf(d)
				}
				for k := range v.nC {
					p[6+k] = r.gen32(d)
				}
			case mmaInt8:
				for k := range v.nA {
					p[k] = uint32(r.next())
				}
				for k := range v.nB {
					p[4+k] = uint32(r.next())
				}
				for k := range v.nC {
					p[6+k] = r.genacc(d)
				}
			default:
				for _, o := range []int{0, 4, 6, 8} {
					r.gen64(d, p[o:])
				}
			}
		}
	}
	h := uint64(14695981039346656037)
	for _, x := range w {
		h = (h ^ uint64(x)) * 1099511628211
	}
	return w, h
}

// mmaKernel is mma.cu's values kernel in PTX: each lane loads its 14 words, the warp
// runs op, and each lane stores its D registers over words 10 on.
func mmaKernel(v mmaVariant, body string) string {
	regs := func(from, n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%%r%d", from+i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	var b strings.Builder
	b.WriteString(`.version 8.0
.target sm_90
.address_size 64
.visible .entry mma(.param .u64 pw)
{
.reg .pred %p<4>;
.reg .b32 %r<40>;
.reg .b64 %rd<4>;
.reg .f64 %fd<8>;
ld.param.u64 %rd1, [pw];
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %ntid.x;
mov.u32 %r3, %tid.x;
mad.lo.u32 %r1, %r1, %r2, %r3;
mul.wide.u32 %rd2, %r1, 56;
add.s64 %rd1, %rd1, %rd2;
`)
	for i := range 10 {
		fmt.Fprintf(&b, "ld.global.u32 %%r%d, [%%rd1+%d];\n", 10+i, 4*i)
	}
	switch {
	case body != "":
	case v.in == mmaF64: // f64 registers from the word pairs, and back
		body = "mov.b64 %fd1, {%r10, %r11};\nmov.b64 %fd2, {%r14, %r15};\nmov.b64 %fd3, {%r16, %r17};\nmov.b64 %fd4, {%r18, %r19};\n" +
			v.op + " {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};\nmov.b64 {%r20, %r21}, %fd5;\nmov.b64 {%r22, %r23}, %fd6;"
	default:
		body = fmt.Sprintf("%s %s, %s, %s, %s;", v.op, regs(20, v.nC), regs(10, v.nA), regs(14, v.nB), regs(16, v.nC))
	}
	b.WriteString(body + "\n")
	for i := range v.nC {
		fmt.Fprintf(&b, "st.global.u32 [%%rd1+%d], %%r%d;\n", 40+4*i, 20+i)
	}
	b.WriteString("ret;\n}\n")
	return b.String()
}

// TestMmaOnH100 runs scripts/hw/mma.cu's 128 warps of every variant through capture and
// compares every destination word with what an H100 wrote (traces/hw/h100-2026-11-27-mma,
// 81920 dot products): the fragment layouts and tensorDot's summation, bit for bit.
func TestMmaOnH100(t *testing.T) {
	for vi, v := range mmaVariants {
		csv, err := os.ReadFile(v.run + "/mma.csv")
		if err != nil {
			t.Fatal(err)
		}
		in, h := mmaInputs(vi)
		if tag := fmt.Sprintf("\n%s,%016x,", v.name, h); !strings.Contains(string(csv), tag) {
			t.Fatalf("%s: inputs hash %016x is not the H100 run's (mma.csv): mmaInputs drifted from mma.cu", v.name, h)
		}
		want, err := os.ReadFile(v.run + "/mma-" + v.name + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4*len(in))
		for i, x := range in {
			binary.LittleEndian.PutUint32(buf[4*i:], x)
		}
		for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
			spec := Spec{PTX: []byte(mmaKernel(v, "")), PTXName: "mma.ptx", Kernel: "mma", SIMT: simt, Grid: d3(mmaN/4, 1, 1),
				Block: d3(128, 1, 1), Args: []string{fmt.Sprintf("buf:u32:%d", len(in))}, Data: map[int][]byte{0: buf}}
			out := run(t, spec, nil).Buffers[0].Final
			bad := 0
			for i := range mmaN * 32 {
				for j := range 4 {
					got := binary.LittleEndian.Uint32(out[4*(i*mmaWords+10+j):])
					if w := binary.LittleEndian.Uint32(want[4*(4*i+j):]); got != w {
						if bad++; bad <= 5 {
							t.Errorf("%s %v: warp %d lane %d D word %d: capture %#08x, the H100 %#08x", v.name, simt, i/32, i%32, j, got, w)
						}
					}
				}
			}
			if bad > 5 {
				t.Errorf("%s %v: %d words differ in all", v.name, simt, bad)
			}
		}
	}
}

// TestTensorDot checks tensorDot's rules on hand-made sums: exact sums, the
// truncation of addends more than 25 bits below the largest, rounding toward zero, +0
// for a zero result, and infinities and NaNs.
func TestTensorDot(t *testing.T) {
	f := func(x float32) mmaTerm { return f32Term(math.Float32bits(x)) }
	h := func(x uint16) mmaTerm { return f16Fmt.term(x) }
	one, two := h(0x3c00), h(0x4000)
	for _, c := range []struct {
		name string
		ts   []mmaTerm
		want uint32
	}{
		{"1*2+3", []mmaTerm{one.mul(two), f(3)}, math.Float32bits(5)},
		{"2^24+1 keeps its 1", []mmaTerm{one.mul(one), f(1 << 24)}, math.Float32bits(1<<24 + 1)},
		{"2^26+1 truncates the 1", []mmaTerm{one.mul(one), f(1 << 26)}, math.Float32bits(1 << 26)},
		{"toward zero", []mmaTerm{one.mul(one), f(-(1 << 24))}, math.Float32bits(-(1 << 24) + 1)},
		{"-(2^24+3) rounds toward zero", []mmaTerm{h(0xc200).mul(one), f(-(1 << 24))}, math.Float32bits(-(1 << 24) - 2)},
		{"+0 from -1+1", []mmaTerm{h(0xbc00).mul(one), f(1)}, 0},
		{"+0 from -0", []mmaTerm{h(0x8000).mul(one), f32Term(0x80000000)}, 0},
		{"inf", []mmaTerm{h(0x7c00).mul(one), f(1)}, 0x7f800000},
		{"-inf", []mmaTerm{h(0x7c00).mul(h(0xbc00)), f(1)}, 0xff800000},
		{"inf*0", []mmaTerm{h(0x7c00).mul(h(0)), f(1)}, 0x7fffffff},
		{"inf-inf", []mmaTerm{h(0x7c00).mul(one), f32Term(0xff800000)}, 0x7fffffff},
		{"NaN", []mmaTerm{h(0x7e00).mul(one), f(1)}, 0x7fffffff},
	} {
		if got := tensorDot(c.ts); got != c.want {
			t.Errorf("%s: %#08x, want %#08x", c.name, got, c.want)
		}
	}
}

// TestMmaTrace checks mma's row and that a partial or diverged warp is a fault.
func TestMmaTrace(t *testing.T) {
	v := mmaVariants[0]
	spec := func(body string, threads uint32, simt format.SIMTModel) Spec {
		return Spec{PTX: []byte(mmaKernel(v, body)), PTXName: "mma.ptx", Kernel: "mma", SIMT: simt, Grid: d3(1, 1, 1),
			Block: d3(threads, 1, 1), Args: []string{fmt.Sprintf("buf:u32:%d", 32*mmaWords)}}
	}
	k := load(t, spec("", 32, format.SIMTITS))
	_, row := rowOf(t, k, "mma")
	if row.Class != format.ClassTensor || len(row.RegsRead) != 10 || len(row.RegsWritten) != 4 {
		t.Errorf("mma's row %+v, want class tensor reading 10 registers and writing 4", row)
	}
	for _, c := range []struct {
		body    string
		threads uint32
	}{
		{"", 16},
		{"setp.lt.u32 %p1, %r3, 16;\n@%p1 " + v.op + " {%r20, %r21, %r22, %r23}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r16, %r17, %r18, %r19};", 32},
	} {
		for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
			_, err := load(t, spec(c.body, c.threads, simt)).Run(context.Background(), 0, nil)
			var f *Fault
			if !errors.As(err, &f) || !strings.Contains(err.Error(), "it needs all 32 lanes") {
				t.Errorf("%v: %d threads, %q: %v, want a fault saying it needs all 32 lanes", simt, c.threads, c.body, err)
			}
		}
	}
}

func TestMmaRefused(t *testing.T) {
	const ops = " {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};"
	checkRefused(t, []badForm{
		{"mma.aligned.m16n8k16.row.col.f32.f16.f16.f32" + ops, "needs .sync.aligned"},
		{"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32" + ops, "mma .m8n8k4 does not take .f16 inputs (.m16n8k16, .m16n8k8 does)"},
		{"mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32" + ops, "mma .m16n8k64 is not supported (only .m16n8k16, .m16n8k8, .m16n8k32 and .m8n8k4 are)"},
		{"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32" + ops, "mma .m16n8k4 is not supported"},
		{"mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32" + ops, "takes .row.col"},
		{"mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64" + ops, "mma .m16n8k8 does not take .f64 inputs (.m8n8k4 does)"},
		{"mma.sync.aligned.m16n8k8.row.col.f16.tf32.tf32.f32" + ops, "mma with .tf32 inputs accumulates in .f32, not .f16"},
		{"mma.sync.aligned.m16n8k32.row.col.f32.s8.s8.s32" + ops, "mma with .s8 inputs accumulates in .s32, not .f32"},
		{"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" + ops, "unsupported type .e4m3 on mma"},
		{"mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32" + ops, "mma takes .atype = .btype (or two of .s8 and .u8), not .f16 and .bf16"},
		{"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32" + ops, "a is {…} 2 registers, not 4"},
		{"mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f32" + ops, "accumulates in .f32, not .f16"},
		{"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16" + ops, "d is {…} 2 registers, not 4"},
		{"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32" + ops, "a is {…} 2 registers, not 4"},
		{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {_, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};", "not _"},
		{"mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32" + ops, "unsupported modifier .satfinite on mma with .f16 inputs"},
	})
}
