package capture

import "fmt"

// PTXError is a problem in the PTX text: a syntax error, an unknown directive, an
// unsupported instruction or type, or an unresolved name. Line and Col are 1-based.
type PTXError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *PTXError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
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
	s += ": " + f.Reason
	if f.Buffer != "" {
		s += fmt.Sprintf(" (address %#x; nearest buffer %s)", f.Addr, f.Buffer)
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
)

var faultKindNames = [...]string{"", "out-of-bounds", "misaligned", "barrier-deadlock", "warp-sync", "budget", "livelock", "trap", "unsupported"}

func (k FaultKind) String() string {
	if int(k) < len(faultKindNames) {
		return faultKindNames[k]
	}
	return fmt.Sprintf("fault(%d)", uint8(k))
}
