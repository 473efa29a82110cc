// Package plan reads a launch plan (host buffers, kernels, and the copies, kernel runs
// and events a program issues on its CUDA streams) and lays it out in time on one
// GPU: copies on the copy engines over PCIe (models/pcie), kernels for the time the
// caller gives each (the timing engine's, or a fixed time). It answers seed 000's
// transfer questions: how much a copy costs, and how much double buffering hides.
//
// # Plan files (YAML)
//
//	arch: hopper/h200            # optional; gtrace plan --arch overrides it
//	buffers:                     # host buffers and the device copies they stand for
//	  in0: {bytes: 16MB, host: pinned}     # host: pinned (default) or pageable
//	kernels:                     # exactly one of trace, kernel or ns each
//	  scale: {kernel: saxpy_c1@n=4194304}  # a reference launch, timed by the timing engine
//	  other: {trace: my.gtrace}            # a captured trace, timed by the timing engine
//	  fixed: {ns: 250000}                  # a kernel of known duration
//	steps:                       # in the order the host issues them
//	  - {stream: a, copy: in0, to: device}           # bytes: N copies part of it
//	  - {stream: a, run: scale}
//	  - {stream: a, record: done}                    # each event is recorded once
//	  - {stream: b, wait: done}                      # later steps of b wait for it
//
// # Timing
//
// Each stream runs its steps in order. A copy occupies its direction's copy engine
// (both directions share one engine when the preset has pcie.copy_engines 1) for
// pcie.Link.CopyNS; a kernel occupies the GPU for its time, one kernel at a time (a
// kernel that fills the GPU; concurrent small kernels are not modelled); a record
// takes no time and completes when its stream's earlier steps have; a wait holds its
// stream until the event completes. Among the steps that can go next, the one that
// can start first goes first, ties in the order the host issued them. Serial is the
// same work one step after another (one stream, synchronous copies): the time
// without overlap.
package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/pcie"
)

// Plan is a parsed, checked launch plan.
type Plan struct {
	Arch    string // "ARCH" or "ARCH/GPU"; "" when the file names none
	Buffers []Buffer
	Kernels []Kernel
	Steps   []Step
}

// Buffer is a host buffer and its device copy.
type Buffer struct {
	Name   string
	Bytes  int64
	Pinned bool
}

// Kernel is a kernel a step runs: from a trace file, a reference launch
// (kernels.ParseLaunch's KERNEL@SIZE=VALUE,...) or a fixed time.
type Kernel struct {
	Name   string
	Trace  string
	Launch string
	NS     float64
}

// Kind is what a step does.
type Kind int

const (
	Copy Kind = iota
	Run
	Record
	Wait
)

// Step is one call the host issues.
type Step struct {
	Index    int    // position in the plan's steps, from 0
	Stream   string // the stream it is issued on
	Kind     Kind
	Buffer   string // Copy
	Bytes    int64  // Copy: bytes moved
	ToDevice bool   // Copy: host to device
	Kernel   string // Run
	Event    string // Record, Wait
}

// String names the step as errors and timelines show it.
func (s Step) String() string {
	switch s.Kind {
	case Copy:
		dir := "host"
		if s.ToDevice {
			dir = "device"
		}
		return fmt.Sprintf("copy %s to %s (%s)", s.Buffer, dir, formatBytes(s.Bytes))
	case Run:
		return "run " + s.Kernel
	case Record:
		return "record " + s.Event
	}
	return "wait " + s.Event
}

// Error is a plan that cannot be used: Key names where (buffers.in0.bytes, steps[3]).
type Error struct {
	Key string
	Err error
}

func (e *Error) Error() string {
	if e.Key == "" {
		return "plan: " + e.Err.Error()
	}
	return "plan: " + e.Key + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

type wireBuffer struct {
	Bytes any    `yaml:"bytes"`
	Host  string `yaml:"host"`
}

type wireKernel struct {
	Trace  string  `yaml:"trace"`
	Kernel string  `yaml:"kernel"`
	NS     float64 `yaml:"ns"`
}

type wireStep struct {
	Stream any    `yaml:"stream"`
	Copy   string `yaml:"copy"`
	To     string `yaml:"to"`
	Bytes  any    `yaml:"bytes"`
	Run    string `yaml:"run"`
	Record string `yaml:"record"`
	Wait   string `yaml:"wait"`
}

type wirePlan struct {
	Arch    string                `yaml:"arch"`
	Buffers map[string]wireBuffer `yaml:"buffers"`
	Kernels map[string]wireKernel `yaml:"kernels"`
	Steps   []wireStep            `yaml:"steps"`
}

// maxSteps bounds a plan's steps (and so the work of laying it out).
const maxSteps = 100000

// Parse reads and checks a plan: every name a step uses is defined, a copy is no
// larger than its buffer, each event is recorded exactly once, and no chain of
// waits and records loops back on itself. Errors are *Error naming the key.
func Parse(data []byte) (*Plan, error) {
	var w wirePlan
	if err := decode(data, &w); err != nil {
		return nil, &Error{Err: err}
	}
	p := &Plan{Arch: w.Arch}
	if len(w.Steps) == 0 {
		return nil, &Error{Key: "steps", Err: errors.New("no steps")}
	}
	if len(w.Steps) > maxSteps {
		return nil, &Error{Key: "steps", Err: fmt.Errorf("%d steps, more than %d", len(w.Steps), maxSteps)}
	}
	buffers := map[string]Buffer{}
	for _, name := range sortedKeys(w.Buffers) {
		b := w.Buffers[name]
		key := "buffers." + name
		n, err := parseBytes(b.Bytes)
		if err != nil {
			return nil, &Error{Key: key + ".bytes", Err: err}
		}
		pinned := true
		switch b.Host {
		case "", "pinned":
		case "pageable":
			pinned = false
		default:
			return nil, &Error{Key: key + ".host", Err: fmt.Errorf("%q: want pinned or pageable", b.Host)}
		}
		buf := Buffer{Name: name, Bytes: n, Pinned: pinned}
		buffers[name] = buf
		p.Buffers = append(p.Buffers, buf)
	}
	kernels := map[string]bool{}
	for _, name := range sortedKeys(w.Kernels) {
		k := w.Kernels[name]
		key := "kernels." + name
		set := 0
		for _, b := range []bool{k.Trace != "", k.Kernel != "", k.NS != 0} {
			if b {
				set++
			}
		}
		if set != 1 {
			return nil, &Error{Key: key, Err: errors.New("want exactly one of trace: FILE, kernel: LAUNCH or ns: TIME")}
		}
		if k.NS < 0 || k.NS > 1e15 {
			return nil, &Error{Key: key + ".ns", Err: fmt.Errorf("%g: want a time from 0 to 10^15 ns", k.NS)}
		}
		kernels[name] = true
		p.Kernels = append(p.Kernels, Kernel{Name: name, Trace: k.Trace, Launch: k.Kernel, NS: k.NS})
	}
	records := map[string]int{}
	for i, ws := range w.Steps {
		s, err := parseStep(i, ws, buffers, kernels)
		if err != nil {
			return nil, &Error{Key: fmt.Sprintf("steps[%d]", i), Err: err}
		}
		if s.Kind == Record {
			if j, ok := records[s.Event]; ok {
				return nil, &Error{Key: fmt.Sprintf("steps[%d]", i), Err: fmt.Errorf("event %q is recorded again (first by steps[%d]): record each event once", s.Event, j)}
			}
			records[s.Event] = i
		}
		p.Steps = append(p.Steps, s)
	}
	for _, s := range p.Steps {
		if _, ok := records[s.Event]; s.Kind == Wait && !ok {
			return nil, &Error{Key: fmt.Sprintf("steps[%d]", s.Index), Err: fmt.Errorf("waits for event %q, which no step records", s.Event)}
		}
	}
	// A loop of waits shows as steps that can never go: lay the plan out with
	// unit times and see.
	if _, err := p.layout(func(Step) (float64, string) { return 1, "" }); err != nil {
		return nil, err
	}
	return p, nil
}

func parseStep(i int, ws wireStep, buffers map[string]Buffer, kernels map[string]bool) (Step, error) {
	s := Step{Index: i}
	switch v := ws.Stream.(type) {
	case string:
		s.Stream = v
	case uint64, int64, int:
		s.Stream = fmt.Sprint(v)
	case nil:
		return s, errors.New("no stream: every step names the stream it is issued on")
	default:
		return s, fmt.Errorf("stream %v: want a name or a number", v)
	}
	if s.Stream == "" {
		return s, errors.New("no stream: every step names the stream it is issued on")
	}
	var kinds []string
	for _, k := range []struct {
		name, value string
		kind        Kind
	}{{"copy", ws.Copy, Copy}, {"run", ws.Run, Run}, {"record", ws.Record, Record}, {"wait", ws.Wait, Wait}} {
		if k.value != "" {
			kinds = append(kinds, k.name)
			s.Kind = k.kind
		}
	}
	if len(kinds) != 1 {
		has := "none"
		if len(kinds) > 0 {
			has = strings.Join(kinds, ", ")
		}
		return s, fmt.Errorf("want exactly one of copy, run, record or wait (has %s)", has)
	}
	if s.Kind != Copy && (ws.To != "" || ws.Bytes != nil) {
		return s, errors.New("to and bytes belong to a copy")
	}
	switch s.Kind {
	case Copy:
		b, ok := buffers[ws.Copy]
		if !ok {
			return s, fmt.Errorf("copy: unknown buffer %q (buffers: %s)", ws.Copy, names(buffers))
		}
		s.Buffer = ws.Copy
		switch ws.To {
		case "device":
			s.ToDevice = true
		case "host":
		default:
			return s, fmt.Errorf("to: %q: want device or host", ws.To)
		}
		s.Bytes = b.Bytes
		if ws.Bytes != nil {
			n, err := parseBytes(ws.Bytes)
			if err != nil {
				return s, fmt.Errorf("bytes: %v", err)
			}
			if n > b.Bytes {
				return s, fmt.Errorf("bytes: a copy of %s is larger than buffer %q (%s)", formatBytes(n), b.Name, formatBytes(b.Bytes))
			}
			s.Bytes = n
		}
	case Run:
		if !kernels[ws.Run] {
			return s, fmt.Errorf("run: unknown kernel %q (kernels: %s)", ws.Run, names(kernels))
		}
		s.Kernel = ws.Run
	case Record:
		s.Event = ws.Record
	case Wait:
		s.Event = ws.Wait
	}
	return s, nil
}

// Span is one step laid out in time.
type Span struct {
	Step           Step
	Engine         string // h2d, d2h, copy (one engine for both), gpu, or "" (events)
	StartNS, EndNS float64
}

// Timeline is a plan laid out on one GPU.
type Timeline struct {
	Spans    []Span  // in the order they start
	TotalNS  float64 // the plan with its streams overlapping
	SerialNS float64 // the same copies and kernels one after another
}

// Layout lays the plan out on link, each kernel taking kernelNS[name] ns.
func (p *Plan) Layout(link pcie.Link, kernelNS map[string]float64) (*Timeline, error) {
	for _, s := range p.Steps {
		if _, ok := kernelNS[s.Kernel]; s.Kind == Run && !ok {
			return nil, &Error{Key: fmt.Sprintf("steps[%d]", s.Index), Err: fmt.Errorf("no time for kernel %q", s.Kernel)}
		}
	}
	pinned := map[string]bool{}
	for _, b := range p.Buffers {
		pinned[b.Name] = b.Pinned
	}
	return p.layout(func(s Step) (float64, string) {
		switch s.Kind {
		case Copy:
			engine := "d2h"
			if s.ToDevice {
				engine = "h2d"
			}
			if link.CopyEngines < 2 {
				engine = "copy"
			}
			return link.CopyNS(s.Bytes, pinned[s.Buffer]), engine
		case Run:
			return kernelNS[s.Kernel], "gpu"
		}
		return 0, ""
	})
}

// layout is the list scheduler of the package comment; cost gives a step's time and
// engine ("" for none).
func (p *Plan) layout(cost func(Step) (float64, string)) (*Timeline, error) {
	var order []string
	queue := map[string][]Step{}
	for _, s := range p.Steps {
		if _, ok := queue[s.Stream]; !ok {
			order = append(order, s.Stream)
		}
		queue[s.Stream] = append(queue[s.Stream], s)
	}
	ready := map[string]float64{} // a stream's last step's end
	free := map[string]float64{}  // an engine's last use's end
	done := map[string]float64{}  // an event's completion
	tl := &Timeline{}
	for left := len(p.Steps); left > 0; left-- {
		best, bestStart := -1, 0.0
		var bestStream string
		for _, st := range order {
			q := queue[st]
			if len(q) == 0 {
				continue
			}
			s := q[0]
			start := ready[st]
			if s.Kind == Wait {
				t, ok := done[s.Event]
				if !ok {
					continue
				}
				start = max(start, t)
			}
			if _, engine := cost(s); engine != "" {
				start = max(start, free[engine])
			}
			if best < 0 || start < bestStart || start == bestStart && s.Index < best {
				best, bestStart, bestStream = s.Index, start, st
			}
		}
		if best < 0 {
			return nil, loopError(order, queue)
		}
		s := queue[bestStream][0]
		queue[bestStream] = queue[bestStream][1:]
		d, engine := cost(s)
		end := bestStart + d
		ready[bestStream] = end
		if engine != "" {
			free[engine] = end
		}
		if s.Kind == Record {
			done[s.Event] = end
		}
		tl.Spans = append(tl.Spans, Span{Step: s, Engine: engine, StartNS: bestStart, EndNS: end})
		tl.TotalNS = max(tl.TotalNS, end)
		tl.SerialNS += d
	}
	return tl, nil
}

// loopError names the steps that wait for each other.
func loopError(order []string, queue map[string][]Step) error {
	var stuck []string
	first := -1
	for _, st := range order {
		if q := queue[st]; len(q) > 0 {
			stuck = append(stuck, fmt.Sprintf("steps[%d] (stream %s, %s)", q[0].Index, st, q[0]))
			if first < 0 || q[0].Index < first {
				first = q[0].Index
			}
		}
	}
	return &Error{Key: fmt.Sprintf("steps[%d]", first),
		Err: fmt.Errorf("a cycle between streams and events: %s wait for each other", strings.Join(stuck, ", "))}
}

// decode reads YAML strictly: an unknown key is an error naming its line.
func decode(data []byte, w *wirePlan) (err error) {
	defer func() {
		if p := recover(); p != nil { // the YAML parser has panicked on bad input before
			err = fmt.Errorf("not a plan the YAML parser can read (it failed: %v)", p)
		}
	}()
	if err := yaml.UnmarshalWithOptions(data, w, yaml.DisallowUnknownField()); err != nil {
		return errors.New(yaml.FormatError(err, false, true))
	}
	return nil
}

// parseBytes reads a byte count: a number, or a string with a B/KB/MB/GB suffix
// (binary, as the arch keys' sizes).
func parseBytes(v any) (int64, error) {
	var n int64
	switch x := v.(type) {
	case uint64:
		n = int64(min(x, 1<<62))
	case int64:
		n = x
	case string:
		m, err := arch.ParseSize(x)
		if err != nil {
			return 0, fmt.Errorf("%q: %v", x, err)
		}
		n = int64(m)
	case nil:
		return 0, errors.New("missing: want a byte count such as 16MB")
	default:
		return 0, fmt.Errorf("%v: want a byte count such as 16MB", v)
	}
	if n <= 0 || n > 1<<50 {
		return 0, fmt.Errorf("%d bytes: want 1 B to 1 PB", n)
	}
	return n, nil
}

func formatBytes(n int64) string {
	for _, u := range []struct {
		s string
		b int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.b && n%u.b == 0 {
			return fmt.Sprintf("%d %s", n/u.b, u.s)
		}
	}
	return fmt.Sprintf("%d B", n)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func names[V any](m map[string]V) string {
	if len(m) == 0 {
		return "none defined"
	}
	return strings.Join(sortedKeys(m), ", ")
}
