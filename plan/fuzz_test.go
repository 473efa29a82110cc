package plan

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse feeds arbitrary plan files to Parse: each is a plan or an *Error, never a
// panic, and an accepted plan lays out on the H200 with every kernel at 1 µs, ending
// no earlier than its longest step and no later than its steps one after another.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("../examples/double-buffer.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(example))
	f.Add(doubleBuffer(3, "1MB", 5000))
	f.Add("steps:\n  - {stream: a, record: e}\n  - {stream: b, wait: e}\n")
	f.Add("nonblocking: [b]\nsteps:\n  - {stream: default, record: e}\n  - {stream: b, wait: e}\n  - {sync: b}\n  - {sync_event: e}\n  - {sync: device}\n")
	f.Add("buffers:\n  x: {bytes: 1KB, host: pageable}\nsteps:\n  - {stream: 1, copy: x, to: host, bytes: 12}\n")
	c, sms := link(f), h200SMs(f)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse([]byte(s))
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): %T %v, want *Error", s, err, err)
			}
			return
		}
		times := map[string]float64{}
		for _, k := range p.Kernels {
			times[k.Name] = 1000
		}
		tl, err := p.Layout(c, sms, times)
		if err != nil {
			t.Fatalf("Parse(%q) accepted, Layout: %v", s, err)
		}
		longest := 0.0
		for _, sp := range tl.Spans {
			longest = max(longest, sp.EndNS-sp.StartNS)
		}
		if tl.TotalNS < longest || tl.TotalNS > tl.SerialNS*(1+1e-9) || len(tl.Spans) != len(p.Steps) {
			t.Fatalf("Parse(%q): total %g, serial %g, longest step %g, %d spans of %d steps", s, tl.TotalNS, tl.SerialNS, longest, len(tl.Spans), len(p.Steps))
		}
	})
}
