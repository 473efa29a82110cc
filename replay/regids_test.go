package replay

import (
	"context"
	"math"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// TestRegisterIDsAreNames: a trace's register ids are names, kernel-unique and
// otherwise arbitrary (any uint16; format.PredReg marks predicates), so the reader does
// not range-check them and nothing is sized by them: the timing engine's scoreboard
// has a fixed number of entries and the orderer keys its tables by id. Renaming every
// id one-to-one, here to the far end of the range, must time every kernel the same to
// the bit.
func TestRegisterIDsAreNames(t *testing.T) {
	for _, k := range [][]string{{"volkov_ilp4", "threads=1024"}, {"reduce_v3", "n=65536"}} {
		r := traceOf(t, k[0], k[1:]...)
		var before []*Report
		cfgs := []string{"fermi", "hopper"}
		for _, a := range cfgs {
			rep, err := Timing(context.Background(), r, preset(t, a), Options{PerPC: true})
			if err != nil {
				t.Fatal(err)
			}
			before = append(before, rep)
		}
		rename := func(ids []uint16) []uint16 {
			out := make([]uint16, len(ids))
			for i, id := range ids {
				out[i] = id&format.PredReg | (format.PredReg - 1 - id&^format.PredReg)
			}
			return out
		}
		insts := r.Meta().Launches[0].Program.Insts
		renamed := 0
		for i := range insts {
			insts[i].RegsRead, insts[i].RegsWritten = rename(insts[i].RegsRead), rename(insts[i].RegsWritten)
			renamed += len(insts[i].RegsRead) + len(insts[i].RegsWritten)
		}
		if renamed == 0 {
			t.Fatalf("%s: no register ids to rename", k[0])
		}
		for j, a := range cfgs {
			rep, err := Timing(context.Background(), r, preset(t, a), Options{PerPC: true})
			if err != nil {
				t.Fatal(err)
			}
			was, now := before[j].Kernels[0], rep.Kernels[0]
			if len(was.Metrics) != len(now.Metrics) {
				t.Fatalf("%s on %s: %d metrics, then %d", k[0], a, len(was.Metrics), len(now.Metrics))
			}
			for m := range was.Metrics {
				if math.Float64bits(was.Metrics[m].Value) != math.Float64bits(now.Metrics[m].Value) {
					t.Errorf("%s on %s: %s %v with the captured ids, %v renamed", k[0], a, was.Metrics[m].Name, was.Metrics[m].Value, now.Metrics[m].Value)
				}
			}
			if len(was.PerPC) != len(now.PerPC) {
				t.Fatalf("%s on %s: %d pcs, then %d", k[0], a, len(was.PerPC), len(now.PerPC))
			}
			for pc := range was.PerPC {
				for m, x := range was.PerPC[pc].Metrics {
					if y := now.PerPC[pc].Metrics[m]; x.Name != y.Name || math.Float64bits(x.Value) != math.Float64bits(y.Value) {
						t.Errorf("%s on %s, pc %d: %s %v with the captured ids, %s %v renamed", k[0], a, pc, x.Name, x.Value, y.Name, y.Value)
					}
				}
			}
			if c, ok := now.Metric("sm__cycles_elapsed.avg"); !ok || c <= 0 {
				t.Errorf("%s on %s: no cycles (%v)", k[0], a, c)
			}
		}
	}
}
