package cudart

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// Texture references declared and read as CUDA code does (texture<T, 1, mode>,
// tex1Dfetch), compiled by clang-14 with the shipped header and captured with the
// references bound: every type's channels, a normalised read, sign and zero extension,
// and zeros past either end, against Go. A tex2D<float> and a tex2D(&ret, ...) through a
// texture object read the texels a tex2d argument holds.
func TestTextures(t *testing.T) {
	ptx, err := compile(t, "testdata/texture.cu")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("references", func(t *testing.T) {
		d := capture.NewDevice()
		const n = 64
		alloc := func(b []byte) uint64 {
			a, err := d.Malloc(uint64(len(b)))
			if err == nil {
				err = d.Write(a, b)
			}
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		f := make([]byte, 4*n)
		for i := range n {
			binary.LittleEndian.PutUint32(f[4*i:], math.Float32bits(1.5*float32(i)-20))
		}
		f2 := make([]byte, 8*n)
		for i := range 2 * n {
			binary.LittleEndian.PutUint32(f2[4*i:], math.Float32bits(float32(i)/8))
		}
		c4, s16, u2 := make([]byte, 4*n), make([]byte, 2*n), make([]byte, 2*n)
		for i := range c4 {
			c4[i] = byte(i*53 + 7)
		}
		for i := range n {
			binary.LittleEndian.PutUint16(s16[2*i:], uint16(int16(1000*i-30000)))
		}
		for i := range u2 {
			u2[i] = byte(255 - 3*i)
		}
		refs := map[string]capture.LinearTexture{
			"t_f":  {Addr: alloc(f), Bytes: 4 * n, Format: capture.ChannelFormat{Channels: 1, Bits: 32, Kind: capture.ChannelFloat}},
			"t_f2": {Addr: alloc(f2), Bytes: 8 * n, Format: capture.ChannelFormat{Channels: 2, Bits: 32, Kind: capture.ChannelFloat}},
			"t_n":  {Addr: alloc(c4), Bytes: 4 * n, Format: capture.ChannelFormat{Channels: 4, Bits: 8, Kind: capture.ChannelSigned}, Normalized: true},
			"t_s":  {Addr: alloc(s16), Bytes: 2 * n, Format: capture.ChannelFormat{Channels: 1, Bits: 16, Kind: capture.ChannelSigned}},
			"t_u":  {Addr: alloc(u2), Bytes: 2 * n, Format: capture.ChannelFormat{Channels: 2, Bits: 8, Kind: capture.ChannelUnsigned}},
		}
		idx := []int32{0, 1, 7, 33, n - 1, n, -1, -5, 1 << 20, 12}
		ib := make([]byte, 4*len(idx))
		for i, x := range idx {
			binary.LittleEndian.PutUint32(ib[4*i:], uint32(x))
		}
		pidx, out := alloc(ib), alloc(make([]byte, 40*len(idx)))
		k, err := capture.Load(capture.Spec{PTX: ptx, PTXName: "texture.ptx", Kernel: "fetch",
			Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: uint32(len(idx)), Y: 1, Z: 1},
			Device: d, Params: [][]byte{binary.LittleEndian.AppendUint64(nil, pidx), binary.LittleEndian.AppendUint64(nil, out)}, TexRefs: refs})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Run(context.Background(), 0, discard{}); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 40*len(idx))
		if err := d.Read(out, got); err != nil {
			t.Fatal(err)
		}
		res := f32s(got)
		for i, x := range idx {
			var want [10]float32
			if x >= 0 && x < n {
				want[0] = math.Float32frombits(binary.LittleEndian.Uint32(f[4*x:]))
				want[1] = math.Float32frombits(binary.LittleEndian.Uint32(f2[8*x:]))
				want[2] = math.Float32frombits(binary.LittleEndian.Uint32(f2[8*x+4:]))
				for c := range 4 {
					want[3+c] = max(float32(int8(c4[4*int(x)+c]))/127, -1)
				}
				want[7] = float32(int16(binary.LittleEndian.Uint16(s16[2*x:])))
				want[8], want[9] = float32(u2[2*x]), float32(u2[2*x+1])
			}
			for j, w := range want {
				if g := res[10*i+j]; g != w {
					t.Errorf("index %d, result %d: %g, want %g", x, j, g, w)
				}
			}
		}
		names := map[string]bool{}
		for _, tx := range k.Launch().Textures {
			names[tx.Name] = true
		}
		if len(names) != len(refs) {
			t.Errorf("the launch names the textures %v; want the %d references", names, len(refs))
		}
	})
	t.Run("object", func(t *testing.T) {
		const w, h = 24, 5
		k, err := capture.Load(capture.Spec{PTX: ptx, PTXName: "texture.ptx", Kernel: "object",
			Grid: format.Dim3{X: h, Y: 1, Z: 1}, Block: format.Dim3{X: w, Y: 1, Z: 1},
			Args: []string{"tex2d:f32:24:5:rand:3", "buf:f32:240", "i32:24", "i32:5"}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := k.Run(context.Background(), 0, discard{})
		if err != nil {
			t.Fatal(err)
		}
		tex, err := capture.ParseArg("tex2d:f32:24:5:rand:3")
		if err != nil || len(r.Buffers) != 1 {
			t.Fatalf("%v; %d buffers", err, len(r.Buffers))
		}
		texels, res := f32s(tex.InitBytes()), f32s(r.Buffers[0].Final)
		for i := range w * h {
			if res[i] != texels[i] || res[w*h+i] != texels[i] {
				t.Errorf("texel (%d, %d): %g and %g, want %g", i%w, i/w, res[i], res[w*h+i], texels[i])
			}
		}
	})
}
