package host

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

const (
	saxpyStub = 0x401000
	scaleStub = 0x401100
)

// newRuntime is a runtime writing to out, with the fat binary of cudart/fatbin/testdata's
// file registered; it returns the fat binary's handle.
func newRuntime(t *testing.T, out, file string) (*Runtime, int) {
	t.Helper()
	r, err := New(Options{Out: out, Producer: "test", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.ReadFile(filepath.Join("..", "fatbin", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.RegisterFatBinary(fb)
	if err != nil {
		t.Fatal(err)
	}
	return r, h
}

// newSaxpy is a runtime with the fat binary of cudart/fatbin/testdata/saxpy.cu (LZ4
// compressed, as nvcc writes it by default) registered as nvcc's start-up code would.
func newSaxpy(t *testing.T) (*Runtime, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.gtrace")
	r, h := newRuntime(t, out, "lz4.fatbin")
	for stub, name := range map[uintptr]string{saxpyStub: "_Z5saxpyifPKfPf", scaleStub: "_Z5scalePff"} {
		if err := r.RegisterFunction(h, stub, name); err != nil {
			t.Fatal(err)
		}
	}
	return r, out
}

func f32s(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// The saxpy program's calls, in its order: two allocations, two copies in, saxpy then
// scale through <<<>>>'s push and pop, a copy out (cudaMemcpyDefault), frees. The values
// are Go's, and the trace holds both launches in order.
func TestProgramCalls(t *testing.T) {
	r, out := newSaxpy(t)
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range n {
		x[i], y[i] = float32(i), float32(n-i)
	}
	dx, err := r.Malloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	dy, _ := r.Malloc(4 * n)
	for _, c := range []struct {
		dst  uint64
		data []byte
		kind MemcpyKind
	}{{dx, f32s(x), HostToDevice}, {dy, f32s(y), Default}} {
		if err := r.Memcpy(memcpy, c.dst, 0x7ff000, make([]byte, len(c.data)), c.data, c.kind); err != nil {
			t.Fatal(err)
		}
	}
	launch := func(stub uintptr, grid, block uint32, params ...[]byte) {
		t.Helper()
		r.PushConfig(Config{Grid: format.Dim3{X: grid, Y: 1, Z: 1}, Block: format.Dim3{X: block, Y: 1, Z: 1}})
		c, err := r.PopConfig()
		if err != nil {
			t.Fatal(err)
		}
		sizes, err := r.ParamSizes(stub)
		if err != nil || len(sizes) != len(params) {
			t.Fatalf("ParamSizes = %v, %v; want %d", sizes, err, len(params))
		}
		if err := r.Launch(context.Background(), stub, c, params); err != nil {
			t.Fatal(err)
		}
	}
	launch(saxpyStub, 4, 256, le32(n), le32(math.Float32bits(2)), le64(dx), le64(dy))
	launch(scaleStub, 1, 32, le64(dy), le32(math.Float32bits(0.5)))
	got := make([]byte, 4*n)
	if err := r.Memcpy(memcpy, 0x7ff000, dy, got, nil, Default); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		want := 2*x[i] + y[i]
		if i < 32 {
			want *= 0.5
		}
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != want {
			t.Fatalf("y[%d] = %v, want %v", i, g, want)
		}
	}
	for _, p := range []uint64{dx, dy} {
		if err := r.Free(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rd, err := format.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ls := rd.Meta().Launches
	if len(ls) != 2 || ls[0].Kernel != "_Z5saxpyifPKfPf" || ls[1].Kernel != "_Z5scalePff" || rd.NumCTAs(0) != 4 || rd.NumCTAs(1) != 1 {
		t.Fatalf("trace launches %+v", ls)
	}
	var insts [2]int
	for w, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		insts[w.Kernel] += w.Len()
	}
	// The copies, in order among the launches: two inputs before the first, the result
	// after the second.
	wantCopies := []format.Transfer{{Call: "cudaMemcpy", Kind: format.HostToDevice, Bytes: 4 * n},
		{Call: "cudaMemcpy", Kind: format.HostToDevice, Bytes: 4 * n}, {Call: "cudaMemcpy", Kind: format.DeviceToHost, Bytes: 4 * n, After: 2}}
	if got := rd.Meta().Transfers; !slices.Equal(got, wantCopies) {
		t.Errorf("the trace's copies:\n%+v\nwant\n%+v", got, wantCopies)
	}
	if n, total := r.Launches(); n != 2 || uint64(insts[0]+insts[1]) != total || insts[1] == 0 {
		t.Errorf("Launches() = %d, %d; the trace holds %v warp-instructions", n, total, insts)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".run.gtrace.launches-*")); len(left) > 0 {
		t.Errorf("Close left the spooled launches: %v", left)
	}
}

// Bad calls return the code the CUDA runtime would, with words naming what is wrong.
func TestProgramCallErrors(t *testing.T) {
	r, out := newSaxpy(t)
	dx, _ := r.Malloc(16)
	if e := r.Refuse(); e != nil {
		t.Fatalf("Refuse before any fault = %v", e)
	}
	for _, c := range []struct {
		what string
		err  error
		code Code
		says string
	}{
		{"unregistered stub", r.Launch(context.Background(), 0x1234, Config{}, nil), InvalidDeviceFunc, "no registered kernel"},
		{"pop with nothing pushed", func() error { _, err := r.PopConfig(); return err }(), InvalidConfiguration, "no configuration pushed"},
		{"bad copy kind", r.Memcpy(memcpy, dx, 0x7ff000, make([]byte, 4), make([]byte, 4), 7), InvalidMemcpyDir, "kind 7"},
		{"copy past the end", r.Memcpy(memcpy, dx, 0x7ff000, make([]byte, 32), make([]byte, 32), HostToDevice), InvalidValue, "outside every allocation"},
		{"free twice", func() error { r.Free(dx); return r.Free(dx) }(), InvalidDevicePointer, "cudaFree"},
		{"memset of nothing", r.Memset(0x99, 0, 4), InvalidValue, "cudaMemset"},
		{"unknown fat binary", r.RegisterFunction(9, 1, "k"), InvalidResourceHandle, "no fat binary 9"},
		{"garbage fat binary", func() error { _, err := r.RegisterFatBinary([]byte("not a fat binary")); return err }(), InvalidPTX, "fat binary"},
		{"a launch that faults", r.Launch(context.Background(), scaleStub, Config{Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}},
			[][]byte{le64(0x10), le32(0)}), IllegalAddress, "_Z5scalePff"},
		{"a launch with a bad block", r.Launch(context.Background(), scaleStub, Config{Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 2048, Y: 1, Z: 1}},
			[][]byte{le64(0x10), le32(0)}), InvalidConfiguration, "1024 threads"},
		{"a launch with too few parameters", r.Launch(context.Background(), scaleStub, Config{Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}},
			[][]byte{le64(0x10)}), InvalidValue, "takes 2 parameters"},
	} {
		var e *Error
		if !errors.As(c.err, &e) || e.Code != c.code || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: %v, want code %d saying %q", c.what, c.err, c.code, c.says)
		}
	}
	// The fault is sticky: Refuse returns it from now on and counts each call it refuses.
	// Only the launch that faulted counts as failed (and the one that had too few
	// parameters: capture could not load it); a bad configuration a GPU refuses too
	// does not.
	for range 3 {
		if e := r.Refuse(); e == nil || e.Code != IllegalAddress || e != r.Sticky() {
			t.Fatalf("Refuse after the fault = %v, want the fault's cudaErrorIllegalAddress", e)
		}
	}
	if failed, refused := r.Failed(); failed != 2 || refused != 3 {
		t.Errorf("Failed() = %d launches, %d calls refused; want 2 and 3", failed, refused)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a program that launched nothing wrote a trace: %v", err)
	}
}

// Each code has the name and words of CUDA 11.8's driver_types.h; the fault kinds
// map to the codes an H100 returns for them (examples/cuda/fault.cu).
func TestCodeWords(t *testing.T) {
	for c, want := range map[Code][2]string{IllegalAddress: {"cudaErrorIllegalAddress", "an illegal memory access was encountered"},
		MisalignedAddress: {"cudaErrorMisalignedAddress", "misaligned address"}, 12345: {"cudaErrorUnknown", "unrecognized error code"}} {
		if c.Name() != want[0] || c.Text() != want[1] {
			t.Errorf("code %d: %q, %q; want %q", int(c), c.Name(), c.Text(), want)
		}
	}
	for k, want := range map[capture.FaultKind]Code{capture.FaultOutOfBounds: IllegalAddress, capture.FaultMisaligned: MisalignedAddress,
		capture.FaultTrap: LaunchFailure, capture.FaultBudget: LaunchTimeout, capture.FaultBarrierDeadlock: LaunchFailure} {
		if got := faultCode(fmt.Errorf("launch: %w", &capture.Fault{Kind: k})); got != want {
			t.Errorf("a %s fault: %s, want %s", k, got.Name(), want.Name())
		}
	}
	if got := faultCode(context.Canceled); got != LaunchFailure {
		t.Errorf("a launch cut short: %s, want cudaErrorLaunchFailure", got.Name())
	}
}

// What gtrace run sets (Environ), the stand-in reads back (OptionsFromEnv); bad values
// are errors naming the variable.
func TestEnvironRoundTrip(t *testing.T) {
	env := map[string]string{}
	c2050, err := arch.Lookup("c2050", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range Environ(Options{Out: "/t/x.gtrace", SIMT: format.SIMTITS, Workers: 3, GPU: c2050, OOB: capture.OOBWarn}, "/t/s.json", 3*time.Second) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	opts, status, every, err := OptionsFromEnv(func(k string) string { return env[k] })
	if err != nil || opts.Out != "/t/x.gtrace" || opts.SIMT != format.SIMTITS || opts.Workers != 3 || status != "/t/s.json" ||
		opts.GPU == nil || opts.GPU.GPU != "c2050" || opts.OOB != capture.OOBWarn || every != 3*time.Second {
		t.Fatalf("OptionsFromEnv = %+v, %q, %v, %v", opts, status, every, err)
	}
	if opts, _, every, _ := OptionsFromEnv(func(string) string { return "" }); opts.Out != DefaultTrace || opts.SIMT != format.SIMTStack ||
		opts.OOB != capture.OOBFault || every != -1 {
		t.Errorf("by hand: %+v, progress %v; want %s under the stack model, no progress", opts, every, DefaultTrace)
	}
	for k, v := range map[string]string{EnvSIMT: "warp", EnvWorkers: "-1", EnvGPU: "hopper/h300", EnvOOB: "skip", EnvProgress: "often"} {
		_, _, _, err := OptionsFromEnv(func(key string) string {
			if key == k {
				return v
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v, want an error naming %s", k, v, err, k)
		}
	}
}

// The synchronous copy calls, as the shim names them.
var (
	memcpy     = Copy{Call: "cudaMemcpy"}
	toSymbol   = Copy{Call: "cudaMemcpyToSymbol"}
	fromSymbol = Copy{Call: "cudaMemcpyFromSymbol"}
)
