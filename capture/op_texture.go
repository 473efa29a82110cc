package capture

import "github.com/gtrace/gtrace/format"

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
