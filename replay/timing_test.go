package replay

import (
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
	return captureWith(t, func(s *capture.Spec) { s.SIMT, s.RegsPerThread = simt, regs }, name, sizes...)
}

// captureWith captures a reference kernel at sizes after edit has changed its spec, and
// checks the kernel's output against its Go reference.
func captureWith(t testing.TB, edit func(*capture.Spec), name string, sizes ...string) *format.Reader {
	t.Helper()
	r, err := kernels.TraceOf(context.Background(), name, sizes, edit)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// captureSpec captures spec into an in-memory trace.
func captureSpec(t testing.TB, spec capture.Spec) (*format.Reader, *capture.Result) {
	t.Helper()
	r, res, err := kernels.CaptureInMemory(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

// captureWarp captures PTX kernel k as one CTA of one warp under ITS, with args.
func captureWarp(t testing.TB, ptx string, args ...string) *format.Reader {
	t.Helper()
	r, _ := captureSpec(t, capture.Spec{PTX: []byte(ptx), PTXName: "k.ptx", Kernel: "k",
		Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}, SIMT: format.SIMTITS, Args: args})
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
			if got := get("gtrace__ptx_inst_executed.sum"); got != float64(winst) {
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
// would never move again (it did, before: "32 warps can never issue again"). So do
// they where warps issue past their barrier (lat.bar), with another result: the warps'
// arithmetic after a barrier overlaps the wait, their memory accesses wait longer.
func TestPoliciesCompleteBarriers(t *testing.T) {
	r := traceOf(t, "transpose_v2", "n=256")
	for _, pol := range []string{"lrr", "gto", "two-level"} {
		var c [2]float64
		for i, sets := range [][]string{nil, {"lat.bar=100"}} {
			k := timeOne(t, r, "fermi", append(sets, "sm.scheduler="+pol)...)
			if c[i] = metric(t, k, "sm__cycles_elapsed.avg"); c[i] <= 0 {
				t.Errorf("%s %v: %v cycles", pol, sets, c[i])
			}
		}
		if c[1] == c[0] {
			t.Errorf("%s: %v cycles with lat.bar=100 and without: want the key to act", pol, c[1])
		}
	}
}

// TestIntDivide: an integer div or rem by a register costs what ptxas's Newton-Raphson
// sequence costs (17 or 24 issue slots, a chain of three SFU-class latencies and 11 or
// 16 integer ones, each of its class: two IMAD.HI, three IMAD, two ISETP and four or
// nine adds and selects); an unsigned one with the divisor hoisted out of its loop, 10
// slots and the quotient's chain alone; by an immediate, or in floating point, it stays one ALU
// op. On an arch without integer latencies by class every link is lat.alu.
func TestIntDivide(t *testing.T) {
	l := preset(t, "hopper").Latency
	hi, alu, setp, add, sfu := int64(l.IMADHi), int64(l.ALU), int64(l.SetP), int64(l.Int), int64(l.SFU)
	if hi == alu || setp == alu || add == alu {
		t.Fatalf("hopper's integer latencies are not by class: %+v", l)
	}
	quot := func(adds int64) int64 { return hi + 2*alu + 2*setp + adds*add }
	full := func(adds int64) int64 { return quot(adds) + 3*sfu + add + alu + hi }
	for _, c := range []struct {
		op, ptx string
		hoisted bool
		n       int
		lat     int64
	}{
		{"rem.u32", "rem.u32 %r9, %r3, %r5;", false, 17, full(3)},
		{"rem.s32", "rem.s32 %r10, %r9, %r1;", false, 24, full(8)},
		{"div.s32", "div.s32 %r12, %r16, %r8;", false, 24, full(8)},
		{"div.u32", "div.u32 %r12, %r16, %r8;", true, 10, quot(3)},
		{"rem.s32", "rem.s32 %r10, %r9, %r1;", true, 24, full(8)}, // signed: not hoisted (see intDivide)
		{"div.u64", "div.u64 %rd1, %rd2, %rd3;", false, 73, 2 * full(3)},
		{"div.u64", "div.u64 %rd1, %rd2, %rd3;", true, 73, 2 * full(3)}, // a call: nothing hoisted
		{"rem.s64", "rem.s64 %rd1, %rd2, %rd3;", false, 80, 2 * full(8)},
		{"rem.u32", "rem.u32 %r9, %r3, 7;", false, 0, 0},
		{"div.rn.f32", "div.rn.f32 %f1, %f2, %f3;", false, 0, 0},
		{"add.s32", "add.s32 %r1, %r2, %r3;", false, 0, 0},
	} {
		n, lat := intDivide(&format.Inst{Opcode: c.op, PTX: c.ptx}, l, c.hoisted)
		if n != c.n || lat != c.lat {
			t.Errorf("%s (hoisted %v): %d slots, latency %d; want %d, %d", c.ptx, c.hoisted, n, lat, c.n, c.lat)
		}
	}
	fl := preset(t, "fermi").Latency
	if n, lat := intDivide(&format.Inst{Opcode: "rem.s32", PTX: "rem.s32 %r1, %r2, %r3;"}, fl, false); n != 24 || lat != 3*int64(fl.SFU)+16*int64(fl.ALU) {
		t.Errorf("fermi rem.s32: %d slots, latency %d; want 24, 3 SFU + 16 ALU", n, lat)
	}
	// In a kernel: testCoalesced's "% elements" holds each warp for the chain's
	// latency, so one warp takes longer than with the rem as a plain ALU op.
	r := captureSIMT(t, format.SIMTITS, "test_coalesced", "elements=256")
	with, _ := timeOne(t, r, "hopper").Metric("sm__cycles_elapsed.avg")
	plain, _ := timeOne(t, r, "hopper", "lat.sfu=0").Metric("sm__cycles_elapsed.avg")
	if with-plain < 3*float64(l.SFU)-1 {
		t.Errorf("test_coalesced: %g cycles with the divide's SFU latencies, %g without", with, plain)
	}
	// A div issues on the ALU pipe as a rem does: its SASS is integer ops but for one
	// MUFU.RCP, so the SFU's width does not change cutoff_direct's time (its only
	// SFU-class instructions are its divides). Charged to the SFU, each of its 15-24
	// slots took 8 cycles of a hopper SFU quarter (4 lanes) and the kernel ran 51-56%
	// over the H200's time (traces/hw/h200-2026-11-26-binning.csv).
	cd := captureSIMT(t, format.SIMTITS, "cutoff_direct", "cells=3")
	base := metric(t, timeOne(t, cd, "hopper"), "sm__cycles_elapsed.avg")
	for _, sfu := range []string{"sm.sfu_lanes=4", "sm.sfu_lanes=64"} {
		if got := metric(t, timeOne(t, cd, "hopper", sfu), "sm__cycles_elapsed.avg"); got != base {
			t.Errorf("cutoff_direct: %g cycles with %s, %g with the preset's: a divide waits for the SFU pipe", got, sfu, base)
		}
	}
}
