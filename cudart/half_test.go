package cudart

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/internal/clangtest"
	"github.com/x448/float16"
)

// f16 is x448/float16's conversion (round to nearest even, subnormals kept): a
// reference written apart from capture's.
func f16(f float32) uint32 { return uint32(float16.Fromfloat32(f).Bits()) }

func f16v(h uint32) float32 { return float16.Frombits(uint16(h)).Float32() }

// bf16 rounds x to 8 significant bits, to nearest even (math/big), for the normal
// values the test makes.
func bf16(x float64) uint32 {
	f, _ := new(big.Float).SetMode(big.ToNearestEven).SetPrec(8).SetFloat64(x).Float32()
	return math.Float32bits(f) >> 16
}

func bf16v(h uint32) float32 { return math.Float32frombits(h << 16) }

func b2i(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// TestHalfTypes: __half, __half2, __nv_bfloat16 and __nv_bfloat162 from cuda_fp16.h and
// cuda_bf16.h, compiled by clang-14 and captured, against Go: conversions, + - * /,
// comparisons, pairs, min/max, fma, integer conversions (bfloat16's through float
// with round-to-odd), shuffles and atomicAdd.
func TestHalfTypes(t *testing.T) {
	const threads = 64
	out := launch(t, "halfs", 1, threads, "buf:f32:64:rand:7", "buf:f32:64:rand:8", "buf:u32:1536", "buf:u16:1", "buf:u16:1")
	xa, _ := capture.ParseArg("buf:f32:64:rand:7")
	ya, _ := capture.ParseArg("buf:f32:64:rand:8")
	xs, ys := f32s(xa.InitBytes()), f32s(ya.InitBytes())
	got := u32s(out[2])
	in := func(i int) (float32, float32) { return (xs[i] - 0.5) * 200, (ys[i] - 0.5) * 200 }
	for i := 0; i < threads; i++ {
		fa, fb := in(i)
		a, b := f16(fa), f16(fb)
		av, bv := f16v(a), f16v(b)
		c, d := bf16(float64(fa)), bf16(float64(fb))
		cv, dv := bf16v(c), bf16v(d)
		k := float32(i%33 - 16)
		na, _ := in(i ^ 1)
		want := []uint32{
			0:  a,
			1:  f16(av + bv),
			2:  f16(av - bv),
			3:  f16(av * bv),
			4:  f16(av / bv),
			5:  b2i(av < bv) | b2i(av == bv)<<1 | b2i(av >= bv)<<2,
			6:  a | b<<16,
			7:  f16(av*bv) | f16(bv*av)<<16,
			8:  math.Float32bits(av),
			9:  f16(max(av, bv)) | f16(min(av, bv))<<16,
			10: uint32(int32(math.RoundToEven(float64(av)))),
			11: f16(float32(math.Sqrt(math.Abs(float64(av))))) | (a^0x8000)<<16,
			12: f16(k*(k+3) - k),
			13: c,
			14: bf16(float64(cv + dv)),
			15: bf16(float64(cv - dv)),
			16: bf16(float64(cv * dv)),
			17: bf16(float64(cv / dv)),
			18: b2i(cv < dv) | b2i(cv == dv)<<1 | b2i(cv >= dv)<<2,
			19: bf16(float64(2*cv)) | bf16(float64(2*dv))<<16,
			20: math.Float32bits(cv),
			21: bf16(float64(k*(k+3)-k)) | bf16(float64(i*1234567+16777217))<<16,
			22: f16(na) | bf16(float64(na))<<16,
			23: bf16(float64(max(cv, dv))) | bf16(float64(min(cv, dv)))<<16,
		}
		for j, w := range want {
			if g := got[24*i+j]; g != w {
				t.Errorf("thread %d (a %v, b %v) slot %d: %#x; want %#x", i, fa, fb, j, g, w)
			}
		}
	}
	if h := uint32(out[3][0]) | uint32(out[3][1])<<8; h != f16(threads) {
		t.Errorf("atomicAdd(__half *): %#x; want %#x (%d)", h, f16(threads), threads)
	}
	if h := uint32(out[4][0]) | uint32(out[4][1])<<8; h != bf16(threads) {
		t.Errorf("atomicAdd(__nv_bfloat16 *): %#x; want %#x (%d)", h, bf16(threads), threads)
	}
}

// halfHostProgram converts float bit patterns on the host, through the headers'
// software paths (halfHostInputs: a sweep of all floats, and the rounding ties of
// both formats with their neighbours), and every half and bfloat16 pattern back.
const halfHostProgram = `#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdio.h>
static void conv(unsigned int u)
{
	float f = __builtin_bit_cast(float, u);
	printf("%04x %04x\n", __half_as_ushort(__float2half(f)), __bfloat16_as_ushort(__float2bfloat16(f)));
}
int main(void)
{
	for (unsigned long long u = 0; u < 1ull << 32; u += 65521)
		conv((unsigned int)u);
	for (unsigned int hi = 0x33000000u >> 13; hi < 0x47800000u >> 13; hi += 7)
		for (unsigned int lo = 0x0fff; lo <= 0x1001; lo++)
			conv(hi << 13 | lo | (hi & 1) << 31);
	for (unsigned int hi = 0x0080; hi < 0xff80; hi += 13)
		for (unsigned int lo = 0x7fff; lo <= 0x8001; lo++)
			conv(hi << 16 | lo);
	for (unsigned int h = 0; h < 65536; h++)
		printf("%08x %08x\n", __builtin_bit_cast(unsigned int, __half2float(__ushort_as_half((unsigned short)h))),
		       __builtin_bit_cast(unsigned int, __bfloat162float(__ushort_as_bfloat16((unsigned short)h))));
	return 0;
}
`

// TestHalfHostConversions: the host side of __float2half, __half2float,
// __float2bfloat16 and __bfloat162float (software, in the headers), compiled for the
// host by clang-14 and run, against x448/float16 and math/big; NaNs are the canonical
// 0x7fff and 0x7fffffff, as on the GPU.
func TestHalfHostConversions(t *testing.T) {
	clang := clangtest.Clang14(t)
	dir, err := IncludeDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	src, bin := filepath.Join(work, "conv.cu"), filepath.Join(work, "conv")
	if err := os.WriteFile(src, []byte(halfHostProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := strings.TrimSuffix(clang, "clang-14") + "clang++-14"
	if b, err := exec.Command(cc, "-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version",
		"-I", dir, "-include", Header, "-O1", src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines, bad := strings.Split(strings.TrimSpace(string(out)), "\n"), 0
	check := func(what string, got, want uint64) {
		if got != want {
			if bad++; bad <= 10 {
				t.Errorf("%s: %#x; want %#x", what, got, want)
			}
		}
	}
	n := 0
	for _, u := range halfHostInputs() {
		var h, b uint64
		fmt.Sscanf(lines[n], "%x %x", &h, &b)
		f := math.Float32frombits(u)
		wantH, wantB := uint64(f16(f)), uint64(0x7fff)
		if f != f {
			wantH = 0x7fff
		} else if e := uint32(u) >> 23 & 0xff; e != 0 && e != 0xff {
			wantB = uint64(bf16(float64(f)))
		} else {
			wantB = b // subnormal and infinite inputs: not covered by the math/big reference
		}
		check(fmt.Sprintf("__float2half(%#x)", u), h, wantH)
		check(fmt.Sprintf("__float2bfloat16(%#x)", u), b, wantB)
		n++
	}
	for x := uint64(0); x < 65536; x++ {
		var h, b uint64
		fmt.Sscanf(lines[n+int(x)], "%x %x", &h, &b)
		wantH := uint64(math.Float32bits(f16v(uint32(x))))
		if f16v(uint32(x)) != f16v(uint32(x)) {
			wantH = 0x7fffffff
		}
		check(fmt.Sprintf("__half2float(%#x)", x), h, wantH)
		check(fmt.Sprintf("__bfloat162float(%#x)", x), b, x<<16)
	}
	if len(lines) != n+65536 {
		t.Errorf("%d lines; want %d", len(lines), n+65536)
	}
	if bad > 10 {
		t.Errorf("%d conversions differ", bad)
	}
}

// halfHostInputs are halfHostProgram's float bit patterns, in its order.
func halfHostInputs() []uint32 {
	var us []uint32
	for u := uint64(0); u < 1<<32; u += 65521 {
		us = append(us, uint32(u))
	}
	for hi := uint32(0x33000000 >> 13); hi < 0x47800000>>13; hi += 7 {
		for lo := uint32(0x0fff); lo <= 0x1001; lo++ {
			us = append(us, hi<<13|lo|(hi&1)<<31)
		}
	}
	for hi := uint32(0x0080); hi < 0xff80; hi += 13 {
		for lo := uint32(0x7fff); lo <= 0x8001; lo++ {
			us = append(us, hi<<16|lo)
		}
	}
	return us
}

// TestHalfTypesOnGPU: the halfs kernel, compiled by clang-14 with these headers, as an
// H100 ran it (scripts/hw/halfs.py on the same PTX and inputs): capture writes the same
// bytes, every result and both atomicAdd totals.
func TestHalfTypesOnGPU(t *testing.T) {
	gpu, err := os.ReadFile("../traces/hw/h100-2026-11-26-halfs/halfs.bin")
	if err != nil {
		t.Fatal(err)
	}
	out := launch(t, "halfs", 1, 64, "buf:f32:64:rand:7", "buf:f32:64:rand:8", "buf:u32:1536", "buf:u16:1", "buf:u16:1")
	got := append(append(append([]byte{}, out[2]...), out[3]...), out[4]...)
	if len(got) != len(gpu) {
		t.Fatalf("%d bytes; the H100 wrote %d", len(got), len(gpu))
	}
	g, w := u32s(got[:6144]), u32s(gpu[:6144])
	for i := range w {
		if g[i] != w[i] {
			t.Errorf("thread %d slot %d: %#x; the H100 %#x", i/24, i%24, g[i], w[i])
		}
	}
	if string(got[6144:]) != string(gpu[6144:]) {
		t.Errorf("atomicAdd totals %x; the H100 %x", got[6144:], gpu[6144:])
	}
}
