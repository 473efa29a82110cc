package host

import (
	"bytes"
	"math"
	"testing"
)

// cudaDeviceGetLimit answers what an H100 answers; cudaDeviceSetLimit keeps a value
// and refuses what gtrace cannot give, each with the code a GPU returns.
func TestLimits(t *testing.T) {
	r, _ := newSaxpy(t)
	for l, want := range map[Limit]uint64{LimitStackSize: 1024, LimitPrintfFifoSize: 8650752, LimitMallocHeapSize: 8388608,
		LimitDevRuntimePendingLaunchCount: 2048, LimitMaxL2FetchGranularity: 64, LimitPersistingL2CacheSize: 0} {
		if v, err := r.GetLimit(l); v != want || err != nil {
			t.Errorf("GetLimit(%d) = %d, %v; want %d", l, v, err, want)
		}
	}
	if err := r.SetLimit(LimitPrintfFifoSize, 4<<20); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.GetLimit(LimitPrintfFifoSize); v != 4<<20 {
		t.Errorf("the printf buffer after setting 4 MiB: %d", v)
	}
	// The heap as an H100 sizes it: at least 4 MiB, in steps of 64 KiB.
	for set, want := range map[uint64]uint64{1: 4194304, 3 << 20: 4194304, 4194305: 4259840, 5000000: 5046272, 8388609: 8454144, math.MaxUint64: math.MaxUint64 - 65535} {
		if err := r.SetLimit(LimitMallocHeapSize, set); err != nil {
			t.Fatal(err)
		}
		if v, _ := r.GetLimit(LimitMallocHeapSize); v != want {
			t.Errorf("the heap after setting %d: %d, want %d", set, v, want)
		}
	}
	for _, c := range []struct {
		l    Limit
		v    uint64
		code Code
	}{
		{LimitDevRuntimeSyncDepth, 2, UnsupportedLimit},
		{LimitPersistingL2CacheSize, 1 << 20, InvalidValue},
		{LimitMaxL2FetchGranularity, 256, InvalidValue},
		{Limit(7), 1, InvalidValue},
		{Limit(-1), 1, InvalidValue},
	} {
		if err := r.SetLimit(c.l, c.v); !hasCode(err, c.code) {
			t.Errorf("SetLimit(%d, %d) = %v; want %s", c.l, c.v, err, c.code.Name())
		}
	}
	if _, err := r.GetLimit(LimitDevRuntimeSyncDepth); !hasCode(err, UnsupportedLimit) {
		t.Errorf("GetLimit(cudaLimitDevRuntimeSyncDepth) = %v; want cudaErrorUnsupportedLimit, as on an H100", err)
	}
}

// Flush writes what kernels printed once, to Options.Stdout; Unflushed counts what a
// program ending now would lose.
func TestFlush(t *testing.T) {
	var out bytes.Buffer
	r, err := New(Options{Out: t.TempDir() + "/t.gtrace", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	r.printf = append(r.printf, "a line\n"...)
	if r.Unflushed() != 7 {
		t.Errorf("Unflushed = %d, want 7", r.Unflushed())
	}
	r.Flush()
	r.Flush()
	if out.String() != "a line\n" || r.Unflushed() != 0 {
		t.Errorf("flushed twice: %q, %d left", out.String(), r.Unflushed())
	}
}
