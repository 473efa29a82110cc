package capture

import (
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// The end of a body returns, as ptxas compiles it (a .func with no ret ends in RET, an
// .entry in EXIT, a label before the closing brace is a branch to that exit; checked
// with CUDA 11.8's ptxas and cuobjdump). Found by FuzzCaptureMutated: a .func whose
// ret was deleted ran on past the end of the program and panicked, and an entry with
// no ret would have run on into its callee's code, which the layout places after it.
const implicitRetPTX = `.version 7.0
.target sm_80
.address_size 64
.func add1(.param .b64 p)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd2, %rd1, %rd2;
	ld.u32 %r2, [%rd2];
	add.s32 %r3, %r2, 1;
	st.u32 [%rd2], %r3;
}
.func nothing()
{
}
.visible .entry k(.param .u64 a)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [a];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	call.uni add1, (param0);
	}
	call.uni nothing, ();
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra END;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd2, %rd1, %rd2;
	ld.u32 %r2, [%rd2];
	add.s32 %r3, %r2, 10;
	st.u32 [%rd2], %r3;
END:
}
`

func TestTheEndOfABodyReturns(t *testing.T) {
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		k := load(t, Spec{PTX: []byte(implicitRetPTX), PTXName: "implicit_ret.ptx", Kernel: "k",
			Grid: d3(1, 1, 1), Block: d3(64, 1, 1), SIMT: simt, Args: []string{"buf:i32:64:iota"}})
		for _, fi := range k.funcs {
			if last := k.insts[fi.end-1]; last.Opcode != "ret" {
				t.Errorf("%s: function %s ends in %q, want the ret the parser adds", simt, fi.f.name, last.PTX)
			}
		}
		res, err := k.Run(t.Context(), 0, nil)
		if err != nil {
			t.Fatalf("%s: %v", simt, err)
		}
		for i, v := range i32s(res.Buffers[0].Final) {
			want := int32(i) + 1
			if i >= 16 {
				want += 10
			}
			if v != want {
				t.Fatalf("%s: a[%d] = %d, want %d (each thread adds 1 in add1, and 10 unless it branched to the end)", simt, i, v, want)
			}
		}
	}
}

func TestFallsOffTheEnd(t *testing.T) {
	for body, want := range map[string]bool{
		"ret;": false, "exit;": false, "ret.uni;": false, "bra.uni L;": false, "trap;": false,
		"@%p ret;": true, "add.s32 %r1, %r1, 1;": true, "ret;\nL:": true, "": true,
	} {
		src := ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n.reg .pred %p;\nL:\n" + body + "\n}\n"
		mod, err := parsePTX("end.ptx", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		b := mod.funcs[0].body
		added := b[len(b)-1].kind == sInst && b[len(b)-1].inst.text == "ret" && int(b[len(b)-1].pos.line) == strings.Count(src, "\n")
		if added != want {
			t.Errorf("body %q: ret added at the closing brace = %v, want %v", body, added, want)
		}
	}
}
