package capture

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestCpAsync runs cp.async's forms against their references under both SIMT models
// (an H100 checks the same references: gpuOpCases).
func TestCpAsync(t *testing.T) { runOpCases(t, cpAsyncCases()) }

// inputWord is 64-bit word w of the opCase inputs laid out as the kernels read them
// (three per thread).
func inputWord(x [][3]uint64, w int) uint64 { return x[w/3][w%3] }

func cpAsyncCases() []opCase {
	low := func(v uint64, n uint64) uint64 { // v's low n bytes
		if n >= 8 {
			return v
		}
		return v & (1<<(8*n) - 1)
	}
	return []opCase{
		// 16 bytes per thread from x+16*gtid (L2 only) to cpa+32*tid; after the wait and
		// a barrier each thread reads its own high word and its neighbour's low word.
		{name: "cp.async.cg", body: `.shared .align 16 .b8 cpa[4096];
mov.u32 %r6, cpa;
shl.b32 %r7, %r10, 5;
add.u32 %r6, %r6, %r7;
mul.wide.u32 %rd6, %r13, 16;
add.s64 %rd6, %rd10, %rd6;
cp.async.cg.shared.global.L2::128B [%r6], [%rd6], 16;
cp.async.commit_group;
cp.async.wait_group 0;
bar.sync 0;
xor.b32 %r8, %r10, 1;
shl.b32 %r8, %r8, 5;
mov.u32 %r9, cpa;
add.u32 %r8, %r9, %r8;
ld.shared.u64 %rd4, [%r6+8];
ld.shared.u64 %rd5, [%r8];`, wide: true, ref: func(x [][3]uint64, t int) [2]uint64 {
			return [2]uint64{inputWord(x, 2*t+1), inputWord(x, 2*(t^1))}
		}},
		// Zero fill over a slot first set to all ones: 8 bytes of which src-size = x1&7
		// come from x0; 4 bytes from x2 unless ignore-src (x2 odd) makes them zeros; 4
		// bytes from x1 through a 64-bit shared address.
		{name: "cp.async.ca.zfill", body: `.shared .align 16 .b8 cpb[2048];
mov.u32 %r6, cpb;
shl.b32 %r7, %r10, 4;
add.u32 %r6, %r6, %r7;
mov.u32 %r8, -1;
st.shared.v4.u32 [%r6], {%r8, %r8, %r8, %r8};
and.b32 %r9, %r2, 7;
cp.async.ca.shared.global [%r6], [%rd12], 8, %r9;
and.b32 %r7, %r3, 1;
setp.ne.u32 %p1, %r7, 0;
cp.async.ca.shared.global [%r6+8], [%rd12+16], 4, %p1;
cvt.u64.u32 %rd7, %r6;
cp.async.ca.shared::cta.global [%rd7+12], [%rd12+8], 4;
cp.async.commit_group;
cp.async.wait_all;
ld.shared.u64 %rd4, [%r6];
ld.shared.u64 %rd5, [%r6+8];`, wide: true, ref: func(x [][3]uint64, t int) [2]uint64 {
			x0, x1, x2 := x[t][0], x[t][1], x[t][2]
			mid := low(x2, 4)
			if x2&1 != 0 {
				mid = 0
			}
			return [2]uint64{low(x0, x1&7), mid | low(x1, 4)<<32}
		}},
	}
}

// rowOf is the pc and program row of k's last instruction whose opcode starts with op.
func rowOf(t *testing.T, k *Kernel, op string) (int, *format.Inst) {
	t.Helper()
	prog := k.Launch().Program.Insts
	for pc := len(prog) - 1; pc >= 0; pc-- {
		if strings.HasPrefix(prog[pc].Opcode, op) {
			return pc, &prog[pc]
		}
	}
	t.Fatalf("no %s row in the program table", op)
	return 0, nil
}

// cpAsyncKernel is one warp copying 16 bytes per lane from its buffer to shared memory
// with body's cp.async, then storing the shared copy back.
func cpAsyncKernel(body string) string {
	return `.version 8.0
.target sm_90
.address_size 64
.visible .entry cp(.param .u64 pin, .param .u64 pout)
{
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
.reg .pred %p<2>;
.shared .align 16 .b8 buf[512];
ld.param.u64 %rd1, [pin];
ld.param.u64 %rd2, [pout];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 16;
add.s64 %rd4, %rd1, %rd3;
add.s64 %rd5, %rd2, %rd3;
mov.u32 %r2, buf;
shl.b32 %r3, %r1, 4;
add.u32 %r2, %r2, %r3;
` + body + `
cp.async.wait_all;
ld.shared.v2.u64 {%rd6, %rd7}, [%r2];
st.global.v2.u64 [%rd5], {%rd6, %rd7};
ret;
}
`
}

// TestCpAsyncTrace checks the trace's row for a copy (a global load of cp-size bytes
// from the source, .cg or .ca) and the faults of its two addresses.
func TestCpAsyncTrace(t *testing.T) {
	in := make([]byte, 512)
	for i := range in {
		in[i] = byte(i*7 + 1)
	}
	spec := func(body string) Spec {
		return Spec{PTX: []byte(cpAsyncKernel(body)), PTXName: "cp.ptx", Kernel: "cp", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
			Args: []string{"buf:u8:512", "buf:u8:512"}, Data: map[int][]byte{0: in}}
	}
	k := load(t, spec(`mov.b64 %rd6, 0;
cp.async.cg.shared.global.L2::cache_hint [%r2], [%rd4], 16, %rd6;`))
	res, err := k.Run(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Buffers[1].Final; string(got) != string(in) {
		t.Errorf("the copy through shared memory gave % x..., want % x...", got[:16], in[:16])
	}
	pc, row := rowOf(t, k, "cp.async.cg")
	if row.Class != format.ClassMem || row.MemOp != format.MemLoad || row.Space != format.SpaceGlobal || row.Width != 16 || row.CacheOp != format.CacheCG {
		t.Errorf("cp.async.cg's row: class %v, memop %v, space %v, width %d, cache %v; want mem, ld, global, 16, cg",
			row.Class, row.MemOp, row.Space, row.Width, row.CacheOp)
	}

	// The row's Coords: each lane's shared destination (its 16-byte slot of buf, which
	// starts the CTA's shared memory) and the bytes it read (all 16). With a src-size
	// of 8, 8; with ignore-src, 0.
	for _, c := range []struct {
		body  string
		bytes int32
	}{
		{`cp.async.cg.shared.global [%r2], [%rd4], 16;`, 16},
		{`cp.async.ca.shared.global [%r2], [%rd4], 16, 8;`, 8},
		{`setp.eq.u32 %p1, %r1, %r1;
cp.async.ca.shared.global [%r2], [%rd4], 16, %p1;`, 0},
	} {
		s := &memSink{}
		k := load(t, spec(c.body))
		if _, err := k.Run(context.Background(), 0, s); err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		pc, _ = rowOf(t, k, "cp.async.c")
		w := &s.warps[0]
		i := slices.Index(w.PC, uint32(pc))
		d := w.CopyDests(i)
		if len(d) != 64 {
			t.Fatalf("%s: %d values in the row's Coords, want a destination and a size for each of 32 lanes", c.body, len(d))
		}
		for l := range 32 {
			if d[2*l] != int32(16*l) || d[2*l+1] != c.bytes {
				t.Fatalf("%s: lane %d's destination %d and bytes %d, want %d and %d", c.body, l, d[2*l], d[2*l+1], 16*l, c.bytes)
			}
		}
	}

	for _, c := range []struct {
		body string
		kind FaultKind
		msg  string
	}{
		{`add.s64 %rd4, %rd4, 4;
cp.async.ca.shared.global [%r2], [%rd4], 8;`, FaultMisaligned, "misaligned 8-byte cp.async source"},
		{`cp.async.ca.shared.global [%r2+4], [%rd4], 8;`, FaultMisaligned, "misaligned 8-byte shared access"},
		{`cp.async.ca.shared.global [%r2+4096], [%rd4], 4;`, FaultOutOfBounds, "out-of-bounds shared access"},
		{`add.s64 %rd4, %rd4, 512;
cp.async.cg.shared.global [%r2], [%rd4], 16;`, FaultOutOfBounds, "out-of-bounds global access"},
	} {
		_, err := load(t, spec(c.body)).Run(context.Background(), 0, nil)
		var f *Fault
		if !errors.As(err, &f) || f.Kind != c.kind || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want a %v fault saying %q", c.body, err, c.kind, c.msg)
		}
	}
	// src-size 0 reads nothing, so a source past the buffer is no fault.
	k = load(t, spec(`add.s64 %rd4, %rd4, 4096;
cp.async.ca.shared.global [%r2], [%rd4], 16, 0;`))
	if res, err = k.Run(context.Background(), 0, nil); err != nil {
		t.Fatalf("src-size 0: %v", err)
	}
	for i, b := range res.Buffers[1].Final {
		if b != 0 {
			t.Fatalf("src-size 0: byte %d is %#x, want the zero fill", i, b)
		}
	}
}

func TestCpAsyncRefused(t *testing.T) {
	checkRefused(t, []badForm{
		{"cp.async.cg.shared.global [sh], [%rd1], 8;", "cp.async.cg copies 16 bytes"},
		{"cp.async.ca.shared.global [sh], [%rd1], 12;", "cp-size must be 4, 8 or 16"},
		{"cp.async.ca.shared.global [sh], [%rd1], %r1;", "cp-size must be 4, 8 or 16"},
		{"cp.async.ca.global.shared [sh], [%rd1], 4;", "takes .shared.global"},
		{"cp.async.ca.shared.global.L2::evict_first [sh], [%rd1], 4;", "unsupported modifier .L2::evict_first"},
		{"cp.async.ca.shared.global [sh], [%rd1], 4, %r1, %r2;", "wrong number of operands"},
		{"cp.async.wait_group %r1;", "takes an integer constant"},
		{"cp.async.commit_group 1;", "wrong number of operands"},
		{"cp.async.mbarrier.arrive.shared::cluster.b64 [sh];", "unsupported modifier .shared::cluster"},
		{"cp.async.bulk.commit_group;", "unsupported modifier .bulk on cp.async"},
		{"cp.shared.global [sh], [%rd1], 4;", "only cp.async"},
	})
}
