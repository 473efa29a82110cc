package host

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gtrace/gtrace/format"
)

// Streams and events are checked handles whose work is always done: a launch on a
// created stream runs, events time what lies between their records on the host's
// clock, and page-locked memory is recorded until freed.
func TestStreamsAndEvents(t *testing.T) {
	r, _ := newSaxpy(t)
	s := r.StreamCreate(false)
	if s2 := r.StreamCreate(false); s2 == s || s == 0 {
		t.Fatalf("stream handles %#x, %#x: want two different non-null ones", s, s2)
	}
	start, err := r.EventCreate(0)
	if err != nil {
		t.Fatal(err)
	}
	stop, _ := r.EventCreate(EventBlockingSync)
	if err := r.EventRecord(start, s); err != nil {
		t.Fatal(err)
	}
	y, _ := r.Malloc(128)
	one := format.Dim3{X: 1, Y: 1, Z: 1}
	if err := r.Launch(context.Background(), scaleStub, Config{Grid: one, Block: format.Dim3{X: 32, Y: 1, Z: 1}, Stream: s},
		[][]byte{le64(y), le32(0x3f000000)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if err := r.EventRecord(stop, StreamPerThread); err != nil {
		t.Fatal(err)
	}
	ms, err := r.EventElapsed(start, stop)
	if err != nil || ms < 2 {
		t.Errorf("EventElapsed = %v ms, %v; want at least the 2 ms slept between the records", ms, err)
	}
	for _, call := range []string{"cudaEventSynchronize", "cudaEventQuery"} {
		if err := r.EventSync(call, stop, 0); err != nil {
			t.Errorf("%s: %v", call, err)
		}
	}
	if err := r.HostAlloc("cudaMallocHost", 0x7f0000001000, 4096); err != nil {
		t.Fatal(err)
	}
	if err := r.HostFree("cudaFreeHost", 0x7f0000001000); err != nil {
		t.Fatal(err)
	}
	if err := r.FuncSetAttribute(scaleStub, FuncAttrMaxDynamicSharedMemorySize, 100<<10); err != nil {
		t.Fatal(err)
	}
	if err := r.Launch(context.Background(), scaleStub, Config{Grid: one, Block: format.Dim3{X: 32, Y: 1, Z: 1}, Shared: 100 << 10},
		[][]byte{le64(y), le32(0)}); err != nil {
		t.Errorf("a launch of 100 KiB of dynamic shared memory after the opt-in: %v", err)
	}
	if err := r.StreamDestroy(s); err != nil {
		t.Fatal(err)
	}
	if err := r.EventDestroy(start); err != nil {
		t.Fatal(err)
	}
}

// Bad stream, event, page-locked memory and attribute calls return the codes the CUDA
// runtime would, with words naming what is wrong.
func TestStreamCallErrors(t *testing.T) {
	r, _ := newSaxpy(t)
	gone := r.StreamCreate(false)
	r.StreamDestroy(gone)
	never, _ := r.EventCreate(0)
	untimed, _ := r.EventCreate(EventDisableTiming)
	r.EventRecord(untimed, 0)
	timed, _ := r.EventCreate(0)
	r.EventRecord(timed, 0)
	y, _ := r.Malloc(128)
	one := format.Dim3{X: 1, Y: 1, Z: 1}
	launch := func(c Config) error {
		return r.Launch(context.Background(), scaleStub, c, [][]byte{le64(y), le32(0)})
	}
	r.HostAlloc("cudaHostRegister", 0x7f0000002000, 64)
	for _, c := range []struct {
		what string
		err  error
		code Code
		says string
	}{
		{"a destroyed stream", r.CheckStream("cudaStreamSynchronize", gone), InvalidResourceHandle, "cudaStreamSynchronize: 0x"},
		{"destroyed twice", r.StreamDestroy(gone), InvalidResourceHandle, "cudaStreamDestroy"},
		{"an event as a stream", r.CheckStream("cudaMemcpyAsync", never), InvalidResourceHandle, "no stream"},
		{"a launch on a destroyed stream", launch(Config{Grid: one, Block: one, Stream: gone}), InvalidResourceHandle, "cudaLaunchKernel"},
		{"a stream as an event", r.EventRecord(uintptr(gone), 0), InvalidResourceHandle, "no event"},
		{"a record on a destroyed stream", r.EventRecord(timed, gone), InvalidResourceHandle, "cudaEventRecord"},
		{"elapsed from an event never recorded", func() error { _, err := r.EventElapsed(never, timed); return err }(), InvalidResourceHandle, "never recorded"},
		{"elapsed to an untimed event", func() error { _, err := r.EventElapsed(timed, untimed); return err }(), InvalidResourceHandle, "cudaEventDisableTiming"},
		{"unknown event flags", func() error { _, err := r.EventCreate(0x40); return err }(), InvalidValue, "flags 0x40"},
		{"interprocess with timing", func() error { _, err := r.EventCreate(EventInterprocess); return err }(), InvalidValue, "needs cudaEventDisableTiming"},
		{"free of memory never page-locked", r.HostFree("cudaFreeHost", 0x7f0000003000), InvalidValue, "cudaFreeHost: 0x7f0000003000"},
		{"page-locked twice", r.HostAlloc("cudaHostRegister", 0x7f0000002000, 64), InvalidValue, "page-locked already"},
		{"page-locked nothing", r.HostAlloc("cudaHostRegister", 0x7f0000004000, 0), InvalidValue, "0 bytes"},
		{"over 48 KiB without the opt-in", launch(Config{Grid: one, Block: one, Shared: 48<<10 + 1}), InvalidValue, "cudaFuncAttributeMaxDynamicSharedMemorySize"},
		{"an opt-in past the H100's", r.FuncSetAttribute(scaleStub, FuncAttrMaxDynamicSharedMemorySize, 228<<10), InvalidValue, "the 232448 the h100 gives a block"},
		{"a carve-out over 100%", r.FuncSetAttribute(scaleStub, FuncAttrPreferredSharedMemoryCarveout, 101), InvalidValue, "percentage"},
		{"an attribute gtrace does not know", r.FuncSetAttribute(scaleStub, 3, 1), InvalidValue, "attribute 3"},
		{"an attribute of no kernel", r.FuncSetAttribute(0x99, FuncAttrMaxDynamicSharedMemorySize, 1), InvalidDeviceFunc, "no registered kernel"},
		{"a cache preference of no kernel", r.FuncCheck("cudaFuncSetCacheConfig", 0x99), InvalidDeviceFunc, "cudaFuncSetCacheConfig"},
	} {
		var e *Error
		if !errors.As(c.err, &e) || e.Code != c.code || !strings.Contains(e.Msg, c.says) {
			t.Errorf("%s: %v, want code %d saying %q", c.what, c.err, c.code, c.says)
		}
	}
	r.EventDestroy(never)
	if err := r.EventSync("cudaEventQuery", never, 0); err == nil {
		t.Error("a destroyed event is still queried")
	}
}

// Each copy that succeeds is recorded with its call, stream and direction, pinned when
// it lies wholly in page-locked memory; a copy that fails is not.
func TestCopyRecords(t *testing.T) {
	r, _ := newSaxpy(t)
	s := r.StreamCreate(false)
	const pinned = 0x900000
	if err := r.HostAlloc("cudaMallocHost", pinned, 8192); err != nil {
		t.Fatal(err)
	}
	y, _ := r.Malloc(256)
	z, _ := r.Malloc(256)
	buf := make([]byte, 128)
	async := Copy{Call: "cudaMemcpyAsync", Stream: s}
	for _, c := range []struct {
		by       Copy
		dst, src uint64
		kind     MemcpyKind
		fails    bool
	}{
		{async, y, pinned, HostToDevice, false},
		{async, pinned + 8192 - 64, y, DeviceToHost, false}, // runs past the page-locked block
		{Copy{Call: "cudaMemcpyAsync", Stream: 0xdead}, y, pinned, HostToDevice, true},
		{memcpy, z, y, Default, false},
		{memcpy, z, y, 9, true},
	} {
		err := r.Memcpy(c.by, c.dst, c.src, buf, buf, c.kind)
		if (err != nil) != c.fails {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	want := []format.Transfer{
		{Call: "cudaMemcpyAsync", Kind: format.HostToDevice, Bytes: 128, Pinned: true, Stream: uint64(s)},
		{Call: "cudaMemcpyAsync", Kind: format.DeviceToHost, Bytes: 128, Stream: uint64(s)},
		{Call: "cudaMemcpy", Kind: format.DeviceToDevice, Bytes: 128},
	}
	if !slices.Equal(r.transfers, want) {
		t.Errorf("recorded\n%+v\nwant\n%+v", r.transfers, want)
	}
}

// Each call that orders streams or waits for them is recorded with its stream, event
// and place among the launches and copies, and each launch with its stream; a query,
// and a call that fails, are not recorded.
func TestSyncRecords(t *testing.T) {
	r, _ := newSaxpy(t)
	s := r.StreamCreate(true)
	ev, _ := r.EventCreate(0)
	y, _ := r.Malloc(128)
	buf := make([]byte, 128)
	if err := r.Memcpy(Copy{Call: "cudaMemcpyAsync", Stream: s}, y, 0x900000, buf, buf, HostToDevice); err != nil {
		t.Fatal(err)
	}
	if err := r.Launch(context.Background(), scaleStub, Config{Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}, Stream: s},
		[][]byte{le64(y), le32(0x3f000000)}); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		r.EventRecord(ev, s),
		r.EventSync("cudaStreamWaitEvent", ev, StreamLegacy),
		r.EventSync("cudaEventQuery", ev, 0),
		r.EventSync("cudaEventSynchronize", ev, 0),
		r.StreamSynchronize(s),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r.DeviceSynchronize()
	if r.StreamSynchronize(0xdead) == nil || r.EventRecord(0xdead, s) == nil || r.EventSync("cudaStreamWaitEvent", 0xdead, s) == nil {
		t.Fatal("calls on handles that are no stream or event succeeded")
	}
	if got := r.meta[0].Stream; got != uint64(s) {
		t.Errorf("the launch's stream is %#x, want %#x", got, s)
	}
	S, E := uint64(s), uint64(ev)
	want := []format.Sync{
		{Call: format.StreamNonBlocking, Stream: S},
		{Call: format.EventRecord, Stream: S, Event: E, After: 1, Copies: 1},
		{Call: format.StreamWaitEvent, Stream: uint64(StreamLegacy), Event: E, After: 1, Copies: 1},
		{Call: format.EventSynchronize, Event: E, After: 1, Copies: 1},
		{Call: format.StreamSynchronize, Stream: S, After: 1, Copies: 1},
		{Call: format.DeviceSynchronize, After: 1, Copies: 1},
	}
	if !slices.Equal(r.syncs, want) {
		t.Errorf("recorded\n%+v\nwant\n%+v", r.syncs, want)
	}
}
