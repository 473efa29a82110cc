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
//	  fixed: {ns: 250000, sms: 4}          # a kernel of known duration, on 4 SMs
//	steps:                       # in the order the host issues them
//	  - {stream: a, copy: in0, to: device}           # bytes: N copies part of it
//	  - {stream: a, run: scale}
//	  - {stream: a, record: done}                    # each event is recorded once
//	  - {stream: b, wait: done}                      # later steps of b wait for it
//	  - {sync: b}                # the host waits for b's steps so far (cudaStreamSynchronize)
//	  - {sync: device}           # for every stream's (cudaDeviceSynchronize)
//	  - {sync_event: done}       # for an event an earlier step records (cudaEventSynchronize)
//	nonblocking: [b]             # streams made with cudaStreamNonBlocking (below)
//
// # Timing
//
// Each stream runs its steps in order. A copy occupies its direction's copy engine
// (both directions share one engine when the preset has pcie.copy_engines 1) for
// pcie.Link.CopyNS; a kernel occupies its SMs for its time (as many as it has CTAs,
// which the GPU spreads one to an SM first; sms: N for a fixed-time kernel, every SM
// when not given), and kernels of different streams run side by side while their
// SMs fit on the GPU, each for the time it takes alone; a record
// takes no time and completes when its stream's earlier steps have; a wait holds its
// stream until the event completes. A sync holds the host: no step issued after it
// starts before what it waits for has ended. The stream named "default" is CUDA's
// legacy default stream (stream 0): a step on it starts after every step issued
// before it on the other streams, and a step on another stream after every step
// issued before it on "default", unless the stream is listed as nonblocking (CUDA
// Runtime API, "Stream synchronization behavior"). Among the steps that can go next,
// the one that can start first goes first, ties in the order the host issued them.
// Serial is the same work one step after another (one stream, synchronous copies):
// the time without overlap.
//
// FromTrace makes the plan of a whole program that gtrace run traced: its copies,
// launches and stream calls in its order.
package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/pcie"
)

// Plan is a parsed, checked launch plan.
type Plan struct {
	Arch        string // "ARCH" or "ARCH/GPU"; "" when the file names none
	Buffers     []Buffer
	Kernels     []Kernel
	Steps       []Step
	NonBlocking []string // streams that do not synchronise with DefaultStream
	Notes       []string // what FromTrace left out of a program, and why
}

// DefaultStream is the name of CUDA's legacy default stream in a plan.
const DefaultStream = "default"

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
	// SMs is how many SMs the kernel occupies while it runs: its CTAs, which the GPU
	// spreads one to an SM first, up to every SM. 0 is every SM.
	SMs int
	// CopyBytes is, for a program's device-to-device copy that FromTrace runs on the
	// GPU as a kernel, its bytes; 0 for a kernel.
	CopyBytes int64
}

// Kind is what a step does.
type Kind int

const (
	Copy Kind = iota
	Run
	Record
	Wait
	Sync // the host waits: for a stream's steps so far (Of), every stream's, or an event
)

// Step is one call the host issues.
type Step struct {
	Index    int    // position in the plan's steps, from 0
	Stream   string // the stream it is issued on; "" for a Sync, which the host issues
	Kind     Kind
	Buffer   string // Copy: the buffer of a plan file; "" for a program's copy (Call)
	Call     string // Copy: the runtime call of a program's copy (FromTrace)
	Bytes    int64  // Copy: bytes moved
	ToDevice bool   // Copy: host to device
	Pinned   bool   // Copy: the host's side is page-locked
	Kernel   string // Run
	Event    string // Record, Wait, Sync on an event
	Of       string // Sync on a stream; "" with no Event: every stream (cudaDeviceSynchronize)
}

// String names the step as errors and timelines show it.
func (s Step) String() string {
	switch s.Kind {
	case Copy:
		dir := "host"
		if s.ToDevice {
			dir = "device"
		}
		if s.Buffer == "" {
			host := "pageable"
			if s.Pinned {
				host = "pinned"
			}
			return fmt.Sprintf("%s to %s (%s, %s)", s.Call, dir, formatBytes(s.Bytes), host)
		}
		return fmt.Sprintf("copy %s to %s (%s)", s.Buffer, dir, formatBytes(s.Bytes))
	case Run:
		return "run " + s.Kernel
	case Record:
		return "record " + s.Event
	case Sync:
		switch {
		case s.Event != "":
			return "host waits for event " + s.Event
		case s.Of != "":
			return "host waits for stream " + s.Of
		}
		return "host waits for every stream"
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
	SMs    int     `yaml:"sms"`
}

type wireStep struct {
	Sync      string `yaml:"sync"`
	SyncEvent string `yaml:"sync_event"`
	Stream    any    `yaml:"stream"`
	Copy      string `yaml:"copy"`
	To        string `yaml:"to"`
	Bytes     any    `yaml:"bytes"`
	Run       string `yaml:"run"`
	Record    string `yaml:"record"`
	Wait      string `yaml:"wait"`
}

type wirePlan struct {
	Arch        string                `yaml:"arch"`
	Buffers     map[string]wireBuffer `yaml:"buffers"`
	Kernels     map[string]wireKernel `yaml:"kernels"`
	Steps       []wireStep            `yaml:"steps"`
	NonBlocking []string              `yaml:"nonblocking"`
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
	for i, st := range w.NonBlocking {
		if st == "" || st == DefaultStream {
			return nil, &Error{Key: fmt.Sprintf("nonblocking[%d]", i), Err: fmt.Errorf("%q: want the name of a stream other than %q", st, DefaultStream)}
		}
		p.NonBlocking = append(p.NonBlocking, st)
	}
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
		if k.SMs < 0 || k.SMs > 1<<20 {
			return nil, &Error{Key: key + ".sms", Err: fmt.Errorf("%d: want the SMs the kernel occupies, from 1 (0 or none: every SM)", k.SMs)}
		}
		kernels[name] = true
		p.Kernels = append(p.Kernels, Kernel{Name: name, Trace: k.Trace, Launch: k.Kernel, NS: k.NS, SMs: k.SMs})
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
		if _, ok := records[s.Event]; s.Kind == Sync && s.Event != "" && !ok {
			return nil, &Error{Key: fmt.Sprintf("steps[%d]", i), Err: fmt.Errorf("the host waits for event %q, which no earlier step records", s.Event)}
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
	if _, err := p.layout(1, func(Step) use { return use{ns: 1} }); err != nil {
		return nil, err
	}
	return p, nil
}

func parseStep(i int, ws wireStep, buffers map[string]Buffer, kernels map[string]bool) (Step, error) {
	s := Step{Index: i}
	if ws.Sync != "" || ws.SyncEvent != "" {
		return parseSync(s, ws)
	}
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
		return s, fmt.Errorf("want exactly one of copy, run, record, wait, sync or sync_event (has %s)", has)
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
		s.Bytes, s.Pinned = b.Bytes, b.Pinned
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

// parseSync reads a step the host issues: sync STREAM|device, or sync_event EVENT.
func parseSync(s Step, ws wireStep) (Step, error) {
	s.Kind = Sync
	switch {
	case ws.Sync != "" && ws.SyncEvent != "":
		return s, errors.New("want one of sync or sync_event (has both)")
	case ws.Stream != nil:
		return s, errors.New("a sync is the host's: it names no stream (sync: STREAM names the one it waits for)")
	case ws.Copy != "" || ws.Run != "" || ws.Record != "" || ws.Wait != "" || ws.To != "" || ws.Bytes != nil:
		return s, errors.New("a sync is a step of its own: copy, run, record, wait, to and bytes belong to other steps")
	case ws.SyncEvent != "":
		s.Event = ws.SyncEvent
	case ws.Sync != "device":
		s.Of = ws.Sync
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

// Layout lays the plan out on link and a GPU of sms SMs, each kernel taking
// kernelNS[name] ns.
func (p *Plan) Layout(link pcie.Link, sms int, kernelNS map[string]float64) (*Timeline, error) {
	if sms < 1 {
		return nil, &Error{Err: fmt.Errorf("a GPU of %d SMs", sms)}
	}
	occupies := map[string]int{} // by kernel: its SMs, every SM for 0 or more than the GPU's
	for _, k := range p.Kernels {
		occupies[k.Name] = k.SMs
		if k.SMs <= 0 || k.SMs > sms {
			occupies[k.Name] = sms
		}
	}
	for _, s := range p.Steps {
		if _, ok := kernelNS[s.Kernel]; s.Kind == Run && !ok {
			return nil, &Error{Key: fmt.Sprintf("steps[%d]", s.Index), Err: fmt.Errorf("no time for kernel %q", s.Kernel)}
		}
	}
	return p.layout(sms, func(s Step) use {
		switch s.Kind {
		case Copy:
			engine := "d2h"
			if s.ToDevice {
				engine = "h2d"
			}
			if link.CopyEngines < 2 {
				engine = "copy"
			}
			return use{link.CopyNS(s.Bytes, s.Pinned), engine, 0}
		case Run:
			return use{kernelNS[s.Kernel], gpuEngine, occupies[s.Kernel]}
		}
		return use{}
	})
}

// gpuEngine is the engine kernels run on: side by side while their SMs fit.
const gpuEngine = "gpu"

// use is what a step takes: its time, the engine it holds ("" for none) and, on the
// GPU, its SMs.
type use struct {
	ns     float64
	engine string
	sms    int
}

// smPool is the GPU's SMs and the kernels that hold some until they end (CUDA
// Programming Guide, "Concurrent Kernel Execution": kernels of different streams run
// at once; up to 128 grids on compute capability 7.0 and later, 16 on Fermi, 32 on
// Kepler, more than any preset's SMs).
type smPool struct {
	total   int
	running []heldSMs
}

type heldSMs struct {
	end float64
	sms int
}

// earliest is the first time from t on when sms SMs are free.
func (g *smPool) earliest(t float64, sms int) float64 {
	for {
		used, next := 0, math.Inf(1)
		for _, r := range g.running {
			if r.end > t {
				used += r.sms
				next = min(next, r.end)
			}
		}
		if used+sms <= g.total {
			return t
		}
		t = next
	}
}

// take holds sms SMs from start to end. Starts only grow (see layout), so kernels
// ended by start are forgotten.
func (g *smPool) take(start, end float64, sms int) {
	kept := g.running[:0]
	for _, r := range g.running {
		if r.end > start {
			kept = append(kept, r)
		}
	}
	g.running = append(kept, heldSMs{end, sms})
}

// layout is the list scheduler of the package comment on a GPU of gpuSMs SMs; cost
// gives what a step takes. Each step placed starts no earlier than the one before it:
// placing a step only delays the others, or frees a step that waits for it to end.
func (p *Plan) layout(gpuSMs int, cost func(Step) use) (*Timeline, error) {
	var order []string
	queue := map[string][]Step{} // by stream; the host's syncs under ""
	for _, s := range p.Steps {
		if _, ok := queue[s.Stream]; !ok {
			order = append(order, s.Stream)
		}
		queue[s.Stream] = append(queue[s.Stream], s)
	}
	nonBlocking := map[string]bool{}
	for _, st := range p.NonBlocking {
		nonBlocking[st] = true
	}
	next := func(st string) int { // the index of the stream's next step
		if q := queue[st]; len(q) > 0 {
			return q[0].Index
		}
		return math.MaxInt
	}
	ready := map[string]float64{} // a stream's last step's end; the host's last sync's under ""
	free := map[string]float64{}  // an engine's last use's end
	done := map[string]float64{}  // an event's completion
	gpu := &smPool{total: gpuSMs}
	var streams, blocking []string // every stream; those the default stream waits for
	for _, st := range order {
		if st != "" {
			streams = append(streams, st)
		}
		if st != "" && st != DefaultStream && !nonBlocking[st] {
			blocking = append(blocking, st)
		}
	}
	defaultOnly := []string{DefaultStream}
	// others are the streams besides its own whose steps issued before s it waits for.
	others := func(s Step) []string {
		switch {
		case s.Kind == Sync && s.Event == "" && s.Of == "":
			return streams
		case s.Kind == Sync && s.Of != "":
			return []string{s.Of}
		case s.Kind == Sync, nonBlocking[s.Stream]:
			return nil
		case s.Stream == DefaultStream:
			return blocking
		}
		return defaultOnly
	}
	// earliest is when step s can start, or false while a step it waits for is not
	// laid out yet.
	earliest := func(s Step) (float64, bool) {
		if s.Kind != Sync && next("") < s.Index {
			return 0, false // a sync issued before it holds the host
		}
		start := max(ready[""], ready[s.Stream]) // the host's last sync; its stream's last step
		for _, st := range others(s) {
			if next(st) < s.Index {
				return 0, false
			}
			start = max(start, ready[st])
		}
		if s.Kind == Wait || s.Kind == Sync && s.Event != "" {
			t, ok := done[s.Event]
			if !ok {
				return 0, false
			}
			start = max(start, t)
		}
		switch u := cost(s); {
		case u.engine == gpuEngine:
			start = gpu.earliest(start, u.sms)
		case u.engine != "":
			start = max(start, free[u.engine])
		}
		return start, true
	}
	tl := &Timeline{}
	for left := len(p.Steps); left > 0; left-- {
		best, bestStart := -1, 0.0
		var bestStream string
		for _, st := range order {
			q := queue[st]
			if len(q) == 0 {
				continue
			}
			start, ok := earliest(q[0])
			if ok && (best < 0 || start < bestStart || start == bestStart && q[0].Index < best) {
				best, bestStart, bestStream = q[0].Index, start, st
			}
		}
		if best < 0 {
			return nil, loopError(order, queue)
		}
		s := queue[bestStream][0]
		queue[bestStream] = queue[bestStream][1:]
		u := cost(s)
		end := bestStart + u.ns
		ready[bestStream] = end
		switch u.engine {
		case gpuEngine:
			gpu.take(bestStart, end, u.sms)
		case "":
		default:
			free[u.engine] = end
		}
		if s.Kind == Record {
			done[s.Event] = end
		}
		tl.Spans = append(tl.Spans, Span{Step: s, Engine: u.engine, StartNS: bestStart, EndNS: end})
		tl.TotalNS = max(tl.TotalNS, end)
		tl.SerialNS += u.ns
	}
	return tl, nil
}

// loopError names the steps that wait for each other.
func loopError(order []string, queue map[string][]Step) error {
	var stuck []string
	first := -1
	for _, st := range order {
		if q := queue[st]; len(q) > 0 {
			where := "stream " + st
			if st == "" {
				where = "the host"
			}
			stuck = append(stuck, fmt.Sprintf("steps[%d] (%s, %s)", q[0].Index, where, q[0]))
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
