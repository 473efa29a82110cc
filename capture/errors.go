package capture

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// PTXError is a problem in the PTX text: a syntax error, an unknown directive, an
// unsupported instruction or type, or an unresolved name. Line and Col are 1-based.
//
// When the PTX carries line information (.loc, which nvcc -lineinfo and clang -g or
// -gline-tables-only emit, and capture --cu asks for), Source and SourceLine name the
// CUDA line the failing PTX line came from, and the message leads with it: a user reads
// their own file first.
type PTXError struct {
	File       string // the PTX, as Spec.PTXName names it
	Line, Col  int    // in the PTX
	Msg        string
	Source     string // the CUDA source file of the nearest .loc above Line, "" if none
	SourceLine int
}

func (e *PTXError) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("%s:%d: %s [PTX line %d:%d of %s]", e.Source, e.SourceLine, e.Msg, e.Line, e.Col, e.File)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

var (
	locLine  = regexp.MustCompile(`^\s*\.loc\s+(\d+)\s+(\d+)`)
	fileLine = regexp.MustCompile(`(?m)^\s*\.file\s+(\d+)\s+"([^"]*)"`)
	funcHead = regexp.MustCompile(`^\s*(\.(visible|weak|extern)\s+)*\.(entry|func)\b`)
)

// sourceOf finds the CUDA source position of line n (from 1) of the PTX src: the nearest
// .loc above it in the same function with a line (.loc F 0 marks code of no line), and the
// name its .file directive gives F. clang writes the .file directives after the
// functions, so the whole text is searched for them.
func sourceOf(src []byte, n int) (string, int) {
	lines := bytes.Split(src, []byte("\n"))
	for i := min(n, len(lines)) - 1; i >= 0; i-- {
		if funcHead.Match(lines[i]) {
			break
		}
		m := locLine.FindSubmatch(lines[i])
		if m == nil {
			continue
		}
		line, err := strconv.Atoi(string(m[2]))
		if err != nil || line == 0 {
			continue
		}
		for _, f := range fileLine.FindAllSubmatch(src, -1) {
			if string(f[1]) == string(m[1]) {
				return string(f[2]), line
			}
		}
		return "", 0
	}
	return "", 0
}

// Fault is a run-time failure of the emulated kernel: an out-of-bounds or misaligned
// access, a barrier deadlock, a livelock under stack-based SIMT, or an exhausted
// instruction budget. Thread is the linear thread id within the CTA (-1 when the fault
// belongs to no single thread); CTA is the linear CTA id.
type Fault struct {
	Kind   FaultKind
	Kernel string
	CTA    int
	Thread int
	PC     int    // pc in the program table, -1 if none
	Inst   string // the instruction at PC as written in the PTX
	Addr   uint64 // faulting address, for memory faults
	Buffer string // the nearest buffer ("arg 2 (buf:f32:1024) [0x1000000000, +4096)"), for memory faults
	// Source is "file.cu:LINE" of the instruction at PC, from the PTX's .loc ("" if none),
	// or "file.cu:LINE, in HEADER:LINE" inside an inlined header function (sourceAt).
	Source string
	Reason string
}

func (f *Fault) Error() string {
	if f.Kind == FaultLivelock {
		// The wording is a contract: scripts and the CLI tests match it.
		return f.Reason
	}
	s := fmt.Sprintf("fault in kernel %s, CTA %d", f.Kernel, f.CTA)
	if f.Thread >= 0 {
		s += fmt.Sprintf(", thread %d", f.Thread)
	}
	if f.PC >= 0 {
		s += fmt.Sprintf(", pc %d (%s)", f.PC, f.Inst)
	}
	if f.Source != "" {
		s += " at " + f.Source
	}
	s += ": " + f.Reason
	if f.Buffer != "" {
		s += fmt.Sprintf(" (address %#x; nearest buffer %s)", f.Addr, f.Buffer)
		if f.Kind == FaultOutOfBounds {
			s += "; gtrace capture --oob=warn or gtrace run --oob=warn (Spec.OOB = OOBWarn) reads zeros there, drops such writes and goes on"
		}
	}
	return s
}

// FaultKind classifies a Fault.
type FaultKind uint8

const (
	FaultOutOfBounds     FaultKind = iota + 1 // an address outside every allocation of its space
	FaultMisaligned                           // an address not a multiple of the access width
	FaultBarrierDeadlock                      // bar.sync that can never complete
	FaultWarpSync                             // bar.warp.sync / shfl.sync / vote.sync that can never complete
	FaultBudget                               // a warp exceeded Spec.MaxInst
	FaultLivelock                             // no forward progress under stack-based SIMT
	FaultTrap                                 // trap or brkpt executed
	FaultUnsupported                          // a run-time case capture does not model
	FaultAssert                               // a device-side assert failed (the __assertfail system call)
)

var faultKindNames = [...]string{"", "out-of-bounds", "misaligned", "barrier-deadlock", "warp-sync", "budget", "livelock", "trap", "unsupported", "assert"}

func (k FaultKind) String() string {
	if int(k) < len(faultKindNames) {
		return faultKindNames[k]
	}
	return fmt.Sprintf("fault(%d)", uint8(k))
}

// sourceAt is where pc is in the user's source, for a fault, an out-of-bounds note or a
// printf note: format.Program.SourceAt, led by the line of the entry function's own
// file that comes nearest before pc in pc's function when that line is in another file.
// clang-14 inlines the header's functions (an atomic, a texture fetch, the math library)
// and its .loc has no inlined_at, so the instructions of an inlined call name the
// header's line only; the user's call is the nearest line of their file above it:
// "k.cu:4, in /home/u/.cache/gtrace/cuda-include-…/gtrace_cuda_runtime.h:147".
func (k *Kernel) sourceAt(pc int) string {
	at := k.launch.Program.SourceAt(pc)
	if at == "" || pc < 0 || pc >= len(k.prog) {
		return at
	}
	user := ""
	for _, in := range k.insts[k.funcs[0].start:k.funcs[0].end] {
		if in.File != "" {
			user = in.File
			break
		}
	}
	fn := k.funcs[k.prog[pc].fn]
	seen := false // a line of another file met on the way up
	for q := pc; q >= int(fn.start); q-- {
		in := &k.insts[q]
		if in.File == "" || in.Line == 0 {
			continue
		}
		if in.File == user {
			if !seen {
				return at
			}
			return fmt.Sprintf("%s:%d, in %s", in.File, in.Line, at)
		}
		seen = true
	}
	return at
}
