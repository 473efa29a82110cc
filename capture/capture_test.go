package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gtrace/gtrace/format"
)

var testPTX = func() []byte {
	b, err := os.ReadFile("testdata/kernels.ptx")
	if err != nil {
		panic(err)
	}
	return b
}()

func d3(x, y, z uint32) format.Dim3 { return format.Dim3{X: x, Y: y, Z: z} }

// memSink keeps a deep copy of every CTA, in arrival order.
type memSink struct {
	mu    sync.Mutex
	order []int
	warps []format.Warp
}

func (s *memSink) WriteCTA(kernel, cta int, warps []*format.Warp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order = append(s.order, cta)
	for _, w := range warps {
		c := *w
		c.PC = append([]uint32(nil), w.PC...)
		c.Mask = append([]uint32(nil), w.Mask...)
		c.Path = append([]uint16(nil), w.Path...)
		c.Flags = append([]format.Flags(nil), w.Flags...)
		c.Mode = append([]format.AddrMode(nil), w.Mode...)
		c.Base = append([]uint64(nil), w.Base...)
		c.Stride = append([]int64(nil), w.Stride...)
		c.DeltaOff = append([]uint32(nil), w.DeltaOff...)
		c.Deltas = append([]int64(nil), w.Deltas...)
		c.CoordOff = append([]uint32(nil), w.CoordOff...)
		c.Coords = append([]int32(nil), w.Coords...)
		s.warps = append(s.warps, c)
	}
	return nil
}

// countSink counts records per pc without keeping them.
type countSink struct {
	mu      sync.Mutex
	perPC   map[uint32]uint64
	lanes   uint64
	nrec    uint64
	orderOK bool
	next    int
}

func newCountSink() *countSink { return &countSink{perPC: map[uint32]uint64{}, orderOK: true} }

func (s *countSink) WriteCTA(kernel, cta int, warps []*format.Warp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cta != s.next {
		s.orderOK = false
	}
	s.next++
	for _, w := range warps {
		for i, pc := range w.PC {
			s.perPC[pc]++
			s.lanes += uint64(bits.OnesCount32(w.Mask[i]))
			s.nrec++
		}
	}
	return nil
}

func load(t testing.TB, spec Spec) *Kernel {
	t.Helper()
	if spec.PTX == nil {
		spec.PTX, spec.PTXName = testPTX, "testdata/kernels.ptx"
	}
	k, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func run(t testing.TB, spec Spec, sink Sink) *Result {
	t.Helper()
	res, err := load(t, spec).Run(context.Background(), 0, sink)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func TestVecAdd(t *testing.T) {
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		res := run(t, Spec{Kernel: "vecadd", Grid: d3(4, 1, 1), Block: d3(256, 1, 1), SIMT: simt,
			Args: []string{"buf:f32:1000", "buf:f32:1000:rand:7", "buf:f32:1000:iota", "i32:1000"}}, nil)
		c, a, b := f32s(res.Buffers[0].Final), f32s(res.Buffers[1].Init), f32s(res.Buffers[2].Init)
		for i := range c {
			if c[i] != a[i]+b[i] {
				t.Fatalf("%v: c[%d] = %v, want %v", simt, i, c[i], a[i]+b[i])
			}
		}
		if res.Buffers[0].Addr != GlobalBase {
			t.Errorf("first buffer at %#x, want %#x", res.Buffers[0].Addr, GlobalBase)
		}
	}
}

// Spec.Data gives buf arguments their contents in place of INIT (kept apart from the
// caller's slice), and names the argument when it cannot.
func TestSpecData(t *testing.T) {
	a, b := make([]byte, 4000), make([]byte, 4000)
	for i := range 1000 {
		binary.LittleEndian.PutUint32(a[4*i:], math.Float32bits(float32(i)*0.5))
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(-i)))
	}
	spec := Spec{Kernel: "vecadd", Grid: d3(4, 1, 1), Block: d3(256, 1, 1),
		Args: []string{"buf:f32:1000", "buf:f32:1000:rand:7", "buf:f32:1000:iota", "i32:1000"},
		Data: map[int][]byte{1: a, 2: b}}
	res := run(t, spec, nil)
	for i, c := range f32s(res.Buffers[0].Final) {
		if want := float32(i)*0.5 - float32(i); c != want {
			t.Fatalf("c[%d] = %v, want %v from Spec.Data", i, c, want)
		}
	}
	if !bytes.Equal(res.Buffers[1].Init, a) || &res.Buffers[1].Init[0] == &a[0] {
		t.Error("Buffers[1].Init is not a copy of Spec.Data[1]")
	}
	for _, c := range []struct {
		data map[int][]byte
		want string
	}{
		{map[int][]byte{1: a[:3996]}, "Spec.Data has 3996 bytes for argument 1 (buf:f32:1000:rand:7), which holds 4000"},
		{map[int][]byte{3: a}, "Spec.Data has contents for argument 3, which is not a buf: argument"},
		{map[int][]byte{4: a}, "Spec.Data has contents for argument 4, which is not a buf: argument"},
	} {
		spec.Data = c.data
		spec.PTX, spec.PTXName = testPTX, "testdata/kernels.ptx"
		if _, err := Load(spec); err == nil || err.Error() != c.want {
			t.Errorf("Load with Data %v: %v; want %q", len(c.data), err, c.want)
		}
	}
}

// Capture writes a whole trace file that reads back with the run's warp-instructions.
func TestCaptureWritesAFile(t *testing.T) {
	k := load(t, Spec{Kernel: "vecadd", Grid: d3(4, 1, 1), Block: d3(256, 1, 1),
		Args: []string{"buf:f32:1000", "buf:f32:1000:rand:7", "buf:f32:1000:iota", "i32:1000"}})
	var buf bytes.Buffer
	res, err := k.Capture(context.Background(), &buf, "capture test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for w, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n += uint64(w.Len())
	}
	if m := r.Meta(); n != res.WarpInsts || m.Producer != "capture test" || m.Launches[0].Kernel != "vecadd" {
		t.Errorf("read %d warp-instructions of %q by %q; the run had %d", n, m.Launches[0].Kernel, m.Producer, res.WarpInsts)
	}
}

// TestTransposeCounts: at 2048×2048 with 32×32 blocks, each of the 4096 CTAs has 32
// warps, and each warp loads once and stores once: 131072 global-load and 131072
// global-store warp-instructions.
func TestTransposeCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("4M threads")
	}
	const n = 2048
	k := load(t, Spec{Kernel: "transpose_naive", Grid: d3(n/32, n/32, 1), Block: d3(32, 32, 1),
		Args: []string{fmt.Sprintf("buf:f32:%d", n*n), fmt.Sprintf("buf:f32:%d:iota", n*n), fmt.Sprint("i32:", n), fmt.Sprint("i32:", n)}})
	s := newCountSink()
	res, err := k.Run(context.Background(), 0, s)
	if err != nil {
		t.Fatal(err)
	}
	var ld, st uint64
	for pc, c := range s.perPC {
		in := k.Launch().Program.Insts[pc]
		if in.Space == format.SpaceGlobal && in.MemOp == format.MemLoad {
			ld += c
		}
		if in.Space == format.SpaceGlobal && in.MemOp == format.MemStore {
			st += c
		}
	}
	if ld != 131072 || st != 131072 {
		t.Errorf("global loads %d, stores %d; want 131072 each", ld, st)
	}
	if !s.orderOK {
		t.Error("CTAs reached the sink out of order")
	}
	out, in := f32s(res.Buffers[0].Final), f32s(res.Buffers[1].Init)
	for y := 0; y < n; y += 7 {
		for x := 0; x < n; x += 5 {
			if out[x*n+y] != in[y*n+x] {
				t.Fatalf("out[%d][%d] = %v, want %v", x, y, out[x*n+y], in[y*n+x])
			}
		}
	}
}

// treeSum adds s[tid] += s[tid+k] in the order the kernel does, so float results match
// exactly.
func treeSumV3(v []float32) float32 {
	s := append([]float32(nil), v...)
	for k := len(s) / 2; k > 0; k >>= 1 {
		for t := 0; t < k; t++ {
			s[t] += s[t+k]
		}
	}
	return s[0]
}

func treeSumV1(v []float32) float32 {
	s := append([]float32(nil), v...)
	for k := 1; k < len(s); k *= 2 {
		for t := 0; t < len(s); t += 2 * k {
			s[t] += s[t+k]
		}
	}
	return s[0]
}

// TestReductionActiveLanes: V1 (interleaved, tid % 2k) keeps fewer lanes active per
// warp-instruction than V3 (sequential addressing), the seed's point about divergence.
func TestReductionActiveLanes(t *testing.T) {
	const blocks = 64
	eff := map[string]float64{}
	for _, name := range []string{"reduce_v1", "reduce_v3"} {
		s := newCountSink()
		res := run(t, Spec{Kernel: name, Grid: d3(blocks, 1, 1), Block: d3(256, 1, 1),
			Args: []string{fmt.Sprintf("buf:f32:%d:rand:3", blocks*256), fmt.Sprintf("buf:f32:%d", blocks)}}, s)
		in, out := f32s(res.Buffers[0].Init), f32s(res.Buffers[1].Final)
		for b := 0; b < blocks; b++ {
			want := treeSumV3(in[b*256 : (b+1)*256])
			if name == "reduce_v1" {
				want = treeSumV1(in[b*256 : (b+1)*256])
			}
			if out[b] != want {
				t.Fatalf("%s: block %d sum %v, want %v", name, b, out[b], want)
			}
		}
		eff[name] = float64(s.lanes) / float64(s.nrec)
		t.Logf("%s: %d warp-instructions, %.2f active lanes each", name, s.nrec, eff[name])
	}
	if !(eff["reduce_v1"] < eff["reduce_v3"]) {
		t.Errorf("active lanes per instruction: v1 %.2f, v3 %.2f; want v1 < v3", eff["reduce_v1"], eff["reduce_v3"])
	}
}

// TestDivergenceStack checks the split and reconverge records of
// if (threadIdx.x & 0x4) A(); else B(); C(); under the SIMT stack.
func TestDivergenceStack(t *testing.T) {
	s := &memSink{}
	k := load(t, Spec{Kernel: "diverge", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:i32:32"}})
	res, err := k.Run(context.Background(), 0, s)
	if err != nil {
		t.Fatal(err)
	}
	out := i32s(res.Buffers[0].Final)
	for i := range out {
		v := i + 7
		if i&4 != 0 {
			v = i * 3
		}
		if out[i] != int32(v^0x55) {
			t.Fatalf("out[%d] = %d, want %d", i, out[i], v^0x55)
		}
	}
	prog := k.Launch().Program.Insts
	w := s.warps[0]
	var got []string
	for i, pc := range w.PC {
		if w.Flags[i] != 0 {
			got = append(got, fmt.Sprintf("%s mask=%08x flags=%d", prog[pc].PTX, w.Mask[i], w.Flags[i]))
		}
	}
	// B runs first (the branch is taken when (tid & 4) == 0), then a switch to A,
	// then the whole warp reconverges for C.
	if len(got) != 3 {
		t.Fatalf("flagged records:\n%s", strings.Join(got, "\n"))
	}
	if !strings.HasPrefix(got[0], "@%p1 bra") || !strings.HasSuffix(got[0], "mask=ffffffff flags=1") {
		t.Errorf("split record: %s", got[0])
	}
	if !strings.HasSuffix(got[1], "mask=f0f0f0f0 flags=4") {
		t.Errorf("switch record: %s", got[1])
	}
	if !strings.HasSuffix(got[2], "mask=ffffffff flags=2") {
		t.Errorf("reconverge record: %s", got[2])
	}
	// Every record between the split and the switch runs lanes with bit 2 clear.
	split := -1
	for i := range w.PC {
		if w.Flags[i]&format.FlagSplit != 0 {
			split = i
		}
		if split >= 0 && i > split {
			if w.Flags[i]&format.FlagSwitch != 0 {
				break
			}
			if w.Mask[i] != 0x0f0f0f0f || w.Path[i] == 0 {
				t.Fatalf("record %d (%s): mask %08x path %d; want the B path 0f0f0f0f", i, prog[w.PC[i]].PTX, w.Mask[i], w.Path[i])
			}
		}
	}
	t.Logf("flagged records:\n%s", strings.Join(got, "\n"))
}

func TestSpinlock(t *testing.T) {
	spec := Spec{Kernel: "spinlock", Grid: d3(2, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:i32:1", "buf:i32:1"}}
	_, err := load(t, spec).Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultLivelock {
		t.Fatalf("stack mode: %v; want a livelock fault", err)
	}
	want := fmt.Sprintf("no forward progress under stack-based SIMT at pc %d (%s); capture with --simt its", f.PC, f.Inst)
	if err.Error() != want {
		t.Errorf("error %q\nwant     %q", err.Error(), want)
	}
	spec.SIMT = format.SIMTITS
	res := run(t, spec, nil)
	if got := i32s(res.Buffers[1].Final)[0]; got != 128 {
		t.Errorf("counter = %d after 128 threads each took the lock once", got)
	}
	if got := i32s(res.Buffers[0].Final)[0]; got != 0 {
		t.Errorf("lock left at %d", got)
	}
}

func TestWarpOps(t *testing.T) {
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		res := run(t, Spec{Kernel: "warpops", Grid: d3(3, 1, 1), Block: d3(32, 1, 1), SIMT: simt,
			Args: []string{"buf:i32:128", "buf:i32:1", "buf:f32:1"}}, nil)
		out := i32s(res.Buffers[0].Final)
		for l := 0; l < 32; l++ {
			// shfl.down with clamp 31 sums lanes l, l+d, ... that exist.
			var v [32]int
			for i := range v {
				v[i] = i
			}
			for d := 16; d > 0; d >>= 1 {
				var n [32]int
				for i := range v {
					n[i] = v[i]
					if i+d <= 31 {
						n[i] += v[i+d]
					} else {
						n[i] += v[i]
					}
				}
				v = n
			}
			if out[l*4] != int32(v[l]) || out[l*4+1] != 30 || uint32(out[l*4+2]) != 0xaaaaaaaa || out[l*4+3] != 1 {
				t.Fatalf("%v lane %d: got %v, want [%d 30 aaaaaaaa 1]", simt, l, out[l*4:l*4+4], v[l])
			}
		}
		if s := i32s(res.Buffers[1].Final)[0]; s != 3*(31*32/2) {
			t.Errorf("%v: atomic sum %d", simt, s)
		}
		if s := f32s(res.Buffers[2].Final)[0]; s != 48 {
			t.Errorf("%v: float atomic sum %v", simt, s)
		}
	}
}

func TestConstant(t *testing.T) {
	res := run(t, Spec{Kernel: "constant", Grid: d3(1, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:f32:64"}}, nil)
	out := f32s(res.Buffers[0].Final)
	if out[0] != 101 || out[1] != 102 || out[2] != 103 || out[3] != 100 {
		t.Errorf("with the initialiser: %v", out[:4])
	}
	res = run(t, Spec{Kernel: "constant", Grid: d3(1, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:f32:64"},
		Consts: []string{"coeff=f32:64:iota"}}, nil)
	out = f32s(res.Buffers[0].Final)
	if out[0] != 0 || out[5] != 5 {
		t.Errorf("with coeff=f32:64:iota: %v", out[:6])
	}
}

func TestDynamicShared(t *testing.T) {
	res := run(t, Spec{Kernel: "reverse", Grid: d3(1, 1, 1), Block: d3(128, 1, 1), DynShared: 512,
		Args: []string{"buf:f32:128", "buf:f32:128:iota", "i32:128"}}, nil)
	out := f32s(res.Buffers[0].Final)
	for i := range out {
		if out[i] != float32(127-i) {
			t.Fatalf("out[%d] = %v", i, out[i])
		}
	}
	_, err := load(t, Spec{Kernel: "reverse", Grid: d3(1, 1, 1), Block: d3(128, 1, 1),
		Args: []string{"buf:f32:128", "buf:f32:128:iota", "i32:128"}}).Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultOutOfBounds {
		t.Errorf("without --shared: %v; want an out-of-bounds fault", err)
	}
}

func TestLocalArray(t *testing.T) {
	s := &memSink{}
	k := load(t, Spec{Kernel: "local_array", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:i32:32", "i32:3"}})
	res, err := k.Run(context.Background(), 0, s)
	if err != nil {
		t.Fatal(err)
	}
	out := i32s(res.Buffers[0].Final)
	for i := range out {
		if want := int32(((i + 3) & 15) * i); out[i] != want {
			t.Fatalf("out[%d] = %d, want %d", i, out[i], want)
		}
	}
	// Local stores of one word by 32 lanes fall in one interleaved 128-byte line.
	prog := k.Launch().Program.Insts
	w := s.warps[0]
	found := false
	for i, pc := range w.PC {
		if prog[pc].Space == format.SpaceLocal && prog[pc].MemOp == format.MemStore && w.Mode[i] == format.AddrStride {
			found = true
			if w.Stride[i] != 4 || w.Base[i] < LocalPhysBase {
				t.Errorf("local store at %#x stride %d", w.Base[i], w.Stride[i])
			}
		}
	}
	if !found {
		t.Log("no local store with stride encoding (compiler kept the array in registers?)")
	}
}

func TestTexture(t *testing.T) {
	const w, h = 70, 9
	s := &memSink{}
	k := load(t, Spec{Kernel: "texread", Grid: d3(3, h, 1), Block: d3(32, 1, 1),
		Args: []string{fmt.Sprintf("buf:f32:%d", 96*h), fmt.Sprintf("tex2d:f32:%d:%d:iota", w, h), "i32:96"}})
	res, err := k.Run(context.Background(), 0, s)
	if err != nil {
		t.Fatal(err)
	}
	out := f32s(res.Buffers[0].Final)
	for y := 0; y < h; y++ {
		for x := 0; x < 96; x++ {
			cx := min(max(x-1, 0), w-1)
			if out[y*96+x] != float32(y*w+cx) {
				t.Fatalf("out(%d,%d) = %v, want %v", x, y, out[y*96+x], y*w+cx)
			}
		}
	}
	l := k.Launch()
	if len(l.Textures) != 1 || l.Textures[0].Layout != "gob64x8-swizzled" || l.Textures[0].Base != TextureBase {
		t.Fatalf("textures: %+v", l.Textures)
	}
	// Warp 0 of CTA (0, 1): x = -1..30 at y = 1, clamped to 0..30.
	var ww *format.Warp
	for i := range s.warps {
		if s.warps[i].CTA == 3 {
			ww = &s.warps[i]
		}
	}
	for i, pc := range ww.PC {
		if l.Program.Insts[pc].MemOp != format.MemTex {
			continue
		}
		xy := ww.TexCoords(i)
		var lanes [32]uint64
		ww.LaneAddrs(i, &lanes)
		for lane := 0; lane < 32; lane++ {
			x, y := int(xy[2*lane]), int(xy[2*lane+1])
			if x != max(lane-1, 0) || y != 1 {
				t.Fatalf("lane %d coords (%d,%d)", lane, x, y)
			}
			// gob64x8-swizzled: 16 f32 texels per 64-byte GOB row, 8 rows per 512-byte
			// GOB, each 32-byte sector 16 bytes of two rows.
			bx := x * 4
			want := TextureBase + uint64((y/8)*5+bx/64)*512 +
				uint64(bx%64/32*256+y%8/2*64+bx%32/16*32+y%2*16+bx%16)
			if lanes[lane] != want {
				t.Fatalf("lane %d texel address %#x, want %#x", lane, lanes[lane], want)
			}
		}
	}
}

func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   Spec
		kind   FaultKind
		thread int
		inst   string
		check  func(*Fault) error
	}{
		{"oob", Spec{Kernel: "oob", Block: d3(64, 1, 1), Args: []string{"buf:f32:64", "i32:40"}}, FaultOutOfBounds, 24, "st.global",
			func(f *Fault) error {
				if f.Addr != GlobalBase+64*4 || !strings.Contains(f.Buffer, "arg 0 (buf:f32:64)") {
					return fmt.Errorf("addr %#x buffer %q", f.Addr, f.Buffer)
				}
				return nil
			}},
		{"misaligned", Spec{Kernel: "misaligned", Block: d3(32, 1, 1), Args: []string{"buf:u8:64"}}, FaultMisaligned, 1, "st.global.u32", nil},
		{"divergent syncthreads", Spec{Kernel: "divergent_sync", Block: d3(32, 1, 1), Args: []string{"buf:i32:32"}}, FaultBarrierDeadlock, 16, "bar.sync 0;", nil},
		{"budget", Spec{Kernel: "forever", Block: d3(32, 1, 1), MaxInst: 10000, Args: []string{"buf:i32:1"}}, FaultBudget, -1, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Grid = d3(2, 1, 1)
			_, err := load(t, tc.spec).Run(context.Background(), 0, nil)
			var f *Fault
			if !errors.As(err, &f) {
				t.Fatalf("got %v; want a Fault", err)
			}
			t.Log(err)
			if f.Kind != tc.kind || f.CTA != 0 || f.Thread != tc.thread || !strings.HasPrefix(f.Inst, tc.inst) || f.Kernel != tc.spec.Kernel {
				t.Errorf("fault %+v; want kind %v thread %d inst %q", f, tc.kind, tc.thread, tc.inst)
			}
			if tc.check != nil {
				if err := tc.check(f); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// Under ITS the divergent __syncthreads completes: the lanes that skip it exit,
	// and exited threads do not hold up a barrier (PTX ISA, bar.sync and exit).
	run(t, Spec{Kernel: "divergent_sync", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), SIMT: format.SIMTITS, Args: []string{"buf:i32:32"}}, nil)
}

// TestWorkersDeterministic: the trace must not depend on the number of workers.
func TestWorkersDeterministic(t *testing.T) {
	for _, spec := range []Spec{
		{Kernel: "transpose_naive", Grid: d3(8, 8, 1), Block: d3(32, 32, 1), Args: []string{"buf:f32:65536", "buf:f32:65536:rand", "i32:256", "i32:256"}},
		{Kernel: "reduce_v1", Grid: d3(40, 1, 1), Block: d3(256, 1, 1), Args: []string{"buf:f32:10240:rand", "buf:f32:40"}, SIMT: format.SIMTITS},
		{Kernel: "warpops", Grid: d3(40, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:i32:256", "buf:i32:1", "buf:f32:1"}},
	} {
		var sinks [2]*memSink
		var finals [2][]Buffer
		for i, w := range []int{1, 4} {
			spec.Workers = w
			sinks[i] = &memSink{}
			finals[i] = run(t, spec, sinks[i]).Buffers
		}
		if fmt.Sprint(sinks[0].order) != fmt.Sprint(sinks[1].order) {
			t.Fatalf("%s: CTA order differs", spec.Kernel)
		}
		if fmt.Sprintf("%v", sinks[0].warps) != fmt.Sprintf("%v", sinks[1].warps) {
			t.Errorf("%s: traces differ between 1 and 4 workers", spec.Kernel)
		}
		for j := range finals[0] {
			if !bytes.Equal(finals[0][j].Final, finals[1][j].Final) {
				t.Errorf("%s: buffer %d differs between 1 and 4 workers", spec.Kernel, j)
			}
		}
	}
}

func TestParseArg(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		want string
	}{
		{"i32:-5", true, "fbffffff"},
		{"u64:0x10", true, "1000000000000000"},
		{"f32:1.5", true, "0000c03f"},
		{"buf:f32:3:iota", true, "000000000000803f00000040"},
		{"buf:u8:4:const:7", true, "07070707"},
		{"buf:i32:2:rand", true, ""},
		{"buf:i32:2:rand:9", true, ""},
		{"tex2d:f32:4:4", true, ""},
		{"i32:x", false, ""},
		{"buf:q32:3", false, ""},
		{"buf:f32:0", false, ""},
		{"buf:f32:3:bogus", false, ""},
		{"buf:f32:3:const", false, ""},
		{"ptr:1", false, ""},
		{"buf:i32:4:hot:100", true, "00000000000000000000000000000000"},
		{"buf:i32:4:hot:0:3", true, ""},
		{"buf:i32:4:hot", false, ""},
		{"buf:i32:4:hot:101", false, ""},
		{"buf:i32:4:hot:-1", false, ""},
		{"buf:i32:4:hot:x", false, ""},
		{"buf:i32:4:hot:5:y", false, ""},
		{"buf:i32:4:hot:5:1:2", false, ""},
	} {
		a, err := ParseArg(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseArg(%q): %v", tc.in, err)
			continue
		}
		if tc.want != "" && fmt.Sprintf("%x", a.InitBytes()) != tc.want {
			t.Errorf("ParseArg(%q).InitBytes() = %x, want %s", tc.in, a.InitBytes(), tc.want)
		}
	}
	// rand is documented: splitmix64 seeded with 1, x % 1000 for i32.
	a, _ := ParseArg("buf:i32:3:rand")
	g := splitmix64{1}
	for i, v := range i32s(a.InitBytes()) {
		if want := int32(g.next() % 1000); v != want {
			t.Errorf("rand element %d = %d, want %d", i, v, want)
		}
	}
	// hot:P:S is rand:S with about P% of the elements 0, the others rand's values;
	// hot:0 is rand.
	r, _ := ParseArg("buf:i32:100000:rand:7")
	want := i32s(r.InitBytes())
	for _, p := range []int{0, 10, 50, 90} {
		h, err := ParseArg(fmt.Sprintf("buf:i32:100000:hot:%d:7", p))
		if err != nil {
			t.Fatal(err)
		}
		zeros, kept := 0, 0
		for i, v := range i32s(h.InitBytes()) {
			switch {
			case v == want[i]:
				kept++
				if v == 0 {
					zeros++
				}
			case v == 0:
				zeros++
			default:
				t.Fatalf("hot:%d: element %d = %d, neither 0 nor rand's %d", p, i, v, want[i])
			}
		}
		if frac := float64(zeros) / 1e5; math.Abs(frac-float64(p)/100) > 0.01 {
			t.Errorf("hot:%d: %.1f%% of the elements are 0, want about %d%%", p, 100*frac, p)
		}
		if p == 0 && kept != 100000 {
			t.Errorf("hot:0: %d elements differ from rand", 100000-kept)
		}
	}
}

func TestPTXErrors(t *testing.T) {
	head := ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n"
	for _, tc := range []struct {
		body string
		line int
		msg  string
	}{
		{"frob.u32 %r1, %r2;\nret;\n}", 7, "unsupported instruction frob"},
		{"add.u32 %r1, %r2, %q;\nret;\n}", 7, "undefined name %q"},
		{"add.u32 %r1, %r2;\nret;\n}", 7, "wrong number of operands"},
		{"bra NOWHERE;\n}", 7, "not a label"},
		{"ld.global.f32 %r1, [%r2+4];\nret;\n}", 7, ""},
		{"add.u32 %r1, %r2, 1\nret;\n}", 8, "expected ';'"},
		{"cvt.s32.f32 %r1, %r2;\nret;\n}", 7, ".rzi"},
		{"add.cc.f32 %r1, %r2, 1;\nret;\n}", 7, "with a carry takes .u32, .s32, .u64 or .s64"},
		{".maxntid 1;\n}", 7, "unsupported directive"},
		{"shfl.sync.b32 %r1, %r2, 1, 31, -1;\nret;\n}", 7, "shfl needs one of .up .down .bfly .idx"},
		{"shfl.sync.rot.b32 %r1, %r2, 1, 31, -1;\nret;\n}", 7, "unsupported shfl mode .rot"},
		{"vote.sync.b32 %r1, 1, -1;\nret;\n}", 7, "vote needs one of .all .any .uni .ballot"},
		{"mov.b32 %r1, {%r2, %r3, %r1};\nret;\n}", 7, "bad pack"},
		{"mov.b32 {%r1, %r2, %r3}, %r2;\nret;\n}", 7, "bad unpack"},
	} {
		_, err := Load(Spec{PTX: []byte(head + tc.body), PTXName: "t.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(1, 1, 1), Args: []string{"buf:f32:1"}})
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.body, err)
			}
			continue
		}
		var pe *PTXError
		if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) || pe.File != "t.ptx" {
			t.Errorf("%q: got %v; want t.ptx:%d: ...%s", tc.body, err, tc.line, tc.msg)
		}
	}
}

// TestCorpora loads every kernel of the reference corpora (kernels/ptx from clang-14,
// kernels/ptx-nvcc from nvcc), so that an unsupported instruction anywhere shows here.
func TestCorpora(t *testing.T) {
	entries, parseErrs := corpusEntries(t)
	for _, err := range parseErrs {
		t.Error(err)
	}
	for _, e := range entries {
		if _, err := Load(e.spec); err != nil {
			t.Errorf("%s %s: %v", e.file, e.spec.Kernel, err)
		}
	}
}

// A corpusEntry is one kernel of a PTX file of the corpora, launched as one warp with
// every parameter 1.
type corpusEntry struct {
	file string // DIR/NAME.ptx
	spec Spec
}

// corpusEntries lists the kernels of kernels/ptx, kernels/ptx-nvcc and testdata, and
// the files that do not parse.
func corpusEntries(t testing.TB) ([]corpusEntry, []error) {
	var entries []corpusEntry
	var parseErrs []error
	for _, dir := range []string{"../kernels/ptx", "../kernels/ptx-nvcc", "testdata"} {
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Logf("%s: %v", dir, err)
			continue
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Name(), ".ptx") {
				continue
			}
			file := dir + "/" + f.Name()
			src, _ := os.ReadFile(file)
			mod, err := parsePTX(f.Name(), src)
			if err != nil {
				parseErrs = append(parseErrs, fmt.Errorf("%s: %v", file, err))
				continue
			}
			for _, fn := range mod.funcs {
				if !fn.entry {
					continue
				}
				args := make([]string, len(fn.params))
				for i, p := range fn.params {
					args[i] = "u32:1"
					if typeSize(p.typ) == 8 {
						args[i] = "u64:1"
					}
				}
				entries = append(entries, corpusEntry{file, Spec{PTX: src, PTXName: f.Name(), Kernel: fn.name, Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: args}})
			}
		}
	}
	return entries, parseErrs
}

// A guarded instruction reads its guard predicate, so that a timing replay's scoreboard
// waits for the setp that writes it: in the diverge kernel "@%p1 bra" reads the id
// "setp ... %p1" writes.
func TestGuardIsRead(t *testing.T) {
	k := load(t, Spec{Kernel: "diverge", Grid: d3(1, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:i32:32"}})
	written := map[string]uint16{}
	var guarded int
	for _, in := range k.Launch().Program.Insts {
		if strings.HasPrefix(in.PTX, "setp") && len(in.RegsWritten) == 1 {
			written[strings.TrimSuffix(strings.Fields(in.PTX)[1], ",")] = in.RegsWritten[0]
		}
		if !strings.HasPrefix(in.PTX, "@") {
			continue
		}
		guarded++
		g := strings.TrimPrefix(strings.TrimPrefix(strings.Fields(in.PTX)[0], "@"), "!")
		id, ok := written[g]
		if !ok {
			t.Fatalf("%q: no setp wrote %s before it", in.PTX, g)
		}
		if !slices.Contains(in.RegsRead, id) {
			t.Errorf("%q reads %v, not its guard %s (id %d)", in.PTX, in.RegsRead, g, id)
		}
	}
	if guarded == 0 {
		t.Fatal("no guarded instruction in the diverge kernel")
	}
}

// An atom whose result nothing reads is a reduction, as ptxas compiles it (SASS RED,
// counted by ncu under op_red), when its space and operation allow one; every other
// atom stays an atom.
func TestUnreadAtomIsReduction(t *testing.T) {
	ptx := `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<12>;
.reg .b64 %rd<4>;
.shared .align 4 .b32 sh;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
atom.global.add.u32 %r1, [%rd2], 1;
atom.global.add.u32 %r2, [%rd2], 1;
st.global.u32 [%rd2+4], %r2;
atom.shared.add.u32 %r3, [sh], 1;
atom.add.u32 %r4, [%rd1], 1;
atom.global.exch.b32 %r5, [%rd2+8], 0;
atom.global.cas.b32 %r6, [%rd2+8], 0, 1;
atom.global.max.s32 %r7, [%rd2+12], 3;
red.global.add.u32 [%rd2+16], 1;
ret;
}
`
	k, err := Load(Spec{PTX: []byte(ptx), PTXName: "t.ptx", Kernel: "k", Grid: d3(2, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:u32:8"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]format.MemOp{
		"atom.global.add.u32 %r1, [%rd2], 1;":      format.MemReduce, // result never read
		"atom.global.add.u32 %r2, [%rd2], 1;":      format.MemAtomic, // stored next
		"atom.shared.add.u32 %r3, [sh], 1;":        format.MemAtomic, // shared: ATOMS, no RED
		"atom.add.u32 %r4, [%rd1], 1;":             format.MemReduce, // generic
		"atom.global.exch.b32 %r5, [%rd2+8], 0;":   format.MemAtomic, // red has no exch
		"atom.global.cas.b32 %r6, [%rd2+8], 0, 1;": format.MemAtomic, // nor cas
		"atom.global.max.s32 %r7, [%rd2+12], 3;":   format.MemReduce,
		"red.global.add.u32 [%rd2+16], 1;":         format.MemReduce,
	}
	seen := 0
	for _, row := range k.insts {
		op, ok := want[row.PTX]
		if !ok {
			continue
		}
		seen++
		if row.MemOp != op {
			t.Errorf("%s: memop %v, want %v", row.PTX, row.MemOp, op)
		}
		if op == format.MemReduce && len(row.RegsWritten) != 0 {
			t.Errorf("%s: a reduction writes registers %v", row.PTX, row.RegsWritten)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d atomics in the program table", seen, len(want))
	}
	// The emulator still runs the PTX as written: 64 threads add 1 at word 0 three times
	// (two global atoms and the generic one, whose address is the same word).
	res, err := k.Run(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(res.Buffers[0].Final); got != 192 {
		t.Errorf("word 0 = %d after 64 threads added 1 three times, want 192", got)
	}
}

// min/max with .NaN (clang-14 emits it for a clamp on sm_80) and .xorsign.abs, as PTX ISA
// 8.x defines them: .NaN makes any NaN input give the canonical NaN 0x7fffffff; without
// it a NaN input gives the other operand. .xorsign.abs compares magnitudes and gives the
// result the xor of the inputs' signs, unless it is a NaN.
func TestMinMaxNaNAndXorsign(t *testing.T) {
	ptx := `.version 7.0
.target sm_86
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .f32 %f<16>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
mov.f32 %f1, 0f7FC00000;
mov.f32 %f2, 0f40000000;
mov.f32 %f3, 0fC0400000;
min.f32 %f4, %f1, %f2;
min.NaN.f32 %f5, %f1, %f2;
max.NaN.f32 %f6, %f2, %f3;
min.xorsign.abs.f32 %f7, %f2, %f3;
max.xorsign.abs.f32 %f8, %f2, %f3;
max.NaN.xorsign.abs.f32 %f9, %f3, %f3;
min.xorsign.abs.f32 %f10, %f1, %f3;
max.ftz.NaN.f32 %f11, %f3, %f1;
st.global.f32 [%rd2], %f4;
st.global.f32 [%rd2+4], %f5;
st.global.f32 [%rd2+8], %f6;
st.global.f32 [%rd2+12], %f7;
st.global.f32 [%rd2+16], %f8;
st.global.f32 [%rd2+20], %f9;
st.global.f32 [%rd2+24], %f10;
st.global.f32 [%rd2+28], %f11;
ret;
}
`
	spec := Spec{PTX: []byte(ptx), PTXName: "t.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(1, 1, 1), Args: []string{"buf:f32:8"}}
	res := run(t, spec, nil)
	want := []uint32{
		math.Float32bits(2),  // min(NaN, 2): the number
		0x7fffffff,           // min.NaN(NaN, 2): canonical NaN
		math.Float32bits(2),  // max.NaN(2, -3)
		math.Float32bits(-2), // min(|2|, |-3|), signs differ
		math.Float32bits(-3), // max(|2|, |-3|), signs differ
		math.Float32bits(3),  // max(|-3|, |-3|), signs agree
		math.Float32bits(-3), // min(|NaN|, |-3|) = 3; +NaN xor - = -
		0x7fffffff,           // max.ftz.NaN(-3, NaN)
	}
	for i, w := range want {
		if got := binary.LittleEndian.Uint32(res.Buffers[0].Final[4*i:]); got != w {
			t.Errorf("result %d = %#08x (%g), want %#08x (%g)", i, got, math.Float32frombits(got), w, math.Float32frombits(w))
		}
	}
	for _, bad := range []struct{ inst, msg string }{
		{"min.NaN.f64 %fd1, %fd2, %fd3;", ".f32 only"},
		{"min.xorsign.f32 %f1, %f2, %f3;", "needs .abs"},
		{"max.abs.f32 %f1, %f2, %f3;", "needs .xorsign"},
		{"min.NaN.s32 %r1, %r2, %r3;", ".f32 only"},
	} {
		src := strings.Replace(ptx, "min.f32 %f4, %f1, %f2;", ".reg .f64 %fd<4>;\n.reg .b32 %r<4>;\n"+bad.inst, 1)
		_, err := Load(Spec{PTX: []byte(src), PTXName: "t.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(1, 1, 1), Args: []string{"buf:f32:8"}})
		var pe *PTXError
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, bad.msg) {
			t.Errorf("%s: %v, want a PTX error saying %q", bad.inst, err, bad.msg)
		}
	}
}

// With line information in the PTX (what clang -gline-tables-only and nvcc -lineinfo
// emit, and capture --cu asks for), a PTX error leads with the CUDA line of the nearest
// .loc above it, and a fault names the line of its instruction. clang writes the .file
// directives and an empty DWARF section after the functions; .loc F 0 is code of no line.
func TestErrorsNameTheCUDALine(t *testing.T) {
	ptx := `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<4>;
.reg .f32 %f<4>;
.reg .b64 %rd<4>;
	.loc	1 11 3
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
	.loc	1 12 5
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd2, %rd2, %rd3;
	.loc	1 0 5
ld.global.f32 %f1, [%rd2];
st.global.f32 [%rd2], %f1;
ret;
}
	.section	.debug_loc	{	}
	.file	1 "/src/k.cu"
`
	spec := Spec{PTX: []byte(ptx), PTXName: "k.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:f32:32"}}
	k := load(t, spec)
	_, err := k.Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultOutOfBounds || f.Source != "/src/k.cu:12" || !strings.Contains(err.Error(), ") at /src/k.cu:12: ") {
		t.Errorf("out-of-bounds load under .loc 1 0 after .loc 1 12: %v, want a fault at /src/k.cu:12", err)
	}
	for _, tc := range []struct {
		edit, want string
	}{
		{"mul.wide.u32 %rd3, %r1, 4;", "/src/k.cu:12: frob.u32 %r2, %r1;: unsupported instruction frob [PTX line 14:1 of k.ptx]"},
		{"ld.param.u64 %rd1, [p];", "/src/k.cu:11: frob.u32 %r2, %r1;: unsupported instruction frob [PTX line 10:1 of k.ptx]"},
	} {
		bad := strings.Replace(ptx, tc.edit, "frob.u32 %r2, %r1;", 1)
		_, err := Load(Spec{PTX: []byte(bad), PTXName: "k.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(1, 1, 1), Args: []string{"buf:f32:1"}})
		var pe *PTXError
		if !errors.As(err, &pe) || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
	// No .loc above the line in its function: the PTX position alone.
	bad := strings.Replace(ptx, ".reg .b32 %r<4>;", "frob;", 1)
	if _, err := Load(Spec{PTX: []byte(bad), PTXName: "k.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(1, 1, 1)}); err == nil || !strings.HasPrefix(err.Error(), "k.ptx:6:1: ") {
		t.Errorf("error before any .loc: %v, want it at k.ptx:6:1", err)
	}
	// Only DWARF sections are skipped.
	bad = strings.Replace(ptx, ".debug_loc", ".nv.info", 1)
	if _, err := Load(Spec{PTX: []byte(bad), PTXName: "k.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(1, 1, 1)}); err == nil || !strings.Contains(err.Error(), "unsupported section .nv.info") {
		t.Errorf("a .nv.info section: %v, want it refused by name", err)
	}
}

// headerPTX is what clang-14 makes of a kernel that calls header functions: one inlined
// (its instructions under the header's .loc, with no inlined_at) and one called, h.
const headerPTX = `.version 7.0
.target sm_80
.address_size 64
.func h(.param .b64 q)
{
.reg .b64 %rd<3>;
.reg .f32 %f<2>;
	.loc	2 40 3
ld.param.u64 %rd1, [q];
ld.global.f32 %f1, [%rd1+4096];
ret;
}
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<4>;
.reg .f32 %f<4>;
.reg .b64 %rd<4>;
	.loc	1 11 3
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
	.loc	1 12 5
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 8;
	.loc	1 0 5
add.s64 %rd2, %rd2, %rd3;
	.loc	2 147 48
ld.global.f32 %f1, [%rd2];
	.loc	1 13 3
st.global.f32 [%rd2], %f1;
	.loc	1 14 3
{
.param .b64 a;
st.param.b64 [a], %rd2;
call h, (a);
}
ret;
}
	.file	1 "/src/k.cu"
	.file	2 "/inc/gtrace_cuda_runtime.h"
`

// A fault, or an out-of-bounds access under OOBWarn, in a header function inlined into
// the kernel (thread i reads element 2i) names the user's line nearest above it first, then the header's line; in
// the user's own lines, or in a called header function with no user line of its own,
// the line alone.
func TestHeaderFaultNamesTheCall(t *testing.T) {
	spec := Spec{PTX: []byte(headerPTX), PTXName: "k.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(64, 1, 1), Args: []string{"buf:f32:32"}}
	_, err := load(t, spec).Run(context.Background(), 0, nil)
	var f *Fault
	if want := "/src/k.cu:12, in /inc/gtrace_cuda_runtime.h:147"; !errors.As(err, &f) || f.Source != want || !strings.Contains(err.Error(), ") at "+want+": ") {
		t.Errorf("out-of-bounds load in an inlined header function: %v, want it at %s", err, want)
	}
	spec.Args = []string{"buf:f32:128"}
	_, err = load(t, spec).Run(context.Background(), 0, nil)
	if want := "/inc/gtrace_cuda_runtime.h:40"; !errors.As(err, &f) || f.Source != want {
		t.Errorf("out-of-bounds load in a called header function: %v, want it at %s", err, want)
	}
	spec.Args, spec.OOB = []string{"buf:f32:32"}, OOBWarn
	res := run(t, spec, nil)
	var got []string
	for _, a := range res.OOB {
		got = append(got, a.Source)
	}
	want := []string{"/src/k.cu:12, in /inc/gtrace_cuda_runtime.h:147", "/src/k.cu:13", "/inc/gtrace_cuda_runtime.h:40"}
	if !slices.Equal(got, want) {
		t.Errorf("--oob=warn sources %q, want %q", got, want)
	}
}

// votePTX: each lane votes over its own tile of 8 lanes (membermask 0xff << (lane & ~7)),
// as cooperative groups' thread_block_tile<8>::ballot and ::all do; lane i's predicate
// is i%3 == 0. Out: ballot, then all, per thread.
const votePTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry tilevote(.param .u64 po)
{
.reg .pred %p<4>;
.reg .b32 %r<12>;
.reg .b64 %rd<6>;
ld.param.u64 %rd1, [po];
cvta.to.global.u64 %rd1, %rd1;
mov.u32 %r1, %laneid;
and.b32 %r2, %r1, 24;
shl.b32 %r3, 255, %r2;
rem.u32 %r4, %r1, 3;
setp.eq.u32 %p1, %r4, 0;
vote.sync.ballot.b32 %r5, %p1, %r3;
vote.sync.all.pred %p2, %p1, %r3;
selp.u32 %r6, 1, 0, %p2;
mul.wide.u32 %rd2, %r1, 8;
add.s64 %rd3, %rd1, %rd2;
st.global.v2.u32 [%rd3], {%r5, %r6};
ret;
}
`

// A lane's vote covers the lanes of its own membermask, not of the warp's first lane.
func TestVotePerLaneMask(t *testing.T) {
	res := run(t, Spec{PTX: []byte(votePTX), PTXName: "vote.ptx", Kernel: "tilevote", Grid: d3(1, 1, 1),
		Block: d3(32, 1, 1), Args: []string{"buf:u32:64"}}, nil)
	got := i32s(res.Buffers[0].Final)
	for lane := 0; lane < 32; lane++ {
		base := lane &^ 7
		var ballot int32
		for j := base; j < base+8; j++ {
			if j%3 == 0 {
				ballot |= 1 << j
			}
		}
		all := int32(0)
		if ballot == 0xff<<base {
			all = 1
		}
		if got[2*lane] != ballot || got[2*lane+1] != all {
			t.Errorf("lane %d: ballot %#x all %d; want %#x %d", lane, got[2*lane], got[2*lane+1], ballot, all)
		}
	}
}
