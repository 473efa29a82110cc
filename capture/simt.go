package capture

import (
	"fmt"
	"hash/maphash"
	"math/bits"

	"github.com/gtrace/gtrace/format"
)

// warpStatus is what a warp's run slice ended with.
type warpStatus uint8

const (
	wsYield   warpStatus = iota // quantum used up; runnable
	wsBlocked                   // waiting at a CTA barrier
	wsDone                      // every lane exited
)

// ---------------------------------------------------------------------------------
// Stack mode: a reconvergence stack at the immediate post-dominator (GPGPU-Sim's
// SIMT stack; Fung et al., MICRO 2007). The top entry runs; a divergent branch turns
// the top into the reconvergence entry (pc = IPDOM) and pushes the not-taken, then the
// taken path, each with rpc = IPDOM; an entry whose pc reaches its rpc is popped.

type stackEntry struct {
	pc, rpc int32
	mask    uint32
	path    uint16
	call    int32 // pc of the call that pushed this callee frame, -1 otherwise
}

const livelockWindow = 4096 // warp-instructions without a pop/exit/barrier before checking for a livelock

func (w *warpState) runStack(quantum int) (warpStatus, error) {
	k := w.c.k
	var flags format.Flags
	for n := 0; n < quantum; {
		if len(w.stack) == 0 {
			w.done = true
			return wsDone, nil
		}
		top := &w.stack[len(w.stack)-1]
		if top.mask == 0 || top.pc == top.rpc {
			popped := *top
			w.stack = w.stack[:len(w.stack)-1]
			w.lastEvent = w.ninst
			if popped.call >= 0 {
				w.returnCopies(popped.call, popped.mask)
			}
			if len(w.stack) > 0 {
				nt := &w.stack[len(w.stack)-1]
				switch {
				case popped.call >= 0:
				case nt.pc == popped.rpc:
					flags = flags&^format.FlagSwitch | format.FlagReconverge
				default:
					flags |= format.FlagSwitch
				}
			}
			continue
		}
		pc := top.pc
		in := &k.prog[pc]
		if in.tryWait() {
			if wait, err := w.mbarrierWaits(in, pc, top.mask); err != nil || wait {
				return wsYield, err
			}
		}
		c, m, err := w.step(pc, top.mask, top.path, flags)
		if err != nil {
			return 0, err
		}
		flags = 0
		n++
		switch c {
		case ctlNext:
			top.pc++
			if w.yieldNow {
				w.yieldNow = false
				return wsYield, nil
			}
		case ctlBranch:
			target := in.target
			if in.op == opRet {
				target = k.funcs[in.fn].exit
			}
			taken, nt := m, top.mask&^m
			switch {
			case taken == 0:
				top.pc++
			case nt == 0:
				top.pc = target
				if len(w.stack) > 1 && w.ninst-w.lastEvent > livelockWindow {
					if err := w.checkLivelock(pc); err != nil {
						return 0, err
					}
				}
			default:
				r := k.ipdom[pc]
				top.pc = r
				w.lastEvent = w.ninst
				p1, p2 := w.newPath(), w.newPath()
				w.stack = append(w.stack,
					stackEntry{pc: pc + 1, rpc: r, mask: nt, path: p2, call: -1},
					stackEntry{pc: target, rpc: r, mask: taken, path: p1, call: -1})
			}
		case ctlCall:
			top.pc++
			if m != 0 {
				callee := k.funcs[in.target]
				w.stack = append(w.stack, stackEntry{pc: callee.start, rpc: callee.exit, mask: m, path: top.path, call: pc})
			}
		case ctlExit:
			top.pc++
			w.exitLanes(m)
		case ctlBar:
			top.pc++
			w.lastEvent = w.ninst
			wait, err := w.arrive(pc, m)
			if err != nil {
				return 0, err
			}
			if wait {
				return wsBlocked, nil
			}
		}
	}
	return wsYield, nil
}

// checkLivelock hashes the warp's state at a taken branch while a diverged path waits.
// The warp runs alone between scheduling points and the CTA's memory epoch is part of
// the key, so seeing the same state twice means it can never leave the loop.
func (w *warpState) checkLivelock(pc int32) error {
	w.sampleN++
	if w.sampleN&15 != 0 {
		return nil
	}
	if w.seen == nil || len(w.seen) > 1024 {
		w.seen = map[uint64]uint64{}
	}
	var h maphash.Hash
	h.SetSeed(livelockSeed)
	var b [8]byte
	put := func(v uint64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	put(uint64(pc))
	put(w.c.epoch)
	for _, e := range w.stack {
		put(uint64(e.pc)<<32 | uint64(uint32(e.rpc)))
		put(uint64(e.mask))
	}
	for _, v := range w.regs {
		put(v)
	}
	for _, p := range w.preds {
		put(uint64(p))
	}
	key := h.Sum64()
	if _, dup := w.seen[key]; dup {
		return &Fault{Kind: FaultLivelock, Kernel: w.c.k.spec.Kernel, CTA: w.c.id, Thread: w.idx * 32, PC: int(pc), Inst: w.c.k.insts[pc].PTX,
			Reason: fmt.Sprintf("no forward progress under stack-based SIMT at pc %d (%s); capture with --simt its", pc, w.c.k.insts[pc].PTX)}
	}
	w.seen[key] = w.ninst
	return nil
}

var livelockSeed = maphash.MakeSeed()

func (w *warpState) returnCopies(callPC int32, mask uint32) {
	k := w.c.k
	in := &k.prog[callPC]
	ps := int(k.fparamSize)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		p := w.fparam[l*ps : (l+1)*ps]
		for _, c := range in.rcopies {
			copy(p[c.to:c.to+c.size], p[c.from:c.from+c.size])
		}
	}
}

// exitLanes retires lanes: they leave every stack entry and path, and stop counting
// towards CTA barriers (PTX: exited threads do not hold up bar.sync).
func (w *warpState) exitLanes(m uint32) {
	if m == 0 {
		return
	}
	m &^= w.exited
	w.exited |= m
	w.lastEvent = w.ninst
	for i := range w.stack {
		w.stack[i].mask &^= m
	}
	for _, p := range w.its.paths {
		p.mask &^= m
	}
	w.c.threadsExited(bits.OnesCount32(m))
}

// arrive registers the lanes at the barrier named by the instruction at pc and reports
// whether the warp must wait (bar.arrive's lanes go on).
func (w *warpState) arrive(pc int32, lanes uint32) (bool, error) {
	in := &w.c.k.prog[pc]
	first := bits.TrailingZeros32(lanes | 1)
	id := int(w.regs[int(in.s[0])*32+first] & 15)
	count := 0
	if in.flags&fHasDPred != 0 {
		count = int(uint32(w.regs[int(in.s[1])*32+first]))
	}
	var truths uint32
	if in.bop >= barRedPopc {
		truths = w.preds[in.s[2]]
		if in.sneg&(1<<2) != 0 {
			truths = ^truths
		}
		truths &= lanes
	}
	if in.bop != barArrive {
		w.blocked, w.barID, w.barPC, w.barMask = true, id, pc, lanes
	}
	if err := w.c.arrive(w, pc, id, count, lanes, truths); err != nil {
		return false, err
	}
	return w.blocked, nil
}

// barResult writes bar.red's result to the lanes that took part.
func (w *warpState) barResult(in *instr, lanes uint32, v uint64) {
	if in.d[0] < 0 {
		return
	}
	if in.bop != barRedPopc {
		m := uint32(0)
		if v != 0 {
			m = lanes
		}
		w.preds[in.d[0]] = w.preds[in.d[0]]&^lanes | m
		return
	}
	d := w.slot(in.d[0])
	for m := lanes; m != 0; m &= m - 1 {
		d[bits.TrailingZeros32(m)] = v
	}
}

// ---------------------------------------------------------------------------------
// ITS mode: per-thread PCs, grouped into paths (lanes at the same pc that split
// together). A divergent branch splits a path in two and pushes a convergence frame
// at the branch's IPDOM (unless the path's innermost frame already has that pc). A
// path that reaches its innermost frame's pc parks; when every path of the frame is
// parked there, they merge back into the frame's parent path. The scheduler runs the
// current path for up to itsQuantum instructions, then moves round-robin to the next
// runnable path. A parked path waits at most itsPatience warp-instructions, or until
// nothing else can run; then it leaves its frame and goes on alone, which is what lets
// an intra-warp spin lock finish (the lock holder is parked at the loop exit).

const (
	itsQuantum  = 64
	itsPatience = 4096
)

type pathState uint8

const (
	psRun      pathState = iota
	psParked             // at its innermost frame's pc
	psBarrier            // at a CTA barrier
	psWarpSync           // waiting for the lanes of a bar.warp.sync / shfl.sync / vote.sync
	psMbarrier           // at an mbarrier.try_wait whose phase is open
)

type cframe struct {
	serial uint32
	rpc    int32
	parent uint16
}

type itsPath struct {
	id       uint16
	pc       int32
	mask     uint32
	frames   []cframe
	state    pathState
	parkedAt uint64
	synced   bool // released from a warp-sync wait at pc: execute it without waiting again
	flags    format.Flags
}

type itsState struct {
	paths  []*itsPath
	cur    int // index of the path that ran last
	ran    int // instructions the current path has run in a row
	serial uint32
	last   *itsPath
}

func (w *warpState) runITS(quantum int) (warpStatus, error) {
	k := w.c.k
	s := &w.its
	for _, p := range s.paths {
		if p.state == psMbarrier { // look again: another warp may have arrived
			p.state = psRun
		}
	}
	for n := 0; n < quantum; {
		p := w.pickPath()
		if p == nil {
			if len(s.paths) == 0 {
				w.done = true
				return wsDone, nil
			}
			blocked, mbar := false, false
			for _, q := range s.paths {
				blocked = blocked || q.state == psBarrier
				mbar = mbar || q.state == psMbarrier
			}
			if mbar {
				return wsYield, nil // the CTA's other warps run; then look again
			}
			if blocked {
				w.blocked = true
				return wsBlocked, nil
			}
			q := s.paths[0]
			return 0, w.fault(FaultWarpSync, q.pc, bits.TrailingZeros32(q.mask), 0, "",
				fmt.Sprintf("warp-synchronous instruction can never complete: lanes %#08x wait at pc %d", q.mask, q.pc))
		}
		if s.last != nil && s.last != p {
			p.flags |= format.FlagSwitch
		}
		s.last = p
		// A path at its function's exit returns to the caller.
		if p.pc >= int32(len(k.prog)) {
			w.itsReturn(p)
			continue
		}
		pc := p.pc
		in := &k.prog[pc]
		if in.tryWait() {
			if wait, err := w.mbarrierWaits(in, pc, p.mask); err != nil {
				return 0, err
			} else if wait {
				p.state = psMbarrier
				continue
			}
		}
		if (in.op == opBarWarp || in.op == opShfl || in.op == opVote || in.op == opLdmatrix || in.op == opMma) && !p.synced {
			if req := w.syncMask(in, p.mask) &^ p.mask; req != 0 {
				p.state = psWarpSync
				w.tryWarpSync()
				continue
			}
		}
		p.synced = false
		fl := p.flags
		p.flags = 0
		c, m, err := w.step(pc, p.mask, p.id, fl)
		if err != nil {
			return 0, err
		}
		n++
		s.ran++
		switch c {
		case ctlNext:
			p.pc++
			if w.yieldNow {
				w.yieldNow = false
				s.ran = itsQuantum
				w.checkPark(p)
				return wsYield, nil
			}
		case ctlBranch:
			target := in.target
			if in.op == opRet {
				target = k.funcs[in.fn].exit
			}
			taken, nt := m, p.mask&^m
			switch {
			case taken == 0:
				p.pc++
			case nt == 0:
				p.pc = target
			default:
				r := k.ipdom[pc]
				frames := p.frames
				if len(frames) == 0 || frames[len(frames)-1].rpc != r {
					s.serial++
					frames = append(frames[:len(frames):len(frames)], cframe{serial: s.serial, rpc: r, parent: p.id})
				}
				q := &itsPath{id: w.newPath(), pc: pc + 1, mask: nt, frames: append([]cframe(nil), frames...)}
				p.id, p.pc, p.mask, p.frames = w.newPath(), target, taken, frames
				s.paths = append(s.paths, nil)
				copy(s.paths[s.cur+2:], s.paths[s.cur+1:])
				s.paths[s.cur+1] = q
				w.checkPark(q)
			}
		case ctlCall:
			callee := k.funcs[in.target]
			if m != p.mask && m != 0 {
				// Part of the path calls: split without a frame; the callers rejoin
				// at pc+1 only by meeting there.
				q := &itsPath{id: w.newPath(), pc: pc + 1, mask: p.mask &^ m, frames: append([]cframe(nil), p.frames...)}
				s.paths = append(s.paths, nil)
				copy(s.paths[s.cur+2:], s.paths[s.cur+1:])
				s.paths[s.cur+1] = q
				p.mask = m
			}
			if m != 0 {
				p.pc = callee.start
			} else {
				p.pc++
			}
		case ctlExit:
			p.pc++
			w.exitLanes(m)
			w.dropEmpty()
			w.mergeAll()
			continue
		case ctlBar:
			p.pc++
			wait := in.bop != barArrive // bar.arrive's lanes go on
			if wait {
				p.state = psBarrier
			}
			if _, err := w.arrive(pc, m); err != nil {
				return 0, err
			}
			// Other paths of this warp may still run; the warp blocks only when none can.
			w.blocked = false
			if wait {
				continue
			}
		}
		w.checkPark(p)
	}
	return wsYield, nil
}

// pickPath chooses the path to run: the current one while it is runnable and within
// its quantum, else the next runnable one round-robin; parked paths past their
// patience are unparked first, and when nothing can run the longest-parked path gives
// up its frame.
func (w *warpState) pickPath() *itsPath {
	s := &w.its
	ps := s.paths
	if len(ps) == 0 {
		return nil
	}
	if s.cur >= len(ps) {
		s.cur = 0
	}
	for _, p := range ps {
		if p.state == psParked && w.ninst-p.parkedAt > itsPatience {
			w.unpark(p)
		}
	}
	if cur := ps[s.cur]; cur.state == psRun && s.ran < itsQuantum {
		return cur
	}
	for i := 1; i <= len(ps); i++ {
		j := (s.cur + i) % len(ps)
		if ps[j].state == psRun {
			if j != s.cur {
				s.ran = 0
			} else if s.ran >= itsQuantum {
				s.ran = 0
			}
			s.cur = j
			return ps[j]
		}
	}
	// Nothing runnable: the longest-parked path gives up waiting.
	var best *itsPath
	bi := -1
	for i, p := range ps {
		if p.state == psParked && (best == nil || p.parkedAt < best.parkedAt) {
			best, bi = p, i
		}
	}
	if best == nil {
		return nil
	}
	w.unpark(best)
	s.cur, s.ran = bi, 0
	return best
}

func (w *warpState) unpark(p *itsPath) {
	p.state = psRun
	p.frames = p.frames[: len(p.frames)-1 : len(p.frames)-1]
}

// checkPark parks p if it reached its innermost frame's pc, then merges what can be.
func (w *warpState) checkPark(p *itsPath) {
	if p.state != psRun || len(p.frames) == 0 || p.pc != p.frames[len(p.frames)-1].rpc {
		return
	}
	p.state = psParked
	p.parkedAt = w.ninst
	w.mergeAll()
}

// mergeAll merges every frame whose paths are all parked at its pc.
func (w *warpState) mergeAll() {
	s := &w.its
	for changed := true; changed; {
		changed = false
		for _, p := range s.paths {
			if p.state != psParked {
				continue
			}
			f := p.frames[len(p.frames)-1]
			all := true
			for _, q := range s.paths {
				if !hasFrame(q.frames, f.serial) {
					continue
				}
				// Every path inside the frame must be parked at it; one nested deeper
				// is still on its way.
				if q.state != psParked || q.frames[len(q.frames)-1].serial != f.serial {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			merged := &itsPath{id: f.parent, pc: f.rpc, frames: p.frames[: len(p.frames)-1 : len(p.frames)-1], flags: format.FlagReconverge}
			out := s.paths[:0]
			pos := -1
			for i, q := range s.paths {
				if len(q.frames) > 0 && q.frames[len(q.frames)-1].serial == f.serial {
					merged.mask |= q.mask
					if pos < 0 {
						pos = i
					}
					continue
				}
				out = append(out, q)
			}
			// Keep the list order: the merged path takes its first member's place.
			out = append(out, nil)
			copy(out[pos+1:], out[pos:])
			out[pos] = merged
			s.paths = out
			s.cur, s.ran = pos, 0
			s.last = nil
			w.checkParkNoMerge(merged)
			changed = true
			break
		}
	}
}

func (w *warpState) checkParkNoMerge(p *itsPath) {
	if len(p.frames) > 0 && p.pc == p.frames[len(p.frames)-1].rpc {
		p.state = psParked
		p.parkedAt = w.ninst
	}
}

func hasFrame(fs []cframe, serial uint32) bool {
	for _, f := range fs {
		if f.serial == serial {
			return true
		}
	}
	return false
}

func (w *warpState) dropEmpty() {
	s := &w.its
	out := s.paths[:0]
	for i, p := range s.paths {
		if p.mask == 0 {
			if i < s.cur {
				s.cur--
			}
			if s.last == p {
				s.last = nil
			}
			continue
		}
		out = append(out, p)
	}
	for i := len(out); i < len(s.paths); i++ {
		s.paths[i] = nil
	}
	s.paths = out
	s.ran = 0
}

// itsReturn returns path p from its function to the caller (the pc after the call).
func (w *warpState) itsReturn(p *itsPath) {
	k := w.c.k
	fn := int(p.pc) - len(k.prog)
	fi := k.funcs[fn]
	first := bits.TrailingZeros32(p.mask)
	call := w.callSite[fn*32+first]
	w.returnCopies(call, p.mask)
	for len(p.frames) > 0 {
		r := p.frames[len(p.frames)-1].rpc
		if r == fi.exit || (r >= fi.start && r < fi.end) {
			p.frames = p.frames[: len(p.frames)-1 : len(p.frames)-1]
			continue
		}
		break
	}
	p.pc = call + 1
	w.checkPark(p)
}

// syncMask is the lanes a warp-synchronous instruction waits for: its membermask (every
// lane for ldmatrix and mma), less exited and absent lanes.
func (w *warpState) syncMask(in *instr, active uint32) uint32 {
	var mask uint64
	switch in.op {
	case opBarWarp:
		mask = w.regs[int(in.s[0])*32+bits.TrailingZeros32(active)]
	case opShfl:
		mask = w.regs[int(in.s[3])*32+bits.TrailingZeros32(active)]
	case opVote:
		mask = w.regs[int(in.s[1])*32+bits.TrailingZeros32(active)]
	case opLdmatrix, opMma: // the whole warp
		mask = 1<<32 - 1
	}
	return uint32(mask) & w.valid &^ w.exited
}

// tryWarpSync releases warp-sync waiters once every lane they wait for waits too;
// waiters at the same pc merge into one path.
func (w *warpState) tryWarpSync() {
	s := &w.its
	var waiting, need uint32
	for _, p := range s.paths {
		if p.state == psWarpSync {
			waiting |= p.mask
			need |= w.syncMask(&w.c.k.prog[p.pc], p.mask)
		}
	}
	if need&^waiting != 0 {
		return
	}
	out := s.paths[:0]
	byPC := map[int32]*itsPath{}
	for _, p := range s.paths {
		if p.state != psWarpSync {
			out = append(out, p)
			continue
		}
		if q, ok := byPC[p.pc]; ok {
			q.mask |= p.mask
			q.flags |= format.FlagReconverge
			if len(p.frames) < len(q.frames) {
				q.frames = p.frames
			}
			continue
		}
		p.state, p.synced = psRun, true
		byPC[p.pc] = p
		out = append(out, p)
	}
	for i := len(out); i < len(s.paths); i++ {
		s.paths[i] = nil
	}
	s.paths = out
	s.cur, s.ran, s.last = 0, 0, nil
}

// releaseBarrier makes the warp's barrier waiters runnable again.
func (w *warpState) releaseBarrier() {
	w.blocked = false
	for _, p := range w.its.paths {
		if p.state == psBarrier {
			p.state = psRun
			w.checkPark(p)
		}
	}
}
