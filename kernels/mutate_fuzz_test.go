package kernels

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// Capture on mutated reference PTX (issue 19's "fuzz capture with mutated real PTX"): a
// reference kernel's PTX, from either corpus, with lines deleted, duplicated and
// swapped and numbers changed, launched at its small sizes. Whatever the PTX has
// become, capture returns a trace or an error (a *PTXError for text it cannot take, a
// *Fault for a run that goes wrong), never panics, and ends by the budget: every warp
// stops at mutateMaxInst warp-instructions and every CTA at mutateCTATrace bytes of
// trace, which bound its time, and the bounds on declarations (global variables, local
// and parameter space, shared memory, registers) bound its memory. What a capture
// allocates in all stands in for its peak (a peak cannot be measured in-process
// without flaking): the unmutated small launches allocate at most 50 MiB each.

const (
	mutateMaxInst  = 1 << 14
	mutateCTATrace = 4 << 20
	// mutateDeadline is far past what the budget allows a small launch (its CTAs ×
	// warps × mutateMaxInst take seconds): a run still going then has escaped it.
	mutateDeadline = 2 * time.Minute
	// mutateMaxAlloc allows the largest .global variable (256 MiB) twice over.
	mutateMaxAlloc = 1 << 30
)

// numberValues are what a changed number becomes: the edges of sizes, shifts, masks
// and signed and unsigned ranges.
var numberValues = []string{"0", "1", "2", "3", "7", "8", "31", "32", "33", "63", "64", "255", "1024",
	"4096", "65535", "65536", "2147483647", "2147483648", "4294967295", "4294967296",
	"1099511627776", "9223372036854775807", "18446744073709551615", "0x7fc00000", "0fFFFFFFFF", "0d7FF0000000000000"}

// mutatePTX applies ops to src four bytes at a time: an operation, a line (two bytes,
// modulo the line count) and an argument. Operations: delete the line, duplicate it,
// swap it with one of the next eight lines, change one of its numbers.
func mutatePTX(src []byte, ops []byte) []byte {
	lines := strings.Split(string(src), "\n")
	for len(ops) >= 4 && len(lines) > 1 {
		op, at, arg := ops[0]%4, (int(ops[1])<<8|int(ops[2]))%len(lines), int(ops[3])
		ops = ops[4:]
		switch op {
		case 0:
			lines = append(lines[:at], lines[at+1:]...)
		case 1:
			lines = append(lines[:at+1], lines[at:]...)
		case 2:
			other := min(at+1+arg%8, len(lines)-1)
			lines[at], lines[other] = lines[other], lines[at]
		case 3:
			lines[at] = changeNumber(lines[at], arg)
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// changeNumber replaces one run of decimal digits in line (chosen by arg's low four
// bits, modulo their count) by one of numberValues (arg's high four bits).
func changeNumber(line string, arg int) string {
	var runs [][2]int
	for i := 0; i < len(line); {
		if line[i] < '0' || line[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	if len(runs) == 0 {
		return line
	}
	r := runs[(arg&15)%len(runs)]
	v := numberValues[(arg>>4)%len(numberValues)]
	return line[:r[0]] + v + line[r[1]:]
}

// mutateSpec is the capture of reference kernel number which (modulo their count) at its
// small sizes, from clang-14's corpus or nvcc's, its PTX mutated by ops.
func mutateSpec(t *testing.T, which uint16, nvcc bool, ops []byte) (capture.Spec, bool) {
	all := All()
	k := all[int(which)%len(all)]
	sz, err := ParseSizes(k, k.Small)
	if err != nil {
		t.Fatalf("%s: %v", k.Name, err)
	}
	p := Clang14
	if nvcc {
		p = NVCC
	}
	spec, err := k.Spec(sz, p)
	if err != nil {
		return spec, false // a kernel with no PTX from this producer
	}
	spec.PTX = mutatePTX(spec.PTX, ops)
	spec.MaxInst, spec.MaxCTATrace, spec.Workers = mutateMaxInst, mutateCTATrace, 2
	spec.SIMT = format.SIMTStack
	if len(ops) > 0 && ops[0]&0x80 != 0 {
		spec.SIMT = format.SIMTITS
	}
	return spec, true
}

// captureMutated runs spec and checks what a capture of any PTX must give.
func captureMutated(t *testing.T, spec capture.Spec) {
	ctx, cancel := context.WithTimeout(context.Background(), mutateDeadline)
	defer cancel()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	defer func() {
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > mutateMaxAlloc {
			t.Fatalf("%s: the capture allocated %d MiB in all, past the %d MiB the bounds allow", spec.Kernel, got>>20, mutateMaxAlloc>>20)
		}
	}()
	k, err := capture.Load(spec)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("Load returned an error with no message")
		}
		return
	}
	var buf bytes.Buffer
	res, err := k.Capture(ctx, &buf, "fuzz")
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: capture ran past %v: the budget of %d warp-instructions per warp did not end it", spec.Kernel, mutateDeadline, mutateMaxInst)
	}
	if err != nil {
		if err.Error() == "" {
			t.Fatal("Capture returned an error with no message")
		}
		return
	}
	r, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("%s: the capture succeeded but its trace does not read: %v", spec.Kernel, err)
	}
	if got := r.NumCTAs(0); got != res.CTAs {
		t.Fatalf("%s: the trace has %d CTAs, the run says %d", spec.Kernel, got, res.CTAs)
	}
	var insts uint64
	for w, err := range r.All() {
		if err != nil {
			t.Fatalf("%s: the capture succeeded but its trace does not read: %v", spec.Kernel, err)
		}
		insts += uint64(w.Len())
	}
	if insts != res.WarpInsts {
		t.Fatalf("%s: the trace holds %d warp-instructions, the run says %d", spec.Kernel, insts, res.WarpInsts)
	}
}

// FuzzCaptureMutated: seeds are every reference kernel from both corpora, unmutated and
// with one mutation of each kind.
func FuzzCaptureMutated(f *testing.F) {
	for i := range All() {
		nvcc := i%2 == 1
		f.Add(uint16(i), nvcc, []byte(nil))
		f.Add(uint16(i), !nvcc, []byte{byte(i), byte(i * 7), byte(i * 13), byte(i * 31)})
		f.Add(uint16(i), nvcc, []byte{3, 0, byte(40 + i), 0x5a, 2, 0, byte(60 + i), 3, 1, 0, byte(20 + i), 0})
	}
	f.Fuzz(func(t *testing.T, which uint16, nvcc bool, ops []byte) {
		if len(ops) > 64 {
			return
		}
		spec, ok := mutateSpec(t, which, nvcc, ops)
		if !ok {
			return
		}
		captureMutated(t, spec)
	})
}
