package replay

import (
	"bytes"
	"context"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
)

// captureSIMT captures a reference kernel under the given SIMT model (stack for the
// pre-Volta presets, ITS for the others), checking its output first.
func captureSIMT(t testing.TB, simt format.SIMTModel, name string, sizes ...string) *format.Reader {
	t.Helper()
	return captureRegs(t, simt, 0, name, sizes...)
}

// captureRegs is captureSIMT with the launch's registers per thread set, as ptxas would
// report them (0: unknown).
func captureRegs(t testing.TB, simt format.SIMTModel, regs uint32, name string, sizes ...string) *format.Reader {
	t.Helper()
	k, err := kernels.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	sz, err := kernels.ParseSizes(k, sizes)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := k.Spec(sz, kernels.Clang14)
	if err != nil {
		t.Fatal(err)
	}
	spec.SIMT = simt
	spec.RegsPerThread = regs
	kk, err := capture.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := kk.Capture(context.Background(), &buf, "replay test")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Verify(sz, spec, res); err != nil {
		t.Fatal(err)
	}
	r, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func timeOne(t testing.TB, r *format.Reader, a string, sets ...string) *KernelReport {
	t.Helper()
	rep, err := Timing(context.Background(), r, preset(t, a, sets...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &rep.Kernels[0]
}

// TestTimingSmoke: every arch times a few kernels at their Small sizes with consistent
// totals: IPC and occupancy within their peaks, every issued instruction counted once.
func TestTimingSmoke(t *testing.T) {
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		simt := format.SIMTITS
		if a == "fermi" || a == "kepler" {
			simt = format.SIMTStack
		}
		cfg := preset(t, a)
		for _, name := range []string{"add_vectors", "transpose_v2", "reduce_v3", "divergence_if_else"} {
			k, _ := kernels.Lookup(name)
			r := captureSIMT(t, simt, name, k.Small...)
			kr := timeOne(t, r, a)
			get := func(m string) float64 { v, _ := kr.Metric(m); return v }
			var winst uint64
			for w, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				winst += uint64(w.Len())
			}
			if got := get("smsp__inst_executed.sum"); got != float64(winst) {
				t.Errorf("%s on %s: %g warp instructions issued, trace has %d", name, a, got, winst)
			}
			peak := float64(cfg.SM.Schedulers * cfg.SM.DispatchPerScheduler)
			if ipc := get("sm__inst_executed.avg.per_cycle_active"); ipc <= 0 || ipc > peak {
				t.Errorf("%s on %s: IPC %g outside (0, %g]", name, a, ipc, peak)
			}
			if occ := get("sm__warps_active.avg.pct_of_peak_sustained_active"); occ <= 0 || occ > 100 {
				t.Errorf("%s on %s: occupancy %g%%", name, a, occ)
			}
			if get("sm__cycles_elapsed.avg") <= 0 {
				t.Errorf("%s on %s: no cycles", name, a)
			}
		}
	}
}

// Every scheduler policy completes kernels with barriers: under two-level, warps waiting
// at a barrier leave the active set, or a full active set waiting for a pending warp
// would never move again (it did, before: "32 warps can never issue again").
func TestPoliciesCompleteBarriers(t *testing.T) {
	r := traceOf(t, "transpose_v2", "n=256")
	for _, pol := range []string{"lrr", "gto", "two-level"} {
		k := timeOne(t, r, "fermi", "sm.scheduler="+pol)
		if c := metric(t, k, "sm__cycles_elapsed.avg"); c <= 0 {
			t.Errorf("%s: %v cycles", pol, c)
		}
	}
}
