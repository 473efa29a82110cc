package capture

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gtrace/gtrace/format"
)

// Texture fetches (PTX ISA 8.x, "Texture Instructions": tex) through a texture object;
// the texel layout is in doc.go.
var textureFamily = opFamily{name: "texture", rules: []opRule{
	{names: []string{"tex"}, decode: decodeTex,
		doc: ".2d.v4, f32/s32/u32 results, f32/s32 coordinates"},
}}

func decodeTex(r *resolver) error {
	m := &r.m
	in, a := r.in, r.a
	if len(m.other) != 1 || m.other[0] != ".2d" {
		return r.fail("only tex.2d is supported")
	}
	if m.vec != 4 || len(m.types) != 2 {
		return r.fail("want tex.2d.v4.DTYPE.CTYPE")
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
	if len(a.ops) != 2 || a.ops[0].kind != oVec || len(a.ops[0].elems) != 4 {
		return r.fail("want {d0, d1, d2, d3}, [tex, {x, y}]")
	}
	for i, e := range a.ops[0].elems {
		if err := r.dstOp(i, e, dt); err != nil {
			return err
		}
	}
	in.nd = 4
	ad := a.ops[1]
	if ad.kind != oAddr || ad.name == "" || len(ad.elems) != 1 || ad.elems[0].kind != oVec || len(ad.elems[0].elems) != 2 || ad.off != 0 {
		return r.fail("want [tex, {x, y}]")
	}
	s, ok := r.sc.lookup(ad.name)
	if !ok || s.kind != symReg || s.typ.size() != 8 {
		return r.fail("texture operand %s must be a 64-bit register holding a texture object", ad.name)
	}
	r.read(s.slot)
	in.base = s.slot
	for i, e := range ad.elems[0].elems {
		if err := r.srcOp(i, e, ct); err != nil {
			return err
		}
	}
	in.ns = 2
	return nil
}

// Execution.

// texInst fetches texels with point sampling and clamp addressing over unnormalised
// coordinates; a one-channel texture returns (texel, 0, 0, 1).
func (w *warpState) texInst(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if exec == 0 {
		w.rec.Append(uint32(pc), 0, path, fl)
		return nil
	}
	h, xs, ys := w.slot(in.base), w.slot(in.s[0]), w.slot(in.s[1])
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		handle := h[l]
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
