package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// texrefPTX reads three texture references at idx[tid] (tex1Dfetch, as nvcc 11 writes
// it) and stores the twelve results of each thread at out + 48 × tid.
const texrefPTX = `.version 7.0
.target sm_80
.address_size 64
.global .texref tf;
.global .texref tn;
.global .texref ti;
.visible .entry fetch(.param .u64 idx, .param .u64 out)
{
.reg .b32 %r<8>;
.reg .f32 %f<10>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [idx];
ld.param.u64 %rd2, [out];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
ld.global.u32 %r2, [%rd4];
tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tf, {%r2}];
tex.1d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [tn, {%r2}];
tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [ti, {%r2}];
mul.wide.u32 %rd5, %r1, 48;
add.s64 %rd6, %rd2, %rd5;
st.global.v4.f32 [%rd6], {%f1, %f2, %f3, %f4};
st.global.v4.f32 [%rd6+16], {%f5, %f6, %f7, %f8};
st.global.v4.u32 [%rd6+32], {%r3, %r4, %r5, %r6};
ret;
}
`

// viaHandles is texrefPTX as clang-14 writes tex1Dfetch: each reference's handle moved
// into a register (mov.u64 %rd7, REF), and the tex reading through the register.
func viaHandles(ptx string) string {
	for _, ref := range []string{"tf", "tn", "ti"} {
		i := strings.Index(ptx, "["+ref+", ")
		line := strings.LastIndex(ptx[:i], "\n") + 1
		ptx = ptx[:line] + "mov.u64 %rd7, " + ref + ";\n" + ptx[line:i] + "[%rd7, " + ptx[i+len(ref)+3:]
	}
	return ptx
}

// Texture references bound to linear memory read as on an H100 (examples/cuda/texref.cu):
// texel x of each channel, normalised reads of signed bytes in [-1, 1], sign-extended
// 16-bit integers, zeros for the channels a format lacks and for every index past either
// end; each lane is recorded at its texel's device address (the nearest one past an
// end), and the launch names each reference it reads. All of it holds the same whether
// the tex names the reference (nvcc) or reads its handle from a register (clang).
func TestTexRefFetch(t *testing.T) {
	for _, c := range []struct{ name, ptx string }{{"named", texrefPTX}, {"handles", viaHandles(texrefPTX)}} {
		t.Run(c.name, func(t *testing.T) { testTexRefFetch(t, c.ptx) })
	}
}

func testTexRefFetch(t *testing.T, ptx string) {
	d := NewDevice()
	const n = 100 // texels of each texture
	alloc := func(b []byte) uint64 {
		a, err := d.Malloc(uint64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(a, b); err != nil {
			t.Fatal(err)
		}
		return a
	}
	f2 := make([]byte, n*8) // float2 texels
	for i := range 2 * n {
		binary.LittleEndian.PutUint32(f2[4*i:], math.Float32bits(0.5*float32(i)-7))
	}
	c4 := make([]byte, n*4) // char4 texels
	for i := range c4 {
		c4[i] = byte(i * 37)
	}
	s16 := make([]byte, n*2)
	for i := range n {
		binary.LittleEndian.PutUint16(s16[2*i:], uint16(int16(300*i-15000)))
	}
	pf, pc, ps := alloc(f2), alloc(c4), alloc(s16)
	idx := []int32{0, 1, 2, 50, n - 1, -1, n, n + 7, 1 << 24}
	ib := make([]byte, 4*len(idx))
	for i, x := range idx {
		binary.LittleEndian.PutUint32(ib[4*i:], uint32(x))
	}
	pidx := alloc(ib)
	out, err := d.Malloc(uint64(48 * len(idx)))
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]LinearTexture{
		"tf": {Addr: pf, Bytes: n * 8, Format: ChannelFormat{Channels: 2, Bits: 32, Kind: ChannelFloat}},
		"tn": {Addr: pc, Bytes: n * 4, Format: ChannelFormat{Channels: 4, Bits: 8, Kind: ChannelSigned}, Normalized: true},
		"ti": {Addr: ps, Bytes: n * 2, Format: ChannelFormat{Channels: 1, Bits: 16, Kind: ChannelSigned}},
	}
	spec := Spec{PTX: []byte(ptx), PTXName: "texref.ptx", Kernel: "fetch", Grid: d3(1, 1, 1), Block: d3(uint32(len(idx)), 1, 1),
		Device: d, Params: [][]byte{u64Param(pidx), u64Param(out)}, TexRefs: refs}
	k := load(t, spec)
	s := &memSink{}
	if _, err := k.Run(context.Background(), 0, s); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 48*len(idx))
	if err := d.Read(out, got); err != nil {
		t.Fatal(err)
	}
	checkTexRefWords(t, got, idx, f2, c4, s16)
	// The records: each lane at its texel's address, the nearest one past an end.
	var addrs [][]uint64
	for _, w := range s.warps {
		for i := 0; i < w.Len(); i++ {
			if k.insts[w.PC[i]].Space == format.SpaceTexture {
				addrs = append(addrs, w.Addrs(i, nil))
			}
		}
	}
	if len(addrs) != 3 {
		t.Fatalf("%d texture records; want 3", len(addrs))
	}
	for r, ref := range []LinearTexture{refs["tf"], refs["tn"], refs["ti"]} {
		eb := uint64(ref.Format.TexelBytes())
		for l, x := range idx {
			at := uint64(min(max(int64(x), 0), n-1))
			if addrs[r][l] != ref.Addr+at*eb {
				t.Errorf("record %d, lane %d (index %d): address %#x, want %#x", r, l, x, addrs[r][l], ref.Addr+at*eb)
			}
		}
	}
	texs := k.Launch().Textures
	if len(texs) != 3 || texs[0].Name != "tf" || texs[0].Base != pf || texs[0].Width != n || texs[0].ElemBytes != 8 || texs[0].Layout != "linear" {
		t.Errorf("launch textures %+v", texs)
	}
}

// checkTexRefWords compares what texrefPTX stored (got: 48 bytes a thread, the thread
// of each index in idx) with the texels of tf (float2 f2), tn (normalised char4 c4) and
// ti (short s16).
func checkTexRefWords(t *testing.T, got []byte, idx []int32, f2, c4, s16 []byte) {
	t.Helper()
	n := int32(len(s16) / 2)
	for tid, x := range idx {
		var want [12]uint32
		if x >= 0 && x < n {
			want[0] = binary.LittleEndian.Uint32(f2[8*x:])
			want[1] = binary.LittleEndian.Uint32(f2[8*x+4:])
			for c := range 4 {
				v := float32(int8(c4[4*int(x)+c])) / 127
				want[4+c] = math.Float32bits(max(v, -1))
			}
			want[8] = uint32(int32(int16(binary.LittleEndian.Uint16(s16[2*x:]))))
		}
		for i, w := range want {
			if g := binary.LittleEndian.Uint32(got[48*tid+4*i:]); g != w {
				t.Errorf("index %d, result %d: %#x, want %#x", x, i, g, w)
			}
		}
	}
}

// Spec.TexBinds binds references to buf arguments, the format from the buffer's type
// or given, as capture --texref does: the same values as references bound on a
// Device. What is wrong with a binding is an error naming it.
func TestTexBinds(t *testing.T) {
	// texrefPTX with the three textures' memory as parameters of their own.
	ptx := strings.Replace(viaHandles(texrefPTX), "(.param .u64 idx, .param .u64 out)", "(.param .u64 idx, .param .u64 out, .param .u64 pf, .param .u64 pc, .param .u64 ps)", 1)
	const n = 50
	f2, c4, s16 := make([]byte, 8*n), make([]byte, 4*n), make([]byte, 2*n)
	for i := range 2 * n {
		binary.LittleEndian.PutUint32(f2[4*i:], math.Float32bits(float32(i)*0.25-3))
	}
	for i := range c4 {
		c4[i] = byte(i*91 + 5)
	}
	for i := range n {
		binary.LittleEndian.PutUint16(s16[2*i:], uint16(int16(-700*i+9000)))
	}
	idx := []int32{0, 3, n - 1, n, -2, 17}
	ib := make([]byte, 4*len(idx))
	for i, x := range idx {
		binary.LittleEndian.PutUint32(ib[4*i:], uint32(x))
	}
	spec := Spec{PTX: []byte(ptx), PTXName: "texref.ptx", Kernel: "fetch", Grid: d3(1, 1, 1), Block: d3(uint32(len(idx)), 1, 1),
		Args: []string{fmt.Sprintf("buf:i32:%d", len(idx)), fmt.Sprintf("buf:u32:%d", 12*len(idx)), fmt.Sprintf("buf:f32:%d", 2*n),
			fmt.Sprintf("buf:i8:%d", 4*n), fmt.Sprintf("buf:i16:%d", n)},
		Data:     map[int][]byte{0: ib, 2: f2, 3: c4, 4: s16},
		TexBinds: []string{"tf=2:float2", "tn=3:char4:norm", "ti=4"}}
	k := load(t, spec)
	res, err := k.Run(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.IndexFunc(res.Buffers, func(b Buffer) bool { return b.Arg == 1 })
	checkTexRefWords(t, res.Buffers[out].Final, idx, f2, c4, s16)
	texs := k.Launch().Textures
	if len(texs) != 3 || texs[2].Name != "ti" || texs[2].Width != n || texs[2].ElemBytes != 2 || texs[2].Base != res.Buffers[4].Addr {
		t.Errorf("launch textures %+v", texs)
	}

	for _, c := range []struct {
		binds []string
		want  string
	}{
		{[]string{"tq=2"}, `kernel fetch reads no texture reference tq (it reads tf, tn, ti)`},
		{[]string{"tf=2", "tf=3"}, "tf is bound twice"},
		{[]string{"tf=5"}, "argument 5 is what the reference reads, but there is none"},
		{[]string{"tf=2:float3"}, `FORMAT "float3" is not a texel type`},
		{[]string{"tf=2:double"}, `FORMAT "double" is not a texel type`},
		{[]string{"tf=x"}, `ARG "x" is not an argument's index`},
		{[]string{"tf"}, "want NAME=ARG[:FORMAT][:norm]"},
		{[]string{"tf=2:float:norm"}, "only 8- and 16-bit integer"},
		{[]string{"tf=2:float2:x"}, "want NAME=ARG[:FORMAT][:norm]"},
	} {
		s := spec
		s.TexBinds = c.binds
		if _, err := Load(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want an error saying %q", c.binds, err, c.want)
		}
	}
	s := spec
	s.Args = slices.Clone(spec.Args)
	s.Args[2] = fmt.Sprintf("buf:f64:%d", n)
	s.Data = map[int][]byte{2: f2}
	s.TexBinds = []string{"tf=2"}
	if _, err := Load(s); err == nil || !strings.Contains(err.Error(), "give the FORMAT (int2 for 8 bytes") {
		t.Errorf("a buf:f64 with no FORMAT: %v", err)
	}
	s.Args[2], s.Data = "i64:3", nil
	if _, err := Load(s); err == nil || !strings.Contains(err.Error(), "it is i64:3, not a buf:") {
		t.Errorf("a scalar argument: %v", err)
	}
	// With no binding, the first fetch names the option.
	s = spec
	s.TexBinds = s.TexBinds[:2]
	if _, err := load(t, s).Run(context.Background(), 0, nil); err == nil || !strings.Contains(err.Error(), "gtrace capture --texref ti=ARG") {
		t.Errorf("ti unbound: %v", err)
	}
	d := NewDevice()
	if _, err := Load(Spec{PTX: []byte(texrefPTX), PTXName: "texref.ptx", Kernel: "fetch", Grid: d3(1, 1, 1), Block: d3(1, 1, 1),
		Device: d, Params: [][]byte{u64Param(0), u64Param(0)}, TexBinds: []string{"tf=0"}}); err == nil || !strings.Contains(err.Error(), "not Args, Data, Consts or TexBinds") {
		t.Errorf("TexBinds on a Device: %v", err)
	}
}

// A texture reference the launch does not bind faults at its first fetch; a format
// gtrace cannot read is refused at Load, naming the reference; tex.2d through a
// reference and tex1D's float coordinates are PTX errors that say what is supported.
func TestTexRefErrors(t *testing.T) {
	d := NewDevice()
	p, _ := d.Malloc(4096)
	spec := Spec{PTX: []byte(texrefPTX), PTXName: "texref.ptx", Kernel: "fetch", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Device: d, Params: [][]byte{u64Param(p), u64Param(p)},
		TexRefs: map[string]LinearTexture{"tf": {Addr: p, Bytes: 64, Format: ChannelFormat{Channels: 1, Bits: 32, Kind: ChannelFloat}}}}
	k := load(t, spec)
	_, err := k.Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || !strings.Contains(err.Error(), "texture reference tn is not bound") {
		t.Errorf("unbound reference: %v", err)
	}
	for _, c := range []struct {
		tex  LinearTexture
		want string
	}{
		{LinearTexture{Format: ChannelFormat{Channels: 3, Bits: 32, Kind: ChannelFloat}}, "1, 2 or 4 channels"},
		{LinearTexture{Format: ChannelFormat{Channels: 1, Bits: 16, Kind: ChannelFloat}}, "32-bit float channels only"},
		{LinearTexture{Format: ChannelFormat{Channels: 1, Bits: 32, Kind: ChannelSigned}, Normalized: true}, "only 8- and 16-bit integer"},
		{LinearTexture{Format: ChannelFormat{Channels: 1, Bits: 12, Kind: ChannelSigned}}, "8, 16 or 32 bits"},
		{LinearTexture{Format: ChannelFormat{Channels: 1, Bits: 32, Kind: 3}}, "signed, unsigned or float"},
	} {
		spec.TexRefs = map[string]LinearTexture{"ti": c.tex}
		if _, err := Load(spec); err == nil || !strings.Contains(err.Error(), "texture reference ti: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.tex, err, c.want)
		}
	}
	for _, c := range []struct{ from, to, want string }{
		{"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tf, {%r2}];", "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tf, {%r2, %r2}];", "tex.2d through the texture reference tf"},
		{"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tf, {%r2}];", "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%r2, {%r2}];", "must be a 64-bit register holding a texture handle"},
		{"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tf, {%r2}];", "tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];", "tex1Dfetch (.s32) is supported"},
		{"ld.param.u64 %rd1, [idx];", "mov.u32 %r7, tf;", "texture reference tf is a 64-bit handle"},
		{"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tf, {%r2}];", "tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tf, {%f5}];", "tex1Dfetch (.s32) is supported"},
		{".global .texref tf;", ".shared .texref tf;", "unsupported type or qualifier .texref"},
	} {
		src := strings.Replace(texrefPTX, c.from, c.to, 1)
		_, err := Load(Spec{PTX: []byte(src), PTXName: "texref.ptx", Kernel: "fetch", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
			Device: d, Params: [][]byte{u64Param(p), u64Param(p)}})
		var pe *PTXError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a PTX error saying %q", c.to, err, c.want)
		}
	}
}

// A handle in a register is resolved when the tex runs: tex.1d through a texture
// object's handle, tex.2d through a reference's, a number that is neither, and lanes
// holding different references' handles are faults that say so.
func TestTexRefHandleFaults(t *testing.T) {
	const ptx = `.version 7.0
.target sm_80
.address_size 64
.global .texref tf;
.global .texref tn;
.visible .entry f(.param .u64 obj, .param .u64 out)
{
.reg .pred %p<2>;
.reg .b32 %r<4>;
.reg .f32 %f<5>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [obj];
mov.u32 %r1, %tid.x;
mov.u64 %rd2, tf;
mov.u64 %rd3, tn;
setp.eq.u32 %p1, %r1, 0;
selp.b64 %rd4, %rd2, %rd3, %p1;
TEX;
ret;
}
`
	d := NewDevice()
	p, _ := d.Malloc(4096)
	bind := LinearTexture{Addr: p, Bytes: 4096, Format: ChannelFormat{Channels: 1, Bits: 32, Kind: ChannelFloat}}
	onDevice := Spec{PTXName: "h.ptx", Kernel: "f", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Device: d, Params: [][]byte{u64Param(3), u64Param(p)}, TexRefs: map[string]LinearTexture{"tf": bind, "tn": bind}}
	// A tex2d argument's handle (1) in obj: a launch with Args, where tf is not bound.
	withObject := Spec{PTXName: "h.ptx", Kernel: "f", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"tex2d:f32:4:4", "buf:f32:32"}}
	for _, c := range []struct {
		spec      Spec
		tex, want string
	}{
		{withObject, "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]", "tex.1d through a texture object (a tex2d argument) is not supported"},
		{onDevice, "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]", "texture handle 0x3 is not a texture reference's"},
		{onDevice, "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {%r1, %r1}]", "tex.2d through the texture reference tf"},
		{onDevice, "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd4, {%r1}]", "lanes 0 and 1 fetch through different texture handles"},
		{onDevice, "add.s64 %rd5, %rd2, 2;\ntex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd5, {%r1}]", "is not a texture reference's"},
	} {
		spec := c.spec
		spec.PTX = []byte(strings.Replace(ptx, "TEX", c.tex, 1))
		k, err := Load(spec)
		if err != nil {
			t.Fatalf("%s: %v", c.tex, err)
		}
		_, err = k.Run(context.Background(), 0, nil)
		var f *Fault
		if !errors.As(err, &f) || !strings.Contains(f.Reason, c.want) {
			t.Errorf("%s: %v; want a fault saying %q", c.tex, err, c.want)
		}
	}
}
