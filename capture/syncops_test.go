package capture

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestPackedMinMax checks min and max on .s16x2 and .u16x2 (and .relu on .s16x2, PTX
// ISA 8.x, sm_90): each 16-bit half on its own.
func TestPackedMinMax(t *testing.T) { runOpCases(t, packedMinMaxCases()) }

func packedMinMaxCases() []opCase {
	halves := func(f func(a, b uint16) uint16) func(a, b uint32) uint32 {
		return func(a, b uint32) uint32 {
			return uint32(f(uint16(a), uint16(b))) | uint32(f(uint16(a>>16), uint16(b>>16)))<<16
		}
	}
	s := func(f func(a, b int16) int16) func(a, b uint32) uint32 {
		return halves(func(a, b uint16) uint16 { return uint16(f(int16(a), int16(b))) })
	}
	relu := func(f func(a, b int16) int16) func(a, b int16) int16 {
		return func(a, b int16) int16 { return max(f(a, b), 0) }
	}
	smin := func(a, b int16) int16 { return min(a, b) }
	smax := func(a, b int16) int16 { return max(a, b) }
	forms := []struct {
		name string
		f    func(a, b uint32) uint32
	}{
		{"min.s16x2", s(smin)},
		{"max.s16x2", s(smax)},
		{"min.u16x2", halves(func(a, b uint16) uint16 { return min(a, b) })},
		{"max.u16x2", halves(func(a, b uint16) uint16 { return max(a, b) })},
		{"min.relu.s16x2", s(relu(smin))},
		{"max.relu.s16x2", s(relu(smax))},
	}
	var cases []opCase
	for _, f := range forms {
		cases = append(cases, opCase{name: f.name, body: f.name + " %r4, %r1, %r2;\n" + f.name + " %r5, %r2, %r3;",
			ref: func(x [][3]uint64, t int) [2]uint64 {
				a, b, c := uint32(x[t][0]), uint32(x[t][1]), uint32(x[t][2])
				return [2]uint64{uint64(f.f(a, b)), uint64(f.f(b, c))}
			}})
	}
	return cases
}

// TestBarRedArriveElect checks bar.red (popc, and, or; negated predicates; a thread
// count), bar.arrive (a producer and consumer handing over shared memory) and
// elect.sync against Go references over each CTA of 128 threads, under both SIMT
// models.
func TestBarRedArriveElect(t *testing.T) { runOpCases(t, syncOpCases()) }

func syncOpCases() []opCase {
	cta := func(t int) (int, int) { return t &^ 127, t | 127 }
	odd := func(x [][3]uint64, j int) bool { return x[j][0]&1 != 0 }
	count := func(x [][3]uint64, lo, hi int, f func(j int) bool) (n uint64) {
		for j := lo; j <= hi; j++ {
			if f(j) {
				n++
			}
		}
		return n
	}
	return []opCase{
		{name: "bar.red", body: `and.b32 %r6, %r1, 1;
setp.ne.u32 %p1, %r6, 0;
setp.eq.or.u32 %p2, %r11, 0, %p1;
setp.eq.and.u32 %p3, %r11, 1, %p1;
bar.red.popc.u32 %r4, 0, %p1;
bar.red.and.pred %p4, 1, %p2;
bar.cta.red.or.pred %p5, 2, %p3;
barrier.red.popc.aligned.u32 %r7, 3, !%p1;
bar.red.and.pred %p6, 0, !%p3;
selp.u32 %r8, 1, 0, %p4;
selp.u32 %r9, 2, 0, %p5;
add.u32 %r5, %r8, %r9;
selp.u32 %r8, 4, 0, %p6;
add.u32 %r5, %r5, %r8;
shl.b32 %r7, %r7, 8;
add.u32 %r5, %r5, %r7;`, ref: func(x [][3]uint64, t int) [2]uint64 {
			lo, hi := cta(t)
			c := t / 128
			n := count(x, lo, hi, func(j int) bool { return odd(x, j) })
			all := count(x, lo, hi, func(j int) bool { return c == 0 || odd(x, j) }) == 128
			any := count(x, lo, hi, func(j int) bool { return c == 1 && odd(x, j) }) > 0
			r := uint64(b2u(all)) + 2*uint64(b2u(any)) + 4*uint64(b2u(!any)) + (128-n)<<8
			return [2]uint64{n, r}
		}},
		{name: "bar.red.count", body: `and.b32 %r6, %r1, 1;
setp.ne.u32 %p1, %r6, 0;
setp.ge.u32 %p2, %r10, 64;
@%p2 bra $Lskip;
bar.red.popc.u32 %r4, 4, 64, %p1;
$Lskip:`, ref: func(x [][3]uint64, t int) [2]uint64 {
			lo, _ := cta(t)
			if t-lo >= 64 {
				return [2]uint64{}
			}
			return [2]uint64{count(x, lo, lo+63, func(j int) bool { return odd(x, j) }), 0}
		}},
		{name: "bar.arrive", body: `.shared .align 4 .b32 hand[64];
mov.u64 %rd6, hand;
setp.ge.u32 %p2, %r10, 64;
@%p2 bra $Lconsume;
mul.wide.u32 %rd7, %r10, 4;
add.u64 %rd8, %rd6, %rd7;
st.shared.u32 [%rd8], %r1;
bar.arrive 1, 128;
bra $Ldone;
$Lconsume:
bar.sync 1, 128;
sub.u32 %r7, %r10, 64;
mul.wide.u32 %rd7, %r7, 4;
add.u64 %rd8, %rd6, %rd7;
ld.shared.u32 %r4, [%rd8];
$Ldone:`, ref: func(x [][3]uint64, t int) [2]uint64 {
			if t%128 < 64 {
				return [2]uint64{}
			}
			return [2]uint64{uint64(uint32(x[t-64][0])), 0}
		}},
		{name: "elect.sync", body: `elect.sync %r4|%p1, -1;
and.b32 %r6, %r10, 24;
shl.b32 %r6, 255, %r6;
elect.sync _|%p2, %r6;
selp.u32 %r5, 1, 0, %p1;
selp.u32 %r7, 2, 0, %p2;
add.u32 %r5, %r5, %r7;
and.b32 %r8, %r10, 1;
setp.eq.u32 %p3, %r8, 0;
@%p3 bra $Leven;
elect.sync %r9|%p4, 0xaaaaaaaa;
shl.b32 %r9, %r9, 8;
add.u32 %r5, %r5, %r9;
$Leven:`, ref: func(x [][3]uint64, t int) [2]uint64 {
			lane := t % 32
			r := uint64(b2u(lane == 0)) + 2*uint64(b2u(lane%8 == 0))
			if lane%2 == 1 {
				r += 1 << 8
			}
			return [2]uint64{0, r}
		}},
	}
}

// TestBarRedMixedFaults: bar.red meeting bar.sync at one barrier is undefined in PTX;
// capture says so rather than pick an answer.
func TestBarRedMixedFaults(t *testing.T) {
	body := `mov.u32 %r1, %tid.x;
setp.lt.u32 %p1, %r1, 32;
@%p1 bra $Lred;
bar.sync 0;
bra $L1;
$Lred:
bar.red.popc.u32 %r2, 0, %p1;`
	spec := Spec{PTX: []byte(coverageKernel("", body)), PTXName: "mixed.ptx", Kernel: "cov",
		Grid: d3(1, 1, 1), Block: d3(64, 1, 1), Args: []string{"u64:0"}}
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		spec.SIMT = simt
		_, err := load(t, spec).Run(context.Background(), 0, nil)
		var f *Fault
		if !errors.As(err, &f) || f.Kind != FaultUnsupported || !strings.Contains(f.Reason, "PTX leaves undefined") {
			t.Errorf("%v: %v, want a fault saying bar.red and bar.sync may not meet", simt, err)
		}
	}
}

// TestSyncFormsRefuseBadModifiers checks the errors of the new forms' bad spellings.
func TestSyncFormsRefuseBadModifiers(t *testing.T) {
	checkRefused(t, []badForm{
		{"bar.red.popc.pred %p1, 0, %p2;", "takes .u32"},
		{"bar.red.and.u32 %r1, 0, %p2;", "takes .pred"},
		{"bar.red.xor.pred %p1, 0, %p2;", "unsupported bar mode .xor"},
		{"bar.red.popc.u32 %r1, 0;", "wrong number of operands"},
		{"bar.arrive 1;", "wrong number of operands"},
		{"bar.arrive.u32 1, 64;", "takes no type"},
		{"bar.wait 0;", "takes .sync, .arrive or .red"},
		{"elect.sync %r1, -1;", "takes d|p"},
		{"elect %r1|%p1, -1;", "needs .sync"},
		{"elect.sync %r1|_, -1;", "p cannot be the sink"},
		{"max.relu.u16x2 %r1, %r2, %r3;", ".s32 or .s16x2"},
		{"add.s16x2 %r1, %r2, %r3;", "unsupported type .s16x2 on add"},
		{"mov.u16x2 %r1, %r2;", "unsupported type .u16x2 on mov"},
	})
}

// TestWarpsInterleave: the warps of a CTA advance together, at most ctaQuantum
// warp-instructions apart, as a GPU issues them. Eight warps race on one word per lane
// as PolyBench/GPU's mvt does: each loads it once, adds 1 in a loop of 200
// instructions and stores it. On a GPU every warp loads before any stores, so the word
// ends one loop's sum above where it started; a warp that ran its whole loop before
// the next one began would leave eight.
func TestWarpsInterleave(t *testing.T) {
	ptx := `.version 7.0
.target sm_80
.address_size 64
.visible .entry race(.param .u64 p)
{
.reg .pred %p<2>;
.reg .f32 %f<4>;
.reg .b32 %r<4>;
.reg .b64 %rd<6>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 4;
add.u64 %rd4, %rd2, %rd3;
ld.global.f32 %f1, [%rd4];
mov.u32 %r2, 100;
LOOP:
add.f32 %f1, %f1, 0f3F800000;
sub.u32 %r2, %r2, 1;
setp.ne.u32 %p1, %r2, 0;
@%p1 bra LOOP;
st.global.f32 [%rd4], %f1;
ret;
}
`
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		spec := Spec{PTX: []byte(ptx), PTXName: "race.ptx", Kernel: "race", Grid: d3(1, 1, 1), Block: d3(32, 8, 1), Args: []string{"buf:f32:32"}, SIMT: simt}
		res := run(t, spec, nil)
		for i, v := range f32s(res.Buffers[0].Final) {
			if v != 100 {
				t.Errorf("%v: word %d = %g after 8 warps each added 100 to what they loaded at the start, want 100", simt, i, v)
				break
			}
		}
	}
}
