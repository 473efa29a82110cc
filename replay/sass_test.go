package replay

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// Each case isolates one rule of sass.go's estimate on one warp: the PTX it executes
// (what every arch without a SASS estimate reports) and the SASS ptxas makes of it for
// sm_90 (what hopper reports). Both engines report the same count.
func TestSASSEstimateRules(t *testing.T) {
	const head = `.version 7.0
.target sm_80
.address_size 64
.const .align 4 .b8 ctab[128];
.visible .entry k(.param .u64 p, .param .u32 n)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<12>;
.shared .align 4 .b8 tile[128];
`
	// Every case starts with the same addressing: ld.param, cvta, %tid, a copy, mul.wide
	// and add.s64. PTX 6; SASS 1 + 0 + 1 + 0 + 0 + 1 = 3 (the add is the IMAD.WIDE), plus
	// the prologue LDC and the global descriptor ULDC.64: 5.
	const addr = `ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
mov.u32 %r2, %r1;
mul.wide.u32 %rd3, %r2, 4;
add.s64 %rd4, %rd2, %rd3;
`
	const store = "st.global.u32 [%rd4], %r9;\nret;\n}\n" // 2 and 2
	cases := []struct {
		name      string
		body      string
		ptx, sass float64
	}{
		{"free moves and folded address arithmetic", addr + "mov.u32 %r9, 7;\n", 6 + 1 + 2, 5 + 0 + 2},
		// rem.s32 by a register is 24 SASS instructions; by an immediate, one multiply.
		{"signed remainder by a register", addr + "add.s32 %r3, %r1, 1;\nrem.s32 %r9, %r1, %r3;\n", 6 + 2 + 2, 5 + 1 + 24 + 2},
		{"unsigned divide by a register", addr + "add.s32 %r3, %r1, 1;\ndiv.u32 %r9, %r1, %r3;\n", 6 + 2 + 2, 5 + 1 + 17 + 2},
		{"remainder by an immediate", addr + "rem.s32 %r9, %r1, 7;\n", 6 + 1 + 2, 5 + 1 + 2},
		// A high multiply and the add of its result are one IMAD.HI; when the product
		// is read again, two instructions.
		{"mul.hi and add fused", addr + "mul.hi.u32 %r5, %r1, %r2;\nadd.u32 %r9, %r5, 3;\n", 6 + 2 + 2, 5 + 1 + 0 + 2},
		{"mul.hi read twice", addr + "mul.hi.u32 %r5, %r1, %r2;\nadd.u32 %r9, %r5, 3;\nadd.u32 %r9, %r9, %r5;\n", 6 + 3 + 2, 5 + 3 + 2},
		// A uniform branch that every lane takes skips 3 PTX instructions, which ptxas
		// predicates: every warp issues them and the branch disappears.
		{"if-conversion", addr + `mov.u32 %r9, 0;
setp.lt.u32 %p1, %r1, 64;
@%p1 bra DONE;
add.s32 %r9, %r1, 1;
add.s32 %r9, %r9, 2;
add.s32 %r9, %r9, 3;
DONE:
`, 6 + 1 + 1 + 1 + 2, 5 + 0 + 1 + 3 + 2},
		// A body longer than ifConvertMax keeps its branch, and the branch, whose
		// predicate depends on %tid, gets a convergence barrier: BSSY and BSYNC.
		{"too long to predicate", addr + "mov.u32 %r9, 0;\nsetp.lt.u32 %p1, %r1, 64;\n@%p1 bra DONE;\n" +
			strings.Repeat("add.s32 %r9, %r9, 1;\n", ifConvertMax+1) + "DONE:\n", 6 + 1 + 1 + 1 + 2, 5 + 0 + 1 + 1 + 2 + 2},
		// The same on a predicate every lane shares (%ntid): no barrier.
		{"uniform branch", addr + "mov.u32 %r9, 0;\nmov.u32 %r5, %ntid.x;\nsetp.lt.u32 %p1, %r5, 64;\n@%p1 bra DONE;\n" +
			strings.Repeat("add.s32 %r9, %r9, 1;\n", ifConvertMax+1) + "DONE:\n", 6 + 1 + 1 + 1 + 1 + 2, 5 + 0 + 1 + 1 + 1 + 2},
		// Four trips of a loop dividing by a loop-invariant register: ptxas hoists the
		// reciprocal, 15 per signed divide in the loop. The loop is rotated: the exit
		// test's branch and the back edge become one conditional branch.
		{"loop-invariant divisor", addr + `ld.param.u32 %r3, [n];
mov.u32 %r4, 0;
mov.u32 %r9, 0;
LOOP:
setp.ge.u32 %p1, %r4, 4;
@%p1 bra DONE;
div.s32 %r5, %r4, %r3;
add.s32 %r9, %r9, %r5;
add.s32 %r4, %r4, 1;
bra.uni LOOP;
DONE:
`, 6 + 3 + 4*6 + 2 + 2, 5 + 1 + 4*(1+1+15+1+1+0) + 1 + 1 + 2},
		// A shift that only adds read is part of each add (LEA): 0. A shift read by
		// anything else stays a shift.
		{"shift into the adds that read it", addr + "shl.b32 %r5, %r1, 2;\nadd.s32 %r6, %r5, 3;\nadd.s32 %r9, %r5, %r6;\n", 6 + 3 + 2, 5 + 0 + 2 + 2},
		{"shift read by a logic op", addr + "shl.b32 %r5, %r1, 2;\nadd.s32 %r6, %r5, 3;\nxor.b32 %r9, %r5, %r6;\n", 6 + 3 + 2, 5 + 3 + 2},
		// A shared variable's address is 3 (S2R SR_CgaCtaId, MOV, LEA); the add of
		// the shifted index 1.
		{"shared address", addr + "mov.u32 %r5, tile;\nshl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r5, %r6;\nst.shared.u32 [%r7], %r1;\nld.shared.u32 %r9, [%r7];\n",
			6 + 5 + 2, 5 + 3 + 0 + 1 + 1 + 1 + 2},
		// Inside a loop of 4 trips, ptxas computes it once, before the loop.
		{"shared address hoisted out of a loop", addr + `mov.u32 %r4, 0;
mov.u32 %r9, 0;
LOOP:
mov.u32 %r5, tile;
shl.b32 %r6, %r1, 2;
add.s32 %r7, %r5, %r6;
ld.shared.u32 %r8, [%r7];
add.s32 %r9, %r9, %r8;
add.s32 %r4, %r4, 1;
setp.lt.u32 %p1, %r4, 4;
@%p1 bra LOOP;
`, 6 + 2 + 4*8 + 2, 5 + 3 + 4*(0+0+1+1+1+1+1+1) + 2},
		// Under a condition inside the loop, ptxas takes it where it is, on each trip
		// that enters the block (3, here predicated with the rest of the block).
		{"shared address under a condition in a loop", addr + `mov.u32 %r4, 0;
mov.u32 %r9, 0;
LOOP:
setp.gt.u32 %p2, %r4, 99;
@%p2 bra SKIP;
mov.u32 %r5, tile;
add.s32 %r7, %r5, 4;
ld.shared.u32 %r8, [%r7];
add.s32 %r9, %r9, %r8;
SKIP:
add.s32 %r4, %r4, 1;
setp.lt.u32 %p1, %r4, 4;
@%p1 bra LOOP;
`, 6 + 2 + 4*9 + 2, 5 + 0 + 4*(1+(3+1+1+1)+1+1+1) + 2},
		// A constant's address is LDC's bank offset: the mov and the add of it are 0,
		// and a mul.wide scaling the index is a shift of its own (clang-14); nvcc
		// widens with a cvt (0) after a shift.
		{"constant address, mul.wide", addr + "mov.u64 %rd5, ctab;\nmul.wide.u32 %rd6, %r1, 4;\nadd.s64 %rd7, %rd5, %rd6;\nld.const.u32 %r9, [%rd7];\n",
			6 + 4 + 2, 5 + 0 + 1 + 0 + 1 + 2},
		{"constant address, cvt", addr + "mov.u64 %rd5, ctab;\nshl.b32 %r5, %r1, 2;\ncvt.u64.u32 %rd6, %r5;\nadd.s64 %rd7, %rd5, %rd6;\nld.const.u32 %r9, [%rd7];\n",
			6 + 5 + 2, 5 + 0 + 1 + 0 + 0 + 1 + 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := captureWarp(t, head+c.body+store, "buf:u32:32", "u32:3")
			for _, a := range []string{"ampere", "hopper"} {
				want := c.ptx
				if a == "hopper" {
					want = c.sass
				}
				cfg := preset(t, a)
				tr, err := Timing(context.Background(), r, cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, kr := range []*KernelReport{replayOne(t, r, cfg, false), &tr.Kernels[0]} {
					if got := metric(t, kr, "smsp__inst_executed.sum"); got != want {
						t.Errorf("%s: smsp__inst_executed.sum = %v, want %v", a, got, want)
					}
					if got := metric(t, kr, "smsp__thread_inst_executed.sum"); got != 32*want {
						t.Errorf("%s: smsp__thread_inst_executed.sum = %v, want %v", a, got, 32*want)
					}
					if got := metric(t, kr, "gtrace__ptx_inst_executed.sum"); got != c.ptx {
						t.Errorf("%s: gtrace__ptx_inst_executed.sum = %v, want %v", a, got, c.ptx)
					}
				}
			}
		})
	}
}

// A trace whose branches carry no target (written before gtrace recorded them) still
// gets the rules that need none, and a SASS trace (imported from Accel-Sim) none at all.
func TestSASSEstimateWithoutTargets(t *testing.T) {
	prog := format.Program{Insts: []format.Inst{
		{Opcode: "ld.param.u64", Class: format.ClassMem, Space: format.SpaceParam, MemOp: format.MemLoad, Width: 8, PTX: "ld.param.u64 %rd1, [p];"},
		{Opcode: "setp.lt.u32", Class: format.ClassALU, PTX: "setp.lt.u32 %p1, %r1, 64;"},
		{Opcode: "bra", Class: format.ClassControl, PTX: "@%p1 bra DONE;"},
		{Opcode: "add.s32", Class: format.ClassALU, PTX: "add.s32 %r9, %r1, 1;"},
		{Opcode: "add.s32", Class: format.ClassALU, PTX: "add.s32 %r9, %r9, 1;"},
		{Opcode: "ret", Class: format.ClassControl, PTX: "ret;"},
	}}
	if got, want := fmt.Sprint(sassWeights(prog, "clang-14", "9.0", nil)), "[2 1 1 1 1 1]"; got != want {
		t.Errorf("no targets: weights %s, want %s (prologue on pc 0, the branch kept)", got, want)
	}
	prog.Insts[2].Target = 5 // pc 4
	if got, want := fmt.Sprint(sassWeights(prog, "clang-14", "9.0", nil)), "[2 1 1 0 1 1]"; got != want {
		t.Errorf("with the target: weights %s, want %s (the body predicated)", got, want)
	}
	// pc 5, the exit: a predicated EXIT, nothing predicated, and the parameter that
	// nothing before it reads is loaded after it (sinkParams).
	prog.Insts[2].Target = 6
	if got, want := fmt.Sprint(sassWeights(prog, "clang-14", "9.0", nil)), "[1 1 1 2 1 1]"; got != want {
		t.Errorf("branch to the exit: weights %s, want %s", got, want)
	}
	if w := sassWeights(prog, format.SASSProducer+"sm_90", "9.0", nil); w != nil {
		t.Errorf("SASS trace: weights %v, want none", w)
	}
	if w := sassWeights(prog, "clang-14", "8.0", nil); w != nil {
		t.Errorf("cc 8.0: weights %v, want none (no SASS measured)", w)
	}
}

// A warp that leaves at the kernel's early exit never loads the parameters and the
// memory descriptor that only the code after the exit needs: ptxas loads them there
// (nvcc's copy). Of two warps, the second leaves at the exit.
func TestSASSEarlyExit(t *testing.T) {
	const src = onePointerHead + `mov.u32 %r1, %tid.x;
setp.ge.u32 %p1, %r1, 32;
@%p1 bra DONE;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], %r1;
DONE:
ret;
}
`
	r, _ := captureSpec(t, capture.Spec{PTX: []byte(src), PTXName: "k.ptx", Kernel: "k",
		Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 64, Y: 1, Z: 1}, SIMT: format.SIMTITS, Args: []string{"buf:u32:64"}})
	// PTX: 9 instructions for the first warp, 5 for the second (ld.param, mov, setp,
	// bra, ret). SASS, the first: LDC R1, S2R, ISETP, EXIT, then the parameter LDC and
	// the descriptor ULDC.64, IMAD.WIDE, STG and the ret, 9. The second: LDC
	// R1, S2R, ISETP, EXIT, and the ret its PTX still runs (the trace does not say
	// which warps left at the EXIT), 5.
	kr := replayOne(t, r, preset(t, "hopper"), false)
	if got, want := metric(t, kr, "gtrace__ptx_inst_executed.sum"), 9.0+5; got != want {
		t.Errorf("PTX instructions %v, want %v", got, want)
	}
	if got, want := metric(t, kr, "smsp__inst_executed.sum"), 9.0+5; got != want {
		t.Errorf("SASS instructions %v, want %v", got, want)
	}
}

// onePointerKernel opens the one-warp kernels of the tests below: an entry k with one
// pointer parameter p, 4 predicates, 16 32-bit and 8 64-bit registers, and p's global
// address in %rd2.
const onePointerKernel = onePointerHead + "cvta.to.global.u64 %rd2, %rd1;\n"

// onePointerHead is onePointerKernel with p loaded into %rd1 and not yet converted.
const onePointerHead = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [p];
`

// In the timing engine a warp that branches over a block ptxas predicates still issues
// the block, predicated off: on hopper the integer instruction after the branch waits
// for the block's slots on the integer pipe; on ampere, with no SASS estimate, the skipped
// block costs nothing.
//
// (Crediting what ptxas folds away, letting a weight-0 instruction issue free with its
// result ready when its sources are, made the reductions 17-35% faster than the H200:
// not landed, docs/issue-11.md.)
func TestTimingChargesPredicatedBlock(t *testing.T) {
	const head = onePointerKernel + `mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd2, %rd3;
mov.u32 %r9, 0;
setp.lt.u32 %p1, %r1, 64;
`
	const tail = "add.s32 %r9, %r9, 1;\nst.global.u32 [%rd4], %r9;\nret;\n}\n"
	cycles := func(body, a string) float64 {
		return metric(t, timeOne(t, captureWarp(t, head+body+tail, "buf:u32:32"), a), "sm__cycles_elapsed.avg")
	}
	// Every lane takes the branch (tid < 64) over five adds: 5 SASS instructions, under
	// ifConvertMax.
	skipped := "@%p1 bra DONE;\n" + strings.Repeat("add.s32 %r9, %r9, 7;\n", 5) + "DONE:\n"
	none := "@%p1 bra DONE;\nDONE:\n"
	// The add after the branch waits for the integer pipe: more cycles, by at most the
	// 5 adds' time on it (2 cycles each on hopper's 16 lanes per scheduler; the pipe's
	// own pace hides part of them).
	h := preset(t, "hopper")
	most := 5 * float64(32/(h.SM.INT32Lanes/h.SM.Schedulers))
	if with, without := cycles(skipped, "hopper"), cycles(none, "hopper"); with <= without || with > without+most {
		t.Errorf("hopper: %g cycles skipping a predicated block of 5, %g skipping nothing: want 1 to %g more", with, without, most)
	}
	if with, without := cycles(skipped, "ampere"), cycles(none, "ampere"); with != without {
		t.Errorf("ampere: %g cycles skipping 5 instructions, %g skipping none: want the same", with, without)
	}
}

// A mov of a register or an immediate has no SASS: ptxas renames the register or makes
// the constant its consumer's operand. On hopper (SASS estimate) each mov in a
// dependent chain adds one cycle, as a fused instruction does, not an ALU latency; on
// ampere, with no estimate, the mov is an instruction like any other and adds its
// latency.
func TestTimingFoldedMoves(t *testing.T) {
	const head = onePointerKernel + `mov.u32 %r9, %tid.x;
`
	const tail = "st.global.u32 [%rd2], %r9;\nret;\n}\n"
	const links = 64
	cycles := func(link, a string) float64 {
		src := head + strings.Repeat(link, links) + tail
		return metric(t, timeOne(t, captureWarp(t, src, "buf:u32:1"), a), "sm__cycles_elapsed.avg")
	}
	adds := "add.s32 %r9, %r9, 7;\n"
	copies := "mov.u32 %r10, %r9;\nadd.s32 %r9, %r10, 7;\n"
	consts := "mov.u32 %r11, 7;\nadd.s32 %r9, %r9, %r11;\n"
	for _, a := range []string{"hopper", "ampere"} {
		base := cycles(adds, a)
		alu := float64(preset(t, a).Latency.ALU)
		for _, c := range []struct{ name, link string }{{"copy", copies}, {"constant", consts}} {
			per := (cycles(c.link, a) - base) / links
			t.Logf("%s: a mov of a %s adds %.2f cycles a link to a chain of adds (lat.alu %g)", a, c.name, per, alu)
			switch {
			case a == "hopper" && (per < 0 || per > 1.5):
				t.Errorf("hopper: a mov of a %s adds %.2f cycles a link: want 0 to 1.5 (folded)", c.name, per)
			case a == "ampere" && c.name == "copy" && per < alu:
				t.Errorf("ampere: a mov of a %s adds %.2f cycles a link: want at least lat.alu %g", c.name, per, alu)
			}
		}
	}
}

// unrolledBRAs, summed over one entry of n trips (its back edges, then its exit), is
// the count of taken BRAs in ptxas's unrolled layout (sumloop-sass.txt, sum_plain
// 0x02f0-0x10a0) walked trip by trip here: a main loop of 4 trips a round while more
// than 3 are left, its back edge taken between rounds; a pair for 2 or 3 left; a
// single trip; a taken skip for each part with nothing to do.
func TestUnrolledBRAs(t *testing.T) {
	for n := uint32(1); n <= 40; n++ {
		got := 0
		for j := uint32(1); j < n; j++ {
			got += unrolledBRAs(j, false)
		}
		got += unrolledBRAs(n-1, true)
		want, left, ran := 0, n, false
		if left > 3 {
			for ran = true; ; {
				left -= 4
				if left <= 3 {
					break
				}
				want++ // the main loop's back edge
			}
		} else {
			want++ // skip the main loop
		}
		if left > 1 {
			left -= 2
			ran = true
		} else {
			want++ // skip the pair
		}
		if left == 0 && ran {
			want++ // skip the single trip
		}
		if got != want {
			t.Errorf("%d trips: %d taken BRAs charged, the layout takes %d", n, got, want)
		}
	}
}

// `.pragma "nounroll"` reaches the trace on the loop header's first instruction
// (format.Inst.NoUnroll), and such a loop's back edge is not a counted one: on hopper a
// warp waits lat.branch at each of its trips, where the same loop without the pragma
// takes the unrolled layout's BRAs (unrolledBRAs).
func TestNoUnrollPragma(t *testing.T) {
	const trips = 24
	src := func(pragma string) string {
		return onePointerKernel + `mov.u32 %r1, %tid.x;
mov.u32 %r2, 0;
LOOP:
` + pragma + `add.s32 %r1, %r1, 3;
add.s32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, ` + strconv.Itoa(trips) + `;
@%p1 bra LOOP;
st.global.u32 [%rd2], %r1;
ret;
}
`
	}
	stall := func(r *format.Reader) float64 {
		return metric(t, timeOne(t, r, "hopper"), "smsp__pcsamp_warps_issue_stalled_branch_resolving")
	}
	plain, pragma := captureWarp(t, src(""), "buf:u32:1"), captureWarp(t, src(".pragma \"nounroll\";\n"), "buf:u32:1")
	var marked []int
	for _, in := range pragma.Meta().Launches[0].Program.Insts {
		if in.NoUnroll {
			marked = append(marked, int(in.PC))
		}
	}
	if len(marked) != 1 || !strings.HasPrefix(pragma.Meta().Launches[0].Program.Insts[marked[0]].PTX, "add.s32 %r1") {
		t.Fatalf("NoUnroll on pcs %v: want the loop's first instruction only", marked)
	}
	for _, in := range plain.Meta().Launches[0].Program.Insts {
		if in.NoUnroll {
			t.Fatalf("pc %d NoUnroll without a pragma", in.PC)
		}
	}
	lat := float64(preset(t, "hopper").Latency.Branch)
	unrolled := 0
	for j := uint32(1); j < trips; j++ {
		unrolled += unrolledBRAs(j, false)
	}
	unrolled += unrolledBRAs(trips-1, true)
	// A wait of k BRAs holds the warp k x lat.branch cycles from its branch's issue to
	// the next: k x lat.branch - 1 stalled cycles, or k x (lat.branch - 1) when they
	// come one a branch.
	for _, c := range []struct {
		name string
		r    *format.Reader
		bras int
	}{{"nounroll", pragma, trips - 1}, {"unrolled", plain, unrolled}} {
		k := float64(c.bras)
		if got := stall(c.r); got < k*(lat-1) || got > k*lat {
			t.Errorf("%s: %g cycles branch_resolving, want %g to %g (%d BRAs)", c.name, got, k*(lat-1), k*lat, c.bras)
		}
	}
}
