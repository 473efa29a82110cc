package report

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/texcache"
)

// texRecords bounds the full records the pattern scan keeps per global load for the
// texture rule: 128 records of 32 lanes, 32 KB a pc.
const texRecords = 128

// texPattern is the first texRecords full records of a global load whose neighbouring
// lanes are a line or more apart somewhere, kept whole: the texture rule lays their
// addresses out as texels once the scan knows the row pitch. Coalesced loads keep none.
type texPattern struct{ recs []texRecord }

// texRecord is one kept record: its active lanes and their addresses.
type texRecord struct {
	mask  uint32
	lanes [32]uint64
}

// add keeps one record while there is room, if two neighbouring active lanes of it are
// at least a 128-byte line apart (upwards: a column walk down the rows).
func (t *texPattern) add(mask uint32, lanes *[32]uint64) {
	if len(t.recs) >= texRecords {
		return
	}
	for m := mask & (mask >> 1); m != 0; m &= m - 1 {
		if l := bits.TrailingZeros32(m); int64(lanes[l+1]-lanes[l]) >= 128 {
			t.recs = append(t.recs, texRecord{mask, *lanes})
			return
		}
	}
}

// sectorsOf counts the distinct 32-byte sectors of a record's lanes under layout, which
// maps a lane's address to the byte offset it would have (its first byte; a lane's
// width bytes stay within one sector in both layouts the rule compares, as width divides
// 16 and the addresses are width-aligned).
func sectorsOf(lanes *[32]uint64, mask uint32, layout func(uint64) uint64) int {
	var secs [32]uint64
	n := 0
	for m := mask; m != 0; m &= m - 1 {
		s := layout(lanes[bits.TrailingZeros32(m)]) / 32
		if !slices.Contains(secs[:n], s) {
			secs[n] = s
			n++
		}
	}
	return n
}

// textureReads fires at a global load of read-only data whose lanes walk down a column of
// a row-major 2D array (neighbouring lanes a row apart: a stride of at least a 128-byte
// line, so each lane takes a sector of its own) and whose records, laid out as the
// texels of a texture of that row pitch in the block-linear layout (models/texcache), take
// at most 1/uncoalescedFactor of the sectors they take in linear memory. The seed's
// lesson is texture memory: a cudaArray lays an image out for 2D locality, a 32-byte
// sector holding 16 bytes of two rows, so a column walk costs half the sectors. The pitch
// is the lanes' stride, and the image is taken to start at the lowest address the pc
// reads, rounded down to cudaMalloc's 256-byte alignment. The sampled records must read
// more than one column: a strided 1D read that takes one element of every "row"
// (test_offset_32's a[32 i]) is the uncoalesced rule's, since a texture's sectors would
// carry the texels of the columns nobody reads. Random reads in a neighbourhood
// (tex_random_global) have no such stride and stay silent: on an H200 through a texture
// they take 3014656 sectors where global loads take 2818048, and 6752 ns where they take
// 5760 (traces/hw/h200-2026-11-21.csv). The gain is the pc's global load sectors now
// against the texture pipe's sectors after the fix (the same requests, through the
// texture path).
func textureReads(in *kernelInput) []Finding {
	const (
		metric = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
		into   = "l1tex__t_sectors_pipe_tex_mem_texture.sum"
	)
	totalSecs := in.total(metric, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
	prog := in.launch.Program.Insts
	written := in.writtenSpans()
	var out []Finding
	for _, p := range in.rep.PerPC {
		if int(p.PC) >= len(prog) {
			continue
		}
		inst := &prog[p.PC]
		pat := &in.pats[p.PC]
		width := int64(inst.Width)
		stride, share := pat.dominantStride()
		secs := in.pcs[p.PC][metric]
		if inst.Space != format.SpaceGlobal || inst.MemOp != format.MemLoad || secs == 0 || totalSecs == 0 ||
			width <= 0 || 16%width != 0 || share < 0.5 || stride < 128 || stride%width != 0 ||
			len(pat.tex.recs) == 0 || slices.ContainsFunc(written, pat.span.overlaps) {
			continue
		}
		base := pat.span.lo &^ 255
		texels := int(stride / width) // the texture's width
		linear := func(a uint64) uint64 { return a }
		blocked := func(a uint64) uint64 {
			off := int64(a - base)
			return texcache.BlockLinear(int(off%stride/width), int(off/stride), texels, int(width))
		}
		var lin, tex int
		col, cols := int64(-1), 0 // the first column read, and whether another one is (2)
		for i := range pat.tex.recs {
			rc := &pat.tex.recs[i]
			lin += sectorsOf(&rc.lanes, rc.mask, linear)
			tex += sectorsOf(&rc.lanes, rc.mask, blocked)
			for m := rc.mask; m != 0 && cols < 2; m &= m - 1 {
				if c := int64(rc.lanes[bits.TrailingZeros32(m)]-base) % stride; c != col {
					col, cols = c, cols+1
				}
			}
		}
		if tex == 0 || float64(lin) < uncoalescedFactor*float64(tex) || cols < 2 {
			continue
		}
		f := in.finding(RuleTexture, p.PC)
		f.Metric, f.Into = metric, into
		f.Before, f.After = secs, secs*float64(tex)/float64(lin)
		f.Share, f.ShareOf = secs/totalSecs, "global sectors"
		f.Saw = fmt.Sprintf("global load of %d B per lane walks down a column: neighbouring lanes are %d B apart (a row of a row-major 2D array), and nothing the kernel writes overlaps what it reads; laid out as a texture %d texels wide, its %d sampled records take %.1f sectors each instead of %.1f",
			width, stride, texels, len(pat.tex.recs), float64(tex)/float64(len(pat.tex.recs)), float64(lin)/float64(len(pat.tex.recs)))
		f.Lesson = seedHardware + ": texture memory, ColumnAfterColumn (a cudaArray is laid out for 2D locality: texture reads of a column cost about what reads of a row do, where row-major global memory pays a sector a lane)"
		f.Fix = "where the walk cannot run along rows (the uncoalesced fix), copy the array into a cudaArray (cudaMallocArray, cudaMemcpy2DToArray) and read it with tex2D through a texture object: each 32-byte sector then holds 16 bytes of two neighbouring rows. The loads move to the texture pipe; along rows a texture costs more than linear memory, so only for reads that walk columns"
		out = append(out, f)
	}
	return out
}

// writtenSpans are the spans of the kernel's global stores, atomics and reductions, as
// far as the sample shows: data a rule may move to a read-only path must miss them all.
func (in *kernelInput) writtenSpans() []span {
	prog := in.launch.Program.Insts
	var written []span
	for pc := range in.pats {
		if op := prog[pc].MemOp; prog[pc].Space == format.SpaceGlobal && op != format.MemLoad {
			written = append(written, in.pats[pc].span)
		}
	}
	return written
}
