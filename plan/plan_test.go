package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/pcie"
)

func link(t testing.TB, sets ...string) pcie.Link {
	t.Helper()
	c, err := arch.Preset("hopper", "h200")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return c.PCIe
}

// h200SMs is the H200 preset's SM count.
func h200SMs(t testing.TB) int {
	t.Helper()
	c, err := arch.Preset("hopper", "h200")
	if err != nil {
		t.Fatal(err)
	}
	return c.SM.Count
}

// doubleBuffer is a plan of n chunks of chunk bytes, each copied in and then
// processed by a kernel of kernelNS, chunk i on stream i%2.
func doubleBuffer(n int, chunk string, kernelNS float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "buffers:\n  in: {bytes: %s}\nkernels:\n  work: {ns: %g}\nsteps:\n", chunk, kernelNS)
	for i := range n {
		fmt.Fprintf(&b, "  - {stream: s%d, copy: in, to: device}\n  - {stream: s%d, run: work}\n", i%2, i%2)
	}
	return b.String()
}

// TestDoubleBufferingHidesTheShorter: seed 000's double buffering. With the chunks
// alternating between two streams, chunk i+1's copy runs during chunk i's kernel, so
// n chunks take n × the longer of copy and kernel plus one of the shorter, where one
// stream (or no overlap) takes n × (copy + kernel): the overlap hides the shorter
// (n - 1) times, whichever it is.
func TestDoubleBufferingHidesTheShorter(t *testing.T) {
	l := link(t)
	copyNS := l.CopyNS(16<<20, true)
	for _, kernelNS := range []float64{copyNS / 3, 3 * copyNS} {
		p, err := Parse([]byte(doubleBuffer(4, "16MB", kernelNS)))
		if err != nil {
			t.Fatal(err)
		}
		tl, err := p.Layout(l, h200SMs(t), map[string]float64{"work": kernelNS})
		if err != nil {
			t.Fatal(err)
		}
		long, short := max(copyNS, kernelNS), min(copyNS, kernelNS)
		want := 4*long + short
		if math.Abs(tl.TotalNS-want) > 1e-6*want || math.Abs(tl.SerialNS-4*(copyNS+kernelNS)) > 1e-6*want {
			t.Errorf("copy %.0f ns, kernel %.0f: total %.0f (want %.0f), serial %.0f (want %.0f)",
				copyNS, kernelNS, tl.TotalNS, want, tl.SerialNS, 4*(copyNS+kernelNS))
		}
		t.Logf("copy %.0f us, kernel %.0f us: %.0f us overlapped, %.0f us serial (hides %.0f us = 3 x the shorter)",
			copyNS/1e3, kernelNS/1e3, tl.TotalNS/1e3, tl.SerialNS/1e3, (tl.SerialNS-tl.TotalNS)/1e3)
	}
}

// TestCopyEnginesOnTheH200 lays out the H200's measured pairs
// (traces/hw/h200-2026-11-26-transfers): a 64 MB h2d and d2h on two streams
// overlap (1331 us measured), two h2d do not (2427 us), and a 2010 us kernel hides a
// 64 MB copy beside it (2009 us); the model within 10%. With one copy engine
// (GeForce Fermi or Kepler) the opposite copies go one after the other.
func TestCopyEnginesOnTheH200(t *testing.T) {
	const head = "buffers:\n  a: {bytes: 64MB}\n  b: {bytes: 64MB}\nkernels:\n  spin: {ns: 2010442}\nsteps:\n"
	for _, tc := range []struct {
		name, steps string
		sets        []string
		gpuUS       float64
	}{
		{"h2d beside d2h", "  - {stream: 1, copy: a, to: device}\n  - {stream: 2, copy: b, to: host}\n", nil, 1331.2},
		{"h2d beside h2d", "  - {stream: 1, copy: a, to: device}\n  - {stream: 2, copy: b, to: device}\n", nil, 2426.5},
		{"kernel beside h2d", "  - {stream: 1, run: spin}\n  - {stream: 2, copy: a, to: device}\n", nil, 2009.3},
		{"one engine", "  - {stream: 1, copy: a, to: device}\n  - {stream: 2, copy: b, to: host}\n", []string{"pcie.copy_engines=1"}, 0},
	} {
		p, err := Parse([]byte(head + tc.steps))
		if err != nil {
			t.Fatal(err)
		}
		tl, err := p.Layout(link(t, tc.sets...), h200SMs(t), map[string]float64{"spin": 2010442})
		if err != nil {
			t.Fatal(err)
		}
		got := tl.TotalNS / 1e3
		if tc.gpuUS == 0 {
			if tl.TotalNS != tl.SerialNS {
				t.Errorf("%s: %.0f us, want the copies one after the other (%.0f)", tc.name, got, tl.SerialNS/1e3)
			}
			continue
		}
		t.Logf("%s: model %.0f us, H200 %.0f", tc.name, got, tc.gpuUS)
		if math.Abs(got/tc.gpuUS-1) > 0.10 {
			t.Errorf("%s: model %.0f us, H200 %.0f (more than 10%% apart)", tc.name, got, tc.gpuUS)
		}
	}
}

// TestPlanErrors: every bad plan is an *Error naming where.
func TestPlanErrors(t *testing.T) {
	const base = "buffers:\n  x: {bytes: 1MB}\nkernels:\n  k: {ns: 1000}\nsteps:\n"
	for _, tc := range []struct{ plan, key, msg string }{
		{base + "  - {stream: a, copy: y, to: device}\n", "steps[0]", `unknown buffer "y"`},
		{base + "  - {stream: a, copy: x, to: device, bytes: 2MB}\n", "steps[0]", `larger than buffer "x"`},
		{base + "  - {stream: a, wait: e2}\n  - {stream: a, record: e1}\n  - {stream: b, wait: e1}\n  - {stream: b, record: e2}\n",
			"steps[0]", "a cycle between streams and events"},
		{base + "  - {stream: a, wait: e}\n", "steps[0]", `"e", which no step records`},
		{base + "  - {stream: a, record: e}\n  - {stream: b, record: e}\n", "steps[1]", "recorded again"},
		{base + "  - {stream: a, run: q}\n", "steps[0]", `unknown kernel "q"`},
		{base + "  - {stream: a, copy: x, to: gpu}\n", "steps[0]", "want device or host"},
		{base + "  - {copy: x, to: device}\n", "steps[0]", "no stream"},
		{base + "  - {stream: a, copy: x, run: k, to: device}\n", "steps[0]", "exactly one of copy, run"},
		{base + "  - {stream: a, run: k, to: host}\n", "steps[0]", "belong to a copy"},
		{base + "  - {stream: a, copy: x, to: host, bytes: lots}\n", "steps[0]", "bytes"},
		{base + "  - {stream: a, copy: x, to: host, speed: 3}\n", "", "unknown field"},
		{"buffers:\n  x: {bytes: 0}\nsteps:\n  - {stream: a, copy: x, to: host}\n", "buffers.x.bytes", "want 1 B"},
		{"buffers:\n  x: {bytes: 1KB, host: shared}\nsteps:\n  - {stream: a, copy: x, to: host}\n", "buffers.x.host", "pinned or pageable"},
		{"kernels:\n  k: {ns: 5, trace: t.gtrace}\nsteps:\n  - {stream: a, run: k}\n", "kernels.k", "exactly one of trace"},
		{base + "  - {sync: a, stream: b}\n", "steps[0]", "names no stream"},
		{base + "  - {sync_event: e}\n  - {stream: a, record: e}\n", "steps[0]", `waits for event "e", which no earlier step records`},
		{base + "  - {sync: a, sync_event: e}\n", "steps[0]", "has both"},
		{base + "  - {sync: a, run: k}\n", "steps[0]", "a step of its own"},
		{"nonblocking: [a, default]\n" + base + "  - {stream: a, run: k}\n", "nonblocking[1]", `other than "default"`},
		{"kernels:\n  k: {ns: 5, sms: -1}\nsteps:\n  - {stream: a, run: k}\n", "kernels.k.sms", "want the SMs"},
		{"buffers: {}\n", "steps", "no steps"},
		{"steps: [1, 2\n", "", ""},
	} {
		_, err := Parse([]byte(tc.plan))
		var pe *Error
		if !errors.As(err, &pe) || pe.Key != tc.key || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q:\n  got %v\n  want key %q and %q", tc.plan, err, tc.key, tc.msg)
		}
	}
}

// A layout without a time for a kernel a step runs is an error naming the step.
func TestLayoutNeedsEveryKernelTime(t *testing.T) {
	p, err := Parse([]byte("kernels:\n  k: {trace: t.gtrace}\nsteps:\n  - {stream: a, run: k}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Layout(link(t), h200SMs(t), nil); err == nil || !strings.Contains(err.Error(), `steps[0]: no time for kernel "k"`) {
		t.Errorf("Layout without times: %v", err)
	}
}
