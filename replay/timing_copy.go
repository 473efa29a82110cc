package replay

import (
	"math"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// cpOp is what a program row does with cp.async (SASS LDGSTS) in the timing engine: a
// copy, which lands in shared memory some time after it issues; commit_group, which
// closes the warp's open group of copies; wait_group n, which waits until at most the
// n newest committed groups are in flight; or wait_all, which waits for every copy
// the warp issued (PTX ISA 8.x, cp.async.wait_group).
type cpOp uint8

const (
	cpNone cpOp = iota
	cpCopy
	cpCommit
	cpWaitGroup
	cpWaitAll
)

// cpOpOf is the cp.async role of the PTX row in, and for wait_group its n. A trace
// imported from SASS is not modelled (cpNone): its LDGSTS rows are timed as global
// loads, and its DEPBAR rows do not keep the group count they wait for.
func cpOpOf(in *format.Inst) (cpOp, uint16) {
	op, ok := strings.CutPrefix(in.Opcode, "cp.async.")
	if !ok {
		return cpNone, 0
	}
	switch {
	case strings.HasPrefix(op, "ca.") || strings.HasPrefix(op, "cg."):
		return cpCopy, 0
	case op == "commit_group":
		return cpCommit, 0
	case op == "wait_all":
		return cpWaitAll, 0
	case op == "wait_group":
		// Capture refuses anything but an integer constant; a trace that says
		// otherwise waits for every committed group, the safe reading. A count past
		// 65535 leaves as many groups in flight as any warp commits.
		n, err := strconv.ParseUint(lastOperand(in.PTX), 0, 64)
		if err != nil {
			n = 0
		}
		return cpWaitGroup, uint16(min(n, math.MaxUint16))
	}
	return cpNone, 0 // cp.async.mbarrier.arrive: an mbarrier operation
}

// copyGroups is one warp's cp.async copies in flight: when the copies issued since its
// last commit_group land (open: 0 when none), and when each committed group's last
// copy lands, oldest first.
type copyGroups struct {
	open   int64
	groups []int64
	last   int64 // the latest landing of any copy: the warp's CTA retires after it
}

// ready is the first cycle a wait of kind op (n: wait_group's count) may issue.
func (g *copyGroups) ready(op cpOp, n uint16) int64 {
	var at int64
	if op == cpWaitAll {
		at = g.open
	}
	for _, d := range g.groups[:max(len(g.groups)-int(n), 0)] {
		at = max(at, d)
	}
	return at
}

// issue applies a cp.async row of kind op (n: wait_group's count) that issues; land is
// when a copy's bytes are in shared memory.
func (g *copyGroups) issue(op cpOp, n uint16, land int64) {
	switch op {
	case cpCopy:
		g.open = max(g.open, land)
		g.last = max(g.last, land)
	case cpCommit:
		// A group with no copies is complete at once (PTX ISA: an empty group).
		g.groups = append(g.groups, g.open)
		g.open = 0
	case cpWaitGroup:
		if k := len(g.groups) - int(n); k > 0 {
			g.groups = g.groups[:copy(g.groups, g.groups[k:])]
		}
	case cpWaitAll:
		g.open, g.groups = 0, g.groups[:0]
	}
}

// copyLand is when the copy at record i of w, whose active lanes' sources are srcs and
// whose global side's data arrive at done, has written shared memory: it takes the
// SM's fill port from when its data arrive and the port is free, in the order the
// copies issue, for sm.ldgsts_copy_cycles plus sm.ldgsts_wavefront_cycles each of its
// shared wavefronts (copyWavefronts, the ones ncu counts as op_ldgsts). On an H200 that
// line fits a copy's cost to the SM at 1 to 32 wavefronts within 0.1 cycle
// (scripts/hw/ldgstsport.cu, TestLdgstsPortProbe). A copy without destinations (a trace
// written before copies carried them) lands with its data.
func (s *timedSM) copyLand(in *timedInst, w *format.Warp, i int, srcs []uint64, done int64) int64 {
	dst := w.CopyDests(i)
	if len(dst) == 0 {
		return done
	}
	wave, _ := copyWavefronts(s.banks, srcs, dst, in.width, in.cacheOp == format.CacheCG)
	start := max(100*done, s.cpFree)
	s.cpFree = start + s.e.cpCopy + int64(max(wave, 1))*s.e.cpWave
	return (s.cpFree + 99) / 100
}
