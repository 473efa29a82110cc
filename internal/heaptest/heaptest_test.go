package heaptest

import "testing"

var sink []byte

func TestAllocated(t *testing.T) {
	got := Allocated(3, func() { sink = make([]byte, 1<<20) })
	if got < 1<<20 || got > 1<<20+4096 {
		t.Errorf("a 1 MiB slice: %d B", got)
	}
	if got := Allocated(3, func() {}); got > 1024 {
		t.Errorf("nothing: %d B", got)
	}
}
