package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// layoutOf parses a plan of one 16 MB pinned buffer x and kernels k (1 ms) and k2
// (0.5 ms) with the given steps, and lays it out on the H200.
func layoutOf(t *testing.T, steps string) *Timeline {
	t.Helper()
	p, err := Parse([]byte("buffers:\n  x: {bytes: 16MB}\nkernels:\n  k: {ns: 1000000}\n  k2: {ns: 500000}\n" + steps))
	if err != nil {
		t.Fatal(err)
	}
	tl, err := p.Layout(link(t), h200SMs(t), map[string]float64{"k": 1e6, "k2": 5e5})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// The legacy default stream waits for every blocking stream's earlier steps and they
// for its, a non-blocking stream for neither; the host's syncs hold every later step
// until the stream, the event or every stream they wait for is done.
func TestDefaultStreamAndSyncs(t *testing.T) {
	c := link(t).CopyNS(16<<20, true)
	const k, k2 = 1e6, 5e5
	for _, tc := range []struct {
		name, steps string
		want        float64
	}{
		{"a kernel on another stream beside a copy", "steps:\n  - {stream: a, copy: x, to: device}\n  - {stream: b, run: k}\n", max(c, k)},
		{"the default stream waits for a", "steps:\n  - {stream: a, copy: x, to: device}\n  - {stream: default, run: k}\n", c + k},
		{"a waits for the default stream", "steps:\n  - {stream: default, run: k}\n  - {stream: a, copy: x, to: device}\n", k + c},
		{"a non-blocking stream waits for neither", "nonblocking: [a]\nsteps:\n  - {stream: a, copy: x, to: device}\n  - {stream: default, run: k}\n  - {stream: a, run: k2}\n", k + k2}, // one kernel at a time
		{"steps issued later than the default stream's do not hold it", "steps:\n  - {stream: default, run: k}\n  - {stream: a, copy: x, to: device}\n  - {stream: b, run: k2}\n", k + max(c, k2)},
		{"the host waits for a stream", "steps:\n  - {stream: a, run: k}\n  - {sync: a}\n  - {stream: b, copy: x, to: device}\n", k + c},
		{"the host waits for another stream only", "steps:\n  - {stream: a, run: k}\n  - {stream: b, copy: x, to: device}\n  - {sync: b}\n  - {stream: c, copy: x, to: host}\n", max(k, 2*c)},
		{"the host waits for an event", "steps:\n  - {stream: a, run: k2}\n  - {stream: a, record: e}\n  - {stream: a, run: k}\n  - {sync_event: e}\n  - {stream: b, copy: x, to: device}\n", k2 + max(k, c)},
		{"the host waits for the device", "steps:\n  - {stream: a, run: k}\n  - {stream: b, copy: x, to: host}\n  - {sync: device}\n  - {stream: c, run: k2}\n", max(k, c) + k2},
	} {
		tl := layoutOf(t, tc.steps)
		if math.Abs(tl.TotalNS-tc.want) > 1e-9*tc.want {
			t.Errorf("%s: %.0f ns, want %.0f (copy %.0f)", tc.name, tl.TotalNS, tc.want, c)
		}
	}
}

// FromTrace lays out a program as gtrace run traced it: the streams example's shape
// (an event on the default stream, three streams each copying in, running and copying
// back, an event after them, each stream synchronised) overlaps the streams' work
// and ends its last event with the last stream; a blocking copy holds the host, a
// device-to-device copy runs on the GPU at the DRAM's rate, and host-to-host copies
// are noted and left out.
func TestFromTrace(t *testing.T) {
	const mb = 1 << 20
	l := link(t)
	m := &format.Meta{}
	var syncs []format.Sync
	sync := func(c format.SyncCall, stream, event uint64) {
		syncs = append(syncs, format.Sync{Call: c, Stream: stream, Event: event, After: len(m.Launches), Copies: len(m.Transfers)})
	}
	copyOf := func(call string, kind format.TransferKind, stream uint64) {
		m.Transfers = append(m.Transfers, format.Transfer{Call: call, Kind: kind, Bytes: 4 * mb, Pinned: kind != format.DeviceToDevice, Stream: stream, After: len(m.Launches)})
	}
	const start, stop = 0x5e000010, 0x5e000020
	sync(format.EventRecord, 0, start)
	streams := []uint64{0x51000010, 0x51000020, 0x51000030}
	for _, s := range streams {
		copyOf("cudaMemcpyAsync", format.HostToDevice, s)
		m.Launches = append(m.Launches, format.Launch{Kernel: "_Z7reversePKfPf", Stream: s, Grid: format.Dim3{X: 264, Y: 1, Z: 1}}) // every SM
		copyOf("cudaMemcpyAsync", format.DeviceToHost, s)
	}
	sync(format.EventRecord, 0, stop)
	for _, s := range streams {
		sync(format.StreamSynchronize, s, 0)
	}
	sync(format.EventSynchronize, 0, stop)
	sync(format.StreamWaitEvent, streams[0], 0x5e000030) // never recorded: dropped
	copyOf("cudaMemcpy", format.DeviceToDevice, 0)
	copyOf("cudaMemcpy", format.HostToHost, 0)
	copyOf("cudaMemcpy", format.DeviceToHost, 0)
	m.Syncs = syncs
	const kernel, dram = 300000.0, 4.8e12
	p, err := FromTrace(m, []float64{kernel, kernel, kernel}, dram)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Steps {
		got = append(got, s.Stream+": "+s.String())
	}
	want := []string{
		"default: record e1",
		"s1: cudaMemcpyAsync to device (4 MB, pinned)", "s1: run launch 0 (_Z7reversePKfPf)", "s1: cudaMemcpyAsync to host (4 MB, pinned)",
		"s2: cudaMemcpyAsync to device (4 MB, pinned)", "s2: run launch 1 (_Z7reversePKfPf)", "s2: cudaMemcpyAsync to host (4 MB, pinned)",
		"s3: cudaMemcpyAsync to device (4 MB, pinned)", "s3: run launch 2 (_Z7reversePKfPf)", "s3: cudaMemcpyAsync to host (4 MB, pinned)",
		"default: record e2", ": host waits for stream s1", ": host waits for stream s2", ": host waits for stream s3", ": host waits for event e2",
		"default: run copy 6 (cudaMemcpy d2d, 4 MB)",
		"default: cudaMemcpy to host (4 MB, pinned)", ": host waits for stream default",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(p.Notes) != 1 || p.Notes[0] != "1 host-to-host copies (4 MB) left out: they involve no GPU" {
		t.Errorf("notes %q", p.Notes)
	}
	times := map[string]float64{}
	for _, k := range p.Kernels {
		times[k.Name] = k.NS
	}
	if d2d := times["copy 6 (cudaMemcpy d2d, 4 MB)"]; math.Abs(d2d-2*4*mb/dram*1e9) > 1e-6 {
		t.Errorf("the d2d copy takes %.0f ns, want 2 × 4 MB at %g B/s", d2d, dram)
	}
	tl, err := p.Layout(l, h200SMs(t), times)
	if err != nil {
		t.Fatal(err)
	}
	c := l.CopyNS(4*mb, true)
	// Three engines: stream k's copy in runs beside stream k-1's kernel, the copies back
	// beside the next copies in, the kernels one after another on the GPU.
	streamsEnd := c + 3*kernel + c
	ends := map[string]float64{}
	for _, sp := range tl.Spans {
		ends[sp.Step.String()] = sp.EndNS
	}
	if e2 := ends["record e2"]; math.Abs(e2-streamsEnd) > 1 {
		t.Errorf("the event after the streams completes at %.0f ns, want %.0f (copy %.0f, kernels %.0f)", e2, streamsEnd, c, kernel)
	}
	want2 := streamsEnd + times["copy 6 (cudaMemcpy d2d, 4 MB)"] + c
	if math.Abs(tl.TotalNS-want2) > 1 || tl.TotalNS >= tl.SerialNS {
		t.Errorf("total %.0f ns, want %.0f, below the serial %.0f", tl.TotalNS, want2, tl.SerialNS)
	}
	if _, err := FromTrace(m, []float64{kernel}, dram); err == nil {
		t.Error("FromTrace with 1 time for 3 launches: no error")
	}
	m.Syncs[1].Copies = 10 // ahead of every copy
	if _, err := FromTrace(m, []float64{kernel, kernel, kernel}, dram); err == nil || !strings.Contains(err.Error(), "out of the program's order") {
		t.Errorf("FromTrace on syncs out of order: %v", err)
	}
}

// Kernels on different streams run side by side while their SMs fit on the GPU (132
// on the H200), each for its own time; a kernel of every SM runs alone.
func TestKernelsShareTheSMs(t *testing.T) {
	for _, tc := range []struct {
		name string
		sms  [3]int // of kernels a, b, c, each on its own stream, 1 ms each
		want float64
	}{
		{"three of one SM", [3]int{1, 1, 1}, 1e6},
		{"two halves, then a third", [3]int{66, 66, 66}, 2e6},
		{"two that fit, one that does not", [3]int{100, 32, 1}, 2e6},
		{"every SM (none given) alone", [3]int{0, 1, 1}, 2e6},
		{"more than the GPU is every SM", [3]int{500, 1, 1}, 2e6},
		{"one at a time", [3]int{132, 132, 132}, 3e6},
	} {
		var b strings.Builder
		b.WriteString("kernels:\n")
		for i, n := range tc.sms {
			fmt.Fprintf(&b, "  k%d: {ns: 1000000, sms: %d}\n", i, n)
		}
		b.WriteString("steps:\n  - {stream: a, run: k0}\n  - {stream: b, run: k1}\n  - {stream: c, run: k2}\n")
		p, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		tl, err := p.Layout(link(t), h200SMs(t), map[string]float64{"k0": 1e6, "k1": 1e6, "k2": 1e6})
		if err != nil {
			t.Fatal(err)
		}
		if tl.TotalNS != tc.want || tl.SerialNS != 3e6 {
			t.Errorf("%s: %.0f ns (serial %.0f), want %.0f", tc.name, tl.TotalNS, tl.SerialNS, tc.want)
		}
	}
}
