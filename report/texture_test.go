package report

import (
	"slices"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// Over every reference kernel at its test size on hopper, the texture rule fires where
// a read-only array is walked down its columns (both column walks of the seed, plain
// and __restrict, and transpose V1's read) and nowhere else: not on the row walks, nor
// on the random reads in a neighbourhood, which a texture makes slower on an H200 (6752
// ns against 5760, traces/hw/h200-2026-11-21.csv), nor on test_offset_32's strided 1D
// read (one column of 32-word rows), nor where the kernel writes what it reads.
func TestTextureRuleFiresOnlyOnColumnWalks(t *testing.T) {
	want := map[string]int{"tex_column_global": 1, "tex_column_restrict": 1, "transpose_v1": 1}
	adviseEveryKernel(t, "hopper", func(name string, ka *KernelAdvice) {
		n := 0
		for _, f := range ka.Findings {
			if f.Rule == RuleTexture {
				n++
				t.Logf("%s: pc %d: %s", name, f.PC, f.Saw)
			}
		}
		if n != want[name] {
			t.Errorf("%s: %s fires at %d pcs, want %d", name, RuleTexture, n, want[name])
		}
	})
}

// TestTextureRuleNeedsEachCondition: on tex_column_global the rule fires at the column
// load; each condition broken in turn on the same patterns silences it: a store over the
// image, lanes less than a line apart, and records that all read one column.
func TestTextureRuleNeedsEachCondition(t *testing.T) {
	r, fresh := ruleInput(t, "tex_column_global")
	fs := textureReads(fresh())
	if len(fs) != 1 {
		t.Fatalf("fires at %d pcs, want the column load", len(fs))
	}
	f := fs[0]
	// 1024² floats walked down the columns: 32 sectors a request in linear memory, 16
	// through the texture's block-linear layout.
	if f.Before != 1048576 || f.After != 524288 || f.Into != "l1tex__t_sectors_pipe_tex_mem_texture.sum" {
		t.Errorf("gain %s %.0f → %s %.0f, want 1048576 → 524288 texture sectors", f.Metric, f.Before, f.Into, f.After)
	}
	pc := f.PC
	store := slices.IndexFunc(r.Meta().Launches[0].Program.Insts, func(in format.Inst) bool {
		return in.Space == format.SpaceGlobal && in.MemOp == format.MemStore
	})
	for name, breakIt := range map[string]func(in *kernelInput){
		"a store over the image": func(in *kernelInput) { in.pats[store].span = in.pats[pc].span },
		"lanes 64 B apart": func(in *kernelInput) {
			p := &in.pats[pc]
			p.strides = map[int64]int{64: p.pairs}
		},
		"one column": func(in *kernelInput) {
			p := &in.pats[pc]
			stride, _ := p.dominantStride()
			base := p.span.lo &^ 255
			for i := range p.tex.recs {
				for l, a := range p.tex.recs[i].lanes {
					p.tex.recs[i].lanes[l] = a - (a-base)%uint64(stride)
				}
			}
		},
	} {
		in := fresh()
		breakIt(in)
		if got := textureReads(in); len(got) != 0 {
			t.Errorf("%s: still fires at pc %d", name, got[0].PC)
		}
	}
}
