package host

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// cudaMallocPitch's pitches are an H100's (examples/cuda/pitch.cu,
// traces/hw/h100-2026-11-26-pitch): the row rounded up to 512 bytes; no width or no rows
// allocate nothing and give pitch 0.
func TestMallocPitch(t *testing.T) {
	r, _ := newSaxpy(t)
	for w, want := range map[uint64]uint64{1: 512, 4: 512, 100: 512, 511: 512, 512: 512, 513: 1024, 1000: 1024,
		1024: 1024, 1200: 1536, 4096: 4096, 5000: 5120, 70000: 70144} {
		addr, pitch, err := r.MallocPitch(w, 3)
		if err != nil || pitch != want || addr == 0 {
			t.Errorf("MallocPitch(%d, 3) = %#x, %d, %v; want pitch %d", w, addr, pitch, err, want)
		}
		if err := r.dev.Check(addr, 3*pitch); err != nil {
			t.Errorf("MallocPitch(%d, 3): the allocation does not hold 3 rows of %d: %v", w, pitch, err)
		}
	}
	for _, wh := range [][2]uint64{{0, 4}, {64, 0}} {
		if addr, pitch, err := r.MallocPitch(wh[0], wh[1]); addr != 0 || pitch != 0 || err != nil {
			t.Errorf("MallocPitch(%d, %d) = %#x, %d, %v; want nothing, pitch 0", wh[0], wh[1], addr, pitch, err)
		}
	}
	var e *Error
	if _, _, err := r.MallocPitch(1<<40, 1<<30); !errors.As(err, &e) || e.Code != MemoryAllocation || !strings.Contains(e.Msg, "cudaMallocPitch") {
		t.Errorf("MallocPitch of 2^70 bytes: %v, want cudaErrorMemoryAllocation naming cudaMallocPitch", err)
	}
}

// cudaMemcpy2D copies the rows and nothing between them, in every direction, and is
// one copy of width*height bytes in the trace; cudaMemset2D sets a window.
func TestMemcpy2D(t *testing.T) {
	r, _ := newSaxpy(t)
	const w, h, hp = 10, 4, 16 // a row, the rows, the host image's pitch
	img, pitch, err := r.MallocPitch(w, h)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, hp*h)
	for i := range src {
		src[i] = byte(i + 1)
	}
	c2d := Copy{Call: "cudaMemcpy2D"}
	if err := r.Memcpy2D(c2d, img, pitch, 0x7000, hp, w, h, nil, src, HostToDevice); err != nil {
		t.Fatal(err)
	}
	dev := make([]byte, pitch*h)
	if err := r.dev.Read(img, dev); err != nil {
		t.Fatal(err)
	}
	for y := range uint64(h) {
		for x := range pitch {
			want := byte(0) // the padding stays untouched
			if x < w {
				want = src[y*hp+x]
			}
			if dev[y*pitch+x] != want {
				t.Fatalf("row %d byte %d on the device: %d, want %d", y, x, dev[y*pitch+x], want)
			}
		}
	}
	// Device to device into a second image, a window cleared, back to the host with
	// cudaMemcpyDefault, and host to host.
	img2, _, _ := r.MallocPitch(w, h)
	if err := r.Memcpy2D(c2d, img2, pitch, img, pitch, w, h, nil, nil, DeviceToDevice); err != nil {
		t.Fatal(err)
	}
	if err := r.Memset2D(img2+pitch+2, pitch, 0xee, 3, 2); err != nil {
		t.Fatal(err)
	}
	back := bytes.Repeat([]byte{0xaa}, hp*h)
	if err := r.Memcpy2D(c2d, 0x9000, hp, img2, pitch, w, h, back, nil, Default); err != nil {
		t.Fatal(err)
	}
	host2 := bytes.Repeat([]byte{0x55}, hp*h)
	if err := r.Memcpy2D(c2d, 0xa000, hp, 0x9000, hp, w, h, host2, back, HostToHost); err != nil {
		t.Fatal(err)
	}
	for y := range h {
		for x := range hp {
			want := byte(0xaa)
			switch {
			case x < w && (y == 1 || y == 2) && x >= 2 && x < 5:
				want = 0xee
			case x < w:
				want = src[y*hp+x]
			}
			if back[y*hp+x] != want || host2[y*hp+x] != want && x < w || host2[y*hp+x] != 0x55 && x >= w {
				t.Fatalf("row %d byte %d back on the host: %#x (host to host %#x), want %#x", y, x, back[y*hp+x], host2[y*hp+x], want)
			}
		}
	}
	want := []format.Transfer{{Call: "cudaMemcpy2D", Kind: format.HostToDevice, Bytes: w * h},
		{Call: "cudaMemcpy2D", Kind: format.DeviceToDevice, Bytes: w * h},
		{Call: "cudaMemcpy2D", Kind: format.DeviceToHost, Bytes: w * h},
		{Call: "cudaMemcpy2D", Kind: format.HostToHost, Bytes: w * h}}
	if !slices.Equal(r.transfers, want) {
		t.Errorf("the copies in the trace:\n%+v\nwant\n%+v", r.transfers, want)
	}
}

// Bad 2D calls return what an H100 returns (examples/cuda/pitch.cu), and a refused copy
// changes nothing.
func TestMemcpy2DErrors(t *testing.T) {
	r, _ := newSaxpy(t)
	img, pitch, _ := r.MallocPitch(64, 4)
	src := bytes.Repeat([]byte{7}, 64*5)
	c2d := Copy{Call: "cudaMemcpy2D"}
	for _, c := range []struct {
		what string
		err  error
		code Code
		says string
	}{
		{"a row wider than the destination pitch", r.Memcpy2D(c2d, img, 16, 0x7000, 64, 32, 2, nil, src, HostToDevice), InvalidPitchValue, "wider than the destination's pitch 16"},
		{"a row wider than the source pitch", r.Memcpy2D(c2d, img, pitch, 0x7000, 16, 32, 2, nil, src, HostToDevice), InvalidPitchValue, "or the source's 16"},
		{"rows past the allocation", r.Memcpy2D(c2d, img, pitch, 0x7000, 64, 64, 5, nil, src, HostToDevice), InvalidValue, "5 rows of 64 bytes"},
		{"a bad kind", r.Memcpy2D(c2d, img, pitch, 0x7000, 64, 64, 2, nil, src, 9), InvalidMemcpyDir, "kind 9"},
		{"a memset wider than its pitch", r.Memset2D(img, 16, 0, 32, 2), InvalidValue, "wider than the pitch 16"},
		{"a memset past the allocation", r.Memset2D(img, pitch, 1, 64, 5), InvalidValue, "5 rows of 64 bytes"},
		{"an unknown stream", r.Memcpy2D(Copy{Call: "cudaMemcpy2DAsync", Stream: 0x1234}, img, pitch, 0x7000, 64, 64, 1, nil, src, HostToDevice), InvalidResourceHandle, "cudaMemcpy2DAsync"},
	} {
		var e *Error
		if !errors.As(c.err, &e) || e.Code != c.code || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: %v, want %s saying %q", c.what, c.err, c.code.Name(), c.says)
		}
	}
	dev := make([]byte, 4*pitch)
	if err := r.dev.Read(img, dev); err != nil || slices.ContainsFunc(dev, func(b byte) bool { return b != 0 }) {
		t.Errorf("a refused copy wrote to the device (%v)", err)
	}
	// No rows or no width: nothing to do, cudaSuccess, and no copy in the trace.
	for _, wh := range [][2]uint64{{64, 0}, {0, 2}} {
		if err := r.Memcpy2D(c2d, img, pitch, 0x7000, 64, wh[0], wh[1], nil, src, HostToDevice); err != nil {
			t.Errorf("Memcpy2D of %d rows of %d bytes: %v", wh[1], wh[0], err)
		}
	}
	if len(r.transfers) != 0 {
		t.Errorf("the trace holds %+v", r.transfers)
	}
}
