package host

import (
	"fmt"

	"github.com/gtrace/gtrace/capture"
)

// texref is a texture reference (texture<T, 1, mode>) the program registered, keyed by
// its host shadow's address: the textureReference cudaBindTexture is given.
type texref struct {
	mod        *module
	name       string // its PTX name (.global .texref)
	normalized bool   // cudaReadModeNormalizedFloat
	bound      *capture.LinearTexture
	offset     uint64 // what cudaBindTexture returned in *offset
}

// ChannelDesc is a cudaChannelFormatDesc: bits per channel, and the kind (the values of
// cudaChannelFormatKind: signed, unsigned, float).
type ChannelDesc struct {
	X, Y, Z, W int
	Kind       int
}

func (d ChannelDesc) String() string {
	return fmt.Sprintf("(%d, %d, %d, %d, kind %d)", d.X, d.Y, d.Z, d.W, d.Kind)
}

// format is the texel format d describes: 1, 2 or 4 channels of one size, from x on.
func (d ChannelDesc) format() (capture.ChannelFormat, error) {
	bits := []int{d.X, d.Y, d.Z, d.W}
	n := 0
	for n < 4 && bits[n] != 0 {
		n++
	}
	for i, b := range bits {
		if (i < n && b != d.X) || (i >= n && b != 0) || b < 0 {
			return capture.ChannelFormat{}, fmt.Errorf("channel descriptor %v: channels of one size, from x on", d)
		}
	}
	return capture.ChannelFormat{Channels: n, Bits: d.X, Kind: capture.ChannelKind(d.Kind)}, nil
}

// RegisterTexture binds a texture reference's host shadow to its PTX name in module
// handle (__cudaRegisterTexture); normalized is its read mode.
func (r *Runtime) RegisterTexture(handle int, hostVar uintptr, name string, normalized bool) error {
	m, err := r.module("__cudaRegisterTexture("+name+")", handle)
	if err != nil {
		return err
	}
	r.texrefs[hostVar] = &texref{mod: m, name: name, normalized: normalized}
	return nil
}

func (r *Runtime) texref(call string, hostVar uintptr) (*texref, error) {
	t, ok := r.texrefs[hostVar]
	if !ok {
		return nil, fail(InvalidTexture, "%s: %#x is no registered texture reference", call, hostVar)
	}
	return t, nil
}

// BindTexture is cudaBindTexture: the texture reference whose host shadow is hostVar
// reads size bytes of linear device memory from devPtr, its texels in the format desc
// gives, which must be the reference's own (own, its channelDesc). The texture's base is
// devPtr rounded down to the texture alignment, and the returned offset, devPtr's
// distance from it, must be added to every fetch; a program that passes no offset
// pointer (wantOffset false) must give an aligned devPtr. An H100 refuses a descriptor
// that differs from the reference's and a misaligned pointer with no offset pointer,
// each with cudaErrorInvalidValue (examples/cuda/texref.cu).
func (r *Runtime) BindTexture(hostVar uintptr, devPtr uint64, own, desc ChannelDesc, size uint64, wantOffset bool) (uint64, error) {
	const call = "cudaBindTexture"
	t, err := r.texref(call, hostVar)
	if err != nil {
		return 0, err
	}
	if desc != own {
		return 0, fail(InvalidValue, "%s(%s): the channel descriptor %v is not the texture's own %v", call, t.name, desc, own)
	}
	if !r.dev.Holds(devPtr) {
		return 0, fail(InvalidValue, "%s(%s): %#x is not device memory", call, t.name, devPtr)
	}
	align := uint64(r.attrs[attrTextureAlignment])
	off := devPtr % align
	if off != 0 && !wantOffset {
		return 0, fail(InvalidValue, "%s(%s): %#x is not aligned to %d bytes, and there is no offset pointer to return %d in", call, t.name, devPtr, align, off)
	}
	f, err := desc.format()
	if err != nil {
		return 0, fail(InvalidValue, "%s(%s): %v", call, t.name, err)
	}
	b := capture.LinearTexture{Addr: devPtr - off, Bytes: size + off, Format: f, Normalized: t.normalized}
	if size > ^uint64(0)-off {
		b.Bytes = ^uint64(0)
	}
	if err := b.Check(); err != nil {
		return 0, fail(NotSupported, "%s(%s): %v", call, t.name, err)
	}
	t.bound, t.offset = &b, off
	return off, nil
}

// UnbindTexture is cudaUnbindTexture.
func (r *Runtime) UnbindTexture(hostVar uintptr) error {
	t, err := r.texref("cudaUnbindTexture", hostVar)
	if err == nil {
		t.bound, t.offset = nil, 0
	}
	return err
}

// TextureAlignmentOffset is cudaGetTextureAlignmentOffset: the offset the reference's
// binding returned.
func (r *Runtime) TextureAlignmentOffset(hostVar uintptr) (uint64, error) {
	const call = "cudaGetTextureAlignmentOffset"
	t, err := r.texref(call, hostVar)
	if err == nil && t.bound == nil {
		err = fail(InvalidTexture, "%s(%s): the texture is not bound", call, t.name)
	}
	if err != nil {
		return 0, err
	}
	return t.offset, nil
}

// boundTextures is what the texture references of module m are bound to, by name, for
// a launch from it.
func (r *Runtime) boundTextures(m *module) map[string]capture.LinearTexture {
	var out map[string]capture.LinearTexture
	for _, t := range r.texrefs {
		if t.mod == m && t.bound != nil {
			if out == nil {
				out = map[string]capture.LinearTexture{}
			}
			out[t.name] = *t.bound
		}
	}
	return out
}
