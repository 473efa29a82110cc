package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestLdmatrix runs ldmatrix's forms against their references under both SIMT models
// (an H100 checks the same references: gpuOpCases).
func TestLdmatrix(t *testing.T) { runOpCases(t, ldmatrixCases()) }

// ldmatrixSetup stores each thread's three input words in shared memory (the CTA's
// inputs, 3072 bytes) and points %r8 at row (37*warp + 5*lane) % 192 of it, 16 bytes a
// row, as its row address.
const ldmatrixSetup = `.shared .align 16 .b8 lm[3072];
mov.u32 %r6, lm;
mul.lo.u32 %r7, %r10, 24;
add.u32 %r7, %r6, %r7;
st.shared.u64 [%r7], %rd1;
st.shared.u64 [%r7+8], %rd2;
st.shared.u64 [%r7+16], %rd3;
bar.sync 0;
shr.u32 %r8, %r10, 5;
and.b32 %r9, %r10, 31;
mul.lo.u32 %r8, %r8, 37;
mad.lo.u32 %r8, %r9, 5, %r8;
rem.u32 %r8, %r8, 192;
shl.b32 %r8, %r8, 4;
add.u32 %r8, %r6, %r8;
`

func ldmatrixCases() []opCase {
	// shared is the CTA's inputs as ldmatrixSetup lays them out; row is the bytes lane l
	// of thread t's warp points at.
	shared := func(x [][3]uint64, t int) []byte {
		return opInputBytes(x[t&^127 : t&^127+128])
	}
	row := func(x [][3]uint64, t, l int) []byte {
		w := t % 128 / 32
		i := (37*w + 5*l) % 192
		return shared(x, t)[16*i : 16*i+16]
	}
	word := func(x [][3]uint64, t, i int, trans bool) uint64 { // matrix i's word for thread t
		l := t % 32
		if !trans {
			return uint64(binary.LittleEndian.Uint32(row(x, t, 8*i+l/4)[4*(l%4):]))
		}
		e := func(r int) uint64 { return uint64(binary.LittleEndian.Uint16(row(x, t, 8*i+r)[2*(l/4):])) }
		return e(2*(l%4)) | e(2*(l%4)+1)<<16
	}
	return []opCase{
		{name: "ldmatrix.x4", body: ldmatrixSetup + `ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r14}, [%r8];
mov.b64 %rd4, {%r1, %r2};
mov.b64 %rd5, {%r3, %r14};`, wide: true, ref: func(x [][3]uint64, t int) [2]uint64 {
			return [2]uint64{word(x, t, 0, false) | word(x, t, 1, false)<<32, word(x, t, 2, false) | word(x, t, 3, false)<<32}
		}},
		// .x2.trans, and .x1 through a generic address and .x1.trans: lanes 8-31 and 16-31
		// give addresses too, which the hardware ignores.
		{name: "ldmatrix.trans", body: ldmatrixSetup + `ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%r1, %r2}, [%r8];
cvt.u64.u32 %rd7, %r8;
cvta.shared.u64 %rd7, %rd7;
ldmatrix.sync.aligned.m8n8.x1.b16 {%r3}, [%rd7];
ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r14}, [%r8];
mov.b64 %rd4, {%r1, %r2};
mov.b64 %rd5, {%r3, %r14};`, wide: true, ref: func(x [][3]uint64, t int) [2]uint64 {
			return [2]uint64{word(x, t, 0, true) | word(x, t, 1, true)<<32, word(x, t, 0, false) | word(x, t, 0, true)<<32}
		}},
	}
}

// ldmatrixKernel is one CTA of block threads whose warps run body after %r2 is set to
// the shared row address of lane l: row l of a 512-byte buffer.
func ldmatrixKernel(body string) string {
	return `.version 8.0
.target sm_90
.address_size 64
.visible .entry lm(.param .u64 pout)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<8>;
.shared .align 16 .b8 buf[512];
mov.u32 %r1, %tid.x;
and.b32 %r3, %r1, 31;
shl.b32 %r3, %r3, 4;
mov.u32 %r2, buf;
add.u32 %r2, %r2, %r3;
` + body + `
ret;
}
`
}

// TestLdmatrixTrace checks ldmatrix's row (a 16-byte shared load) and its recorded
// addresses (lanes past those that give rows repeat their rows), and that a partial warp
// or a diverged one is a fault, not a guess.
func TestLdmatrixTrace(t *testing.T) {
	spec := func(body string, threads uint32, simt format.SIMTModel) Spec {
		return Spec{PTX: []byte(ldmatrixKernel(body)), PTXName: "lm.ptx", Kernel: "lm", Grid: d3(1, 1, 1), Block: d3(threads, 1, 1),
			Args: []string{"buf:u8:64"}, SIMT: simt}
	}
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		k := load(t, spec("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r4, %r5}, [%r2];", 32, simt))
		var rec memSink
		if _, err := k.Run(context.Background(), 0, &rec); err != nil {
			t.Fatal(err)
		}
		pc, row := rowOf(t, k, "ldmatrix")
		if row.Class != format.ClassMem || row.MemOp != format.MemLoad || row.Space != format.SpaceShared || row.Width != 16 {
			t.Fatalf("%v: ldmatrix's row %+v, want a 16-byte shared load", simt, row)
		}
		w := &rec.warps[0]
		i := 0
		for i < w.Len() && int(w.PC[i]) != pc {
			i++
		}
		if i == w.Len() || w.Mask[i] != 1<<32-1 {
			t.Fatalf("%v: no record of the ldmatrix by the whole warp", simt)
		}
		var addrs [32]uint64
		w.LaneAddrs(i, &addrs)
		for l, a := range addrs {
			if want := uint64(16 * (l % 16)); a != want {
				t.Errorf("%v: lane %d recorded at %#x, want %#x (lane %d's row)", simt, l, a, want, l%16)
			}
		}
	}
	for _, c := range []struct {
		body    string
		threads uint32
		msg     string
	}{
		{"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4, %r5, %r6, %r7}, [%r2];", 16, "needs lanes 0-31"},
		{`setp.lt.u32 %p1, %r1, 16;
@%p1 ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r4}, [%r2];`, 32, "it needs the whole warp"},
		{"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r4}, [%r2+8];", 32, "misaligned 16-byte shared access"},
		{"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4, %r5, %r6, %r7}, [%r2+508];", 32, "misaligned"},
		{"add.u32 %r2, %r2, 512;\nldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r4}, [%r2];", 32, "out-of-bounds shared access"},
		{"cvt.u64.u32 %rd1, %r2;\nldmatrix.sync.aligned.m8n8.x1.b16 {%r4}, [%rd1];", 32, "not in shared memory"},
	} {
		for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
			_, err := load(t, spec(c.body, c.threads, simt)).Run(context.Background(), 0, nil)
			var f *Fault
			if !errors.As(err, &f) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%v: %s: %v, want a fault saying %q", simt, c.body, err, c.msg)
			}
		}
	}
}

func TestLdmatrixRefused(t *testing.T) {
	checkRefused(t, []badForm{
		{"ldmatrix.aligned.m8n8.x1.shared.b16 {%r1}, [sh];", "needs .sync.aligned"},
		{"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [sh];", "takes .m8n8"},
		{"ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [sh];", "needs .x1, .x2 or .x4"},
		{"ldmatrix.sync.aligned.m8n8.x1.shared.b8 {%r1}, [sh];", "takes .b16"},
		{"ldmatrix.sync.aligned.m8n8.x1.global.b16 {%r1}, [%rd1];", "reads .shared"},
		{"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [sh];", ".x2 writes {…} 2 registers"},
		{"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {_}, [sh];", "not _"},
	})
}
