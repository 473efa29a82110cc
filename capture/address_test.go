package capture

import (
	"testing"
)

// wrapPTX addresses shared memory as Rodinia's needle does: a .u32 register holding
// s + 4*tid - 64, which is negative (it wraps) for the first 16 threads, plus an offset
// of 64 or 68 that brings the address back into the array. A GPU computes [%r+off] in
// the register's 32 bits; summed in 64 bits it would lie 4 GiB past the array. The
// first stores go through the scalar shared path, the byte loads through the general
// one; out[tid] = s[tid+1] (the neighbour's id) and the low byte of s[tid].
const wrapPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pout, .param .u64 pbyte)
{
.reg .b32 %r<16>;
.reg .b64 %rd<8>;
.reg .b16 %h<2>;
.shared .align 4 .b8 s[260];
ld.param.u64 %rd1, [pout];
ld.param.u64 %rd2, [pbyte];
cvta.to.global.u64 %rd1, %rd1;
cvta.to.global.u64 %rd2, %rd2;
mov.u32 %r1, %tid.x;
mov.u32 %r2, s;
shl.b32 %r3, %r1, 2;
add.s32 %r4, %r2, %r3;
add.s32 %r5, %r4, -64;
st.shared.u32 [%r5+64], %r1;
bar.sync 0;
ld.shared.u32 %r6, [%r5+68];
ld.shared.u8 %h1, [%r5+64];
cvt.u32.u16 %r7, %h1;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
st.global.u32 [%rd4], %r6;
add.s64 %rd5, %rd2, %rd3;
st.global.u32 [%rd5], %r7;
ret;
}
`

func TestAddressWrapsAt32Bits(t *testing.T) {
	res := run(t, Spec{PTX: []byte(wrapPTX), PTXName: "wrap.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(64, 1, 1),
		Args: []string{"buf:u32:64", "buf:u32:64"}}, nil)
	out, low := i32s(res.Buffers[0].Final), i32s(res.Buffers[1].Final)
	for i := range 63 {
		if out[i] != int32(i+1) || low[i] != int32(i) {
			t.Fatalf("thread %d read s[%d] = %d and the low byte of s[%d] = %d, want %d and %d",
				i, i+1, out[i], i, low[i], i+1, i)
		}
	}
}
