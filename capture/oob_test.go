package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// oobPTX reads below a buffer (Rodinia srad's J[-cols]: a[gi-8]), writes past one
// (a[gi+120]), adds atomically past one (d[gi]) and reads and writes past the CTA's
// shared memory (s[tid+8] of 64 words). Launched as 2 CTAs of 64 threads over
// a = buf:f32:128:iota, b = buf:f32:128, c = buf:u32:128, d = buf:u32:32.
const oobPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
.reg .b32 %r<16>;
.reg .f32 %f<4>;
.reg .b64 %rd<24>;
.shared .align 4 .b8 s[256];
ld.param.u64 %rd1, [pa];
ld.param.u64 %rd2, [pb];
ld.param.u64 %rd3, [pc];
ld.param.u64 %rd4, [pd];
cvta.to.global.u64 %rd1, %rd1;
cvta.to.global.u64 %rd2, %rd2;
cvta.to.global.u64 %rd3, %rd3;
cvta.to.global.u64 %rd4, %rd4;
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
mad.lo.s32 %r3, %r2, 64, %r1;
mul.wide.s32 %rd5, %r3, 4;
add.s64 %rd6, %rd1, %rd5;
ld.global.f32 %f1, [%rd6+-32];
add.s64 %rd7, %rd2, %rd5;
st.global.f32 [%rd7], %f1;
mov.f32 %f2, 0f3F800000;
st.global.f32 [%rd6+480], %f2;
add.s64 %rd8, %rd4, %rd5;
atom.global.add.u32 %r4, [%rd8], 1;
mov.u32 %r5, s;
shl.b32 %r6, %r1, 2;
add.s32 %r7, %r5, %r6;
st.shared.u32 [%r7+32], %r1;
bar.sync 0;
ld.shared.u32 %r8, [%r7+32];
add.s64 %rd9, %rd3, %rd5;
st.global.u32 [%rd9], %r8;
ret;
}
`

func oobSpec(policy OOBPolicy, workers int) Spec {
	return Spec{PTX: []byte(oobPTX), PTXName: "oob.ptx", Kernel: "k", Grid: d3(2, 1, 1), Block: d3(64, 1, 1),
		Args: []string{"buf:f32:128:iota", "buf:f32:128", "buf:u32:128", "buf:u32:32"}, OOB: policy, Workers: workers}
}

// The default stops at the first out-of-bounds access and names --oob=warn.
func TestOOBFaultNamesTheOption(t *testing.T) {
	_, err := load(t, oobSpec(OOBFault, 1)).Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultOutOfBounds || f.CTA != 0 || f.Thread != 0 || f.Addr != GlobalBase-32 {
		t.Fatalf("a[-8]: %v, want an out-of-bounds fault of CTA 0 thread 0 at %#x", err, GlobalBase-32)
	}
	if !strings.Contains(err.Error(), "--oob=warn") {
		t.Errorf("fault message %q does not name --oob=warn", err)
	}
	// A store to constant memory is not an address out of range: no hint.
	if s := (&Fault{Kind: FaultOutOfBounds, PC: -1, Reason: "store to constant memory"}).Error(); strings.Contains(s, "--oob") {
		t.Errorf("%q offers --oob=warn for a store to constant memory", s)
	}
}

// Under OOBWarn every out-of-bounds lane access reads zeros or is dropped, is counted
// once per lane under its pc, and lands in the trace with the address the kernel
// computed; the report and the trace are the same for any worker count.
func TestOOBWarn(t *testing.T) {
	sink1 := &memSink{}
	res := run(t, oobSpec(OOBWarn, 1), sink1)
	a0 := GlobalBase
	aEnd := a0 + 128*4
	dBase := res.Buffers[3].Addr
	type want struct {
		inst         string
		space        string
		write        bool
		count        uint64
		cta, thread  int
		addr         uint64
		bufferPrefix string
	}
	wants := []want{
		{"ld.global.f32 %f1, [%rd6+-32];", "global", false, 8, 0, 0, a0 - 32, "arg 0 "},
		{"st.global.f32 [%rd6+480], %f2;", "global", true, 120, 0, 8, aEnd, "arg 0 "},
		{"atom.global.add.u32 %r4, [%rd8], 1;", "global", true, 96, 0, 32, dBase + 32*4, "arg 3 "},
		{"st.shared.u32 [%r7+32], %r1;", "shared", true, 16, 0, 56, 256, "shared memory [0, +256)"},
		{"ld.shared.u32 %r8, [%r7+32];", "shared", false, 16, 0, 56, 256, "shared memory [0, +256)"},
	}
	if len(res.OOB) != len(wants) {
		t.Fatalf("%d pcs reported, want %d: %+v", len(res.OOB), len(wants), res.OOB)
	}
	for i, w := range wants {
		g := res.OOB[i]
		if g.Inst != w.inst || g.Space != w.space || g.Write != w.write || g.Count != w.count ||
			g.CTA != w.cta || g.Thread != w.thread || g.Addr != w.addr || !strings.HasPrefix(g.Buffer, w.bufferPrefix) {
			t.Errorf("report %d = %+v\nwant %+v", i, g, w)
		}
		if i > 0 && g.PC <= res.OOB[i-1].PC {
			t.Errorf("reports not in pc order: %d after %d", g.PC, res.OOB[i-1].PC)
		}
	}

	// Reads gave zeros, writes were dropped, nothing else changed.
	a, b := f32s(res.Buffers[0].Final), f32s(res.Buffers[1].Final)
	c, d := i32s(res.Buffers[2].Final), i32s(res.Buffers[3].Final)
	for i := range 128 {
		wantA := float32(i) // iota
		if i >= 120 {
			wantA = 1 // a[gi+120] for gi < 8, in bounds
		}
		if a[i] != wantA {
			t.Errorf("a[%d] = %v, want %v", i, a[i], wantA)
		}
		wantB := float32(0) // a[gi-8] below the buffer read zero
		if i >= 8 {
			wantB = float32(i - 8)
		}
		if b[i] != wantB {
			t.Errorf("b[%d] = %v, want %v", i, b[i], wantB)
		}
		wantC := int32(i % 64) // s[tid+8] read back; out of bounds for tid >= 56: zero
		if i%64 >= 56 {
			wantC = 0
		}
		if c[i] != wantC {
			t.Errorf("c[%d] = %d, want %d", i, c[i], wantC)
		}
	}
	for i := range d {
		if d[i] != 1 {
			t.Errorf("d[%d] = %d, want 1", i, d[i])
		}
	}

	// The trace holds the address below the buffer.
	ldPC := uint32(res.OOB[0].PC)
	found := false
	for _, w := range sink1.warps {
		if w.CTA != 0 || w.Warp != 0 {
			continue
		}
		for i, pc := range w.PC {
			if pc == ldPC {
				found = true
				if got := w.Addrs(i, nil); len(got) != 32 || got[0] != a0-32 {
					t.Errorf("trace addresses of the load: %#x..., want %#x first", got[:min(len(got), 1)], a0-32)
				}
			}
		}
	}
	if !found {
		t.Errorf("no record of pc %d in CTA 0 warp 0", ldPC)
	}

	// The records with lanes out of bounds, and only they, carry FlagOOB: the load's
	// in warp 0 of CTA 0 (gi 0..7), the store a[gi+120]'s in every warp (gi >= 8), the atomic d[gi]'s where gi >= 32 (3 warps), and each shared access's
	// in warp 1 of each CTA (tid >= 56).
	flagged := map[int]int{}
	for _, w := range sink1.warps {
		for i, pc := range w.PC {
			if w.Flags[i]&format.FlagOOB != 0 {
				flagged[int(pc)]++
			}
		}
	}
	wantFlagged := map[int]int{res.OOB[0].PC: 1, res.OOB[1].PC: 4, res.OOB[2].PC: 3, res.OOB[3].PC: 2, res.OOB[4].PC: 2}
	if !reflect.DeepEqual(flagged, wantFlagged) {
		t.Errorf("records with FlagOOB by pc %v, want %v", flagged, wantFlagged)
	}
	if !load(t, oobSpec(OOBWarn, 1)).Launch().OOBWarn || load(t, oobSpec(OOBFault, 1)).Launch().OOBWarn {
		t.Error("Launch.OOBWarn does not follow Spec.OOB")
	}

	sink4 := &memSink{}
	res4 := run(t, oobSpec(OOBWarn, 4), sink4)
	if res4.Workers != 2 {
		t.Errorf("%d workers on 2 CTAs, want 2: the determinism check needs them", res4.Workers)
	}
	if !reflect.DeepEqual(res4.OOB, res.OOB) {
		t.Errorf("reports with %d workers:\n%+v\nwith 1:\n%+v", res4.Workers, res4.OOB, res.OOB)
	}
	if !reflect.DeepEqual(sink4.warps, sink1.warps) {
		t.Errorf("traces differ between 1 and %d workers", res4.Workers)
	}
	if s := res.OOB[0].String(); !strings.Contains(s, "8 out-of-bounds global lane accesses; the reads gave zeros (first: CTA 0, thread 0") {
		t.Errorf("report line %q", s)
	}

	// Nothing out of bounds: no report.
	ok := oobSpec(OOBWarn, 1)
	ok.Args = []string{"buf:f32:1024", "buf:f32:1024", "buf:u32:1024", "buf:u32:1024"}
	ok.PTX = []byte(strings.NewReplacer("[%rd6+-32]", "[%rd6+32]", "[%r7+32]", "[%r7]").Replace(oobPTX))
	if res := run(t, ok, nil); len(res.OOB) != 0 {
		t.Errorf("in-bounds run reported %+v", res.OOB)
	}
	if math.Float32bits(b[0]) != 0 || binary.LittleEndian.Uint32(res.Buffers[1].Final) != 0 {
		t.Errorf("b[0] not positive zero")
	}
}

func TestParseOOBPolicy(t *testing.T) {
	for s, want := range map[string]OOBPolicy{"fault": OOBFault, "": OOBFault, "warn": OOBWarn} {
		if got, err := ParseOOBPolicy(s); err != nil || got != want {
			t.Errorf("ParseOOBPolicy(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseOOBPolicy("ignore"); err == nil || !strings.Contains(err.Error(), `"ignore"`) {
		t.Errorf("ParseOOBPolicy(ignore): %v, want an error naming it", err)
	}
}

// A load at a fixed address past the constant bank reads the same bytes in every lane,
// which capture looks up once per warp: under OOBWarn it still counts every lane and
// reads zeros; by default it stops at the first lane.
func TestOOBWarnUniformLoad(t *testing.T) {
	const ptx = `.version 7.0
.target sm_80
.address_size 64
.const .align 4 .b8 cb[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
.visible .entry k(.param .u64 pa)
{
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [pa];
cvta.to.global.u64 %rd1, %rd1;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 8;
add.s64 %rd3, %rd1, %rd2;
ld.const.u32 %r2, [cb+12];
ld.const.u32 %r3, [cb+65536];
st.global.v2.u32 [%rd3], {%r2, %r3};
ret;
}
`
	spec := func(p OOBPolicy) Spec {
		return Spec{PTX: []byte(ptx), PTXName: "u.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(48, 1, 1),
			Args: []string{"buf:u32:96"}, OOB: p, Workers: 1}
	}
	_, err := load(t, spec(OOBFault)).Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultOutOfBounds || f.Thread != 0 {
		t.Fatalf("ld.const past the bank: %v, want an out-of-bounds fault of thread 0", err)
	}
	res := run(t, spec(OOBWarn), &memSink{})
	if len(res.OOB) != 1 || res.OOB[0].Count != 48 || res.OOB[0].Space != "const" || res.OOB[0].Write {
		t.Fatalf("reports %+v, want one const read counted for each of 48 lanes", res.OOB)
	}
	out := i32s(res.Buffers[0].Final)
	for l := range 48 {
		if out[2*l] != 4 || out[2*l+1] != 0 {
			t.Fatalf("lane %d stored %d, %d; want 4 (cb[3]) and 0 (the zeros of an out-of-bounds read)", l, out[2*l], out[2*l+1])
		}
	}
}

// nearTopPTX has lane 0 store to its buffer (the warp's last allocation, which the hot
// path tries first) and the other lanes to an address near 2^64 in the same
// instruction (generic, and global with a 64-bit and a 32-bit width), where base+4
// wraps round below the buffer's end: found by FuzzCaptureMutated, it indexed pages
// past the allocation and panicked.
const nearTopPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa)
{
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
.reg .pred %p<2>;
ld.param.u64 %rd1, [pa];
mov.u32 %r1, %tid.x;
setp.eq.u32 %p1, %r1, 0;
selp.b64 %rd2, %rd1, -4, %p1;
st.global.u32 [%rd2], %r1;
selp.b64 %rd3, %rd1, -8, %p1;
st.global.u64 [%rd3], %rd1;
ld.u32 %r2, [%rd2];
ret;
}
`

func TestAddressNear2To64IsOutOfBounds(t *testing.T) {
	spec := Spec{PTX: []byte(nearTopPTX), PTXName: "wrap.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Args: []string{"buf:u64:4"}}
	_, err := load(t, spec).Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultOutOfBounds || f.Addr != 1<<64-4 {
		t.Fatalf("store at 2^64-4: %v, want an out-of-bounds fault at 0xfffffffffffffffc", err)
	}
	spec.OOB = OOBWarn
	res, err := load(t, spec).Run(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.OOB) != 3 || res.OOB[0].Count != 31 {
		t.Fatalf("under --oob=warn: %+v, want three pcs with 31 lanes out of bounds each", res.OOB)
	}
}
