package capture

import (
	"runtime"
	"strings"
	"testing"
)

// A thread's whole 512 KiB of local memory, of which it touches one word at the far end:
// each thread reads it (zero, whatever the CTA before stored there), adds its index,
// stores and reads it back. Dense, every CTA of 1024 threads held 512 MiB and cleared
// it; paged, what the run allocates follows what it stores.
const localFarPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.local .align 8 .b8 frame[524288];
	.reg .b64 %rd<5>;
	.reg .b32 %r<8>;
	mov.u64 %rd1, frame;
	mov.u32 %r1, %tid.x;
	ld.local.u32 %r2, [%rd1+524284];
	add.s32 %r3, %r2, %r1;
	st.local.u32 [%rd1+524284], %r3;
	ld.local.u32 %r4, [%rd1+524284];
	mov.u32 %r5, %ctaid.x;
	mov.u32 %r6, %ntid.x;
	mad.lo.s32 %r7, %r5, %r6, %r1;
	ld.param.u64 %rd2, [out];
	mul.wide.u32 %rd3, %r7, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r4;
	ret;
}
`

func TestLocalMemoryIsPaged(t *testing.T) {
	const ctas, threads = 8, 1024
	for _, workers := range []int{1, 2} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res := run(t, Spec{PTX: []byte(localFarPTX), PTXName: "local_far.ptx", Kernel: "k", Grid: d3(ctas, 1, 1),
			Block: d3(threads, 1, 1), Workers: workers, Args: []string{"buf:u32:8192"}}, nil)
		runtime.ReadMemStats(&after)
		for i, v := range i32s(res.Buffers[0].Final) {
			if want := int32(i % threads); v != want {
				t.Fatalf("workers %d: out[%d] = %d, want %d: a thread's local word read something other than zero before its store", workers, i, v, want)
			}
		}
		// Each warp stores one 4 KiB page per lane: 32 warps × 32 lanes × 4 KiB = 4 MiB
		// per CTA in flight; dense it was 512 MiB per CTA.
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("workers %d: the run allocated %d MiB; paged local memory should take a few MiB per CTA in flight", workers, got>>20)
		}
	}
}

// Declarations past a space's bound are PTX errors at load, before anything is
// allocated: multi-dimensional sizes saturate instead of wrapping round (2^31 × 2^31 × 4
// bytes was 0), and the parameter spaces have bounds.
func TestDeclarationsPastTheirBounds(t *testing.T) {
	checkRefused(t, []badForm{
		{".local .b8 wraps[2147483648][2147483648][4];", "local memory over 512 KiB per thread"},
		{".param .b8 call_args[40000];", "device-function calls take over 32768 bytes per thread"},
	})
	for _, c := range []struct{ decl, params, msg string }{
		{"", ".param .align 8 .b8 p[40000]", "past the 32764 a launch passes"},
		{".shared .b8 wraps[2147483648][2147483648][4];", "", "bytes of shared memory per CTA; at most 228 KiB"},
	} {
		src := ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry big(" + c.params + ")\n{\n" + c.decl + "\nret;\n}\n"
		_, err := Load(Spec{PTX: []byte(src), Kernel: "big", Grid: d3(1, 1, 1), Block: d3(32, 1, 1)})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s%s: %v, want an error saying %q", c.decl, c.params, err, c.msg)
		}
	}
}
