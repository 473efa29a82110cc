package host

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// The host shadows of symbols.cu's variables, and its kernel's stub.
const (
	coefVar  = 0x500000
	hitsVar  = 0x500010
	tableVar = 0x500020
	polyStub = 0x401200
)

// newSymbols is a runtime with cudart/fatbin/testdata/symbols.fatbin registered as nvcc's
// start-up code would: its kernel and its three variables.
func newSymbols(t *testing.T) *Runtime {
	t.Helper()
	r, h := newRuntime(t, filepath.Join(t.TempDir(), "sym.gtrace"), "symbols.fatbin")
	t.Cleanup(func() { r.Close(context.Background()) })
	if err := r.RegisterFunction(h, polyStub, "_Z4polyPKfPfi"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		host     uintptr
		name     string
		size     uint64
		constant bool
	}{{coefVar, "coef", 16, true}, {hitsVar, "hits", 4, false}, {tableVar, "table", 32, false}} {
		if err := r.RegisterVar(h, v.host, v.name, v.size, v.constant); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// A program's symbol calls, before and between launches: the __constant__ coefficients
// written before each launch are the ones it reads, the initialised __device__ table
// reads back before any launch, a __device__ counter set through a device-to-device
// copy keeps the kernel's atomics across launches, and its address is a device
// address the runtime's own copies reach.
func TestProgramSymbols(t *testing.T) {
	r := newSymbols(t)
	tbl := make([]byte, 32)
	if err := r.MemcpyFromSymbol(fromSymbol, 0x7ff000, tbl, tableVar, 0, DeviceToHost); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(tbl[4*i:])); g != float32(i+1) {
			t.Fatalf("table[%d] = %v before any launch, want its initialiser's %d", i, g, i+1)
		}
	}
	const n = 256
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%16) - 8
	}
	dx, _ := r.Malloc(4 * n)
	dy, _ := r.Malloc(4 * n)
	seed, _ := r.Malloc(4)
	if err := r.Memcpy(memcpy, dx, 0x7ff000, make([]byte, 4*n), f32s(x), HostToDevice); err != nil {
		t.Fatal(err)
	}
	if err := r.Memcpy(memcpy, seed, 0x7ff000, make([]byte, 4), le32(1000), HostToDevice); err != nil {
		t.Fatal(err)
	}
	if err := r.MemcpyToSymbol(toSymbol, hitsVar, seed, make([]byte, 4), 0, Default); err != nil {
		t.Fatal(err)
	}
	want := uint32(1000)
	for launch, coef := range [][]float32{{1, -2, 0, 0.5}, {-3, 0, 1, 0}} {
		if err := r.MemcpyToSymbol(toSymbol, coefVar, 0x7ff000, f32s(coef), 0, HostToDevice); err != nil {
			t.Fatal(err)
		}
		grid := format.Dim3{X: 2, Y: 1, Z: 1}
		if err := r.Launch(context.Background(), polyStub, Config{Grid: grid, Block: format.Dim3{X: 128, Y: 1, Z: 1}},
			[][]byte{le64(dx), le64(dy), le32(n)}); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 4*n)
		if err := r.Memcpy(memcpy, 0x7ff000, dy, got, nil, DeviceToHost); err != nil {
			t.Fatal(err)
		}
		for i, v := range x {
			y := ((coef[3]*v+coef[2])*v+coef[1])*v + coef[0] + float32(i%8+1)
			if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != y {
				t.Fatalf("launch %d: y[%d] = %v, want %v", launch, i, g, y)
			}
			if y > 0 {
				want++
			}
		}
	}
	addr, err := r.SymbolAddress(hitsVar)
	if err != nil {
		t.Fatal(err)
	}
	h := make([]byte, 4)
	if err := r.Memcpy(memcpy, 0x7ff000, addr, h, nil, Default); err != nil || binary.LittleEndian.Uint32(h) != want {
		t.Errorf("hits at its address = %d (%v), want %d", binary.LittleEndian.Uint32(h), err, want)
	}
	if err := r.MemcpyFromSymbol(fromSymbol, seed, make([]byte, 4), hitsVar, 0, DeviceToDevice); err != nil {
		t.Fatal(err)
	}
	if err := r.Memcpy(memcpy, 0x7ff000, seed, h, nil, DeviceToHost); err != nil || binary.LittleEndian.Uint32(h) != want {
		t.Errorf("hits copied device to device = %d (%v), want %d", binary.LittleEndian.Uint32(h), err, want)
	}
	if size, err := r.SymbolSize(tableVar); err != nil || size != 32 {
		t.Errorf("SymbolSize(table) = %d, %v", size, err)
	}
}

// Bad symbol calls return the code the CUDA runtime would, with words naming what is
// wrong.
func TestSymbolCallErrors(t *testing.T) {
	r := newSymbols(t)
	if err := r.RegisterVar(1, 0x500100, "nosuch", 4, false); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterVar(1, 0x500200, "hits", 8, false); err != nil {
		t.Fatal(err)
	}
	four := make([]byte, 4)
	for _, c := range []struct {
		what string
		err  error
		code Code
		says string
	}{
		{"an unregistered symbol", r.MemcpyToSymbol(toSymbol, 0x1234, 0x7ff000, four, 0, HostToDevice), InvalidSymbol, "no registered __device__ or __constant__ variable"},
		{"a variable the PTX lacks", r.MemcpyToSymbol(toSymbol, 0x500100, 0x7ff000, four, 0, HostToDevice), InvalidSymbol, `no .global or .const variable "nosuch"`},
		{"a size the PTX does not declare", r.MemcpyToSymbol(toSymbol, 0x500200, 0x7ff000, four, 0, HostToDevice), InvalidSymbol, "registered as __device__ of 8 bytes, the PTX declares __device__ of 4 bytes"},
		{"past the end", r.MemcpyToSymbol(toSymbol, coefVar, 0x7ff000, make([]byte, 8), 12, HostToDevice), InvalidValue, "8 bytes at offset 12 do not fit in its 16 bytes"},
		{"from past the end", r.MemcpyFromSymbol(fromSymbol, 0x7ff000, make([]byte, 40), tableVar, 0, DeviceToHost), InvalidValue, "40 bytes at offset 0"},
		{"to a symbol, device to host", r.MemcpyToSymbol(toSymbol, coefVar, 0x7ff000, four, 0, DeviceToHost), InvalidMemcpyDir, "HtoD or DtoD, not DtoH"},
		{"from a symbol, host to device", r.MemcpyFromSymbol(fromSymbol, 0x7ff000, four, coefVar, 0, HostToDevice), InvalidMemcpyDir, "DtoH or DtoD, not HtoD"},
		{"device to device from nowhere", r.MemcpyToSymbol(toSymbol, hitsVar, 0x10, four, 0, DeviceToDevice), InvalidValue, "outside every allocation"},
		{"the address of a constant", func() error { _, err := r.SymbolAddress(coefVar); return err }(), NotSupported, "cudaMemcpyToSymbol"},
		{"the size of nothing", func() error { _, err := r.SymbolSize(0x99); return err }(), InvalidSymbol, "cudaGetSymbolSize"},
		{"an unknown fat binary", r.RegisterVar(7, 1, "v", 4, false), InvalidResourceHandle, "no fat binary 7"},
	} {
		var e *Error
		if !errors.As(c.err, &e) || e.Code != c.code || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: %v, want code %d saying %q", c.what, c.err, c.code, c.says)
		}
	}
}
