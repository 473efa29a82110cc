package capture

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
)

// TestClock: %clock64, %clock and %clock_hi read the warp's count of executed
// instructions (the reading mov included), so a section's length is its instruction
// count, the same for every worker count; ClockNote says so, naming the first read.
func TestClock(t *testing.T) {
	ptx := `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .pred %p<2>;
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
mov.u64 %rd3, %clock64;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
shr.u32 %r2, %r1, 5;
add.u32 %r2, %r2, 1;
LOOP:
sub.u32 %r2, %r2, 1;
setp.ne.u32 %p1, %r2, 0;
@%p1 bra LOOP;
mov.u64 %rd4, %clock64;
mov.u32 %r3, %clock;
mov.u32 %r4, %clock_hi;
sub.u64 %rd5, %rd4, %rd3;
mov.u32 %r5, %ctaid.x;
mad.lo.u32 %r6, %r5, 64, %r1;
mul.wide.u32 %rd6, %r6, 16;
add.u64 %rd7, %rd2, %rd6;
st.global.u64 [%rd7], %rd5;
st.global.v2.u32 [%rd7+8], {%r3, %r4};
ret;
}
`
	spec := Spec{PTX: []byte(ptx), PTXName: "t.ptx", Kernel: "k", Grid: d3(3, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:u64:384"}}
	k := load(t, spec)
	if n := k.ClockNote(); !strings.Contains(n, "kernel k reads %clock64 at pc 0") || !strings.Contains(n, "count of executed instructions") {
		t.Errorf("ClockNote = %q, want it to name %%clock64 at pc 0 and say what it reads", n)
	}
	var first []byte
	for _, workers := range []int{1, 3} {
		res, err := load(t, spec).Run(context.Background(), workers, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := res.Buffers[0].Final
		for i := 0; i < 3*64; i++ {
			w := uint64(i % 64 / 32)
			// Six instructions to the loop, three per pass (w+1 passes), the second read.
			if got, want := binary.LittleEndian.Uint64(out[16*i:]), 9+3*w; got != want {
				t.Errorf("workers %d, thread %d: %%clock64 difference %d, want %d", workers, i, got, want)
			}
			if got, want := binary.LittleEndian.Uint32(out[16*i+8:]), uint32(11+3*w); got != want {
				t.Errorf("workers %d, thread %d: %%clock %d, want %d", workers, i, got, want)
			}
			if got := binary.LittleEndian.Uint32(out[16*i+12:]); got != 0 {
				t.Errorf("workers %d, thread %d: %%clock_hi %d, want 0", workers, i, got)
			}
		}
		if first != nil && string(first) != string(out) {
			t.Errorf("workers %d: the clock values differ from one worker's", workers)
		}
		first = out
	}
	plain := strings.Replace(ptx, "mov.u64 %rd3, %clock64;", "mov.u64 %rd3, 0;", 1)
	plain = strings.NewReplacer("mov.u64 %rd4, %clock64;", "", "mov.u32 %r3, %clock;", "", "mov.u32 %r4, %clock_hi;", "").Replace(plain)
	if n := load(t, Spec{PTX: []byte(plain), PTXName: "t.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:u64:128"}}).ClockNote(); n != "" {
		t.Errorf("ClockNote of a kernel with no clock read = %q, want none", n)
	}
	checkRefused(t, []badForm{
		{"mov.u32 %r1, %clock64;", "%clock64 is not supported as .u32"},
		{"mov.u64 %rd1, %clock;", "%clock is not supported as .u64"},
		{"mov.f32 %f1, %clock;", "%clock is not supported as .f32"},
		{"add.u32 %r1, %clock, 1;", "read only by mov"},
		{"mov.u32 %r1, %clock_lo;", "%clock_lo is not supported"},
		{"mov.u64 %rd1, %globaltimer;", "depends on timing"},
	})
}
