package capture

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gtrace/gtrace/format"
)

// Texture fetches (PTX ISA 8.x, "Texture Instructions": tex) through a texture object
// (tex2d arguments) or a texture reference bound to linear memory (Spec.TexRefs); the
// texel layouts are in doc.go.
var textureFamily = opFamily{name: "texture", rules: []opRule{
	{names: []string{"tex"}, decode: decodeTex,
		doc: ".2d.v4 through a texture object (f32/s32 coordinates); .1d.v4 through\na texture reference, named or its handle in a register (s32 coordinates:\ntex1Dfetch); f32/s32/u32 results"},
}}

func decodeTex(r *resolver) error {
	m := &r.m
	in, a := r.in, r.a
	if len(m.other) != 1 || (m.other[0] != ".2d" && m.other[0] != ".1d") {
		return r.fail("only tex.1d and tex.2d are supported")
	}
	dims := 2
	if m.other[0] == ".1d" {
		dims = 1
	}
	if m.vec != 4 || len(m.types) != 2 {
		return r.fail("want tex%s.v4.DTYPE.CTYPE", m.other[0])
	}
	dt, ct := m.types[0], m.types[1]
	if dt != tF32 && dt != tS32 && dt != tU32 {
		return r.fail("texture result type must be .f32, .s32 or .u32")
	}
	if ct != tF32 && ct != tS32 {
		return r.fail("texture coordinates must be .f32 or .s32")
	}
	in.op, in.t, in.t2, in.vec, in.space = opTex, dt, ct, 4, msTex
	in.width = 4
	r.row.Class, r.row.MemOp, r.row.Space, r.row.Width = format.ClassMem, format.MemTex, format.SpaceTexture, 4
	want := "want {d0, d1, d2, d3}, [tex, {x, y}]"
	if dims == 1 {
		want = "want {d0, d1, d2, d3}, [tex, {x}]"
	}
	if len(a.ops) != 2 || a.ops[0].kind != oVec || len(a.ops[0].elems) != 4 {
		return r.fail("%s", want)
	}
	for i, e := range a.ops[0].elems {
		if err := r.dstOp(i, e, dt); err != nil {
			return err
		}
	}
	in.nd = 4
	ad := a.ops[1]
	if ad.kind != oAddr || ad.name == "" || len(ad.elems) != 1 || ad.elems[0].kind != oVec || len(ad.elems[0].elems) != dims || ad.off != 0 {
		return r.fail("%s", want)
	}
	if dims == 1 && ct != tS32 {
		return r.fail("tex.1d with .f32 coordinates reads a CUDA array (tex1D), which gtrace does not model; tex1Dfetch (.s32) is supported")
	}
	s, ok := r.sc.lookup(ad.name)
	switch {
	case ok && s.kind == symTexRef && dims == 1:
		in.base, in.target = -1, int32(r.k.texRef(ad.name))
	case ok && s.kind == symTexRef:
		return r.fail("tex.2d through the texture reference %s (cudaBindTexture2D, cudaBindTextureToArray) is not supported; tex.2d through a texture object is", ad.name)
	case !ok || s.kind != symReg || s.typ.size() != 8:
		return r.fail("texture operand %s must be a 64-bit register holding a texture handle, or a texture reference", ad.name)
	default:
		// A handle in a register: a texture object's (tex2d arguments) or a texture
		// reference's (mov.u64 %rd, TEXREF, as clang writes tex1Dfetch); which one
		// is known only when it runs.
		r.read(s.slot)
		in.base = s.slot
	}
	for i, e := range ad.elems[0].elems {
		if err := r.srcOp(i, e, ct); err != nil {
			return err
		}
	}
	in.ns = uint8(dims)
	return nil
}

// LinearTexture is a texture reference bound to linear device memory (cudaBindTexture):
// tex.1d with .s32 coordinates (tex1Dfetch) reads texel x at Addr + x times the texel's
// bytes. A texel past either end reads as zeros in every channel, and channels the
// format lacks read as zeros, as on an H100 (examples/cuda/texref.cu and
// scripts/hw/tex1d.cu; traces/hw/h100-2026-11-26-examples, -tex1d).
type LinearTexture struct {
	Addr   uint64 // device address of texel 0
	Bytes  uint64 // bytes bound: Bytes / the texel's bytes texels
	Format ChannelFormat
	// Normalized reads 8- and 16-bit integer channels as floats, unsigned ones in
	// [0, 1] and signed ones in [-1, 1] (cudaReadModeNormalizedFloat).
	Normalized bool
}

// ChannelFormat is a texel's format (cudaChannelFormatDesc): Channels channels of Bits
// bits each, of one Kind.
type ChannelFormat struct {
	Channels int // 1, 2 or 4
	Bits     int // 8, 16 or 32
	Kind     ChannelKind
}

// ChannelKind is what a channel holds; the values are cudaChannelFormatKind's.
type ChannelKind uint8

const (
	ChannelSigned   ChannelKind = 0
	ChannelUnsigned ChannelKind = 1
	ChannelFloat    ChannelKind = 2
)

// TexelBytes is the bytes of one texel.
func (f ChannelFormat) TexelBytes() int { return f.Channels * f.Bits / 8 }

func (f ChannelFormat) String() string {
	kind := map[ChannelKind]string{ChannelSigned: "signed", ChannelUnsigned: "unsigned", ChannelFloat: "float"}[f.Kind]
	if kind == "" {
		kind = fmt.Sprintf("kind %d", f.Kind)
	}
	return fmt.Sprintf("%d × %d-bit %s", f.Channels, f.Bits, kind)
}

// Check says what gtrace cannot read through t.
func (t LinearTexture) Check() error {
	f := t.Format
	switch {
	case f.Channels != 1 && f.Channels != 2 && f.Channels != 4:
		return fmt.Errorf("a texel of %s: textures have 1, 2 or 4 channels", f)
	case f.Bits != 8 && f.Bits != 16 && f.Bits != 32:
		return fmt.Errorf("a texel of %s: channels are 8, 16 or 32 bits", f)
	case f.Kind > ChannelFloat:
		return fmt.Errorf("a texel of %s: channels are signed, unsigned or float", f)
	case f.Kind == ChannelFloat && f.Bits != 32:
		return fmt.Errorf("a texel of %s: gtrace reads 32-bit float channels only (no half)", f)
	case t.Normalized && (f.Kind == ChannelFloat || f.Bits == 32):
		return fmt.Errorf("a texel of %s read as normalised floats: only 8- and 16-bit integer channels are", f)
	}
	return nil
}

// texRef is a texture reference a tex instruction reads, with its binding.
type texRef struct {
	name string
	bind *LinearTexture // nil: not bound (a fetch through it faults)
}

// texRef is the index in k.trefs of the reference name, added on first use.
func (k *Kernel) texRef(name string) int {
	for i, t := range k.trefs {
		if t.name == name {
			return i
		}
	}
	t := &texRef{name: name}
	if b, ok := k.spec.TexRefs[name]; ok {
		t.bind = &b
	}
	k.trefs = append(k.trefs, t)
	return len(k.trefs) - 1
}

// texRefHandles is the first texture reference's handle: mov.u64 %rd, TEXREF gives
// texRefHandles + the reference's index in k.trefs, far above the texture objects'
// handles (1 to the number of tex2d arguments). A GPU's handles are opaque numbers a
// kernel only passes to tex; these are gtrace's.
const texRefHandles = 1 << 40

// texRefHandle is the index in k.trefs of the texture reference whose handle is h.
func (k *Kernel) texRefHandle(h uint64) (int, bool) {
	if h < texRefHandles || h-texRefHandles >= uint64(len(k.trefs)) {
		return 0, false
	}
	return int(h - texRefHandles), true
}

// Execution.

// texRefOf is the texture reference a tex.1d reads through the handles h of the lanes
// in exec: all of them must hold the same reference's handle.
func (w *warpState) texRefOf(h *[32]uint64, pc int32, exec uint32) (int, error) {
	l0 := bits.TrailingZeros32(exec)
	for m := exec; m != 0; m &= m - 1 {
		if l := bits.TrailingZeros32(m); h[l] != h[l0] {
			return 0, w.fault(FaultOutOfBounds, pc, l, h[l], "", fmt.Sprintf("lanes %d and %d fetch through different texture handles (%#x, %#x); gtrace reads one texture reference per tex.1d", l0, l, h[l0], h[l]))
		}
	}
	ref, ok := w.c.k.texRefHandle(h[l0])
	switch {
	case ok:
		return ref, nil
	case h[l0] != 0 && h[l0] <= uint64(len(w.c.k.texs)):
		return 0, w.fault(FaultOutOfBounds, pc, l0, h[l0], "", "tex.1d through a texture object (a tex2d argument) is not supported; through a texture reference (.global .texref, cudaBindTexture) it is")
	}
	return 0, w.fault(FaultOutOfBounds, pc, l0, h[l0], "", fmt.Sprintf("texture handle %#x is not a texture reference's", h[l0]))
}

// texInst fetches texels with point sampling and clamp addressing over unnormalised
// coordinates; a one-channel texture returns (texel, 0, 0, 1). A texture reference's
// tex.1d is texFetch.
func (w *warpState) texInst(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if exec == 0 {
		w.rec.Append(uint32(pc), 0, path, fl)
		return nil
	}
	if in.base < 0 {
		return w.texFetch(in, int(in.target), pc, exec, path, fl)
	}
	h := w.slot(in.base)
	if in.ns == 1 {
		ref, err := w.texRefOf(h, pc, exec)
		if err != nil {
			return err
		}
		return w.texFetch(in, ref, pc, exec, path, fl)
	}
	xs, ys := w.slot(in.s[0]), w.slot(in.s[1])
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		handle := h[l]
		if ref, ok := w.c.k.texRefHandle(handle); ok {
			return w.fault(FaultOutOfBounds, pc, l, handle, "", fmt.Sprintf("tex.2d through the texture reference %s (cudaBindTexture2D, cudaBindTextureToArray) is not supported; tex.2d through a texture object is", w.c.k.trefs[ref].name))
		}
		if handle == 0 || handle > uint64(len(w.c.k.texs)) {
			return w.fault(FaultOutOfBounds, pc, l, handle, "", fmt.Sprintf("texture handle %#x is not a tex2d argument", handle))
		}
		t := w.c.k.texs[handle-1]
		var x, y int
		if in.t2 == tF32 {
			fx, fy := float64(f32(xs[l])), float64(f32(ys[l]))
			x, y = clampCoord(fx, t.w), clampCoord(fy, t.h)
		} else {
			x, y = clampInt(int(int32(xs[l])), t.w), clampInt(int(int32(ys[l])), t.h)
		}
		off := t.texOffset(x, y)
		w.lanes[l] = t.base + off
		w.xy[l] = [2]int32{int32(x), int32(y)}
		v := loadN(t.data[off : off+uint64(t.elem)])
		var r0, one uint64
		switch in.t {
		case tF32:
			one = uint64(math.Float32bits(1))
			switch t.typ {
			case "f32":
				r0 = v
			case "f64":
				r0 = uint64(math.Float32bits(float32(f64(v))))
			default: // integer texel read as float: its value (cudaReadModeElementType)
				r0 = uint64(math.Float32bits(float32(int64(vtypeOfArg(t.typ).ext(v)))))
			}
		default:
			one = 1
			r0 = vtypeOfArg(t.typ).ext(v) & 0xffffffff
			if t.typ == "f32" {
				r0 = v
			}
		}
		vals := [4]uint64{r0, 0, 0, one}
		for i := 0; i < 4; i++ {
			if d := in.d[i]; d >= 0 {
				w.regs[int(d)*32+l] = vals[i]
			}
		}
	}
	w.rec.AppendTex(uint32(pc), exec, path, fl, &w.lanes, &w.xy)
	return nil
}

func clampCoord(f float64, n int) int {
	if f != f {
		return 0
	}
	return clampInt(int(math.Max(math.Min(math.Floor(f), float64(n)), -1)), n)
}

func clampInt(x, n int) int {
	if x < 0 {
		return 0
	}
	if x >= n {
		return n - 1
	}
	return x
}

// texFetch is tex1Dfetch through a texture reference bound to linear memory: texel x of
// each lane from device memory, each channel converted as the binding says, zeros past
// either end. A lane past the end is recorded at the nearest texel (whether a GPU reads
// memory for it is not measured).
func (w *warpState) texFetch(in *instr, ref int, pc int32, exec uint32, path uint16, fl format.Flags) error {
	t := w.c.k.trefs[ref]
	l0 := bits.TrailingZeros32(exec)
	if t.bind == nil {
		return w.fault(FaultOutOfBounds, pc, l0, 0, "", fmt.Sprintf("texture reference %s is not bound (cudaBindTexture before the launch; gtrace capture --texref %s=ARG binds it to a buf argument)", t.name, t.name))
	}
	b := t.bind
	eb := b.Format.TexelBytes()
	n := int64(b.Bytes / uint64(eb))
	if n == 0 {
		return w.fault(FaultOutOfBounds, pc, l0, b.Addr, "", fmt.Sprintf("texture reference %s is bound to %d bytes, less than one texel of %d", t.name, b.Bytes, eb))
	}
	xs, ct := w.slot(in.s[0]), channelType(b.Format)
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		x := int64(int32(xs[l]))
		at := min(max(x, 0), n-1)
		addr := b.Addr + uint64(at)*uint64(eb)
		var vals [4]uint64
		if x == at {
			p, _, err := w.access(in, pc, l, msGlobal, addr, eb, false)
			if err != nil {
				return err
			}
			vals = texelValues(p, b, ct, in.t) // under --oob=warn, zeros past an allocation
		}
		w.lanes[l] = addr
		w.xy[l] = [2]int32{int32(at), 0}
		for i := 0; i < 4; i++ {
			if d := in.d[i]; d >= 0 {
				w.regs[int(d)*32+l] = vals[i]
			}
		}
	}
	w.rec.AppendTex(uint32(pc), exec, path, fl, &w.lanes, &w.xy)
	return nil
}

// texelValues converts a texel's channels (each of type ct, channelType's) to the four
// results of a tex whose result type is t: normalised floats when b says so, else each channel's bits (sign-extended
// for a signed one), and zeros for the channels the format lacks.
func texelValues(p []byte, b *LinearTexture, ct, t vtype) [4]uint64 {
	var out [4]uint64
	cb := b.Format.Bits / 8
	signed := b.Format.Kind == ChannelSigned
	for c := 0; c < b.Format.Channels; c++ {
		raw := loadN(p[c*cb : (c+1)*cb])
		switch {
		case b.Normalized && signed:
			maxv := float32(int64(1)<<(8*cb-1) - 1)
			out[c] = uint64(math.Float32bits(max(float32(int64(ct.ext(raw)))/maxv, -1)))
		case b.Normalized:
			out[c] = uint64(math.Float32bits(float32(raw) / float32(uint64(1)<<(8*cb)-1)))
		case signed && t != tF32:
			out[c] = ct.ext(raw) & 0xffffffff
		default:
			out[c] = raw
		}
	}
	return out
}

// channelType is the integer type of one channel of f, for its ext.
func channelType(f ChannelFormat) vtype {
	if f.Kind == ChannelSigned {
		return [...]vtype{1: tS8, 2: tS16, 4: tS32}[f.Bits/8]
	}
	return [...]vtype{1: tU8, 2: tU16, 4: tU32}[f.Bits/8]
}
