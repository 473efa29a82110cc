package replay

import (
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// A trace records PTX, and PTX is not the order a GPU issues: ptxas schedules each
// basic block's instructions before it allocates registers, hoisting loads above the
// independent work that follows them so that their latency overlaps it. The H200's
// SASS of bank_sums shows it (docs/VALIDATION.md, "Cycles": four LDGs issued before the
// four STSs that consume them, where the PTX alternates them), and Volkov's matrix
// multiply at 8 outputs per thread (seed 003) only reaches its speed if each thread has
// several shared loads in flight, which its PTX order (each ld.shared next to the fma
// that reads it) never gives an in-order issue. So the timing engine issues each
// straight-line run of a warp's records in the order a list scheduler gives it, the
// textbook basic-block scheduler (Gibbons and Muchnick, "Efficient instruction
// scheduling for a pipelined architecture", SIGPLAN 1986): each cycle, of the
// instructions whose operands are ready, the one with the longest latency-weighted path
// to the end of the block; an instruction that must wait is passed by ready ones.
//
// Dependences kept: register reads after writes (at the producer's latency), writes
// after reads and after writes, and memory order where two accesses may alias and one
// writes (same state space, or either generic; constant, parameter and texture reads
// never conflict). A block ends at a control or synchronisation instruction (branch,
// call, return, exit, barrier, fence), which stays last. The scheduler holds the
// registers a schedule keeps live within the launch's registers per thread (the arch's
// limit when the trace does not record it), counting 64-bit registers twice and
// predicates not at all, as the allocator after it must: ptxas cannot hoist more loads
// than it has registers for. A warp that diverged on an ITS arch, whose paths
// interleave in the trace, takes the same schedule path by path (pathOrder): the
// schedule is the compiler's, made before any warp runs, so a warp whose one lane
// stores the result at its end issues every block before that as a converged warp
// does.

// orderer computes and caches the issue order of the straight-line run that starts at
// each pc.
type orderer struct {
	prog  []format.Inst
	insts []timedInst
	lat   func(pc int) int64 // latency the scheduler plans for
	regs  int                // registers per thread available
	// slotCyc: the cycles one issue slot holds each pipe, for the pipes the scheduler
	// keeps apart (0: not modelled). See balancePipes.
	slotCyc [numPipes]int64
	width   map[uint16]int   // 32-bit registers each register takes (absent: 1)
	first   map[uint16]int32 // lowest pc that names the register
	last    map[uint16]int32 // highest pc that names the register
	runs    []*run           // by entry pc
	// target[pc]: some branch of the program jumps to pc, so a block begins there.
	// fixed: every add's and move's pipe is chosen (fixPipes); until then takePipe
	// chooses and keeps it.
	target []bool
	fixed  bool
	// scratch for schedule
	start            int // the run's first pc
	pred             []int32
	earliest, height []int64
	succ             [][]int32
	succLat          [][]int64
}

func newOrderer(prog []format.Inst, insts []timedInst, lat func(int) int64, regs int) *orderer {
	o := &orderer{prog: prog, insts: insts, lat: lat, regs: regs, width: map[uint16]int{},
		first: map[uint16]int32{}, last: map[uint16]int32{}, runs: make([]*run, len(prog))}
	for pc := range prog {
		in := &prog[pc]
		for _, l := range [][]uint16{in.RegsRead, in.RegsWritten} {
			for _, r := range l {
				if f, ok := o.first[r]; !ok || int32(pc) < f {
					o.first[r] = int32(pc)
				}
				o.last[r] = max(o.last[r], int32(pc))
			}
		}
		if len(in.RegsWritten) == 1 {
			o.width[in.RegsWritten[0]] = regWidth(in.PTX)
		}
	}
	o.target = make([]bool, len(prog)+1)
	for pc := range prog {
		if t, ok := prog[pc].BranchTarget(); ok && t >= 0 && t < len(prog) {
			o.target[t] = true
		}
	}
	return o
}

// regWidth is how many 32-bit registers the first operand of a PTX instruction takes,
// from the register names both clang and nvcc use: %rd and %fd are 64-bit, %p a
// predicate (its own register file).
func regWidth(ptx string) int {
	f := strings.Fields(strings.TrimSpace(ptx))
	i := 0
	if i < len(f) && strings.HasPrefix(f[i], "@") {
		i++
	}
	if i+1 >= len(f) {
		return 1
	}
	op := strings.TrimLeft(f[i+1], "{")
	switch {
	case strings.HasPrefix(op, "%rd"), strings.HasPrefix(op, "%fd"):
		return 2
	case strings.HasPrefix(op, "%p"):
		return 0
	}
	return 1
}

// blockEnd reports whether pc ends a basic block, or a run ptxas keeps apart: a read
// of the clock (%clock, %clock64) stays between the instructions the PTX has before
// and after it, as clock64 stamps need (the H200's SASS of scripts/hw/lgdrain.cu,
// traces/hw/h200-2026-11-29-lgdrain/lgdrain.log: each CS2R SR_CLOCKLO after the
// VIADD that waits for the shared load and before the STG, where the PTX has it).
func (o *orderer) blockEnd(pc int) bool {
	in := &o.prog[pc]
	c := in.Class
	return c == format.ClassControl || c == format.ClassSync || o.insts[pc].kind == ikBarrier || readsClock(in)
}

// readsClock reports whether in reads an SM clock register (a mov from one).
func readsClock(in *format.Inst) bool {
	return strings.HasPrefix(in.Opcode, "mov") && clockRegister(lastOperand(in.PTX))
}

// run is the block from one entry pc: its length and issue order (offsets from the
// entry; nil: trace order).
type run struct {
	n     int
	order []uint16
}

// maxRun bounds a scheduled block (offsets are 16-bit).
const maxRun = 1 << 15

func (o *orderer) run(entry uint32) *run {
	if r := o.runs[entry]; r != nil {
		return r
	}
	end := int(entry)
	for end < len(o.prog)-1 && !o.blockEnd(end) && end-int(entry) < maxRun-1 {
		end++
	}
	r := &run{n: end - int(entry) + 1, order: o.schedule(int(entry), end)}
	o.runs[entry] = r
	return r
}

// space is a memory instruction's alias class for ordering: -1 never conflicts.
func (o *orderer) space(pc int) int {
	in := &o.prog[pc]
	switch in.Space {
	case format.SpaceConst, format.SpaceParam, format.SpaceTexture:
		return -1
	}
	return int(in.Space)
}

// schedule list-schedules pcs start..end (end stays last) and returns the order as
// offsets from start, or nil if it is the trace order.
func (o *orderer) schedule(start, end int) []uint16 {
	n := end - start + 1
	if n <= 2 {
		return nil
	}
	o.start = start
	o.dependences(start, n)
	o.heights(start, n)
	return o.listSchedule(n, o.regPressure(start, end))
}

// dependences builds the run's dependence graph in o.succ, o.succLat and o.pred (each
// pair of instructions at most one edge, at the longest latency of its reasons), and
// clears o.earliest and o.height.
func (o *orderer) dependences(start, n int) {
	o.pred = resize(o.pred, n)
	o.earliest = resize(o.earliest, n)
	o.height = resize(o.height, n)
	if cap(o.succ) < n {
		o.succ = make([][]int32, n)
		o.succLat = make([][]int64, n)
	}
	o.succ, o.succLat = o.succ[:n], o.succLat[:n]
	for i := range n {
		o.pred[i], o.earliest[i], o.height[i] = 0, 0, 0
		o.succ[i], o.succLat[i] = o.succ[i][:0], o.succLat[i][:0]
	}
	edge := func(a, b int, l int64) {
		o.succ[a] = append(o.succ[a], int32(b))
		o.succLat[a] = append(o.succLat[a], l)
		o.pred[b]++
	}
	lastW := map[uint16]int{}
	readers := map[uint16][]int{}
	type memAcc struct {
		i     int
		space int
		write bool
	}
	var mem []memAcc
	for i := range n {
		pc := start + i
		in := &o.prog[pc]
		seen := map[int]bool{}
		dep := func(a int, l int64) {
			if a != i && !seen[a] {
				seen[a] = true
				edge(a, i, l)
			} else if a != i && seen[a] {
				// keep the longest latency of a pair's edges
				for k, s := range o.succ[a] {
					if int(s) == i && o.succLat[a][k] < l {
						o.succLat[a][k] = l
					}
				}
			}
		}
		for _, r := range in.RegsRead {
			if w, ok := lastW[r]; ok {
				dep(w, o.lat(start+w))
			}
		}
		for _, r := range in.RegsWritten {
			if w, ok := lastW[r]; ok {
				dep(w, 1)
			}
			for _, rd := range readers[r] {
				dep(rd, 0)
			}
		}
		if in.MemOp != format.MemNone {
			sp := o.space(pc)
			write := in.MemOp != format.MemLoad
			if sp >= 0 {
				for _, m := range mem {
					if m.space == -1 || !(m.write || write) {
						continue
					}
					if m.space == sp || m.space == int(format.SpaceGeneric) || sp == int(format.SpaceGeneric) {
						dep(m.i, 1)
					}
				}
				mem = append(mem, memAcc{i, sp, write})
			}
		}
		if i == n-1 && o.blockEnd(pc) {
			for a := range n - 1 {
				dep(a, 0)
			}
		}
		for _, r := range in.RegsWritten {
			lastW[r] = i
			readers[r] = readers[r][:0]
		}
		for _, r := range in.RegsRead {
			readers[r] = append(readers[r], i)
		}
	}
}

// heights sets o.height: each instruction's latency-weighted path to the run's end,
// the list scheduler's priority.
func (o *orderer) heights(start, n int) {
	for i := n - 1; i >= 0; i-- {
		h := o.lat(start + i)
		for k, s := range o.succ[i] {
			h = max(h, o.succLat[i][k]+o.height[s])
		}
		o.height[i] = h
	}
}

// regPressure is a run's register pressure as the list scheduler tracks it: registers
// live across the run (named before and after it, not in it), registers it reads from
// before it, and the values it defines, each live from its definition until its last
// reader in the run (to the run's end if the register is named after the run). A value
// is the write of a register by one instruction, named by that instruction's index.
type regPressure struct {
	readsOf [][]int32 // values each instruction reads (as defining instruction index)
	users   []int32   // readers in the run of the value(s) each instruction defines
	defW    []int     // registers each instruction's values take
	outlive []bool    // the instruction's value lives past the run
	limit   int       // registers the schedule may keep live
}

func (o *orderer) regPressure(start, end int) *regPressure {
	n := end - start + 1
	base := 0
	inRun := map[uint16]bool{}
	for i := range n {
		for _, r := range o.prog[start+i].RegsRead {
			inRun[r] = true
		}
		for _, r := range o.prog[start+i].RegsWritten {
			inRun[r] = true
		}
	}
	for r, f := range o.first {
		if int(f) < start && int(o.last[r]) > end || inRun[r] && int(f) < start {
			base += o.w(r)
		}
	}
	p := &regPressure{readsOf: make([][]int32, n), users: make([]int32, n), defW: make([]int, n), outlive: make([]bool, n)}
	cur := map[uint16]int{}
	for i := range n {
		in := &o.prog[start+i]
		for _, r := range in.RegsRead {
			if d, ok := cur[r]; ok {
				p.readsOf[i] = append(p.readsOf[i], int32(d))
				p.users[d]++
			}
		}
		for _, r := range in.RegsWritten {
			cur[r] = i
			p.defW[i] += o.w(r)
			if int(o.last[r]) > end {
				p.outlive[i] = true
			}
		}
	}
	for r, d := range cur {
		if int(o.last[r]) > end {
			p.outlive[d] = true
		}
	}
	trace := make([]int, n)
	for i := range trace {
		trace[i] = i
	}
	p.limit = max(o.regs-base, p.peak(trace))
	return p
}

// define is the change in pressure when i's values are defined, with left[i] readers
// left of them: none if no one reads them (dead on arrival).
func (p *regPressure) define(i int, left []int32) int {
	if p.defW[i] > 0 && left[i] == 0 && !p.outlive[i] {
		return 0
	}
	return p.defW[i]
}

// release counts i's reads in left and returns the change in pressure: a value whose
// last reader i is frees its registers.
func (p *regPressure) release(i int, left []int32) int {
	d := 0
	for _, v := range p.readsOf[i] {
		if left[v]--; left[v] == 0 && !p.outlive[v] {
			d -= p.defW[v]
		}
	}
	return d
}

// peak is the highest pressure of an issue order.
func (p *regPressure) peak(order []int) int {
	left := append([]int32(nil), p.users...)
	pr, peak := 0, 0
	for _, i := range order {
		pr += p.define(i, left)
		peak = max(peak, pr)
		pr += p.release(i, left)
	}
	return peak
}

// net is the change in pressure if i issued now, with left readers left of each value.
func (p *regPressure) net(i int, left []int32) int {
	d := p.define(i, left)
	for k, v := range p.readsOf[i] {
		if p.outlive[v] || slices.Contains(p.readsOf[i][:k], v) {
			continue
		}
		c := int32(0)
		for _, x := range p.readsOf[i] {
			if x == v {
				c++
			}
		}
		if left[v] == c {
			d -= p.defW[v]
		}
	}
	return d
}

// listSchedule orders the run's n instructions over the graph dependences built: each
// cycle, of the ready instructions whose operands have arrived and that keep the
// pressure within its limit, the one of greatest height (the lowest index on a tie); if
// none has arrived, time moves to the first that will; if every ready one is over the
// limit, the lowest index (trace order). It returns nil for the trace order.
func (o *orderer) listSchedule(n int, p *regPressure) []uint16 {
	left := append([]int32(nil), p.users...)
	pressure := 0
	out := make([]uint16, 0, n)
	ready := make([]int, 0, n)
	for i := range n {
		if o.pred[i] == 0 {
			ready = append(ready, i)
		}
	}
	identity := true
	var cyc int64
	var busy pipeState
	for len(out) < n {
		best, wait := -1, int64(-1)
		fallback := -1
		for _, i := range ready {
			if fallback < 0 || i < fallback {
				fallback = i
			}
			if p.defW[i] > 0 && pressure+p.net(i, left) > p.limit {
				continue
			}
			if at := max(o.earliest[i], o.pipeFree(i, &busy)); at > cyc {
				if wait < 0 || at < wait {
					wait = at
				}
				continue
			}
			if best < 0 || o.height[i] > o.height[best] || o.height[i] == o.height[best] && i < best {
				best = i
			}
		}
		if best < 0 {
			if wait >= 0 {
				cyc = wait
				continue
			}
			best = fallback // over the register limit whatever we pick: keep trace order
		}
		for k, x := range ready {
			if x == best {
				ready = append(ready[:k], ready[k+1:]...)
				break
			}
		}
		if best != len(out) {
			identity = false
		}
		out = append(out, uint16(best))
		o.takePipe(best, cyc, &busy)
		pressure += p.define(best, left)
		pressure += p.release(best, left)
		for k, s := range o.succ[best] {
			o.earliest[s] = max(o.earliest[s], cyc+o.succLat[best][k])
			if o.pred[s]--; o.pred[s] == 0 {
				ready = append(ready, int(s))
			}
		}
		cyc++
	}
	if identity {
		return nil
	}
	return out
}

// balancePipes makes the list scheduler keep an arch's FP32 and integer pipes apart
// (sm.int32_lanes > 0), as ptxas does for sm_90: an instruction whose pipe is busy
// waits as one whose operands have not arrived, and an integer add or move goes to a
// pipe that is free, the less loaded of the two so far in the block when both are
// (the integer one on a tie: VIADD or IADD3, else IMAD.IADD or IMAD.MOV), and keeps
// it: the engine issues it there. A run of adds and logic ops then shares the two
// pipes (the integer probe's LOP3 + VIADD at 4 per SM and cycle, ISETP + VIADD + LOP3
// at 3; docs/issue-15.md item 10), and the loop counter's add in an FFMA loop stays
// off the FP32 pipe. Other archs' schedules stay latency-only.
func (o *orderer) balancePipes(fp32PerSched, int32PerSched int) {
	if int32PerSched <= 0 {
		return
	}
	o.slotCyc[pALU] = int64(max(32/max(fp32PerSched, 1), 1))
	o.slotCyc[pINT] = int64(max(32/int32PerSched, 1))
	o.fixPipes()
}

// fixPipes chooses every add's and move's pipe before a warp runs, as ptxas does once for
// the static code: each basic block (from pc 0, a branch target, or the pc after a
// block's end, to its end or the pc before the next target) is scheduled from its first
// pc, in pc order, and its choices are kept. A run that enters a block elsewhere (a
// trace that starts or resumes mid-block) is ordered with the pipes fixed. Before stop
// 117 the choice was the last run's scheduled through the pc, which depended on the
// order warps reached their runs (docs/issue-14.md item 11).
func (o *orderer) fixPipes() {
	for pc := range o.prog {
		if pc == 0 || o.target[pc] || o.blockEnd(pc-1) {
			o.run(uint32(pc))
		}
	}
	o.fixed = true
}

// pipeState is the list scheduler's view of the modelled pipes: when each is next
// free, and the cycles the block has put on it so far.
type pipeState struct {
	busy, load [numPipes]int64
}

// pipeFree is the first cycle the pipe of the run's instruction i (or, for an add or
// move, either of its pipes) is free: 0 when its pipe is not modelled.
func (o *orderer) pipeFree(i int, ps *pipeState) int64 {
	in := &o.insts[o.start+i]
	if in.alt > 0 && !o.fixed {
		return min(ps.busy[pINT], ps.busy[pALU])
	}
	if in.pipe >= numPipes || o.slotCyc[in.pipe] == 0 {
		return 0
	}
	return ps.busy[in.pipe]
}

// takePipe holds i's pipe from cyc for its slots, choosing an add's or a move's.
func (o *orderer) takePipe(i int, cyc int64, ps *pipeState) {
	in := &o.insts[o.start+i]
	if in.alt > 0 && !o.fixed {
		in.pipe, in.slots = pINT, in.intN
		intFree, aluFree := ps.busy[pINT] <= cyc, ps.busy[pALU] <= cyc
		if !intFree || aluFree && ps.load[pALU] < ps.load[pINT] {
			in.pipe, in.slots = pALU, in.alt
		}
	}
	if in.pipe >= numPipes || o.slotCyc[in.pipe] == 0 {
		return
	}
	c := int64(in.slots) * o.slotCyc[in.pipe]
	ps.busy[in.pipe] = max(ps.busy[in.pipe], cyc) + c
	ps.load[in.pipe] += c
}

func (o *orderer) w(r uint16) int {
	if w, ok := o.width[r]; ok {
		return w
	}
	return 1
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pathOrder is the in-block order (runAt) for a warp that diverged under ITS, in the form
// sched.Divergent takes: each path's records in the in-block scheduler's order, run
// by run, where ord[k] is the record that takes record k's place in its path (nil:
// trace order). A path's run is its records that follow an entry pc's block pc by pc,
// as in runAt, with the other paths' records between them left out. A record where
// the paths rejoin is a run of its own (it follows every earlier record, so nothing
// of its path may pass it), and a run that spans window records of the trace or more
// keeps trace order, so that the warp never waits on a record past its window.
func (o *orderer) pathOrder(w *format.Warp, window int, ord []int32) []int32 {
	n := w.Len()
	ord = resize(ord, n)
	for i := range ord {
		ord[i] = int32(i)
	}
	byPath := map[uint16][]int32{}
	var paths []uint16
	for i := range n {
		p := w.Path[i]
		if _, ok := byPath[p]; !ok {
			paths = append(paths, p)
		}
		byPath[p] = append(byPath[p], int32(i))
	}
	rejoin := func(i int32) bool { return w.Flags[i]&format.FlagReconverge != 0 }
	changed := false
	for _, p := range paths {
		recs := byPath[p]
		for j := 0; j < len(recs); {
			entry := w.PC[recs[j]]
			if int(entry) >= len(o.prog) {
				return nil // the engine reports the bad pc
			}
			if rejoin(recs[j]) {
				j++
				continue
			}
			r := o.run(entry)
			m := 1
			for m < r.n && j+m < len(recs) && w.PC[recs[j+m]] == entry+uint32(m) && !rejoin(recs[j+m]) {
				m++
			}
			seg := recs[j : j+m]
			if r.order != nil && int(seg[m-1]-seg[0]) < window {
				k := 0
				for _, off := range r.order {
					if int(off) < m {
						ord[seg[k]] = seg[off]
						k++
					}
				}
				changed = true
			}
			j += m
		}
	}
	if !changed {
		return nil
	}
	return ord
}

// runAt is the in-block scheduler's order of the run of an in-order warp's records that
// begins at record i (sched.Runs): the records that follow entry's block pc by pc.
// pcs holds the pcs of records i, i+1, ... as far as they are at hand (at least
// record i's), and pc gives a later record's (false: the warp has no such record). A
// run of the whole block shares the block's order; a shorter one's is made in buf.
func (o *orderer) runAt(i int, pcs []uint32, pc func(int) (uint32, bool), buf *[]uint16) (int, []uint16) {
	entry := pcs[0]
	if int(entry) >= len(o.prog) {
		return 1, nil // the engine reports the bad pc
	}
	r := o.run(entry)
	m := 1
	for ; m < r.n && m < len(pcs) && pcs[m] == entry+uint32(m); m++ {
	}
	for m < r.n && m >= len(pcs) {
		if p, ok := pc(i + m); !ok || p != entry+uint32(m) {
			break
		}
		m++
	}
	if r.order == nil || m == r.n {
		return m, r.order
	}
	off := (*buf)[:0]
	for _, x := range r.order {
		if int(x) < m {
			off = append(off, x)
		}
	}
	*buf = off
	return m, off
}
