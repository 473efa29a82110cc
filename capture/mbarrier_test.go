package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestMbarrier checks mbarrier (init, arrive, arrive_drop, test_wait and try_wait with
// a state or a parity, pending_count, cp.async.mbarrier.arrive with and without
// .noinc, through .shared and generic addresses) against Go references over each CTA
// of 128 threads, under both SIMT models.
func TestMbarrier(t *testing.T) { runOpCases(t, mbarrierCases()) }

func mbarrierCases() []opCase {
	even := func(x [][3]uint64, t int) bool { return x[t][0]&1 == 0 }
	evens := func(x [][3]uint64, t int) (n uint64) { // in t's CTA
		for j := t &^ 127; j <= t|127; j++ {
			if even(x, j) {
				n++
			}
		}
		return n
	}
	return []opCase{
		// Phase 0: all 128 threads arrive and wait on their state (try_wait), then test
		// it (done), parity 0 (done) and parity 1 (not done: this thread has not
		// arrived). Phase 1: threads with an odd x0 arrive_drop, the others arrive; all
		// wait on parity 1. Phase 2: only the even ones arrive (the odd ones dropped out)
		// and wait on parity 0, then test parity 0 (done) and 1 (not done). Phase 3:
		// thread 0 arrives alone, then thread 1 with a count of 2; each reports the
		// pending count of the state its arrive returned.
		{name: "mbarrier.phases", body: `.shared .align 8 .b64 mbp;
setp.ne.u32 %p1, %r10, 0;
@%p1 bra $Linit;
mbarrier.init.shared.b64 [mbp], 128;
$Linit:
bar.sync 0;
mbarrier.arrive.shared.b64 %rd6, [mbp];
$Lw0:
mbarrier.try_wait.shared.b64 %p2, [mbp], %rd6;
@!%p2 bra $Lw0;
mbarrier.test_wait.shared.b64 %p3, [mbp], %rd6;
mbarrier.test_wait.parity.shared.b64 %p4, [mbp], 0;
mbarrier.test_wait.parity.shared::cta.b64 %p5, [mbp], 1;
selp.u32 %r4, 1, 0, %p3;
selp.u32 %r6, 2, 0, %p4;
add.u32 %r4, %r4, %r6;
selp.u32 %r6, 4, 0, %p5;
add.u32 %r4, %r4, %r6;
and.b32 %r6, %r1, 1;
setp.ne.u32 %p6, %r6, 0;
@%p6 mbarrier.arrive_drop.shared.b64 %rd7, [mbp];
@!%p6 mbarrier.arrive.release.cta.shared.b64 %rd7, [mbp];
mov.u32 %r7, 1;
$Lw1:
mbarrier.try_wait.parity.shared.b64 %p2, [mbp], %r7;
@!%p2 bra $Lw1;
bar.sync 0;
@%p6 bra $Lphase3;
mbarrier.arrive.shared.b64 %rd7, [mbp];
$Lw2:
mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p2, [mbp], 0;
@!%p2 bra $Lw2;
mbarrier.test_wait.parity.shared.b64 %p3, [mbp], 0;
mbarrier.test_wait.parity.shared.b64 %p4, [mbp], 1;
selp.u32 %r6, 8, 0, %p3;
add.u32 %r4, %r4, %r6;
selp.u32 %r6, 16, 0, %p4;
add.u32 %r4, %r4, %r6;
$Lphase3:
bar.sync 0;
setp.ne.u32 %p1, %r10, 0;
@%p1 bra $Lt1;
mbarrier.arrive.shared.b64 %rd8, [mbp];
mbarrier.pending_count.b64 %r5, %rd8;
$Lt1:
bar.sync 0;
setp.ne.u32 %p1, %r10, 1;
@%p1 bra $Ldone;
mbarrier.arrive.shared::cta.b64 %rd8, [mbp], 2;
mbarrier.pending_count.b64 %r5, %rd8;
$Ldone:`, ref: func(x [][3]uint64, t int) [2]uint64 {
			r4 := uint64(1 | 2)
			if even(x, t) {
				r4 |= 8
			}
			var r5 uint64
			switch t % 128 {
			case 0:
				r5 = evens(x, t)
			case 1:
				r5 = evens(x, t) - 1
			}
			return [2]uint64{r4, r5}
		}},
		// A barrier of 256 arrivals through a generic address: each thread copies x0's
		// low word with cp.async and signals it with .noinc (one arrival), copies x1's
		// low word and signals it without (no arrival of its own), then arrives. After the
		// phase each thread reads two other threads' words.
		{name: "mbarrier.cp.async", body: `.shared .align 8 .b64 mbc;
.shared .align 16 .b8 cpm[1024];
mov.u64 %rd6, mbc;
cvta.shared.u64 %rd7, %rd6;
setp.ne.u32 %p1, %r10, 0;
@%p1 bra $Linit;
mbarrier.init.b64 [%rd7], 256;
$Linit:
bar.sync 0;
mov.u32 %r6, cpm;
shl.b32 %r7, %r10, 2;
add.u32 %r6, %r6, %r7;
cp.async.ca.shared.global [%r6], [%rd12], 4;
cp.async.mbarrier.arrive.noinc.shared.b64 [mbc];
cp.async.ca.shared.global [%r6+512], [%rd12+8], 4;
cp.async.mbarrier.arrive.shared::cta.b64 [mbc];
mbarrier.arrive.b64 %rd8, [%rd7];
$Lw:
mbarrier.try_wait.parity.b64 %p2, [%rd7], 0;
@!%p2 bra $Lw;
add.u32 %r8, %r10, 37;
and.b32 %r8, %r8, 127;
shl.b32 %r8, %r8, 2;
mov.u32 %r9, cpm;
add.u32 %r8, %r9, %r8;
ld.shared.u32 %r4, [%r8];
add.u32 %r8, %r10, 91;
and.b32 %r8, %r8, 127;
shl.b32 %r8, %r8, 2;
add.u32 %r8, %r9, %r8;
ld.shared.u32 %r5, [%r8+512];`, ref: func(x [][3]uint64, t int) [2]uint64 {
			lo := t &^ 127
			return [2]uint64{uint64(uint32(x[lo+(t+37)%128][0])), uint64(uint32(x[lo+(t+91)%128][1]))}
		}},
	}
}

func TestMbarrierRefused(t *testing.T) {
	checkRefused(t, []badForm{
		{"mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [sh], %r1;", "unsupported modifier .expect_tx on mbarrier.arrive"},
		{"mbarrier.expect_tx.shared::cta.b64 [sh], %r1;", "unsupported operation mbarrier.expect_tx"},
		{"mbarrier.complete_tx.shared::cta.b64 [sh], %r1;", "unsupported operation mbarrier.complete_tx"},
		{"mbarrier.arrive.shared::cluster.b64 _, [%r1];", "unsupported modifier .shared::cluster"},
		{"mbarrier.arrive.release.cluster.shared::cta.b64 %rd1, [sh];", "unsupported modifier .cluster"},
		{"mbarrier.arrive.global.b64 %rd1, [%rd2];", "takes .shared or a generic address, not .global"},
		{"mbarrier.arrive.shared.b32 %r1, [sh];", "takes .b64"},
		{"mbarrier.arrive.noComplete.shared.b64 %rd1, [sh];", "wrong number of operands"},
		{"mbarrier.test_wait.shared.b64 %p1, [sh], %rd1, %r1;", "wrong number of operands"},
		{"mbarrier.init.shared.b64 [sh];", "wrong number of operands"},
		{"mbarrier.pending_count.shared.b64 %r1, %rd1;", "takes no state space"},
		{"mbarrier.frob.shared.b64 [sh];", "unsupported operation mbarrier.frob"},
		{"cp.async.mbarrier.arrive.shared.b32 [sh];", "takes .b64"},
	})
}

// mbarrierKernel is one warp's kernel around body, with the mbarrier mb in shared
// memory (8 bytes from a 16-byte buffer, so that [mb+4] is misaligned), the lane in
// %r1 and the output buffer's address in %rd1; it stores %r2 per lane.
func mbarrierKernel(body string) string {
	return `.version 8.0
.target sm_90
.address_size 64
.visible .entry mb(.param .u64 pout)
{
.reg .pred %p<8>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
.shared .align 8 .b8 mb[16];
ld.param.u64 %rd1, [pout];
mov.u32 %r1, %tid.x;
mov.u32 %r2, 0;
` + body + `
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd2, %rd1, %rd2;
st.global.u32 [%rd2], %r2;
ret;
}
`
}

// TestMbarrierFaults checks that a misused mbarrier is a fault naming what is wrong, at
// its instruction, and that a wait no arrival can end is a deadlock naming the
// mbarrier, not a hang; and that within one warp, lanes that wait for the others'
// arrivals deadlock under the reconvergence stack and finish under ITS.
func TestMbarrierFaults(t *testing.T) {
	const initAll, initHalf = "mbarrier.init.shared.b64 [mb], 32;\n", "mbarrier.init.shared.b64 [mb], 16;\n"
	cases := []struct {
		name, body string
		simt       format.SIMTModel
		kind       FaultKind
		inst, msg  string
	}{
		{"no init", "mbarrier.arrive.shared.b64 %rd3, [mb];", format.SIMTITS, FaultUnsupported,
			"mbarrier.arrive.shared.b64 %rd3, [mb];", "is not initialised (mbarrier.init)"},
		{"invalidated", initAll + "mbarrier.inval.shared.b64 [mb];\nmbarrier.test_wait.parity.shared.b64 %p1, [mb], 0;", format.SIMTITS,
			FaultUnsupported, "mbarrier.test_wait.parity.shared.b64 %p1, [mb], 0;", "or was invalidated"},
		{"count 0", "mbarrier.init.shared.b64 [mb], 0;", format.SIMTITS, FaultUnsupported,
			"mbarrier.init.shared.b64 [mb], 0;", "count 0 is outside [1, 1048575]"},
		{"too many arrivals", "mbarrier.init.shared.b64 [mb], 33;\nmbarrier.arrive.shared::cta.b64 %rd3, [mb], 2;", format.SIMTITS,
			FaultUnsupported, "mbarrier.arrive.shared::cta.b64 %rd3, [mb], 2;", "2 arrivals at the mbarrier at shared 0x0, where 1 are pending"},
		{"noComplete completes", "mbarrier.init.shared.b64 [mb], 32;\nmbarrier.arrive.noComplete.shared.b64 %rd3, [mb], 1;", format.SIMTITS,
			FaultUnsupported, "mbarrier.arrive.noComplete.shared.b64 %rd3, [mb], 1;", ".noComplete completes the phase"},
		{"misaligned", "mbarrier.init.shared.b64 [mb+4], 32;", format.SIMTITS, FaultMisaligned,
			"mbarrier.init.shared.b64 [mb+4], 32;", "misaligned 8-byte shared access at 0x4"},
		{"global", "mbarrier.init.b64 [%rd1], 32;", format.SIMTITS, FaultUnsupported,
			"mbarrier.init.b64 [%rd1], 32;", "an mbarrier must be in shared memory"},
		{"nobody arrives", initAll + "$Lw:\nmbarrier.try_wait.parity.shared.b64 %p1, [mb], 0;\n@!%p1 bra $Lw;", format.SIMTITS,
			FaultBarrierDeadlock, "mbarrier.try_wait.parity.shared.b64 %p1, [mb], 0;", "mbarrier deadlock: every warp waits, this one for a phase of the mbarrier at shared 0x0, which has 32 of 32 arrivals pending"},
		{"hand-off in a warp, stack", initHalf + intraWarpHandOff, format.SIMTStack,
			FaultBarrierDeadlock, "mbarrier.try_wait.parity.shared.b64 %p2, [mb], 0;", "which has 16 of 16 arrivals pending"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := Spec{PTX: []byte(mbarrierKernel(c.body)), PTXName: "mb.ptx", Kernel: "mb", SIMT: c.simt,
				Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:u32:32"}, MaxInst: 1 << 16}
			_, err := load(t, spec).Run(context.Background(), 0, nil)
			var f *Fault
			if !errors.As(err, &f) || f.Kind != c.kind || f.Inst != c.inst || !strings.Contains(f.Reason, c.msg) {
				t.Fatalf("got %v, want a %v fault at %q saying %q", err, c.kind, c.inst, c.msg)
			}
		})
	}
	// Under ITS the lanes that wait let the others run and arrive.
	spec := Spec{PTX: []byte(mbarrierKernel(initHalf + intraWarpHandOff)), PTXName: "mb.ptx", Kernel: "mb",
		SIMT: format.SIMTITS, Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:u32:32"}, MaxInst: 1 << 16}
	out := run(t, spec, nil).Buffers[0].Final
	for l := 0; l < 32; l++ {
		want := uint32(0)
		if l < 16 {
			want = 1
		}
		if got := binary.LittleEndian.Uint32(out[4*l:]); got != want {
			t.Errorf("ITS hand-off: lane %d stored %d, want %d", l, got, want)
		}
	}
}

// intraWarpHandOff: lanes 0–15 wait for phase 0 of mb, which lanes 16–31 complete. The
// waiting lanes take the branch, so the reconvergence stack runs them first.
const intraWarpHandOff = `setp.lt.u32 %p1, %r1, 16;
@%p1 bra $Lwait;
mbarrier.arrive.shared.b64 _, [mb];
bra $Ldone;
$Lwait:
mbarrier.try_wait.parity.shared.b64 %p2, [mb], 0;
@!%p2 bra $Lwait;
selp.u32 %r2, 1, 0, %p2;
$Ldone:`

// TestMbarrierWaitCounts checks how often a wait loop runs: a try_wait waits until its
// phase completes and runs once (as an H100's hardware wait about does), and a test_wait
// that finds its phase open ends the warp's turn, so its loop spins about once per round
// of the other warps, not a quantum's worth. Four warps arrive at one barrier of 128
// and wait, in rounds rounds.
func TestMbarrierWaitCounts(t *testing.T) {
	const rounds = 8
	body := func(wait string) string {
		return `mbarrier.init.shared.b64 [mb], 128;
bar.sync 0;
mov.u32 %r3, 0;
$Lround:
mbarrier.arrive.shared.b64 %rd3, [mb];
$Lw:
` + wait + ` %p1, [mb], %rd3;
@!%p1 bra $Lw;
add.u32 %r3, %r3, 1;
setp.lt.u32 %p2, %r3, 8;
@%p2 bra $Lround;
mov.u32 %r2, %r3;`
	}
	for _, c := range []struct {
		wait    string
		perWarp [2]uint64 // fewest and most warp-instructions a warp may run
	}{
		{"mbarrier.try_wait.shared.b64", [2]uint64{11 + 6*rounds, 11 + 6*rounds}},
		{"mbarrier.test_wait.shared.b64", [2]uint64{11 + 6*rounds, 11 + 6*rounds + 2*3*rounds}},
	} {
		for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
			spec := Spec{PTX: []byte(mbarrierKernel(body(c.wait))), PTXName: "mb.ptx", Kernel: "mb", SIMT: simt,
				Grid: d3(1, 1, 1), Block: d3(128, 1, 1), Args: []string{"buf:u32:128"}}
			res := run(t, spec, nil)
			if got := binary.LittleEndian.Uint32(res.Buffers[0].Final); got != rounds {
				t.Errorf("%s, %v: %d rounds, want %d", c.wait, simt, got, rounds)
			}
			if per := res.WarpInsts / 4; per < c.perWarp[0] || per > c.perWarp[1] {
				t.Errorf("%s, %v: %d warp-instructions a warp, want %d to %d", c.wait, simt, per, c.perWarp[0], c.perWarp[1])
			}
			if testing.Verbose() {
				t.Logf("%s, %v: %d warp-instructions a warp", c.wait, simt, res.WarpInsts/4)
			}
		}
	}
}
