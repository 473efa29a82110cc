package capture

import (
	"fmt"
	"sort"
)

// OOBPolicy says what an out-of-bounds access does (Spec.OOB, capture --oob).
type OOBPolicy uint8

const (
	// OOBFault stops the launch with a *Fault naming the access (the default).
	OOBFault OOBPolicy = iota
	// OOBWarn lets the kernel run on: an out-of-bounds read gives zeros, an
	// out-of-bounds write (or atomic) is dropped, the trace records the address as
	// the kernel computed it, and Result.OOB reports each pc once with a count.
	//
	// Real kernels do this and run on a GPU: Rodinia's srad reads J[-cols] on its
	// first row and overwrites the value. The hardware then reads whatever the
	// driver placed before the buffer (cudaMalloc sub-allocates small buffers from
	// larger pages, CUDA C++ Programming Guide, "Device Memory"), which depends on the
	// driver's layout, not the program; gtrace's buffers sit between guard pages and
	// no layout would reproduce the driver's. Zeros make the capture reproducible
	// and say plainly that the value is not the hardware's.
	OOBWarn
)

// ParseOOBPolicy reads "fault" or "warn".
func ParseOOBPolicy(s string) (OOBPolicy, error) {
	switch s {
	case "fault", "":
		return OOBFault, nil
	case "warn":
		return OOBWarn, nil
	}
	return 0, fmt.Errorf("--oob %q: want fault or warn", s)
}

func (p OOBPolicy) String() string {
	if p == OOBWarn {
		return "warn"
	}
	return "fault"
}

// OOBAccess is one pc's out-of-bounds accesses in a run under OOBWarn. The first
// access is that of the lowest CTA that made one, the first in that CTA's execution
// order: the same for any Spec.Workers.
type OOBAccess struct {
	PC     int
	Inst   string // the PTX text of the instruction
	Source string // "file.cu:LINE" when the PTX has line information, as Fault.Source
	Space  string // global, shared, local, const, param
	Write  bool   // a store or an atomic (dropped); otherwise a load (read zeros)
	Count  uint64 // lane accesses out of bounds, over the whole launch
	CTA    int    // the first access: its CTA, thread (linear in the CTA),
	Thread int
	Addr   uint64 // address,
	Buffer string // and the nearest allocation
}

func (a *OOBAccess) String() string {
	what := "reads gave zeros"
	if a.Write {
		what = "writes were dropped"
	}
	s := fmt.Sprintf("pc %d (%s)", a.PC, a.Inst)
	if a.Source != "" {
		s += " at " + a.Source
	}
	return s + fmt.Sprintf(": %d out-of-bounds %s lane accesses; the %s (first: CTA %d, thread %d, address %#x; nearest %s)",
		a.Count, a.Space, what, a.CTA, a.Thread, a.Addr, a.Buffer)
}

// maxAccessBytes is the widest access one lane makes: .v4 of a 64-bit type, the
// largest vector ldst decodes.
const maxAccessBytes = 4 * 8

// outOfBounds handles lane l's access of n bytes at addr of space sp outside every
// allocation: a Fault under OOBFault; under OOBWarn, a count for the pc and n bytes of
// zeros to read or to write into and drop. buffer names the nearest allocation.
func (w *warpState) outOfBounds(pc int32, l int, sp mspace, addr uint64, n int, write bool, buffer func() string) ([]byte, uint64, error) {
	c := w.c
	if c.k.spec.OOB != OOBWarn {
		return nil, 0, w.fault(FaultOutOfBounds, pc, l, addr, buffer(), fmt.Sprintf("out-of-bounds %s access", spaceName(sp)))
	}
	if c.oob == nil {
		c.oob = map[int32]*OOBAccess{}
	}
	a := c.oob[pc]
	switch {
	case a == nil:
		a = &OOBAccess{PC: int(pc), Space: spaceName(sp), Write: write}
		c.oob[pc] = a
		fallthrough
	case c.id < a.CTA:
		a.CTA, a.Thread, a.Addr, a.Buffer = c.id, w.idx*32+l, addr, buffer()
	}
	a.Count++
	w.oobHit = true
	b := w.oobScratch[:n]
	clear(b)
	return b, addr, nil
}

// mergeOOB gathers the out-of-bounds reports of every worker's CTAs into one per pc,
// in pc order.
func (k *Kernel) mergeOOB(ctas []*cta) []OOBAccess {
	byPC := map[int32]*OOBAccess{}
	for _, c := range ctas {
		for pc, a := range c.oob {
			m := byPC[pc]
			if m == nil {
				cp := *a
				byPC[pc] = &cp
				continue
			}
			m.Count += a.Count
			if a.CTA < m.CTA {
				m.CTA, m.Thread, m.Addr, m.Buffer = a.CTA, a.Thread, a.Addr, a.Buffer
			}
		}
	}
	var out []OOBAccess
	for _, a := range byPC {
		a.Inst = k.insts[a.PC].PTX
		a.Source = k.sourceAt(a.PC)
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PC < out[j].PC })
	return out
}
