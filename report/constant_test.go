package report

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// ruleInput captures kernel at sizes, replays it on hopper per pc and returns the trace
// and a maker of fresh rule inputs from them: patterns scanned anew and a copy of the
// preset each time, so that a test may break one condition in each.
func ruleInput(t *testing.T, kernel string, sizes ...string) (*format.Reader, func() *kernelInput) {
	t.Helper()
	ctx := context.Background()
	r, err := kernels.TraceOf(ctx, kernel, sizes, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := arch.Preset("hopper", "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Memory(ctx, r, cfg, replay.Options{PerPC: true})
	if err != nil {
		t.Fatal(err)
	}
	return r, func() *kernelInput {
		pats, err := scanPatterns(r, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := *cfg
		return &kernelInput{launch: &r.Meta().Launches[0], rep: &rep.Kernels[0], pats: pats, pcs: perPC(&rep.Kernels[0]), cfg: &c}
	}
}

// TestUniformReadRuleNeedsEachCondition: on conv1d_mask_global the rule fires at the 7
// mask loads; each of its conditions, broken in turn on the same patterns, silences it
// at the pc where it is broken: a record whose lanes read two addresses, a store whose
// bytes overlap the mask, a constant bank smaller than what the pc reads, and warps that
// each read their own word (no reuse for the constant cache).
func TestUniformReadRuleNeedsEachCondition(t *testing.T) {
	r, fresh := ruleInput(t, "conv1d_mask_global", "n=1000")
	fired := func(in *kernelInput) []uint32 {
		var pcs []uint32
		for _, f := range uniformGlobalRead(in) {
			pcs = append(pcs, f.PC)
		}
		return pcs
	}
	all := fired(fresh())
	if len(all) != 7 {
		t.Fatalf("fires at pcs %v, want the 7 mask loads", all)
	}
	for _, f := range uniformGlobalRead(fresh()) {
		if f.After != 0 || f.Before == 0 || !strings.Contains(f.Saw, "span 28 B") {
			t.Errorf("pc %d: %.0f → %.0f requests, saw %q; want all of them gone and the mask's 28 B", f.PC, f.Before, f.After, f.Saw)
		}
	}
	pc := all[0]
	store := slices.IndexFunc(r.Meta().Launches[0].Program.Insts, func(in format.Inst) bool {
		return in.Space == format.SpaceGlobal && in.MemOp == format.MemStore
	})
	for name, breakIt := range map[string]func(in *kernelInput){
		"two addresses in a record": func(in *kernelInput) { in.pats[pc].bcast.uniform-- },
		"a store over the mask":     func(in *kernelInput) { in.pats[store].span = in.pats[pc].span },
		"a bank smaller than the mask's word": func(in *kernelInput) {
			in.cfg.Const.Size = 2
		},
		"one warp per word": func(in *kernelInput) {
			b := &in.pats[pc].bcast
			for a := range uint64(b.uniform) {
				b.addrs[1<<40+a] = true
			}
		},
	} {
		in := fresh()
		breakIt(in)
		if got := fired(in); slices.Contains(got, pc) {
			t.Errorf("%s: still fires at pc %d (%v)", name, pc, got)
		}
	}
}

// TestUniformReadRuleFiresOnlyOnBroadcasts: over the reference kernels at their test
// sizes on hopper the rule fires on conv1d_mask_global and on the seed's constant_access
// (d_array[blockIdx.x] and dc_array[blockIdx.x]: 4 warps of a CTA read each word), on
// the cutoff sums that read their atoms from global memory (every lane of a block reads
// the same atom: Kirk and Hwu's direct Coulomb summation keeps its atoms in constant
// memory for this reason; the staged form reads them from shared memory), and on no
// other: coalesce_broadcast's warps each read their own word.
func TestUniformReadRuleFiresOnlyOnBroadcasts(t *testing.T) {
	want := map[string]int{"conv1d_mask_global": 7, "constant_access": 2, "cutoff_direct": 2, "cutoff_binned": 2}
	adviseEveryKernel(t, "hopper", func(name string, ka *KernelAdvice) {
		n := 0
		for _, f := range ka.Findings {
			if f.Rule == RuleConstant {
				n++
			}
		}
		if n != want[name] {
			t.Errorf("%s: uniform-global-read fires at %d pcs, want %d", name, n, want[name])
		}
	})
}
