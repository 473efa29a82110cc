package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// devPTX adds the .const step to n u32s at p and counts the threads that did in a
// .global variable.
const devPTX = `.version 7.0
.target sm_80
.address_size 64
.global .align 4 .u32 count = 100;
.const .align 8 .b8 pad[3];
.const .align 4 .u32 step = 1;
.visible .entry inc(.param .u64 p, .param .u32 n)
{
.reg .pred %q<2>;
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [p];
ld.param.u32 %r1, [n];
mov.u32 %r2, %ctaid.x;
mov.u32 %r3, %ntid.x;
mov.u32 %r4, %tid.x;
mad.lo.s32 %r5, %r2, %r3, %r4;
setp.ge.u32 %q1, %r5, %r1;
@%q1 bra DONE;
cvta.to.global.u64 %rd1, %rd1;
mul.wide.u32 %rd2, %r5, 4;
add.s64 %rd3, %rd1, %rd2;
ld.global.u32 %r6, [%rd3];
ld.const.u32 %r7, [step];
add.s32 %r6, %r6, %r7;
st.global.u32 [%rd3], %r6;
atom.global.add.u32 %r7, [count], 1;
DONE:
ret;
}
`

func u32Param(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64Param(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// Launches on a Device read and write its memory in place: the second launch sees the
// first's writes, the module's .global keeps its value between them, and a copy out
// reads what both wrote. Its .const keeps what the program last copied to it: the
// first launch adds the initialiser's 1, the second the 4 written between them.
func TestDeviceLaunchesShareMemory(t *testing.T) {
	d := NewDevice()
	const n = 1000
	p, err := d.Malloc(n * 4)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, n*4)
	for i := range n {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(3*i))
	}
	if err := d.Write(p, in); err != nil {
		t.Fatal(err)
	}
	var module string
	for launch := range 2 {
		spec := Spec{PTX: []byte(devPTX), PTXName: "dev.ptx", Kernel: "inc", Grid: d3(4, 1, 1), Block: d3(256, 1, 1),
			Device: d, Params: [][]byte{u64Param(p), u32Param(n)}, Workers: 1 + launch}
		k := load(t, spec)
		module = k.Launch().SourceHash
		if _, err := k.Run(context.Background(), 0, nil); err != nil {
			t.Fatalf("launch %d: %v", launch, err)
		}
		if err := d.WriteSymbol(module, "step", 0, u32Param(4)); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]byte, n*4)
	if err := d.Read(p, out); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if got := binary.LittleEndian.Uint32(out[4*i:]); got != uint32(3*i+5) {
			t.Fatalf("element %d: %d after two launches, want %d", i, got, 3*i+5)
		}
	}
	sym, err := d.Symbol(module, "count")
	if err != nil || sym.Const || sym.Size != 4 {
		t.Fatalf("Symbol(count) = %+v, %v; want the .global's 4 bytes", sym, err)
	}
	c := make([]byte, 4)
	if err := d.Read(sym.Addr, c); err != nil || binary.LittleEndian.Uint32(c) != 100+2*n {
		t.Fatalf("count = %d (%v), want 100 + 2×%d: the initialiser once, then both launches' atomics", binary.LittleEndian.Uint32(c), err, n)
	}
	if cnt, b := d.Allocations(); cnt != 1 || b != n*4 {
		t.Errorf("Allocations() = %d, %d; want the one allocation of %d bytes (variables are not the program's)", cnt, b, n*4)
	}
}

// A program copies to a module's variables before its first launch (LoadModule), reads
// them back, and is refused a copy past a variable's end or to one that is not there.
func TestDeviceSymbols(t *testing.T) {
	d := NewDevice()
	module, err := d.LoadModule("dev.ptx", []byte(devPTX))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := d.LoadModule("dev.ptx", []byte(devPTX)); err != nil || again != module {
		t.Fatalf("loading the module twice: %q, %v; want the same module %q", again, err, module)
	}
	if n, _ := d.Allocations(); n != 0 {
		t.Errorf("a module's variables count as %d of the program's allocations", n)
	}
	step, err := d.Symbol(module, "step")
	if err != nil || !step.Const || step.Addr != 4 || step.Size != 4 {
		t.Fatalf("Symbol(step) = %+v, %v; want 4 bytes at offset 4 of the constant bank (after pad's 3, aligned)", step, err)
	}
	if err := d.WriteSymbol(module, "step", 2, []byte{0, 9}); err != nil {
		t.Fatal(err)
	}
	p, _ := d.Malloc(32 * 4)
	k := load(t, Spec{PTX: []byte(devPTX), PTXName: "dev.ptx", Kernel: "inc", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Device: d, Params: [][]byte{u64Param(p), u32Param(32)}})
	if _, err := k.Run(context.Background(), 0, nil); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if err := d.Read(p+31*4, got); err != nil || binary.LittleEndian.Uint32(got) != 9<<24|1 {
		t.Errorf("the launch added %#x (%v), want the step written before it, %#x", binary.LittleEndian.Uint32(got), err, 9<<24|1)
	}
	if err := d.ReadSymbol(module, "count", 0, got); err != nil || binary.LittleEndian.Uint32(got) != 132 {
		t.Errorf("count = %d (%v), want 100 + 32", binary.LittleEndian.Uint32(got), err)
	}
	for _, c := range []struct {
		err     error
		missing bool
		want    string
	}{
		{d.WriteSymbol(module, "step", 1, got), false, "4 bytes at offset 1 do not fit in its 4 bytes"},
		{d.ReadSymbol(module, "count", 5, nil), false, "0 bytes at offset 5"},
		{d.WriteSymbol(module, "nope", 0, got), true, "no .global or .const variable"},
		{d.ReadSymbol("feed", "count", 0, got), true, "never loaded"},
	} {
		var se *SymbolError
		if !errors.As(c.err, &se) || se.Missing != c.missing || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%v: want a SymbolError (missing %v) saying %q", c.err, c.missing, c.want)
		}
	}
	if _, err := d.LoadModule("bad.ptx", []byte(".version 7.0\n.target sm_80\n.address_size 64\n.const .u32 big[20000];\n")); err == nil || !strings.Contains(err.Error(), "64 KiB") {
		t.Errorf("a module whose constants overflow the bank: %v", err)
	}
}

// The Device refuses what a GPU would: copies outside an allocation or across its end,
// freeing what is no allocation's start (or a module variable), and launches whose
// parameters have the wrong count or size, or that also give buf arguments.
func TestDeviceRefusesBadRequests(t *testing.T) {
	d := NewDevice()
	a, _ := d.Malloc(100)
	b, _ := d.Malloc(1 << 17)
	if b-a < 2*pageSize {
		t.Fatalf("allocations at %#x and %#x: want a guard page between them", a, b)
	}
	buf := make([]byte, 101)
	for _, c := range []struct {
		what string
		err  error
	}{
		{"read across the end", d.Read(a, buf)},
		{"write before the start", d.Write(a-1, buf[:1])},
		{"fill in the guard page", d.Fill(a+pageSize, 1, 1)},
		{"free inside", d.Free(a + 4)},
		{"copy from nowhere", d.Copy(b, 0x10, 4)},
	} {
		var de *DeviceError
		if !errors.As(c.err, &de) || !strings.Contains(c.err.Error(), "allocation") {
			t.Errorf("%s: %v, want a DeviceError naming the allocations", c.what, c.err)
		}
	}
	if _, err := d.Malloc(1 << 62); err == nil || !err.(*DeviceError).OutOfMemory {
		t.Errorf("Malloc(2^62): %v, want out of memory", err)
	}
	// Reads of untouched pages are zeros; a fill and a copy land where asked.
	if err := d.Fill(b+pageSize-2, 7, 4); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(a, b+pageSize-4, 8); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8)
	if err := d.Read(a, got); err != nil || !bytes.Equal(got, []byte{0, 0, 7, 7, 7, 7, 0, 0}) {
		t.Fatalf("copy of a fill across a page boundary: % x (%v)", got, err)
	}
	if err := d.Free(a); err != nil {
		t.Fatal(err)
	}
	if d.Holds(a) || d.Read(a, got[:1]) == nil {
		t.Error("a freed allocation is still readable")
	}
	base := Spec{PTX: []byte(devPTX), PTXName: "dev.ptx", Kernel: "inc", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Device: d}
	for _, c := range []struct {
		what string
		edit func(*Spec)
		want string
	}{
		{"one parameter short", func(s *Spec) { s.Params = [][]byte{u64Param(b)} }, "takes 2 parameters; 1 given"},
		{"a 4-byte pointer", func(s *Spec) { s.Params = [][]byte{u32Param(1), u32Param(1)} }, "parameter 0 (p) is 8 bytes; 4 given"},
		{"buf arguments too", func(s *Spec) { s.Params, s.Args = [][]byte{u64Param(b), u32Param(1)}, []string{"buf:u32:4", "u32:1"} }, "not Args"},
	} {
		s := base
		c.edit(&s)
		if _, err := Load(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.what, err, c.want)
		}
	}
	if info, err := Entry("dev.ptx", []byte(devPTX), "inc"); err != nil || !slices.Equal(info.Params, []int{8, 4}) {
		t.Errorf("Entry = %+v, %v; want parameters of 8 and 4 bytes", info, err)
	}
	if _, err := Entry("dev.ptx", []byte(devPTX), "nope"); err == nil || !strings.Contains(err.Error(), `no .entry "nope"`) {
		t.Errorf("Entry of a missing kernel: %v", err)
	}
}

// entryPTX has static shared memory in the kernel, in a module variable it names and in
// a callee (and a module variable no one names), dynamic shared memory, local memory in
// both functions, and two .const arrays the kernel does not read.
const entryPTX = `
.version 7.0
.target sm_80
.address_size 64
.const .align 4 .b8 coef[400];
.const .align 8 .b8 other[10];
.shared .align 4 .b8 modsh[100];
.shared .align 4 .b8 unusedsh[1000];
.extern .shared .align 16 .b8 dyn[];
.func helper()
{
	.shared .align 8 .b8 hs[24];
	.local .align 4 .b8 hl[12];
	.reg .b64 %rd<2>;
	mov.u64 %rd1, hs;
	ret;
}
.entry k(.param .u64 p, .param .u32 n, .param .align 16 .b8 s[20])
{
	.shared .align 4 .b8 ks[36];
	.local .align 8 .b8 kl[20];
	.reg .b64 %rd<3>;
	mov.u64 %rd1, modsh;
	mov.u64 %rd2, dyn;
	call helper, ();
	ret;
}
`

// Entry lays out what a launch would: the kernel's shared variables in order (ks at 0,
// modsh at 36, the callee's hs at 136 after alignment: 160 bytes, the unnamed module
// variable and the dynamic area left out), local memory across both functions (20, then
// 12: 32), and the module's whole constant bank (400, then 10 at 400: 410).
func TestEntry(t *testing.T) {
	info, err := Entry("entry.ptx", []byte(entryPTX), "k")
	if err != nil {
		t.Fatal(err)
	}
	want := EntryInfo{Params: []int{8, 4, 20}, StaticShared: 160, Local: 32, Const: 410}
	if !slices.Equal(info.Params, want.Params) || info.StaticShared != want.StaticShared || info.Local != want.Local || info.Const != want.Const {
		t.Errorf("Entry = %+v, want %+v", info, want)
	}
	k, err := Load(Spec{PTX: []byte(entryPTX), PTXName: "entry.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Device: NewDevice(),
		Params: [][]byte{u64Param(0), u32Param(0), make([]byte, 20)}})
	if err != nil {
		t.Fatal(err)
	}
	if l := k.Launch(); l.LocalBytes != info.Local || l.SharedBytes != info.StaticShared {
		t.Errorf("a launch with no dynamic shared memory has %d B local, %d B shared; Entry says %d and %d", l.LocalBytes, l.SharedBytes, info.Local, info.StaticShared)
	}
}

// boundsPTX has a kernel bounded by .maxntid (as __launch_bounds__(256) gives, over two
// dimensions here) and one that requires its block's extents (.reqntid).
const boundsPTX = `
.version 7.0
.target sm_80
.address_size 64
.entry most(.param .u64 p)
.maxntid 128, 2, 1
.minnctapersm 4
{
	ret;
}
.entry exact(.param .u64 p)
.reqntid 8, 4
{
	ret;
}
`

// A launch past a kernel's .maxntid, or with other extents than its .reqntid, is refused
// at Load, naming the directive, as a GPU refuses it; Entry reports both bounds.
func TestLaunchBounds(t *testing.T) {
	for _, c := range []struct {
		kernel string
		block  format.Dim3
		want   string // "": runs
	}{
		{"most", d3(256, 1, 1), ""}, {"most", d3(64, 4, 1), ""}, {"most", d3(257, 1, 1), "over the 256 that its .maxntid"},
		{"most", d3(16, 16, 2), "a block of 512 threads"},
		{"exact", d3(8, 4, 1), ""}, {"exact", d3(32, 1, 1), "requires 8,4,1"}, {"exact", d3(4, 8, 1), "requires"},
	} {
		_, err := Load(Spec{PTX: []byte(boundsPTX), PTXName: "bounds.ptx", Kernel: c.kernel, Grid: d3(1, 1, 1), Block: c.block, Device: NewDevice(), Params: [][]byte{u64Param(0)}})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s with block %v: %v, want %q", c.kernel, c.block, err, c.want)
		}
	}
	most, err := Entry("bounds.ptx", []byte(boundsPTX), "most")
	if err != nil || most.MaxThreads() != 256 || most.ReqBlock.X != 0 {
		t.Errorf("Entry(most) = %+v, %v; want at most 256 threads", most, err)
	}
	exact, err := Entry("bounds.ptx", []byte(boundsPTX), "exact")
	if err != nil || exact.MaxThreads() != 32 || exact.ReqBlock != d3(8, 4, 1) {
		t.Errorf("Entry(exact) = %+v, %v; want exactly 8×4×1", exact, err)
	}
	for _, bad := range []string{".maxntid 0", ".maxntid 1, 2, 3, 4", ".reqntid"} {
		src := strings.Replace(boundsPTX, ".maxntid 128, 2, 1", bad, 1)
		if _, err := Entry("bounds.ptx", []byte(src), "most"); err == nil || !strings.Contains(err.Error(), "one to three extents") {
			t.Errorf("%s: %v, want an error naming the extents", bad, err)
		}
	}
}
