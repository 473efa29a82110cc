package cudart

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/clangtest"
)

var (
	samplesOnce sync.Once
	samplesPTX  []byte
	samplesErr  error
)

// compile turns a .cu file into PTX with clang-14 and the header folder, as
// `gtrace capture --cu` does.
func compile(t *testing.T, cu string) ([]byte, error) {
	t.Helper()
	clangtest.Clang14(t)
	ptx, _, err := Compile(context.Background(), cu)
	return ptx, err
}

func samples(t *testing.T) []byte {
	t.Helper()
	clangtest.Clang14(t)
	samplesOnce.Do(func() { samplesPTX, samplesErr = compile(t, "testdata/samples.cu") })
	if samplesErr != nil {
		t.Fatalf("compiling testdata/samples.cu: %v", samplesErr)
	}
	return samplesPTX
}

type discard struct{}

func (discard) WriteCTA(int, int, []*format.Warp) error { return nil }

// launch captures one kernel of testdata/samples.cu and returns its buffers' final bytes.
func launch(t *testing.T, kernel string, grid, block uint32, args ...string) [][]byte {
	t.Helper()
	res := launchRes(t, kernel, grid, block, args...)
	out := make([][]byte, len(res.Buffers))
	for i, b := range res.Buffers {
		out[i] = b.Final
	}
	return out
}

// launchRes captures one kernel of testdata/samples.cu and returns the capture's result.
func launchRes(t *testing.T, kernel string, grid, block uint32, args ...string) *capture.Result {
	t.Helper()
	k, err := capture.Load(capture.Spec{PTX: samples(t), PTXName: "samples.ptx", Kernel: kernel,
		Grid: format.Dim3{X: grid, Y: 1, Z: 1}, Block: format.Dim3{X: block, Y: 1, Z: 1}, Args: args})
	if err != nil {
		t.Fatalf("%s: %v", kernel, err)
	}
	res, err := k.Run(context.Background(), 0, discard{})
	if err != nil {
		t.Fatalf("%s: %v", kernel, err)
	}
	return res
}

func u32s(b []byte) []uint32 {
	r := make([]uint32, len(b)/4)
	for i := range r {
		r[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return r
}

func u64s(b []byte) []uint64 {
	r := make([]uint64, len(b)/8)
	for i := range r {
		r[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return r
}

func f32s(b []byte) []float32 {
	r := make([]float32, len(b)/4)
	for i, u := range u32s(b) {
		r[i] = math.Float32frombits(u)
	}
	return r
}

// The folder has the SDK's file names, IncludeDir writes all of it (subfolders too), and
// a folder from IncludeDir is reused, not rewritten.
func TestIncludeFolder(t *testing.T) {
	names := Files()
	for _, want := range []string{Header, "cuda_runtime.h", "device_launch_parameters.h", "vector_types.h",
		"cooperative_groups.h", "cooperative_groups/reduce.h"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("include/ lacks %s: %v", want, names)
		}
	}
	base := t.TempDir()
	dir, err := IncludeDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "cuda-include-"+Version() {
		t.Errorf("IncludeDir = %s; want a folder named by Version %s", dir, Version())
	}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, name))
		want, _ := include.ReadFile("include/" + name)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s in %s: %v, %d bytes; want the embedded %d", name, dir, err, len(got), len(want))
		}
	}
	st, _ := os.Stat(filepath.Join(dir, Header))
	again, err := IncludeDir(base)
	st2, _ := os.Stat(filepath.Join(dir, Header))
	if err != nil || again != dir || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("second IncludeDir: %s, %v; want %s reused", again, err, dir)
	}
}

// Only the header's own definitions reach the PTX: nothing calls libdevice or any other
// external function, which the emulator does not have.
func TestSamplesNeedNoLibdevice(t *testing.T) {
	ptx := string(samples(t))
	for _, bad := range []string{".extern", "__nv_"} {
		if strings.Contains(ptx, bad) {
			t.Errorf("the PTX of samples.cu contains %q", bad)
		}
	}
	if !strings.Contains(ptx, ".version 7.0") {
		t.Errorf("the PTX is not .version 7.0")
	}
}

// cuda-samples' reduce6, compiled from its CUDA source: the per-block sums.
func TestReduce6(t *testing.T) {
	const n, grid, block = 5000, 4, 256
	out := launch(t, "reduce6_256", grid, block, "buf:f32:5000:iota", "buf:f32:4", "u32:5000")
	got := f32s(out[1])
	for b := 0; b < grid; b++ {
		var want float64
		for i := b * block * 2; i < n; i += block * 2 * grid {
			for j := i; j < i+2*block && j < n; j++ {
				want += float64(j)
			}
		}
		if float64(got[b]) != want { // integers below 2^24: exact in any order
			t.Errorf("block %d: sum %v; want %v", b, got[b], want)
		}
	}
}

// cuda-samples' histogram256: shared and global atomicAdd, uint4 loads through __ldg.
func TestHistogram256(t *testing.T) {
	const words = 4 * 1000
	out := launch(t, "histogram256", 3, 96, "buf:u32:256", "buf:u8:16000:rand:7", "u32:1000")
	arg, _ := capture.ParseArg("buf:u8:16000:rand:7")
	var want [256]uint32
	for _, b := range arg.InitBytes() {
		want[b]++
	}
	got := u32s(out[0])
	var total uint32
	for i := range want {
		total += got[i]
		if got[i] != want[i] {
			t.Errorf("bin %d: %d; want %d", i, got[i], want[i])
		}
	}
	if total != 4*words {
		t.Errorf("%d bytes counted; want %d", total, 4*words)
	}
}

// Every atomic function on every type, from 128 threads; the results that do not depend
// on the order the threads ran in.
func TestAtomicsEveryType(t *testing.T) {
	out := launch(t, "atomics", 2, 64, "buf:i32:8:const:-1", "buf:u32:11:const:100", "buf:u64:8:const:5",
		"buf:i64:2:const:3", "buf:f32:2:const:1", "buf:f64:1:const:1")
	const T = 128
	var sum, xi int32
	var xu uint32
	var xull uint64
	for t := int32(0); t < T; t++ {
		sum += t
		xi ^= t
		xu ^= uint32(t) * 2654435761
		xull ^= uint64(t) << 20
	}
	i, u, ull, ll := u32s(out[0]), u32s(out[1]), u64s(out[2]), u64s(out[3])
	wantI := []int32{-1 + sum, -1 - sum, -100, 27, math.MinInt32, -1, -1 ^ xi, 7}
	for k, w := range wantI {
		if int32(i[k]) != w {
			t.Errorf("int slot %d: %d; want %d", k, int32(i[k]), w)
		}
	}
	// atomicInc(p, 9) from 100: the first sees 100 >= 9 and stores 0, the other 127
	// count 0..9 round: 7. atomicDec(p, 9) from 100 > 9 stores 9, then 127 down: 2.
	wantU := []uint32{100 + 3*T, math.MaxUint32 - (T - 100 - 1), 7, 381, 7, 2, 0, 0xffffffff, 100 ^ xu, 635, 11}
	for k, w := range wantU {
		if u[k] != w {
			t.Errorf("unsigned slot %d: %d; want %d", k, u[k], w)
		}
	}
	wantULL := []uint64{5 + T<<33, 0, 127 << 34, 0, math.MaxUint64, 5 ^ xull, 5 + uint64(sum), 42}
	for k, w := range wantULL {
		if ull[k] != w {
			t.Errorf("unsigned long long slot %d: %#x; want %#x", k, ull[k], w)
		}
	}
	if int64(ll[0]) != -(127<<35) || int64(ll[1]) != 3 {
		t.Errorf("long long min/max: %d %d; want %d 3", int64(ll[0]), int64(ll[1]), -(127 << 35))
	}
	if f := f32s(out[4]); f[0] != 65 || f[1] != 2.5 {
		t.Errorf("float add/exch: %v; want [65 2.5]", f)
	}
	if d := math.Float64frombits(u64s(out[5])[0]); d != 33 {
		t.Errorf("double add: %v; want 33", d)
	}
}

// The warp functions against their definitions in the CUDA Programming Guide.
// TestSyncthreadsReductions: __syncthreads_count, _and and _or (bar.red) give every
// thread the CTA's reduction; 43 of the 128 threads are multiples of 3, thread 100's
// predicate is false, thread 77's true.
func TestSyncthreadsReductions(t *testing.T) {
	got := u32s(launch(t, "syncs", 1, 128, "buf:i32:384")[0])
	for tid := 0; tid < 128; tid++ {
		if r := got[3*tid : 3*tid+3]; r[0] != 43 || r[1] != 0 || r[2] != 1 {
			t.Errorf("thread %d: count, and, or = %d, %d, %d; want 43, 0, 1", tid, r[0], r[1], r[2])
		}
	}
}

// TestClockFunctions: clock64() and clock() (Programming Guide, "Time Function")
// compile and read capture's clock, the warp's count of executed instructions: the
// same in every lane, later for the later read, and the chain between them counted.
func TestClockFunctions(t *testing.T) {
	got := u64s(launch(t, "clocks", 1, 64, "buf:f32:64:iota", "buf:i64:192")[1])
	for tid := 0; tid < 64; tid++ {
		d, c, t0 := got[3*tid], got[3*tid+1], got[3*tid+2]
		if d != got[0] || c != got[1] || t0 != got[2] {
			t.Errorf("thread %d: clock64 difference, clock, clock64 = %d, %d, %d; thread 0's %d, %d, %d", tid, d, c, t0, got[0], got[1], got[2])
		}
	}
	// The four fma of the chain, at least, lie between the reads; clock() is read
	// after the first clock64().
	if d, c, t0 := got[0], got[1], got[2]; d < 4 || d > 64 || c <= t0 {
		t.Errorf("clock64 difference %d (want 4 to 64 instructions), clock() %d after clock64() %d (want later)", d, c, t0)
	}
}

func TestWarpFunctions(t *testing.T) {
	out := launch(t, "warp", 1, 64, "buf:i32:1024", "buf:f64:64")
	got, dout := u32s(out[0]), u64s(out[1])
	for tid := 0; tid < 64; tid++ {
		l := uint32(tid % 32)
		up := l
		if l >= 3 {
			up = l - 3
		}
		down := l
		if l%16+5 < 16 {
			down = l + 5
		}
		var ballot uint32
		for j := 0; j < 32; j += 3 {
			ballot |= 1 << j
		}
		active := uint32(0xfffff)
		if l >= 20 {
			active = 0xffffffff
		}
		ffs := uint32(0)
		if l != 0 {
			ffs = uint32(bits.TrailingZeros32(l)) + 5
		}
		a, b := 0x33221100+l, uint32(0x77665544)
		src := uint64(a) | uint64(b)<<32
		var perm uint32
		for k := 0; k < 4; k++ {
			sel := (0x5140 >> (4 * k)) & 7
			perm |= uint32(src>>(8*sel)&0xff) << (8 * k)
		}
		mulhi := uint32(uint64(0x90000000) * uint64(l*0x12345) >> 32)
		want := []uint32{(31 - l) * 10, up, down, l ^ 1, 496, ballot, 1, 1, active,
			4 * uint32(bits.OnesCount32(l)), uint32(bits.LeadingZeros32(l)), ffs, bits.Reverse32(l), perm,
			l<<4 | 8, mulhi + uint32(-3*int32(l))}
		for k, w := range want {
			if g := got[tid*16+k]; g != w {
				t.Errorf("thread %d slot %d: %#x; want %#x", tid, k, g, w)
			}
		}
		if d := math.Float64frombits(dout[tid]); d != 1/float64((l+1)%32+1) {
			t.Errorf("thread %d: 64-bit shfl gave %v; want %v", tid, d, 1/float64((l+1)%32+1))
		}
	}
}

// The single-instruction math functions and intrinsics: exact where CUDA's are correctly
// rounded, close where they are the hardware's approximations.
func TestMathFunctions(t *testing.T) {
	out := launch(t, "math", 1, 64, "buf:f32:64:rand:3", "buf:f32:1024", "buf:i32:64")
	arg, _ := capture.ParseArg("buf:f32:64:rand:3")
	x := f32s(arg.InitBytes())
	got, iout := f32s(out[1]), u32s(out[2])
	for tid, v := range x {
		v64 := float64(v)
		exact := []float32{
			0:  float32(math.Sqrt(v64)),
			5:  min(max(v-1, 0), 1),
			6:  min(v, 1.5) + max(v, 0.5),
			7:  float32(math.Floor(float64(v*3))) + float32(math.Ceil(float64(v*7))),
			8:  float32(math.RoundToEven(float64(v*5))) + float32(math.Trunc(float64(-v*5))),
			11: -v,
		}
		approx := map[int]float64{1: 1 / math.Sqrt(v64), 2: v64 / 3, 3: math.Exp(v64), 4: math.Log(v64),
			9: v64*v64 - 1, 10: math.Sin(v64)}
		o := got[tid*12:]
		for k, w := range exact {
			if k == 0 || k >= 5 && k <= 8 || k == 11 {
				if math.Float32bits(o[k]) != math.Float32bits(w) {
					t.Errorf("x=%v slot %d: %v; want %v exactly", v, k, o[k], w)
				}
			}
		}
		for k, w := range approx {
			g := float64(o[k])
			if !(g == w || math.Abs(g-w) <= 1e-6*math.Abs(w)+1e-7) {
				t.Errorf("x=%v slot %d: %v; want %v", v, k, g, w)
			}
		}
		if w := int32(math.RoundToEven(float64(v * 100))); int32(iout[tid]) != w {
			t.Errorf("x=%v: __float2int_rn(x*100) = %d; want %d", v, int32(iout[tid]), w)
		}
		for c := 0; c < 4; c++ {
			if w := float32(c+1) * v; got[768+4*tid+c] != w {
				t.Errorf("x=%v: __stcs component %d: %v; want %v", v, c, got[768+4*tid+c], w)
			}
		}
	}
}

// The cache-hint loads and stores of two-element vectors: one vector access each, the
// components where they belong.
func TestCacheHintPairs(t *testing.T) {
	for _, ins := range []string{"ld.global.cg.v2.f32", "ld.global.cs.v2.u64", "st.global.cg.v2.f32", "st.global.wt.v2.u64"} {
		if !strings.Contains(string(samples(t)), ins) {
			t.Errorf("hints2's PTX has no %s", ins)
		}
	}
	out := launch(t, "hints2", 1, 32, "buf:f32:64:iota", "buf:u64:64:iota", "buf:f32:64", "buf:u64:64")
	fo, yo := f32s(out[2]), out[3]
	for l := 0; l < 32; l++ {
		if fo[2*l] != float32(2*l+1) || fo[2*l+1] != float32(2*l) {
			t.Errorf("lane %d: float2 (%v, %v); want (%d, %d)", l, fo[2*l], fo[2*l+1], 2*l+1, 2*l)
		}
		y0, y1 := binary.LittleEndian.Uint64(yo[16*l:]), binary.LittleEndian.Uint64(yo[16*l+8:])
		if y0 != uint64(2*l+2) || y1 != uint64(2*l) {
			t.Errorf("lane %d: ulonglong2 (%d, %d); want (%d, %d)", l, y0, y1, 2*l+2, 2*l)
		}
	}
}

// cuda-samples' reduce4 written with cooperative groups: the per-block sums.
func TestCooperativeGroupsReduce(t *testing.T) {
	const n, grid, block = 1000, 2, 256
	got := f32s(launch(t, "cg_reduce", grid, block, "buf:f32:1000:iota", "buf:f32:2", "u32:1000")[1])
	for b := 0; b < grid; b++ {
		var want float32
		for i := b * 2 * block; i < min((b+1)*2*block, n); i++ {
			want += float32(i) // integers below 2^24: exact in any order
		}
		if got[b] != want {
			t.Errorf("block %d: %v; want %v", b, got[b], want)
		}
	}
}

// launchWarpFunctions runs kernel(in, out) as one CTA of threads over random int32
// inputs (seed) and returns them and the slots per thread it wrote.
func launchWarpFunctions(t *testing.T, kernel string, threads, seed, slots int) ([]int32, []uint32) {
	t.Helper()
	spec := fmt.Sprintf("buf:i32:%d:rand:%d", threads, seed)
	out := launch(t, kernel, 1, uint32(threads), spec, fmt.Sprintf("buf:i32:%d", threads*slots))
	arg, _ := capture.ParseArg(spec)
	in := make([]int32, threads)
	for i, u := range u32s(arg.InitBytes()) {
		in[i] = int32(u)
	}
	return in, u32s(out[1])
}

// Tiles, cg::reduce, ballots, shuffles and a coalesced group against the Programming
// Guide's definitions.
func TestCooperativeGroupsTiles(t *testing.T) {
	const threads = 128
	v, got := launchWarpFunctions(t, "cg_tiles", threads, 5, 10)
	for r := 0; r < threads; r++ {
		w, l, tile, tr := r/32, r%32, r/8, r%8
		var sum int32
		for _, x := range v[w*32 : w*32+32] {
			sum += x
		}
		tv := v[tile*8 : tile*8+8]
		var ballot uint32
		for i, x := range tv {
			if x%2 != 0 {
				ballot |= 1 << i
			}
		}
		down := v[r]
		if tr+2 < 8 {
			down = v[r+2]
		}
		rank, size, first := 0, 0, int32(-1)
		for j := 0; j < 32; j++ {
			if x := v[w*32+j]; x%3 == 0 {
				if first < 0 {
					first = x
				}
				if j < l {
					rank++
				}
				size++
			}
		}
		co, cfirst := int32(rank*100+size), first
		if v[r]%3 != 0 {
			co, cfirst = -1, -1
		}
		want := []int32{sum, slices.Max(tv), slices.Min(tv), int32(tr + 100*tile), int32(ballot), tv[3], down,
			int32(w*1000 + threads/32), co, cfirst}
		for k, x := range want {
			if g := int32(got[r*10+k]); g != x {
				t.Errorf("thread %d slot %d: %d; want %d", r, k, g, x)
			}
		}
	}
}

// match_any, match_all and cg::reduce against the Programming Guide's definitions, and
// cg::reduce compiled as CUDA compiles it for sm_80: one redux.sync for 32-bit integers.
func TestCooperativeGroupsMatch(t *testing.T) {
	const threads = 128
	x, got := launchWarpFunctions(t, "cg_match", threads, 11, 12)
	// same is the mask over group (bits by rank) of the members whose key equals member me's.
	same := func(group []int, key func(int) int32, me int) uint32 {
		var m uint32
		for k, j := range group {
			if key(j) == key(me) {
				m |= 1 << k
			}
		}
		return m
	}
	// all is match_all over group: its full mask and 1 if every key is the same, else 0, 0.
	all := func(group []int, key func(int) int32) (uint32, int32) {
		if m := same(group, key, group[0]); m == 1<<len(group)-1 {
			return m, 1
		}
		return 0, 0
	}
	low2 := func(j int) int32 { return x[j] & 3 }
	for r := 0; r < threads; r++ {
		w, tile := r/32, r/8
		var t8, active []int
		for j := tile * 8; j < tile*8+8; j++ {
			t8 = append(t8, j)
		}
		var xor, or uint32
		for _, j := range t8 {
			xor ^= uint32(x[j])
			or |= uint32(low2(j))
		}
		minW := uint32(x[w*32])
		for j := w * 32; j < w*32+32; j++ {
			minW = min(minW, uint32(x[j]))
			if low2(j) != 0 {
				active = append(active, j)
			}
		}
		m1, p1 := all(t8, low2)
		want := []int32{int32(same(t8, low2, r)), int32(m1), p1, 0xff, 1, int32(xor), int32(minW), int32(or), -1, -1, -1, -1}
		if low2(r) != 0 {
			var sum, fsum int32
			for _, j := range active {
				sum += x[j]
				fsum += low2(j)
			}
			m, p := all(active, low2)
			want[8] = int32(same(active, func(j int) int32 { return x[j] & 12 }, r))
			want[9], want[10], want[11] = sum, fsum, int32(m)*2+p
		}
		for k, v := range want {
			if g := int32(got[r*12+k]); g != v {
				t.Errorf("thread %d slot %d: %d; want %d", r, k, g, v)
			}
		}
	}
	ptx := string(samples(t))
	body := ptx[strings.Index(ptx, ".entry cg_match"):]
	body = body[:strings.Index(body, "\n}\n")]
	for _, op := range []string{"redux.sync.xor.b32", "redux.sync.min.u32", "redux.sync.or.b32", "redux.sync.add.s32", "match.any.sync.b32", "match.all.sync.b32"} {
		if !strings.Contains(body, op) {
			t.Errorf("cg_match's PTX has no %s", op)
		}
	}
	if !strings.Contains(body, "shfl.sync.idx") {
		t.Error("cg_match's PTX has no shfl.sync.idx: the float reduction over a coalesced group should shuffle")
	}
}

// TestCooperativeGroupsGrid: this_grid()'s ranks and sizes; it is not valid (capture
// makes no cooperative launch), and its sync() is a trap fault, as on a GPU.
func TestCooperativeGroupsGrid(t *testing.T) {
	const grid, block = 3, 64
	got := launch(t, "cg_grid", grid, block, fmt.Sprintf("buf:u64:%d", grid*block*8), "i32:0")[0]
	for r := range grid * block {
		want := []uint64{grid * block, grid * block, grid, uint64(r / block), 0, grid*10000 + 101, uint64(r/block) * 10000, grid}
		for k, w := range want {
			if g := binary.LittleEndian.Uint64(got[(r*8+k)*8:]); g != w {
				t.Errorf("thread %d slot %d: %d; want %d", r, k, g, w)
			}
		}
	}
	k, err := capture.Load(capture.Spec{PTX: samples(t), PTXName: "samples.ptx", Kernel: "cg_grid",
		Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}, Args: []string{"buf:u64:256", "i32:1"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Run(context.Background(), 0, discard{})
	var f *capture.Fault
	if !errors.As(err, &f) || f.Kind != capture.FaultTrap {
		t.Fatalf("grid.sync() without a cooperative launch: %v; want a trap fault", err)
	}
}

// TestSIMDIntrinsics: all 82 SIMD intrinsics (__vadd2 … __vsubus4) of 512 input
// pairs (every pair of 16 edge values, and hashed words) as CUDA 13 computes them on
// an H100 (testdata/simd.cuh, scripts/hw/simd.cu), word for word.
func TestSIMDIntrinsics(t *testing.T) {
	src, err := os.ReadFile("testdata/simd.cuh")
	if err != nil {
		t.Fatal(err)
	}
	// The functions' names in the kernel's order: the X(...) of the two lists.
	var names []string
	for _, m := range regexp.MustCompile(`X\((__v\w+)\)`).FindAllStringSubmatch(string(src), -1) {
		names = append(names, m[1])
	}
	const threads, slots = 512, 82 + 2
	if len(names) != slots-2 {
		t.Fatalf("testdata/simd.cuh lists %d functions; want %d", len(names), slots-2)
	}
	gpu, err := os.ReadFile("../traces/hw/h100-2026-11-27-simd/simd.bin")
	if err != nil {
		t.Fatal(err)
	}
	got := launch(t, "simd", threads/128, 128, fmt.Sprintf("buf:u32:%d", threads*slots))[0]
	if len(gpu) != len(got) {
		t.Fatalf("the H100's file has %d bytes; the capture %d", len(gpu), len(got))
	}
	g, h := u32s(got), u32s(gpu)
	bad := map[string]int{}
	for i := range g {
		r, k := i/slots, i%slots
		if g[i] == h[i] {
			continue
		}
		name := []string{"a", "b"}[min(k, 1)]
		if k >= 2 {
			name = names[k-2]
		}
		if bad[name]++; bad[name] <= 3 {
			t.Errorf("thread %d %s(%#x, %#x) = %#x; the H100 gave %#x", r, name, h[r*slots], h[r*slots+1], g[i], h[i])
		}
	}
	if len(bad) > 0 {
		t.Errorf("wrong words per function: %v", bad)
	}
}

const simdCostRun = "../traces/hw/h100-2026-11-27-simdcost"

// TestSIMDCost: each SIMD intrinsic's instructions per call in gtrace's trace (the
// header's PTX) against the H100's SASS (smsp__inst_executed.sum of simdc_NAME, one
// call per thread, less that of the kernel doing one logic operation instead, plus
// one): within a factor of 3 each, so that a kernel's instruction mix is not dominated
// by a wrong guess, as the math functions' cost is held (TestPreciseMathCost).
func TestSIMDCost(t *testing.T) {
	launches, gpu := ncuLaunches(t, filepath.Join(simdCostRun, "simdcost.csv"), filepath.Join(simdCostRun, "simdcost-ncu.csv"))
	const threads, gpuWarps = 64, 256
	ours := func(kernel string) uint64 {
		return launchRes(t, kernel, 1, threads, fmt.Sprintf("buf:u32:%d", 2*threads), fmt.Sprintf("buf:u32:%d", threads)).WarpInsts
	}
	base := map[string]string{"1": "not", "2": "xor"} // the baseline kernel per arity: simdc_not, simdc_xor
	baseOurs := map[string]uint64{}
	for arity, k := range base {
		baseOurs[arity] = ours("simdc_" + k)
	}
	var sumOurs, sumGPU float64
	var table []string
	for _, l := range launches { // name, arity
		name, arity := l[0], l[1]
		if !strings.HasPrefix(name, "__v") {
			continue
		}
		b, ok := gpu[base[arity]]
		if !ok {
			t.Fatalf("the H100 run has no baseline for arity %q", arity)
		}
		want := (gpu[name]-b)/gpuWarps + 1
		got := float64(ours("simdc"+name)-baseOurs[arity])/(threads/32) + 1
		sumOurs, sumGPU = sumOurs+got, sumGPU+want
		table = append(table, fmt.Sprintf("%s %g/%g", name, got, want))
		if got > 3*want || got < want/3 {
			t.Errorf("%s: %g instructions per call; the H100 runs %g", name, got, want)
		}
	}
	if len(table) != 82 {
		t.Errorf("the H100 run has %d SIMD intrinsics; want 82", len(table))
	}
	t.Logf("per call, gtrace/H100: %s; all %d: %g/%g", strings.Join(table, ", "), len(table), sumOurs, sumGPU)
}

// cgPart is one thread's place in a partition: its rank and the part's size, the
// part's meta-group rank and the number of parts, and the part's members (block ranks,
// in lane order).
type cgPart struct {
	rank, size, meta, parts int
	members                 []int
}

func (p cgPart) slots() []int32 {
	return []int32{int32(p.rank), int32(p.size), int32(p.meta), int32(p.parts)}
}

// cgPartition splits group (block ranks in lane order) by key, as labeled_partition
// and binary_partition do; binary names each part by its key (0 or 1) when there are
// two, where labeled counts the parts in order of their lowest lane.
func cgPartition(group []int, key func(int) int, binary bool) map[int]cgPart {
	var order []int
	members := map[int][]int{}
	for _, r := range group {
		k := key(r)
		if members[k] == nil {
			order = append(order, k)
		}
		members[k] = append(members[k], r)
	}
	out := map[int]cgPart{}
	for meta, k := range order {
		if binary {
			meta = k
			if len(order) == 1 {
				meta = 0
			}
		}
		for i, r := range members[k] {
			out[r] = cgPart{rank: i, size: len(members[k]), meta: meta, parts: len(order), members: members[k]}
		}
	}
	return out
}

// TestCooperativeGroupsPartition: labeled_partition and binary_partition of tiles, of
// a coalesced group and nested, against Go's reading of the Programming Guide and
// against what CUDA 13's own header gives on an H100 for the same kernel
// (testdata/cg_partition.cuh, scripts/hw/cgpart.cu).
func TestCooperativeGroupsPartition(t *testing.T) {
	const threads, slots = 128, 30
	got := u32s(launch(t, "cg_partition", 1, threads, fmt.Sprintf("buf:i32:%d", threads*slots))[0])
	hash := func(r int) int { return int(uint32(r)*2654435761) >> 24 }
	want := make([]int32, 0, threads*slots)
	bit := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	for r := range threads {
		var warp, t8, active []int
		for j := r / 32 * 32; j < r/32*32+32; j++ {
			warp = append(warp, j)
			if j/8 == r/8 {
				t8 = append(t8, j)
			}
			if hash(j)%4 != 0 {
				active = append(active, j)
			}
		}
		p1 := cgPartition(warp, func(j int) int { return hash(j) % 5 }, false)[r]
		sum := 0
		for _, j := range p1.members {
			sum += j
		}
		w := append(p1.slots(), int32(sum))
		w = append(w, cgPartition(warp, func(j int) int { return j % 32 / 8 }, false)[r].slots()...)
		w = append(w, cgPartition(t8, func(j int) int { return hash(j) % 3 }, false)[r].slots()...)
		w = append(w, cgPartition(warp, func(j int) int { return hash(j) & 1 }, true)[r].slots()...)
		w = append(w, cgPartition(t8, func(j int) int { return 1 }, true)[r].slots()...)
		if hash(r)%4 != 0 {
			b3 := cgPartition(active, func(j int) int { return bit(hash(j)&2 != 0) }, true)[r]
			l4 := cgPartition(b3.members, func(j int) int { return hash(j) % 3 }, false)[r]
			w = append(append(w, b3.slots()...), l4.slots()...)
			w = append(w, int32(l4.members[0]%32))
		} else {
			for range 9 {
				w = append(w, -1)
			}
		}
		want = append(want, w...)
	}
	gpu := cgPartitionGPU(t, "../traces/hw/h100-2026-11-27-cgpart/cgpart.csv", threads, slots)
	for i := range want {
		r, k := i/slots, i%slots
		if gpu[i] != want[i] {
			t.Errorf("thread %d slot %d: the H100 gave %d; Go says %d", r, k, gpu[i], want[i])
		}
		if g := int32(got[i]); g != gpu[i] {
			t.Errorf("thread %d slot %d: %d; the H100 gave %d", r, k, g, gpu[i])
		}
	}
}

// cgPartitionGPU reads scripts/hw/cgpart.cu's output: per thread its rank and slots values.
func cgPartitionGPU(t *testing.T, path string, threads, slots int) []int32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != slots+1 || f[0] != strconv.Itoa(len(out)/slots) {
			t.Fatalf("%s: line %q: want thread %d and %d values", path, line, len(out)/slots, slots)
		}
		for _, s := range f[1:] {
			v, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, int32(v))
		}
	}
	if len(out) != threads*slots {
		t.Fatalf("%s: %d values; want %d", path, len(out), threads*slots)
	}
	return out
}

// TestPipelinePrimitives: __pipeline_memcpy_async at 16, 8 and 4 bytes, with and
// without zero fill, __pipeline_commit and __pipeline_wait_prior, from CUDA source
// through clang-14 to capture (cp.async).
func TestPipelinePrimitives(t *testing.T) {
	const threads = 128
	out := launch(t, "pipeline", 1, threads, "buf:u32:512:rand:7", "buf:u32:256:rand:8", "buf:u32:128:rand:9", "buf:u32:896")
	a, b, c, got := u32s(out[0]), u32s(out[1]), u32s(out[2]), u32s(out[3])
	for tid := range threads {
		n := (tid + 1) % threads
		want := []uint32{a[4*n], a[4*n+1], a[4*n+2], a[4*n+3], b[2*n], 0, c[n]}
		if n&1 != 0 {
			want[6] = 0
		}
		if g := got[7*tid : 7*tid+7]; !slices.Equal(g, want) {
			t.Errorf("thread %d: %#x, want %#x", tid, g, want)
		}
	}
	for _, form := range []string{"cp.async.cg.shared.global", "cp.async.ca.shared.global", "cp.async.commit_group", "cp.async.wait_group 0"} {
		if !strings.Contains(string(samples(t)), form) {
			t.Errorf("the PTX has no %s", form)
		}
	}
}

// headerStubs writes, for each file of the header folder (Files), a program that
// includes it by its name and has one kernel, and returns the programs' paths in
// Files' order.
func headerStubs(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	var stubs []string
	for _, name := range Files() {
		cu := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".cu")
		src := "#include <" + name + ">\n__global__ void k(int *p) { p[threadIdx.x] = warpSize; }\n"
		if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		stubs = append(stubs, cu)
	}
	return stubs
}

// Every file of the header folder compiles when a program includes it by its name.
func TestEveryHeaderCompiles(t *testing.T) {
	clangtest.Clang14(t)
	names := Files()
	for i, cu := range headerStubs(t) {
		if _, err := compile(t, cu); err != nil {
			t.Errorf("#include <%s>: %v", names[i], err)
		}
	}
}

// TestHeaderHasNoWarnings: a user who compiles with -Wall -Wextra sees no warning from
// the header itself, in samples.cu's kernels (which instantiate its templates) or in
// any header included alone. Warnings in the user's own lines are theirs.
func TestHeaderHasNoWarnings(t *testing.T) {
	clangtest.Clang14(t)
	inc, err := IncludeDir("")
	if err != nil {
		t.Fatal(err)
	}
	for _, cu := range append([]string{"testdata/samples.cu"}, headerStubs(t)...) {
		args := append(ClangArgs(inc), "-Wall", "-Wextra", "-O3", "-S", "-o", os.DevNull, cu)
		msg, err := exec.Command("clang-14", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cu, err, msg)
		}
		for _, line := range strings.Split(string(msg), "\n") {
			if strings.HasPrefix(line, inc) && strings.Contains(line, "warning:") {
				t.Errorf("%s: %s", cu, line)
			}
		}
	}
}

// TestIntegerIntrinsics: __sad, __usad, __dp4a, __dp2a_lo/hi, __fns, the warp reduce
// and match functions and the address-space predicates, from CUDA source through
// clang-14 to capture, against Go written from the CUDA Math API's definitions.
func TestIntegerIntrinsics(t *testing.T) {
	const threads = 128
	out := launch(t, "intrinsics", 1, threads, "buf:u32:384:rand:5", "buf:u32:2048")
	x, got := u32s(out[0]), u32s(out[1])
	bytesOf := func(v uint32, signed bool) (r [4]int32) {
		for i := range r {
			if signed {
				r[i] = int32(int8(v >> (8 * i)))
			} else {
				r[i] = int32(uint8(v >> (8 * i)))
			}
		}
		return r
	}
	dot4 := func(a, b [4]int32, c int32) uint32 {
		for i := range a {
			c += a[i] * b[i]
		}
		return uint32(c)
	}
	absDiff := func(a, b int64) uint32 { return uint32(max(a-b, b-a)) }
	fns := func(mask, base uint32, off int) uint32 {
		if off == 0 {
			if mask>>base&1 != 0 {
				return base
			}
			return 0xffffffff
		}
		n := 0
		for p := int(base); p >= 0 && p < 32; p += max(min(off, 1), -1) {
			if mask>>p&1 != 0 {
				if n++; n == max(off, -off) {
					return uint32(p)
				}
			}
		}
		return 0xffffffff
	}
	for tid := 0; tid < threads; tid++ {
		a, b, c := x[3*tid], x[3*tid+1], x[3*tid+2]
		w := tid &^ 31
		var sum, xor, or, and uint32 = 0, 0, 0, 0xffffffff
		umin, smax := uint32(math.MaxUint32), int32(math.MinInt32)
		var any uint32
		for j := w; j < w+32; j++ {
			v := x[3*j]
			sum += v
			xor ^= v
			or |= v
			and &= x[3*j+1]
			umin = min(umin, v)
			smax = max(smax, int32(v))
			if v%3 == a%3 {
				any |= 1 << (j - w)
			}
		}
		sa, ua := bytesOf(a, true), bytesOf(a, false)
		sb, ub := bytesOf(b, true), bytesOf(b, false)
		lo := int32(c) + int32(int16(a))*sb[0] + int32(int16(a>>16))*sb[1]
		hi := c + uint32(uint16(a))*uint32(ub[2]) + uint32(uint16(a>>16))*uint32(ub[3])
		want := []uint32{
			c + absDiff(int64(int32(a)), int64(int32(b))), c + absDiff(int64(a), int64(b)),
			dot4(sa, sb, int32(c)), dot4(ua, ub, int32(c)), uint32(lo), hi,
			fns(a, b%32, int(c%33)-16), sum, umin, uint32(smax), xor, any,
			0xffffffef, // match_all of equal values: the full mask, a true predicate at bit 4
			1 | 2 | 8,
			dot4([4]int32{int32(int8(a)), int32(int8(b)), 3, -4}, [4]int32{-1, 2, int32(int8(c)), 5}, 7),
			or ^ and,
		}
		for k, v := range want {
			if g := got[16*tid+k]; g != v {
				t.Errorf("thread %d slot %d: %#x; want %#x", tid, k, g, v)
			}
		}
	}
}
