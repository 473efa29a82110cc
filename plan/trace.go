package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Stream handles a program may use without creating them (driver_types.h).
const (
	streamLegacy    = 0x1 // cudaStreamLegacy: the default stream, as 0 is
	streamPerThread = 0x2 // cudaStreamPerThread
)

// FromTrace is the plan of a program that gtrace run traced (m: its launches, copies
// and stream calls, in its order). Launch i runs for kernelNS[i] on as many SMs as it
// has CTAs (Kernel.SMs). Its streams are
// named "default" (0 and cudaStreamLegacy), "per-thread" (cudaStreamPerThread) and s1,
// s2, ... in the order the program first names them.
//
// The CUDA Runtime API's "API synchronization behavior" says which calls hold the
// host: a copy that is not ...Async returns when it is done, except one from device to
// device, so such a copy is followed by the host waiting for its stream. Host and
// device copies take the PCIe link (pinned when the trace says so); a copy from device
// to device runs on the GPU for 2 × its bytes at dramBytesPerSec (each byte read and
// written once); copies from host to host involve no GPU and are left out (Notes).
// An event wait or synchronize names the event's latest record before it, and is
// dropped when there is none: it returns at once, as CUDA's does.
func FromTrace(m *format.Meta, kernelNS []float64, dramBytesPerSec float64) (*Plan, error) {
	if len(kernelNS) != len(m.Launches) {
		return nil, &Error{Err: fmt.Errorf("%d kernel times for %d launches", len(kernelNS), len(m.Launches))}
	}
	if len(m.Launches)+len(m.Transfers)+len(m.Syncs) == 0 {
		return nil, &Error{Err: errors.New("the trace holds no launch, copy or stream call")}
	}
	b := &traceBuilder{p: &Plan{}, names: map[uint64]string{}, records: map[uint64]string{}}
	j, y := 0, 0
	for i := 0; i <= len(m.Launches); i++ { // each launch after the copies and calls before it
		for {
			// A call made after i launches and j copies goes before copy j
			// (format checks that Copies never runs ahead of the copies made).
			if y < len(m.Syncs) && m.Syncs[y].After == i && m.Syncs[y].Copies <= j {
				b.addSync(m.Syncs[y])
				y++
			} else if j < len(m.Transfers) && m.Transfers[j].After == i {
				b.addCopy(j, m.Transfers[j], dramBytesPerSec)
				j++
			} else {
				break
			}
		}
		if i < len(m.Launches) {
			l := &m.Launches[i]
			name := fmt.Sprintf("launch %d (%s)", i, l.Kernel)
			b.p.Kernels = append(b.p.Kernels, Kernel{Name: name, NS: kernelNS[i], SMs: int(min(l.Grid.Count(), 1<<20))})
			b.add(Step{Stream: b.stream(l.Stream), Kind: Run, Kernel: name})
		}
	}
	if j < len(m.Transfers) || y < len(m.Syncs) {
		return nil, &Error{Err: fmt.Errorf("copies or stream calls out of the program's order (copy %d of %d, call %d of %d placed)", j, len(m.Transfers), y, len(m.Syncs))}
	}
	if b.h2h > 0 {
		b.p.Notes = append(b.p.Notes, fmt.Sprintf("%d host-to-host copies (%s) left out: they involve no GPU", b.h2h, formatBytes(b.h2hBytes)))
	}
	if len(b.p.Steps) == 0 {
		return nil, &Error{Err: errors.New("the trace holds nothing a GPU runs")}
	}
	if len(b.p.Steps) > maxSteps {
		return nil, &Error{Err: fmt.Errorf("%d steps, more than %d", len(b.p.Steps), maxSteps)}
	}
	return b.p, nil // its waits name earlier records only: no loop for Layout to find
}

type traceBuilder struct {
	p        *Plan
	names    map[uint64]string // stream handle -> name
	records  map[uint64]string // event handle -> the name of its latest record
	nrecords int
	h2h      int
	h2hBytes int64
}

func (b *traceBuilder) add(s Step) {
	s.Index = len(b.p.Steps)
	b.p.Steps = append(b.p.Steps, s)
}

// stream names a stream handle.
func (b *traceBuilder) stream(h uint64) string {
	switch h {
	case 0, streamLegacy:
		return DefaultStream
	case streamPerThread:
		return "per-thread"
	}
	if name, ok := b.names[h]; ok {
		return name
	}
	name := fmt.Sprintf("s%d", len(b.names)+1)
	b.names[h] = name
	return name
}

// addCopy adds copy j of the program.
func (b *traceBuilder) addCopy(j int, t format.Transfer, dramBytesPerSec float64) {
	st := b.stream(t.Stream)
	bytes := int64(min(t.Bytes, 1<<62))
	switch t.Kind {
	case format.HostToHost:
		b.h2h++
		b.h2hBytes += bytes
		return
	case format.DeviceToDevice:
		name := fmt.Sprintf("copy %d (%s d2d, %s)", j, t.Call, formatBytes(bytes))
		b.p.Kernels = append(b.p.Kernels, Kernel{Name: name, NS: 2 * float64(bytes) / dramBytesPerSec * 1e9, CopyBytes: bytes})
		b.add(Step{Stream: st, Kind: Run, Kernel: name})
		return
	}
	b.add(Step{Stream: st, Kind: Copy, Call: t.Call, Bytes: bytes, ToDevice: t.Kind == format.HostToDevice, Pinned: t.Pinned})
	if !strings.HasSuffix(t.Call, "Async") {
		b.add(Step{Kind: Sync, Of: st})
	}
}

// addSync adds what a stream call does.
func (b *traceBuilder) addSync(y format.Sync) {
	st := b.stream(y.Stream)
	ev, recorded := b.records[y.Event]
	switch y.Call {
	case format.EventRecord:
		b.nrecords++
		ev = fmt.Sprintf("e%d", b.nrecords)
		b.records[y.Event] = ev
		b.add(Step{Stream: st, Kind: Record, Event: ev})
	case format.StreamWaitEvent:
		if recorded {
			b.add(Step{Stream: st, Kind: Wait, Event: ev})
		}
	case format.EventSynchronize:
		if recorded {
			b.add(Step{Kind: Sync, Event: ev})
		}
	case format.StreamSynchronize:
		b.add(Step{Kind: Sync, Of: st})
	case format.DeviceSynchronize:
		b.add(Step{Kind: Sync})
	case format.StreamNonBlocking:
		b.p.NonBlocking = append(b.p.NonBlocking, st)
	}
}
