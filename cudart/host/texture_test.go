package host

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
)

// cudaBindTexture's rules beyond what examples/cuda/texref.cu shows against an H100: an
// unregistered reference is cudaErrorInvalidTexture, host memory and a descriptor whose
// channels differ in size are invalid values, a format gtrace cannot read (half) is not
// supported; a misaligned pointer binds from the aligned base below it, the offset
// returned and kept for cudaGetTextureAlignmentOffset; a launch reads the references of
// its own module that are bound, by PTX name, and not one unbound since.
func TestBindTexture(t *testing.T) {
	r, h := newRuntime(t, filepath.Join(t.TempDir(), "run.gtrace"), "lz4.fatbin")
	t.Cleanup(func() { r.Close(context.Background()) })
	const tf, tu = 0x1000, 0x2000
	if err := r.RegisterTexture(h, tf, "tf", false); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterTexture(h, tu, "tu", true); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterTexture(h+1, 0x3000, "tx", false); !hasCode(err, InvalidResourceHandle) {
		t.Errorf("a texture of no fat binary: %v", err)
	}
	p, err := r.Malloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	f32 := ChannelDesc{X: 32, Kind: 2}
	half := ChannelDesc{X: 16, Kind: 2}
	for _, c := range []struct {
		name      string
		tex       uintptr
		ptr       uint64
		own, desc ChannelDesc
		code      Code
		msg       string
	}{
		{"unregistered", 0x9999, p, f32, f32, InvalidTexture, "no registered texture reference"},
		{"host memory", tf, 0x7000, f32, f32, InvalidValue, "is not device memory"},
		{"uneven channels", tf, p, ChannelDesc{X: 32, Y: 16, Kind: 2}, ChannelDesc{X: 32, Y: 16, Kind: 2}, InvalidValue, "channels of one size"},
		{"half", tf, p, half, half, NotSupported, "32-bit float channels only"},
		{"normalised floats", tu, p, f32, f32, NotSupported, "only 8- and 16-bit integer"},
	} {
		if _, err := r.BindTexture(c.tex, c.ptr, c.own, c.desc, 64, true); !hasCode(err, c.code) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v; want %s saying %q", c.name, err, c.code.Name(), c.msg)
		}
	}
	if _, err := r.TextureAlignmentOffset(tf); !hasCode(err, InvalidTexture) {
		t.Errorf("the offset of an unbound texture: %v", err)
	}
	off, err := r.BindTexture(tf, p+520, f32, f32, 400, true)
	if err != nil || off != 8 {
		t.Fatalf("bound 520 bytes into an allocation: offset %d, %v; want 8", off, err)
	}
	if got, err := r.TextureAlignmentOffset(tf); got != 8 || err != nil {
		t.Errorf("cudaGetTextureAlignmentOffset: %d, %v; want 8", got, err)
	}
	want := capture.LinearTexture{Addr: p + 512, Bytes: 408, Format: capture.ChannelFormat{Channels: 1, Bits: 32, Kind: capture.ChannelFloat}}
	if got := r.boundTextures(r.modules[h-1]); len(got) != 1 || got["tf"] != want {
		t.Errorf("a launch's textures: %+v; want tf: %+v", got, want)
	}
	if got := r.boundTextures(&module{}); got != nil {
		t.Errorf("another module's launch sees %+v", got)
	}
	if err := r.UnbindTexture(tf); err != nil {
		t.Fatal(err)
	}
	if got := r.boundTextures(r.modules[h-1]); got != nil {
		t.Errorf("after cudaUnbindTexture a launch sees %+v", got)
	}
}
