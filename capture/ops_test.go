package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// An opCase is a few PTX statements checked against a Go reference on every thread
// of a launch. Thread t reads three 64-bit inputs from x[t] into %rd1-%rd3 (their low
// halves in %r1-%r3, as floats in %f1-%f3 and %fd1-%fd3) and writes %rd4 and %rd5,
// which start at 0; a 32-bit result left in %r4 or %r5 is widened into them. ref gives
// thread t's two results from all inputs, so a warp-level case can read its warp's.
type opCase struct {
	name string
	body string
	wide bool // the body writes %rd4/%rd5 itself
	ref  func(x [][3]uint64, t int) [2]uint64
}

const opThreads = 512 // 4 CTAs of 128 threads

func opKernel(c opCase) string {
	widen := "cvt.u64.u32 %rd4, %r4;\ncvt.u64.u32 %rd5, %r5;\n"
	if c.wide {
		widen = ""
	}
	return `.version 8.0
.target sm_90
.address_size 64
.visible .entry op(.param .u64 px, .param .u64 pout)
{
.reg .pred %p<8>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
.reg .f32 %f<8>;
.reg .f64 %fd<8>;
ld.param.u64 %rd10, [px];
ld.param.u64 %rd11, [pout];
cvta.to.global.u64 %rd10, %rd10;
cvta.to.global.u64 %rd11, %rd11;
mov.u32 %r10, %tid.x;
mov.u32 %r11, %ctaid.x;
mov.u32 %r12, %ntid.x;
mad.lo.u32 %r13, %r11, %r12, %r10;
mul.wide.u32 %rd12, %r13, 24;
add.s64 %rd12, %rd10, %rd12;
ld.global.u64 %rd1, [%rd12];
ld.global.u64 %rd2, [%rd12+8];
ld.global.u64 %rd3, [%rd12+16];
cvt.u32.u64 %r1, %rd1;
cvt.u32.u64 %r2, %rd2;
cvt.u32.u64 %r3, %rd3;
mov.b32 %f1, %r1;
mov.b32 %f2, %r2;
mov.b32 %f3, %r3;
mov.b64 %fd1, %rd1;
mov.b64 %fd2, %rd2;
mov.b64 %fd3, %rd3;
mov.u32 %r4, 0;
mov.u32 %r5, 0;
mov.u64 %rd4, 0;
mov.u64 %rd5, 0;
` + c.body + "\n" + widen + `mul.wide.u32 %rd13, %r13, 16;
add.s64 %rd13, %rd11, %rd13;
st.global.v2.u64 [%rd13], {%rd4, %rd5};
ret;
}
`
}

// opInputs are the threads' inputs: random 64-bit words, with edge values (0, 1,
// 31-33, 64, sign bits, all ones, float specials) often enough to reach every branch.
func opInputs() [][3]uint64 {
	edges := []uint64{0, 1, 2, 7, 31, 32, 33, 63, 64, 255, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe,
		0xffffffff80000000, 0x8000000000000000, ^uint64(0), 0x7f800000, 0xff800000, 0x7fc00000, 0x00400000, 0x80000001,
		0x7ff0000000000000, 0x7ff8000000000000, 0x0008000000000000, 0x3ff0000000000000}
	rng := rand.New(rand.NewPCG(19, 7))
	x := make([][3]uint64, opThreads)
	for t := range x {
		for i := range x[t] {
			switch rng.IntN(4) {
			case 0:
				x[t][i] = edges[rng.IntN(len(edges))]
			case 1:
				x[t][i] = uint64(rng.Uint32() >> rng.IntN(32))
			default:
				x[t][i] = rng.Uint64()
			}
		}
	}
	return x
}

// runOpCases runs each case under both SIMT models and compares every thread's results
// with its reference.
func runOpCases(t *testing.T, cases []opCase) {
	t.Helper()
	x := opInputs()
	in := opInputBytes(x)
	for _, c := range cases {
		for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
			t.Run(fmt.Sprintf("%s/%v", c.name, simt), func(t *testing.T) {
				runOpCase(t, c, simt, x, in)
			})
		}
	}
}

func runOpCase(t *testing.T, c opCase, simt format.SIMTModel, x [][3]uint64, in []byte) {
	spec := Spec{PTX: []byte(opKernel(c)), PTXName: c.name + ".ptx", Kernel: "op", SIMT: simt, Grid: d3(opThreads/128, 1, 1),
		Block: d3(128, 1, 1), Args: []string{fmt.Sprintf("buf:u64:%d", 3*opThreads), fmt.Sprintf("buf:u64:%d", 2*opThreads)},
		Data: map[int][]byte{0: in}}
	checkOpOut(t, c, x, run(t, spec, nil).Buffers[1].Final, "capture")
}

// checkOpOut compares each thread's two results in out, which who computed, with the
// case's reference (the first five that differ are told).
func checkOpOut(t *testing.T, c opCase, x [][3]uint64, out []byte, who string) {
	t.Helper()
	bad := 0
	for th := range x {
		want := c.ref(x, th)
		got := [2]uint64{binary.LittleEndian.Uint64(out[16*th:]), binary.LittleEndian.Uint64(out[16*th+8:])}
		if got != want && bad < 5 {
			bad++
			t.Errorf("%s: thread %d, inputs %#x: %s %#x, the reference %#x", c.name, th, x[th], who, got, want)
		}
	}
}

// lane32 is a reference of one 32-bit result from a thread's own low words.
func lane32(f func(a, b, c uint32) uint32) func(x [][3]uint64, t int) [2]uint64 {
	return func(x [][3]uint64, t int) [2]uint64 {
		return [2]uint64{uint64(f(uint32(x[t][0]), uint32(x[t][1]), uint32(x[t][2]))), 0}
	}
}

// lane64 is a reference of two results from a thread's own 64-bit words.
func lane64(f func(a, b, c uint64) (uint64, uint64)) func(x [][3]uint64, t int) [2]uint64 {
	return func(x [][3]uint64, t int) [2]uint64 {
		d, e := f(x[t][0], x[t][1], x[t][2])
		return [2]uint64{d, e}
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// TestIntegerForms checks the integer instructions real code reaches through CUDA's
// intrinsics (__sad, __dp4a, __dp2a_lo/hi, __fns, __byte_perm, bit-field inserts with
// register lengths, szext, bmsk, min/max .relu) against Go references written from
// the PTX ISA 8.x's semantics, on random and edge inputs.
func TestIntegerForms(t *testing.T) {
	s8 := func(v uint32, i int) int32 { return int32(int8(v >> (8 * i))) }
	u8 := func(v uint32, i int) int32 { return int32(uint8(v >> (8 * i))) }
	s16 := func(v uint32, i int) int32 { return int32(int16(v >> (16 * i))) }
	u16 := func(v uint32, i int) int32 { return int32(uint16(v >> (16 * i))) }
	bfi32 := func(a, b, pos, ln uint32) uint32 {
		p, l := pos&0xff, ln&0xff
		for i := uint32(0); i < l && p+i < 32; i++ {
			b = b&^(1<<(p+i)) | (a>>i&1)<<(p+i)
		}
		return b
	}
	szext := func(a, b uint32, clamp, signed bool) uint32 {
		n := b
		if clamp {
			n = min(n, 32)
		} else {
			n &= 31
		}
		switch {
		case n == 0:
			return 0
		case n == 32:
			return a
		case signed:
			return uint32(int32(a<<(32-n)) >> (32 - n))
		}
		return a & (1<<n - 1)
	}
	bmsk := func(a, b uint32, clamp bool) uint32 {
		var m uint64
		if clamp {
			if a >= 32 {
				return 0
			}
			m = (1<<min(b, 32) - 1) << a
		} else {
			m = (1<<(b&31) - 1) << (a & 31)
		}
		return uint32(m)
	}
	fns := func(mask, base uint32, off int32) uint32 {
		if base > 31 {
			return 0xffffffff
		}
		if off == 0 {
			if mask>>base&1 != 0 {
				return base
			}
			return 0xffffffff
		}
		n := 0
		for p := int(base); p >= 0 && p < 32; {
			if mask>>p&1 != 0 {
				n++
				if n == int(max(off, -off)) {
					return uint32(p)
				}
			}
			if off > 0 {
				p++
			} else {
				p--
			}
		}
		return 0xffffffff
	}
	// prmtMode's reference is the PTX ISA's table of modes, row by row: the source
	// byte of result bytes 0-3 for each value of c's low two bits.
	prmtTable := map[string][4][4]int{
		"f4e":  {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
		"b4e":  {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
		"rc8":  {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
		"ecl":  {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
		"ecr":  {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
		"rc16": {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
	}
	cases := []opCase{
		{name: "sad.u32", body: "sad.u32 %r4, %r1, %r2, %r3;", ref: lane32(func(a, b, c uint32) uint32 {
			return c + max(a, b) - min(a, b)
		})},
		{name: "sad.s32", body: "sad.s32 %r4, %r1, %r2, %r3;", ref: lane32(func(a, b, c uint32) uint32 {
			d := int64(int32(a)) - int64(int32(b))
			return c + uint32(max(d, -d))
		})},
		{name: "dp2a", body: "dp2a.lo.u32.u32 %r4, %r1, %r2, %r3;\ndp2a.hi.s32.s32 %r5, %r1, %r2, %r3;", ref: func(x [][3]uint64, t int) [2]uint64 {
			a, b, c := uint32(x[t][0]), uint32(x[t][1]), uint32(x[t][2])
			lo := int32(c) + u16(a, 0)*u8(b, 0) + u16(a, 1)*u8(b, 1)
			hi := int32(c) + s16(a, 0)*s8(b, 2) + s16(a, 1)*s8(b, 3)
			return [2]uint64{uint64(uint32(lo)), uint64(uint32(hi))}
		}},
		{name: "bfi.b32", body: "bfi.b32 %r4, %r1, %r2, %r3, %r3;\nshr.u32 %r6, %r3, 8;\nbfi.b32 %r5, %r1, %r2, %r3, %r6;",
			ref: lane64(func(a, b, c uint64) (uint64, uint64) {
				return uint64(bfi32(uint32(a), uint32(b), uint32(c), uint32(c))), uint64(bfi32(uint32(a), uint32(b), uint32(c), uint32(c)>>8))
			})},
		{name: "bfi.b64", wide: true, body: "bfi.b64 %rd4, %rd1, %rd2, %r3, %r1;",
			ref: lane64(func(a, b, c uint64) (uint64, uint64) {
				p, l := c&0xff, a&0xff
				for i := uint64(0); i < l && p+i < 64; i++ {
					b = b&^(1<<(p+i)) | (a>>i&1)<<(p+i)
				}
				return b, 0
			})},
		{name: "szext", body: "and.b32 %r6, %r2, 63;\nszext.wrap.u32 %r4, %r1, %r6;\nszext.clamp.s32 %r5, %r1, %r6;",
			ref: lane64(func(a, b, _ uint64) (uint64, uint64) {
				return uint64(szext(uint32(a), uint32(b)&63, false, false)), uint64(szext(uint32(a), uint32(b)&63, true, true))
			})},
		{name: "szext.big", body: "szext.wrap.s32 %r4, %r1, %r2;\nszext.clamp.u32 %r5, %r1, %r2;",
			ref: lane64(func(a, b, _ uint64) (uint64, uint64) {
				return uint64(szext(uint32(a), uint32(b), false, true)), uint64(szext(uint32(a), uint32(b), true, false))
			})},
		{name: "bmsk", body: "and.b32 %r6, %r1, 63;\nand.b32 %r7, %r2, 63;\nbmsk.wrap.b32 %r4, %r6, %r7;\nbmsk.clamp.b32 %r5, %r6, %r7;",
			ref: lane64(func(a, b, _ uint64) (uint64, uint64) {
				return uint64(bmsk(uint32(a)&63, uint32(b)&63, false)), uint64(bmsk(uint32(a)&63, uint32(b)&63, true))
			})},
		{name: "fns", body: "and.b32 %r6, %r2, 31;\nand.b32 %r7, %r3, 31;\nsub.s32 %r7, %r7, 16;\nfns.b32 %r4, %r1, %r6, %r7;\nfns.b32 %r5, %r1, %r6, 0;",
			ref: lane64(func(a, b, c uint64) (uint64, uint64) {
				off := int32(c&31) - 16
				return uint64(fns(uint32(a), uint32(b)&31, off)), uint64(fns(uint32(a), uint32(b)&31, 0))
			})},
		{name: "min.relu", body: "min.relu.s32 %r4, %r1, %r2;\nmax.relu.s32 %r5, %r1, %r2;", ref: lane64(func(a, b, _ uint64) (uint64, uint64) {
			x, y := int32(a), int32(b)
			return uint64(max(min(x, y), 0)), uint64(max(x, y, 0))
		})},
	}
	for _, ta := range []string{"u32", "s32"} {
		for _, tb := range []string{"u32", "s32"} {
			byteA, byteB := u8, u8
			if ta == "s32" {
				byteA = s8
			}
			if tb == "s32" {
				byteB = s8
			}
			cases = append(cases, opCase{name: "dp4a." + ta + "." + tb, body: "dp4a." + ta + "." + tb + " %r4, %r1, %r2, %r3;",
				ref: lane32(func(a, b, c uint32) uint32 {
					sum := int32(c)
					for i := 0; i < 4; i++ {
						sum += byteA(a, i) * byteB(b, i)
					}
					return uint32(sum)
				})})
		}
	}
	for _, mode := range []string{"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"} {
		table := prmtTable[mode]
		cases = append(cases, opCase{name: "prmt." + mode, body: "prmt.b32." + mode + " %r4, %r1, %r2, %r3;",
			ref: lane32(func(a, b, c uint32) uint32 {
				x := uint64(b)<<32 | uint64(a)
				var r uint32
				for i, sel := range table[c&3] {
					r |= uint32(x>>(8*sel)&0xff) << (8 * i)
				}
				return r
			})})
	}
	runOpCases(t, cases)
}

// TestCarryChains checks add.cc/addc, sub.cc/subc and mad.cc/madc as multi-word
// arithmetic uses them: a 96-bit sum and difference of (c:b:a) and (a:c:b), a 128-bit
// product of two 64-bit numbers from 32-bit pieces (the PTX ISA's own example), and
// the 64-bit forms, each against math/bits.
func TestCarryChains(t *testing.T) {
	// chain96 is (c:b:a) op (a:c:b) over three 32-bit words, and the carry (borrow)
	// out of the top word as 0 - op(0, 0, CC.CF).
	chain96 := func(op string, step func(x, y, k uint32) (uint32, uint32)) opCase {
		return opCase{name: op + "96", wide: true, body: fmt.Sprintf(`%[1]s.cc.u32 %%r6, %%r1, %%r2;
%[1]sc.cc.u32 %%r7, %%r2, %%r3;
%[1]sc.cc.s32 %%r8, %%r3, %%r1;
%[1]sc.u32 %%r9, 0, 0;
xor.b32 %%r4, %%r6, %%r8;
cvt.u64.u32 %%rd4, %%r4;
mov.b64 %%rd5, {%%r7, %%r9};`, op), ref: lane64(func(a, b, c uint64) (uint64, uint64) {
			x, y, z := uint32(a), uint32(b), uint32(c)
			s0, k := step(x, y, 0)
			s1, k := step(y, z, k)
			s2, k := step(z, x, k)
			top, _ := step(0, 0, k)
			return uint64(s0 ^ s2), uint64(top)<<32 | uint64(s1)
		})}
	}
	// chain128 is (c:b) op (a:a) in 64-bit words, the carry (borrow) out xored into the
	// top word; the first instruction is of type first.
	chain128 := func(op, first string, step func(x, y, k uint64) (uint64, uint64)) opCase {
		return opCase{name: op + "128", wide: true, body: fmt.Sprintf(`%[1]s.cc.%[2]s %%rd4, %%rd1, %%rd2;
%[1]sc.cc.u64 %%rd5, %%rd3, %%rd1;
%[1]sc.u64 %%rd6, 0, 0;
xor.b64 %%rd5, %%rd5, %%rd6;`, op, first), ref: lane64(func(a, b, c uint64) (uint64, uint64) {
			s0, k := step(a, b, 0)
			s1, k := step(c, a, k)
			top, _ := step(0, 0, k)
			return s0, s1 ^ top
		})}
	}
	cases := []opCase{
		chain96("add", bits.Add32),
		chain96("sub", bits.Sub32),
		{name: "mul128", wide: true, body: `cvt.u32.u64 %r4, %rd1;
shr.u64 %rd6, %rd1, 32;
cvt.u32.u64 %r5, %rd6;
cvt.u32.u64 %r6, %rd2;
shr.u64 %rd6, %rd2, 32;
cvt.u32.u64 %r7, %rd6;
mul.lo.u32 %r8, %r4, %r6;
mul.hi.u32 %r9, %r4, %r6;
mad.lo.cc.u32 %r9, %r5, %r6, %r9;
madc.hi.u32 %r14, %r5, %r6, 0;
mad.lo.cc.u32 %r9, %r4, %r7, %r9;
madc.hi.cc.u32 %r14, %r4, %r7, %r14;
addc.u32 %r15, 0, 0;
mad.lo.cc.u32 %r14, %r5, %r7, %r14;
madc.hi.u32 %r15, %r5, %r7, %r15;
mov.b64 %rd4, {%r8, %r9};
mov.b64 %rd5, {%r14, %r15};`, ref: lane64(func(a, b, _ uint64) (uint64, uint64) {
			hi, lo := bits.Mul64(a, b)
			return lo, hi
		})},
		chain128("add", "u64", bits.Add64),
		chain128("sub", "s64", bits.Sub64),
		{name: "madc.s64", wide: true, body: `mad.hi.cc.s64 %rd4, %rd1, %rd2, %rd3;
madc.lo.u64 %rd5, %rd2, %rd3, %rd1;`, ref: lane64(func(a, b, c uint64) (uint64, uint64) {
			hi, _ := bits.Mul64(a, b)
			if int64(a) < 0 {
				hi -= b
			}
			if int64(b) < 0 {
				hi -= a
			}
			d, k := bits.Add64(hi, c, 0)
			return d, b*c + a + k
		})},
	}
	runOpCases(t, cases)
	// The carry flag is a register of the trace: the timing engine must order addc
	// after the add.cc that writes it.
	k := load(t, Spec{PTX: []byte(opKernel(cases[0])), PTXName: "c.ptx", Kernel: "op", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Args: []string{"buf:u64:96", "buf:u64:64"}})
	var wrote, read uint16 = 0xffff, 0xfffe
	for pc, row := range k.insts {
		switch {
		case strings.HasPrefix(row.PTX, "add.cc."):
			wrote = row.RegsWritten[len(row.RegsWritten)-1]
		case strings.HasPrefix(row.PTX, "addc.cc.u32 %r7"):
			if !containsID(row.RegsRead, wrote) {
				t.Errorf("pc %d %s reads %v, not the carry %d that add.cc writes", pc, row.PTX, row.RegsRead, wrote)
			}
			read = wrote
		}
	}
	if read != wrote {
		t.Error("no addc after add.cc in the kernel")
	}
}

func containsID(l []uint16, id uint16) bool {
	for _, x := range l {
		if x == id {
			return true
		}
	}
	return false
}

// TestTestp checks testp's six properties on f32 and f64 inputs (zeros, subnormals,
// normals, infinities, NaNs) against Go's math: zeros count as normal, as the PTX ISA
// says.
func TestTestp(t *testing.T) {
	classes := func(f float64, subnormal bool) [6]bool {
		nan, inf := math.IsNaN(f), math.IsInf(f, 0)
		return [6]bool{!nan && !inf, inf, !nan, nan, !nan && !inf && !subnormal, subnormal}
	}
	ops := []string{"finite", "infinite", "number", "notanumber", "normal", "subnormal"}
	var cases []opCase
	for i, op := range ops {
		body := fmt.Sprintf("testp.%s.f32 %%p1, %%f1;\nselp.u32 %%r4, 1, 0, %%p1;\ntestp.%s.f64 %%p2, %%fd2;\nselp.u32 %%r5, 1, 0, %%p2;", op, op)
		cases = append(cases, opCase{name: op, body: body, ref: func(x [][3]uint64, th int) [2]uint64 {
			a, b := uint32(x[th][0]), x[th][1]
			f := math.Float32frombits(a)
			g := math.Float64frombits(b)
			sa := a&0x7f800000 == 0 && a&0x7fffff != 0
			sb := b&0x7ff0000000000000 == 0 && b&(1<<52-1) != 0
			return [2]uint64{uint64(b2u(classes(float64(f), sa)[i])), uint64(b2u(classes(g, sb)[i]))}
		}})
	}
	runOpCases(t, cases)
}

// TestReduxAndMatch checks redux.sync and match.sync over full warps and over
// per-lane membermasks of 8 lanes (a tile of cooperative groups), with values drawn
// from a few so that matches happen.
func TestReduxAndMatch(t *testing.T) {
	warp := func(t int) (int, int) { return t &^ 31, t | 31 }
	tile := func(t int) (int, int) { return t &^ 7, t | 7 }
	reduce := func(x [][3]uint64, lo, hi int, f func(acc, v uint32) uint32) uint32 {
		acc := uint32(x[lo][0])
		for j := lo + 1; j <= hi; j++ {
			acc = f(acc, uint32(x[j][0]))
		}
		return acc
	}
	ops := []struct {
		name string
		f    func(acc, v uint32) uint32
	}{
		{"add.u32", func(a, v uint32) uint32 { return a + v }},
		{"min.u32", func(a, v uint32) uint32 { return min(a, v) }},
		{"max.u32", func(a, v uint32) uint32 { return max(a, v) }},
		{"min.s32", func(a, v uint32) uint32 { return uint32(min(int32(a), int32(v))) }},
		{"max.s32", func(a, v uint32) uint32 { return uint32(max(int32(a), int32(v))) }},
		{"and.b32", func(a, v uint32) uint32 { return a & v }},
		{"or.b32", func(a, v uint32) uint32 { return a | v }},
		{"xor.b32", func(a, v uint32) uint32 { return a ^ v }},
	}
	// The tile's membermask: 0xff shifted to the lane's group of 8.
	tileMask := "and.b32 %r6, %r10, 24;\nshl.b32 %r6, 255, %r6;\n"
	var cases []opCase
	for _, op := range ops {
		cases = append(cases, opCase{name: "redux." + op.name,
			body: tileMask + fmt.Sprintf("redux.sync.%s %%r4, %%r1, -1;\nredux.sync.%s %%r5, %%r1, %%r6;", op.name, op.name),
			ref: func(x [][3]uint64, t int) [2]uint64 {
				lo, hi := warp(t)
				tl, th := tile(t)
				return [2]uint64{uint64(reduce(x, lo, hi, op.f)), uint64(reduce(x, tl, th, op.f))}
			}})
	}
	// Values from {0, 1, 2}, so that lanes match; match.all on lanes whose values are
	// the tile's index (equal over each tile of 8).
	few := "and.b32 %r7, %r1, 3;\nmin.u32 %r7, %r7, 2;\nshr.u32 %r8, %r10, 3;\n"
	matches := func(x [][3]uint64, t, lo, hi int) (any uint32) {
		v := min(x[t][0]&3, 2)
		for j := lo; j <= hi; j++ {
			if min(x[j][0]&3, 2) == v {
				any |= 1 << (j & 31)
			}
		}
		return any
	}
	cases = append(cases,
		opCase{name: "match.any", body: tileMask + few + "match.any.sync.b32 %r4, %r7, -1;\nmatch.any.sync.b64 %r5, %rd1, %r6;",
			ref: func(x [][3]uint64, t int) [2]uint64 {
				lo, hi := warp(t)
				var same uint32
				tl, th := tile(t)
				for j := tl; j <= th; j++ {
					if x[j][0] == x[t][0] {
						same |= 1 << (j & 31)
					}
				}
				return [2]uint64{uint64(matches(x, t, lo, hi)), uint64(same)}
			}},
		opCase{name: "match.all", body: tileMask + few + `match.all.sync.b32 %r4|%p1, %r8, %r6;
match.all.sync.b32 %r9|%p2, %r7, -1;
selp.u32 %r11, 1, 0, %p1;
selp.u32 %r12, 2, 0, %p2;
add.u32 %r5, %r11, %r12;
add.u32 %r5, %r5, %r9;`, ref: func(x [][3]uint64, t int) [2]uint64 {
			lo, hi := warp(t)
			all := matches(x, t, lo, hi) == 0xffffffff
			r := uint32(1)
			if all {
				r += 1 // 1 + 2 + 0xffffffff, modulo 2^32
			}
			return [2]uint64{uint64(0xff) << (t & 24), uint64(r)}
		}},
	)
	runOpCases(t, cases)
}

// TestIsspacep checks isspacep on generic addresses of each space, made by cvta.
func TestIsspacep(t *testing.T) {
	body := `.shared .align 4 .b32 shv[4];
.local .align 4 .b32 lov[4];
mov.u64 %rd6, shv;
cvta.shared.u64 %rd6, %rd6;
mov.u64 %rd7, lov;
cvta.local.u64 %rd7, %rd7;
and.b32 %r6, %r1, 3;
setp.eq.u32 %p5, %r6, 1;
selp.u64 %rd8, %rd6, %rd12, %p5;
setp.eq.u32 %p5, %r6, 2;
selp.u64 %rd8, %rd7, %rd8, %p5;
isspacep.global %p1, %rd8;
isspacep.shared %p2, %rd8;
isspacep.local %p3, %rd8;
isspacep.shared::cta %p4, %rd8;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r7, 2, 0, %p2;
or.b32 %r4, %r4, %r7;
selp.u32 %r7, 4, 0, %p3;
or.b32 %r4, %r4, %r7;
selp.u32 %r7, 8, 0, %p4;
or.b32 %r4, %r4, %r7;
isspacep.const %p1, %rd8;
selp.u32 %r5, 1, 0, %p1;`
	runOpCases(t, []opCase{{name: "isspacep", body: body, ref: func(x [][3]uint64, th int) [2]uint64 {
		switch x[th][0] & 3 {
		case 1:
			return [2]uint64{2 | 8, 0}
		case 2:
			return [2]uint64{4, 0}
		}
		return [2]uint64{1, 0}
	}}})
}

// TestNewFormsRefuseBadModifiers: a form the PTX ISA does not define, or one capture
// does not run, is an error naming what is wrong.
func TestNewFormsRefuseBadModifiers(t *testing.T) {
	checkRefused(t, []badForm{
		{"add.cc.f32 %f1, %f2, %f3;", "takes .u32, .s32, .u64 or .s64"},
		{"addc.sat.s32 %r1, %r2, %r3;", ".sat with a carry"},
		{"madc.u32 %r1, %r2, %r3, %r4;", "needs .lo or .hi"},
		{"madc.wide.u32 %rd1, %r2, %r3, %rd4;", "needs .lo or .hi"},
		{"addc.u32 %r1, %r2;", "wrong number of operands"},
		{"szext.u32 %r1, %r2, %r3;", "needs .clamp or .wrap"},
		{"szext.wrap.b32 %r1, %r2, %r3;", "takes .u32 or .s32"},
		{"bmsk.clamp.b64 %rd1, %r2, %r3;", "takes .b32"},
		{"bfi.u32 %r1, %r2, %r3, %r4, %r5;", "takes .b32 or .b64"},
		{"prmt.b32.f8e %r1, %r2, %r3, %r4;", "unsupported prmt mode .f8e"},
		{"dp4a.u32 %r1, %r2, %r3, %r4;", "needs two types"},
		{"dp4a.u32.b32 %r1, %r2, %r3, %r4;", "takes .u32 or .s32"},
		{"dp2a.u32.u32 %r1, %r2, %r3, %r4;", "needs .lo or .hi"},
		{"sad.f32 %f1, %f2, %f3, %f4;", "integer type"},
		{"min.relu.u32 %r1, %r2, %r3;", ".s32 or .s16x2"},
		{"testp.f32 %p1, %f1;", "testp needs one of"},
		{"testp.finite.f16 %p1, %rs1;", "unsupported type"},
		{"testp.finite.s32 %p1, %r1;", "takes .f32 or .f64"},
		{"redux.sync.add.b32 %r1, %r2, -1;", "take .u32 or .s32"},
		{"redux.sync.and.u32 %r1, %r2, -1;", "takes .b32"},
		{"redux.add.u32 %r1, %r2, -1;", "needs .sync"},
		{"match.any.sync.b32 %r1|%p1, %r2, -1;", "only match.all"},
		{"match.all.sync.u32 %r1, %r2, -1;", "takes .b32 or .b64"},
		{"isspacep.param %p1, %rd1;", "isspacep needs .global"},
	})
}

// A badForm is one instruction capture must refuse when it loads it, with words that
// say why.
type badForm struct{ form, msg string }

// checkRefused loads each form in a one-instruction kernel and checks its PTX error.
func checkRefused(t *testing.T, forms []badForm) {
	t.Helper()
	for _, c := range forms {
		_, err := Load(Spec{PTX: []byte(coverageKernel("", c.form)), PTXName: "bad.ptx", Kernel: "cov",
			Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"u64:0"}})
		var pe *PTXError
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%s: %v, want a PTX error saying %q", c.form, err, c.msg)
		}
	}
}
