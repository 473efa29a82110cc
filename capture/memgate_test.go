package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gtrace/gtrace/format"
)

// A loop that never exits ends at the per-CTA trace bound, long before the per-warp
// instruction budget, with a budget fault at a pc of the loop and its .cu line, and
// the same fault for any worker count.
func TestRunawayEndsAtTheCTATraceBound(t *testing.T) {
	ptx, err := os.ReadFile("testdata/runaway.ptx")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, simt := range []format.SIMTModel{format.SIMTITS, format.SIMTStack} {
		for _, workers := range []int{1, 4} {
			spec := Spec{PTX: ptx, PTXName: "testdata/runaway.ptx", Kernel: "runaway", Grid: d3(8, 1, 1), Block: d3(128, 1, 1),
				Args: []string{"buf:u32:128"}, MaxInst: 1 << 40, MaxCTATrace: 1 << 20, SIMT: simt, Workers: workers}
			_, err := load(t, spec).Run(context.Background(), 0, nil)
			var f *Fault
			if !errors.As(err, &f) {
				t.Fatalf("%v, %d workers: %v; want a Fault", simt, workers, err)
			}
			if f.Kind != FaultBudget || f.CTA != 0 || !strings.Contains(f.Reason, "1.0 MiB held in memory") || !strings.Contains(f.Reason, "--max-cta-trace") {
				t.Errorf("%v, %d workers: %v; want a budget fault of CTA 0 naming 1.0 MiB and --max-cta-trace", simt, workers, err)
			}
			if f.Source != "/src/stencil.cu:6" && f.Source != "/src/stencil.cu:7" && f.Source != "/src/stencil.cu:8" {
				t.Errorf("%v, %d workers: fault at %q, want a line of the loop (stencil.cu:6-8)", simt, workers, f.Source)
			}
			if workers == 1 {
				first = err.Error()
				t.Log(first)
			} else if err.Error() != first {
				t.Errorf("%v: %d workers: %v\nwant the 1-worker fault %s", simt, workers, err, first)
			}
		}
	}
}

// The bound counts records: a CTA holding exactly the bound runs, one byte less faults.
func TestCTATraceBoundIsExact(t *testing.T) {
	spec := Spec{Kernel: "reduce_v1", Grid: d3(6, 1, 1), Block: d3(256, 1, 1), Args: []string{"buf:f32:1536:rand", "buf:f32:6"}, Workers: 2}
	sink := &memSink{}
	run(t, spec, sink)
	perCTA := map[int]int{}
	for _, w := range sink.warps {
		perCTA[w.CTA] += w.Bytes()
	}
	most, which := 0, 0
	for c, b := range perCTA {
		if b > most || b == most && c < which {
			most, which = b, c
		}
	}
	spec.MaxCTATrace = uint64(most)
	if _, err := load(t, spec).Run(context.Background(), 0, nil); err != nil {
		t.Errorf("bound = the largest CTA's %d bytes: %v", most, err)
	}
	spec.MaxCTATrace--
	_, err := load(t, spec).Run(context.Background(), 0, nil)
	if f := (*Fault)(nil); !errors.As(err, &f) || f.Kind != FaultBudget || f.CTA > which {
		t.Errorf("bound one byte under CTA %d's %d bytes: %v; want its budget fault", which, most, err)
	}
}

// Gated to the last byte (every CTA but the lowest unfinished one waits at every
// step), many workers still write the same trace as one.
func TestMemGateKeepsTheTrace(t *testing.T) {
	spec := Spec{Kernel: "transpose_naive", Grid: d3(8, 8, 1), Block: d3(32, 8, 1), Args: []string{"buf:f32:65536", "buf:f32:65536:rand", "i32:256", "i32:256"}}
	var sinks [2]*memSink
	for i, w := range []int{1, 4} {
		spec.Workers = w
		k := load(t, spec)
		k.mem = memLimits{gate: 1, flush: 1, report: 1}
		sinks[i] = &memSink{}
		if _, err := k.Run(context.Background(), 0, sinks[i]); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(sinks[0].order) != fmt.Sprint(sinks[1].order) || fmt.Sprint(sinks[0].warps) != fmt.Sprint(sinks[1].warps) {
		t.Error("the gated 4-worker trace differs from the 1-worker trace")
	}
}

func TestMemGate(t *testing.T) {
	g := newMemGate(100)
	if err := g.grow(0, 150, nil); err != nil { // the head never waits
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- g.grow(1, 10, nil) }()
	select {
	case err := <-done:
		t.Fatalf("CTA 1 went on past the limit (%v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.release(150) // 10 held: under the limit
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	g.add(200)
	go func() { done <- g.grow(2, 1, nil) }()
	g.finish(0) // head 1: CTA 2 still waits
	select {
	case err := <-done:
		t.Fatalf("CTA 2 went on past the limit (%v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.finish(1) // CTA 2 is the head now
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	go func() { done <- g.grow(5, 1, nil) }()
	g.stop()
	if err := <-done; !errors.Is(err, errStopped) {
		t.Errorf("stopped gate: %v, want errStopped", err)
	}
}
