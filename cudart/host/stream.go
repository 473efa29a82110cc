package host

import (
	"time"

	"github.com/gtrace/gtrace/format"
)

// Streams, events and page-locked host memory. Under gtrace every call runs at once, in
// the order the program makes it, whatever stream it names: a program computes the same
// as on a GPU, whose streams only reorder work the program has not ordered itself. What
// overlap between streams would gain is the plan/ package's question, not the capture's:
// the trace keeps each launch's and copy's stream, and the calls that order streams or
// wait for them (format.Sync), for plan.FromTrace.
// Handles are checked: a destroyed stream or event, or one of the other kind, is
// cudaErrorInvalidResourceHandle, as on a GPU.

// The stream handles every program may use without creating them (driver_types.h).
const (
	StreamLegacy    uintptr = 0x1 // cudaStreamLegacy
	StreamPerThread uintptr = 0x2 // cudaStreamPerThread
)

// Handles are small numbers no program dereferences; streams and events get different
// ranges, so that one passed as the other is refused.
const (
	streamHandles uintptr = 0x5100_0000
	eventHandles  uintptr = 0x5e00_0000
	handleStep    uintptr = 0x10
)

// Event flags (cudaEventCreateWithFlags).
const (
	EventBlockingSync  uint32 = 0x1
	EventDisableTiming uint32 = 0x2
	EventInterprocess  uint32 = 0x4
)

type event struct {
	flags    uint32
	recorded bool
	at       time.Duration // since the runtime started, when last recorded
}

// StreamCreate is cudaStreamCreateWithFlags: a new stream's handle, one that does not
// wait for the default stream (nor it for the stream) when nonBlocking.
func (r *Runtime) StreamCreate(nonBlocking bool) uintptr {
	r.nstreams++
	h := streamHandles + uintptr(r.nstreams)*handleStep
	r.streams[h] = true
	if nonBlocking {
		r.sync(format.StreamNonBlocking, h, 0)
	}
	return h
}

// sync keeps a call that orders streams for the trace, with where it falls among the
// launches and copies.
func (r *Runtime) sync(c format.SyncCall, stream, event uintptr) {
	r.syncs = append(r.syncs, format.Sync{Call: c, Stream: uint64(stream), Event: uint64(event), After: len(r.meta), Copies: len(r.transfers)})
}

// StreamSynchronize is cudaStreamSynchronize: the stream's work is done already.
func (r *Runtime) StreamSynchronize(s uintptr) error {
	if err := r.CheckStream("cudaStreamSynchronize", s); err != nil {
		return err
	}
	r.sync(format.StreamSynchronize, s, 0)
	return nil
}

// DeviceSynchronize is cudaDeviceSynchronize: every stream's work is done already.
func (r *Runtime) DeviceSynchronize() { r.sync(format.DeviceSynchronize, 0, 0) }

// StreamDestroy is cudaStreamDestroy.
func (r *Runtime) StreamDestroy(s uintptr) error {
	if !r.streams[s] {
		return fail(InvalidResourceHandle, "cudaStreamDestroy: %#x is no stream the program created and has not destroyed", s)
	}
	delete(r.streams, s)
	return nil
}

// CheckStream says whether s is a stream a call may name: the default stream (0,
// cudaStreamLegacy, cudaStreamPerThread) or one created and not destroyed. Its work is
// always done: synchronising on it returns at once.
func (r *Runtime) CheckStream(call string, s uintptr) error {
	if s == 0 || s == StreamLegacy || s == StreamPerThread || r.streams[s] {
		return nil
	}
	return fail(InvalidResourceHandle, "%s: %#x is no stream the program created and has not destroyed", call, s)
}

// EventCreate is cudaEventCreateWithFlags.
func (r *Runtime) EventCreate(flags uint32) (uintptr, error) {
	if flags&^(EventBlockingSync|EventDisableTiming|EventInterprocess) != 0 {
		return 0, fail(InvalidValue, "cudaEventCreateWithFlags: flags %#x: want cudaEventDefault, cudaEventBlockingSync, cudaEventDisableTiming or cudaEventInterprocess", flags)
	}
	if flags&EventInterprocess != 0 && flags&EventDisableTiming == 0 {
		return 0, fail(InvalidValue, "cudaEventCreateWithFlags: cudaEventInterprocess needs cudaEventDisableTiming")
	}
	r.nevents++
	h := eventHandles + uintptr(r.nevents)*handleStep
	r.events[h] = &event{flags: flags}
	return h, nil
}

func (r *Runtime) event(call string, e uintptr) (*event, error) {
	ev, ok := r.events[e]
	if !ok {
		return nil, fail(InvalidResourceHandle, "%s: %#x is no event the program created and has not destroyed", call, e)
	}
	return ev, nil
}

// EventDestroy is cudaEventDestroy.
func (r *Runtime) EventDestroy(e uintptr) error {
	if _, err := r.event("cudaEventDestroy", e); err != nil {
		return err
	}
	delete(r.events, e)
	return nil
}

// EventRecord is cudaEventRecord on stream s: as every call before it is done, the
// event completes at once, at the host's time now.
func (r *Runtime) EventRecord(e, s uintptr) error {
	ev, err := r.event("cudaEventRecord", e)
	if err != nil {
		return err
	}
	if err := r.CheckStream("cudaEventRecord", s); err != nil {
		return err
	}
	ev.recorded, ev.at = true, time.Since(r.start)
	r.sync(format.EventRecord, s, e)
	return nil
}

// EventSync is cudaEventSynchronize, cudaEventQuery and cudaStreamWaitEvent (on stream
// s, checked by the caller): every event is complete once recorded, and one never
// recorded counts as complete too, as on a GPU.
func (r *Runtime) EventSync(call string, e, s uintptr) error {
	if _, err := r.event(call, e); err != nil {
		return err
	}
	switch call {
	case "cudaEventSynchronize":
		r.sync(format.EventSynchronize, 0, e)
	case "cudaStreamWaitEvent":
		r.sync(format.StreamWaitEvent, s, e)
	}
	return nil
}

// EventElapsed is cudaEventElapsedTime in milliseconds: the host time between the two
// records, that is, the time gtrace took to emulate what lies between them, not a
// GPU's (the timing engine's estimate comes from gtrace replay on the trace). Both
// events must have been recorded, and with timing, as on a GPU.
func (r *Runtime) EventElapsed(start, end uintptr) (float32, error) {
	const call = "cudaEventElapsedTime"
	var evs [2]*event
	for i, h := range []uintptr{start, end} {
		ev, err := r.event(call, h)
		if err != nil {
			return 0, err
		}
		switch {
		case ev.flags&EventDisableTiming != 0:
			return 0, fail(InvalidResourceHandle, "%s: event %#x was created with cudaEventDisableTiming", call, h)
		case !ev.recorded:
			return 0, fail(InvalidResourceHandle, "%s: event %#x was never recorded", call, h)
		}
		evs[i] = ev
	}
	return float32(float64(evs[1].at-evs[0].at) / float64(time.Millisecond)), nil
}

// HostAlloc records page-locked host memory the shim allocated (cudaMallocHost,
// cudaHostAlloc) or the program registered (cudaHostRegister): copies from and to it
// are pinned transfers.
func (r *Runtime) HostAlloc(call string, addr, size uint64) error {
	if size == 0 {
		return fail(InvalidValue, "%s: 0 bytes", call)
	}
	if _, ok := r.pinned[addr]; ok {
		return fail(InvalidValue, "%s: %#x is page-locked already", call, addr)
	}
	r.pinned[addr] = size
	return nil
}

// HostFree forgets the page-locked memory at addr (cudaFreeHost, cudaHostUnregister); the
// shim frees it when the call succeeds.
func (r *Runtime) HostFree(call string, addr uint64) error {
	if _, ok := r.pinned[addr]; !ok {
		return fail(InvalidValue, "%s: %#x is not the start of page-locked host memory", call, addr)
	}
	delete(r.pinned, addr)
	return nil
}
