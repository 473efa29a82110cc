package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// heapPTX is what clang-14 makes of malloc and free (the header declares them as CUDA's
// does): m has thread t of each CTA ask for sz*(t+1) bytes, store the address at
// out[gtid] and its gtid in the block, and free it when t&frees != 0; check has each
// thread copy its block's first word to vals[gtid] and free the block.
const heapPTX = `.version 7.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.visible .entry m(.param .u64 out, .param .u64 sz, .param .u32 frees)
{
.reg .pred %p<3>;
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd1, %rd1;
ld.param.u64 %rd2, [sz];
ld.param.u32 %r1, [frees];
mov.u32 %r2, %tid.x;
mov.u32 %r3, %ctaid.x;
mov.u32 %r4, %ntid.x;
mad.lo.s32 %r5, %r3, %r4, %r2;
cvt.u64.u32 %rd3, %r2;
add.s64 %rd3, %rd3, 1;
mul.lo.s64 %rd3, %rd3, %rd2;
{
.param .b64 param0;
st.param.b64 [param0], %rd3;
.param .b64 retval0;
call.uni (retval0), malloc, (param0);
ld.param.b64 %rd4, [retval0];
}
mul.wide.u32 %rd5, %r5, 8;
add.s64 %rd6, %rd1, %rd5;
st.global.u64 [%rd6], %rd4;
setp.eq.s64 %p1, %rd4, 0;
@%p1 bra DONE;
st.u32 [%rd4], %r5;
and.b32 %r6, %r2, %r1;
setp.eq.s32 %p2, %r6, 0;
@%p2 bra DONE;
{
.param .b64 param0;
st.param.b64 [param0], %rd4;
call.uni free, (param0);
}
DONE:
ret;
}
.visible .entry check(.param .u64 out, .param .u64 vals)
{
.reg .pred %p<2>;
.reg .b32 %r<8>;
.reg .b64 %rd<10>;
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd1, %rd1;
ld.param.u64 %rd2, [vals];
cvta.to.global.u64 %rd2, %rd2;
mov.u32 %r2, %tid.x;
mov.u32 %r3, %ctaid.x;
mov.u32 %r4, %ntid.x;
mad.lo.s32 %r5, %r3, %r4, %r2;
mul.wide.u32 %rd5, %r5, 8;
add.s64 %rd6, %rd1, %rd5;
ld.global.u64 %rd4, [%rd6];
mov.u32 %r6, -1;
setp.eq.s64 %p1, %rd4, 0;
@%p1 bra STORE;
ld.u32 %r6, [%rd4];
{
.param .b64 param0;
st.param.b64 [param0], %rd4;
call.uni free, (param0);
}
STORE:
mul.wide.u32 %rd7, %r5, 4;
add.s64 %rd8, %rd2, %rd7;
st.global.u32 [%rd8], %r6;
ret;
}
`

// heapAddrs runs m with 2 CTAs of block threads and returns the addresses it stored.
func heapAddrs(t *testing.T, block uint32, sz uint64, frees uint32, heapSize uint64, workers int) []uint64 {
	t.Helper()
	spec := Spec{PTX: []byte(heapPTX), PTXName: "heap.ptx", Kernel: "m", Grid: d3(2, 1, 1), Block: d3(block, 1, 1),
		Args: []string{"buf:u64:" + fmt.Sprint(2*block), "u64:" + fmt.Sprint(sz), "u32:" + fmt.Sprint(frees)}, HeapSize: heapSize, Workers: workers}
	res := run(t, spec, nil)
	var out []uint64
	for i := 0; i < len(res.Buffers[0].Final); i += 8 {
		out = append(out, binary.LittleEndian.Uint64(res.Buffers[0].Final[i:]))
	}
	return out
}

// malloc gives each lane its own block, 16-byte aligned, no two overlapping, in the
// order the lanes call it, whatever Spec.Workers is (a kernel that calls malloc runs its
// CTAs in order); NULL once the heap has no room; a freed block's room is handed out
// again, first fit.
func TestMalloc(t *testing.T) {
	const block, sz = 40, 20
	addrs := heapAddrs(t, block, sz, 0, 0, 1)
	if again := heapAddrs(t, block, sz, 0, 0, 4); !slices.Equal(addrs, again) {
		t.Errorf("addresses differ with 4 workers:\n%#x\n%#x", addrs, again)
	}
	base := addrs[0]
	end := base
	for i, a := range addrs {
		size := uint64(sz*(i%block+1)+15) / 16 * 16
		if a != end {
			t.Fatalf("thread %d of CTA %d: block at %#x, want %#x, right after the one before", i%block, i/block, a, end)
		}
		end = a + size
	}
	if end-base > DefaultHeapSize {
		t.Fatalf("%d bytes handed out of a heap of %d", end-base, DefaultHeapSize)
	}

	// A heap of 4096 bytes, 64×(t+1) each: CTA 0 gets threads 0–9 (3520 bytes), CTA 1
	// threads 0–2 in the 576 left; the rest get NULL.
	addrs = heapAddrs(t, 32, 64, 0, 4096, 1)
	var got []int
	for i, a := range addrs {
		if a != 0 {
			got = append(got, i)
		}
	}
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 32, 33, 34}; !slices.Equal(got, want) {
		t.Errorf("threads given a block in a 4096-byte heap: %v, want %v", got, want)
	}

	// The same, with odd threads freeing theirs: CTA 1 starts after the last live block
	// (CTA 0's thread 8), so its thread 0 takes thread 9's freed place; its thread 5
	// (384 bytes) no longer fits at the end and takes CTA 0's thread 5's block, the first
	// gap that holds it (thread 3's 256 bytes do not).
	addrs = heapAddrs(t, 32, 64, 1, 4096, 1)
	if addrs[32] != addrs[9] || addrs[32+5] != addrs[5] || addrs[5] == 0 {
		t.Errorf("CTA 1 threads 0 and 5 at %#x, %#x; want CTA 0's freed blocks of threads 9 and 5, %#x and %#x", addrs[32], addrs[32+5], addrs[9], addrs[5])
	}
	type span struct{ lo, hi uint64 }
	var live []span // CTA 0's even threads' blocks and all of CTA 1's
	for i, a := range addrs {
		if a != 0 && (i >= 32 || i%2 == 0) {
			live = append(live, span{a, a + uint64(64*(i%32+1))})
		}
	}
	slices.SortFunc(live, func(x, y span) int { return int(x.lo>>4) - int(y.lo>>4) })
	for i := 1; i < len(live); i++ {
		if live[i].lo < live[i-1].hi || live[i].lo%16 != 0 {
			t.Fatalf("live blocks %#x and %#x overlap or are not 16-byte aligned", live[i-1], live[i])
		}
	}
}

// free of an address malloc did not return, or of one already freed, faults naming
// the heap; a heap that does not fit the address space is refused at Load.
func TestFreeFaults(t *testing.T) {
	spec := Spec{PTX: []byte(heapPTX), PTXName: "heap.ptx", Kernel: "m", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Args: []string{"buf:u64:32", "u64:8", "u32:1"}}
	for _, edit := range []struct{ what, old, new string }{
		{"a pointer into a block", "st.param.b64 [param0], %rd4;\ncall.uni free", "add.s64 %rd4, %rd4, 8;\nst.param.b64 [param0], %rd4;\ncall.uni free"},
		{"a block freed twice", "call.uni free, (param0);\n}\nDONE:", "call.uni free, (param0);\ncall.uni free, (param0);\n}\nDONE:"},
	} {
		spec.PTX = []byte(strings.Replace(heapPTX, edit.old, edit.new, 1))
		_, err := load(t, spec).Run(context.Background(), 0, nil)
		var f *Fault
		if !errors.As(err, &f) || f.Kind != FaultOutOfBounds || f.Thread != 1 || !strings.Contains(err.Error(), "not an address malloc returned and free has not released (the device heap is [") {
			t.Errorf("free of %s: %v, want a fault of thread 1 naming the heap", edit.what, err)
		}
	}
	spec.PTX, spec.HeapSize = []byte(heapPTX), 1<<60
	if _, err := Load(spec); err == nil || !strings.Contains(err.Error(), "a device heap of 1152921504606846976 bytes does not fit") {
		t.Errorf("a heap of 2^60 bytes: %v, want it refused", err)
	}
}

// On a Device the heap outlives the launch, as in a CUDA context: a later launch reads
// and frees the blocks an earlier one allocated, and then gets the same addresses
// again. The host cannot copy from it or free in it, and its size is fixed by the first
// launch that calls malloc.
func TestDeviceHeap(t *testing.T) {
	d := NewDevice()
	const n = 64
	out, _ := d.Malloc(n * 8)
	vals, _ := d.Malloc(n * 4)
	launch := func(kernel string, params ...[]byte) error {
		k, err := Load(Spec{PTX: []byte(heapPTX), PTXName: "heap.ptx", Kernel: kernel, Grid: d3(2, 1, 1), Block: d3(n/2, 1, 1), Device: d, Params: params})
		if err != nil {
			return err
		}
		_, err = k.Run(context.Background(), 0, nil)
		return err
	}
	addrs := func() []byte {
		b := make([]byte, n*8)
		if err := d.Read(out, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	if err := launch("m", u64Param(out), u64Param(8), u32Param(0)); err != nil {
		t.Fatal(err)
	}
	first := addrs()
	if cnt, _ := d.Allocations(); cnt != 2 {
		t.Errorf("Allocations() = %d, want the program's 2 (the heap is not the program's)", cnt)
	}
	heapAt := binary.LittleEndian.Uint64(first)
	if err := d.Read(heapAt, make([]byte, 4)); err == nil {
		t.Error("the host read the device heap; CUDA refuses runtime calls on malloc's memory")
	}
	if err := d.Free(heapAt); err == nil {
		t.Error("the host freed the device heap")
	}
	if err := launch("check", u64Param(out), u64Param(vals)); err != nil {
		t.Fatal(err)
	}
	v := make([]byte, n*4)
	if err := d.Read(vals, v); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if got := binary.LittleEndian.Uint32(v[4*i:]); got != uint32(i) {
			t.Fatalf("thread %d read %d from its block in the next launch, want %d", i, got, i)
		}
	}
	if err := launch("m", u64Param(out), u64Param(8), u32Param(0)); err != nil {
		t.Fatal(err)
	}
	if again := addrs(); !slices.Equal(first, again) {
		t.Error("with every block freed, a third launch got other addresses than the first")
	}
	_, err := Load(Spec{PTX: []byte(heapPTX), PTXName: "heap.ptx", Kernel: "m", Grid: d3(1, 1, 1), Block: d3(1, 1, 1), Device: d,
		Params: [][]byte{u64Param(out), u64Param(8), u32Param(0)}, HeapSize: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "fixed it at 8388608") {
		t.Errorf("a launch asking for another heap size: %v, want it refused", err)
	}
}
