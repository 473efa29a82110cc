package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gtrace/gtrace/format"
)

// Sink receives each CTA's warps, in order: kernel ascending, then linear CTA id
// ascending. The warps (and their slices) are reused once WriteCTA returns: a sink
// that keeps them must copy.
type Sink interface {
	WriteCTA(kernel, cta int, warps []*format.Warp) error
}

// Result is what a Run produced besides the trace.
type Result struct {
	WarpInsts uint64   // warp-instructions executed (= records emitted)
	CTAs      int      // CTAs emulated
	Workers   int      // goroutines that emulated CTAs (1 when the kernel forces serial capture)
	Buffers   []Buffer // one per buf: argument, in argument order
	// OOB holds, under Spec.OOB == OOBWarn, each pc that accessed out of bounds, in pc
	// order; empty when none did.
	OOB []OOBAccess
	// PrintfBytes is how much the kernel's printf calls printed (to Spec.Printf), and
	// PrintfDropped how many lanes' calls printed nothing past Spec.PrintfLimit.
	PrintfBytes, PrintfDropped int
	// PrintfNotes names each printf whose format a GPU prints differently from C's
	// printf, which gtrace follows; in pc order.
	PrintfNotes []PrintfNote
}

// Buffer is a buf: argument's device memory before and after the launch.
type Buffer struct {
	Arg   int    // argument index
	Type  string // element type
	Init  []byte // contents before the launch
	Final []byte // contents after the launch
	Addr  uint64 // device address passed to the kernel
}

// ctaQuantum is how many warp-instructions a warp runs before the CTA scheduler moves
// to the next warp, when no barrier stops it first. A GPU issues a CTA's warps
// interleaved, cycle by cycle, each held back by its own latencies (a few cycles for an
// ALU result, hundreds for a load), so no warp runs thousands of instructions ahead of
// the others. A kernel whose warps race on one address sees that: PolyBench/GPU's mvt
// has 8 warps load the same x1[i] once, sum a row into it and store it, which gives the
// row's sum on an H100 because every warp loads before any stores; with 8192 here (the
// value until 2026-11-26) each warp finished before the next began, and the sums came
// out 8 times over (docs/polybench.md). 32 keeps warps that close and costs capture
// about 5% (BenchmarkTransposeV1, BenchmarkReductionV3, against 8192); traces of
// race-free kernels do not depend on it (TestOracle, TestTimingOracle unchanged).
const ctaQuantum = 32

// cta is the state of one CTA being emulated, reused from CTA to CTA by a worker.
type cta struct {
	k           *Kernel
	id          int
	gmem        *globalMem
	shared      []byte
	warps       []*warpState
	nwarps      int
	live        int // threads not exited
	bars        [16]barrier
	epoch       uint64 // bumped by every write to memory: the livelock detector's clock
	lockAtomics bool
	stop        func() bool          // reports that the run is over (cancelled, or an earlier CTA faulted)
	oob         map[int32]*OOBAccess // under OOBWarn: this worker's out-of-bounds accesses by pc

	printf printfOut // what the CTA's printf calls printed (printf.go)

	gate     *memGate // nil: no other CTA runs beside this one's worker
	held     int      // bytes of records the CTA holds (format.Warp.Bytes)
	heldCap  int      // storage its warp set holds (format.Warp.CapBytes)
	reported int      // the part of heldCap told to the gate
}

// errStopped ends a CTA whose result nobody will read.
var errStopped = errors.New("capture: stopped")

type barrier struct {
	arrived int
	count   int // 0: every live thread of the CTA
	waiters []barWaiter
	red     uint8 // barSync (bar.sync, bar.arrive) or the bar.red operation of the threads that arrived
	truths  int   // bar.red: the threads that arrived with a true predicate
}

// barWaiter is lanes of w waiting at a barrier since the instruction at pc.
type barWaiter struct {
	w     *warpState
	pc    int32
	lanes uint32
}

// Run emulates every CTA of the launch and hands each CTA's warps to sink (which may be
// nil) in CTA order. The trace is the same whatever Spec.Workers is. On a Fault, the
// CTAs before the faulting one have been written and the error is the *Fault of the
// lowest faulting CTA.
func (k *Kernel) Run(ctx context.Context, kernelIndex int, sink Sink) (*Result, error) {
	res, err := k.runGrid(ctx, kernelIndex, sink)
	if f := (*Fault)(nil); errors.As(err, &f) && f.Source == "" && f.Kind != FaultAssert {
		// An assert's message leads with the assert's own file and line.
		f.Source = k.sourceAt(f.PC)
	}
	return res, err
}

// runGrid is Run without the fault's source line.
func (k *Kernel) runGrid(ctx context.Context, kernelIndex int, sink Sink) (*Result, error) {
	gm := k.gmemInit
	if k.spec.Device == nil {
		gm = k.cloneGlobal()
	}
	total := int(k.spec.Grid.Count())
	workers := k.spec.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if !k.parallel {
		workers = 1
	}
	workers = min(workers, total)
	// Workers take chunks of consecutive CTAs: a small CTA (a reduction's runs in tens
	// of microseconds) would otherwise spend as long in channel handoffs and goroutine
	// wake-ups as in emulation. A chunk is about 1/64 of a worker's share, at most 64
	// CTAs, so memory stays bounded by window × chunk CTAs.
	chunk := min(max(total/(workers*64), 1), 64)
	if workers == 1 {
		chunk = 1
	}
	window := 4 * workers

	type ctaResult struct {
		warps  []*format.Warp
		insts  uint64
		held   int64 // storage of warps and printf output, as told to the gate
		err    error
		printf printfOut
	}
	type result struct {
		first int  // first CTA of the result
		want  int  // CTAs it was meant to hold: fewer means the worker stopped early
		last  bool // the chunk's last result: its slot frees
		ctas  []ctaResult
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	results := make(chan result, window)
	slots := make(chan struct{}, window)
	var stopAt atomic.Int64
	stopAt.Store(int64(total))
	gate := newMemGate(int64(k.mem.gate))
	defer context.AfterFunc(ctx, gate.stop)()
	// Warp sets go round between the workers and the writer through a free list, so
	// their grown column slices are reused for the whole run; a sync.Pool would drop
	// them at every GC and the emulator would regrow them. The list keeps at most
	// freeKeepBytes of storage: a set beyond that is left to the collector.
	type warpSet struct {
		ws  []*format.Warp
		cap int64
	}
	free := make(chan warpSet, (window+workers)*chunk)
	var freeHeld atomic.Int64
	getWarps := func(n int) []*format.Warp {
		select {
		case s := <-free:
			freeHeld.Add(-s.cap)
			return s.ws
		default:
		}
		ws := make([]*format.Warp, n)
		for j := range ws {
			ws[j] = new(format.Warp)
		}
		return ws
	}
	putWarps := func(ws []*format.Warp, capBytes int64) {
		if freeHeld.Load()+capBytes > freeKeepBytes {
			return
		}
		select {
		case free <- warpSet{ws, capBytes}:
			freeHeld.Add(capBytes)
		default:
		}
	}

	go func() {
		defer close(jobs)
		for id := 0; id < total; id += chunk {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			if int64(id) > stopAt.Load() {
				return
			}
			select {
			case jobs <- id:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	ctas := make([]*cta, workers) // each written by its worker only, read after the last is done
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := k.newCTA(gm, workers > 1)
			ctas[i] = c
			c.stop = func() bool { return ctx.Err() != nil || int64(c.id) > stopAt.Load() }
			if workers > 1 {
				c.gate = gate
			}
			send := func(r result) bool {
				select {
				case results <- r:
					return true
				case <-ctx.Done():
					return false
				}
			}
			for first := range jobs {
				end := min(first+chunk, total)
				r := result{first: first, want: end - first, last: true}
				var rHeld int64
				for id := first; id < end; id++ {
					if ctx.Err() != nil || int64(id) > stopAt.Load() {
						break
					}
					warps := getWarps(c.nwarps)
					for j := range warps {
						warps[j].Reset()
						warps[j].Kernel, warps[j].CTA, warps[j].Warp = kernelIndex, id, j
					}
					n, err := c.run(id, warps)
					gate.add(int64(c.heldCap - c.reported))
					gate.finish(id)
					r.ctas = append(r.ctas, ctaResult{warps, n, int64(c.heldCap), err, c.printf})
					rHeld += int64(c.heldCap)
					if err != nil {
						for {
							cur := stopAt.Load()
							if int64(id) >= cur || stopAt.CompareAndSwap(cur, int64(id)) {
								break
							}
						}
						gate.wake()
						break
					}
					if rHeld >= int64(k.mem.flush) && id+1 < end {
						// Hand the finished CTAs over now: the writer frees their
						// memory while this worker runs the rest of the chunk.
						part := r
						part.want, part.last = len(part.ctas), false
						if !send(part) {
							return
						}
						r, rHeld = result{first: id + 1, want: end - id - 1, last: true}, 0
					}
				}
				if !send(r) {
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	res := &Result{Workers: workers}
	pr := printfSink{k: k, res: res}
	pending := map[int]result{}
	next := 0
	var runErr error
	for next < total && runErr == nil {
		r, ok := <-results
		if !ok {
			break
		}
		pending[r.first] = r
		for runErr == nil {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			for _, cr := range r.ctas {
				pr.add(cr.printf)
				if cr.err != nil {
					runErr = cr.err
					break
				}
				if sink != nil {
					if err := sink.WriteCTA(kernelIndex, next, cr.warps); err != nil {
						runErr = fmt.Errorf("capture %s: writing CTA %d: %w", k.spec.Kernel, next, err)
						break
					}
				}
				gate.release(cr.held)
				putWarps(cr.warps, cr.held)
				res.WarpInsts += cr.insts
				next++
				res.CTAs = next
				if k.spec.Progress != nil {
					k.spec.Progress(next, total)
				}
			}
			if runErr == nil && len(r.ctas) < r.want {
				// The chunk stopped early: a later CTA of an earlier chunk faulted, or
				// the run was cancelled.
				runErr = ctx.Err()
				if runErr == nil {
					runErr = fmt.Errorf("capture %s: stopped after %d of %d CTAs", k.spec.Kernel, next, total)
				}
			}
			if r.last {
				<-slots
			}
		}
		if ctx.Err() != nil && runErr == nil {
			runErr = ctx.Err()
		}
	}
	cancel()
	gate.stop()
	for range results { // let the workers finish
	}
	if runErr == nil && next < total {
		runErr = ctx.Err()
		if runErr == nil {
			runErr = fmt.Errorf("capture %s: stopped after %d of %d CTAs", k.spec.Kernel, next, total)
		}
	}
	if runErr != nil {
		return nil, runErr
	}
	res.OOB = k.mergeOOB(ctas)
	pr.finish()
	for i, a := range k.args {
		if a.Kind != ArgBuf {
			continue
		}
		al := gm.allocs[i2alloc(k, i)]
		res.Buffers = append(res.Buffers, Buffer{Arg: i, Type: a.Type, Init: k.bufs[i].init, Final: al.contents(), Addr: al.base})
	}
	return res, nil
}

// i2alloc maps a buf argument to its index in the global allocation list (buffers
// are added first, in argument order).
func i2alloc(k *Kernel, arg int) int {
	n := 0
	for i := 0; i < arg; i++ {
		if k.args[i].Kind == ArgBuf {
			n++
		}
	}
	return n
}

// cloneGlobal copies the initial global memory, so that every Run starts afresh.
func (k *Kernel) cloneGlobal() *globalMem {
	g := &globalMem{next: k.gmemInit.next}
	for _, a := range k.gmemInit.allocs {
		b := &alloc{base: a.base, size: a.size, name: a.name, arg: a.arg}
		b.pages = make([]atomic.Pointer[page], len(a.pages))
		for i := range a.pages {
			if p := a.pages[i].Load(); p != nil {
				q := *p
				b.pages[i].Store(&q)
			}
		}
		g.allocs = append(g.allocs, b)
		if h := k.gmemInit.heap; h != nil && h.a == a {
			g.heap = &heap{a: b} // every Run starts with no block live
		}
	}
	return g
}

func (k *Kernel) newCTA(gm *globalMem, parallel bool) *cta {
	threads := int(k.spec.Block.Count())
	c := &cta{k: k, gmem: gm, shared: make([]byte, k.sharedTotal), nwarps: (threads + 31) / 32, lockAtomics: parallel}
	for i := 0; i < c.nwarps; i++ {
		w := &warpState{c: c, idx: i}
		w.regs = make([]uint64, k.nslots*32)
		w.preds = make([]uint32, k.npreds)
		w.local = newLocalMem(k.localSize)
		w.fparam = make([]byte, int(k.fparamSize)*32)
		w.callSite = make([]int32, len(k.funcs)*32)
		n := min(32, threads-i*32)
		w.valid = uint32(1<<n - 1)
		c.warps = append(c.warps, w)
	}
	// Immediates are the same in every warp: fill them once.
	for v, s := range k.imms {
		for l := 0; l < 32; l++ {
			for _, w := range c.warps {
				w.regs[int(s)*32+l] = v
			}
		}
	}
	return c
}

// run emulates CTA id, appending each warp's records to warps[i]. It returns the
// number of warp-instructions executed.
func (c *cta) run(id int, recs []*format.Warp) (uint64, error) {
	k := c.k
	c.id = id
	clear(c.shared)
	c.epoch = 0
	c.live = int(k.spec.Block.Count())
	for i := range c.bars {
		c.bars[i] = barrier{waiters: c.bars[i].waiters[:0]}
	}
	g := k.spec.Grid
	b := k.spec.Block
	ctaid := [3]uint64{uint64(uint32(id) % g.X), uint64(uint32(id) / g.X % g.Y), uint64(uint32(id) / (g.X * g.Y))}
	for _, w := range c.warps {
		w.rec = recs[w.idx]
		w.exited, w.done, w.blocked = 0, false, false
		w.ninst, w.nextPath, w.lastEvent, w.sampleN = 0, 0, 0, 0
		w.seen = nil
		w.cache = nil
		clear(w.preds)
		if p := k.predConst[1]; p >= 0 {
			w.preds[p] = 0xffffffff
		}
		w.local.reset()
		clear(w.fparam)
		r := w.regs
		for l := 0; l < 32; l++ {
			t := uint64(w.idx*32 + l)
			set := func(sp int, v uint64) { r[sp*32+l] = v }
			set(spTidX, t%uint64(b.X))
			set(spTidY, t/uint64(b.X)%uint64(b.Y))
			set(spTidZ, t/(uint64(b.X)*uint64(b.Y)))
			set(spNtidX, uint64(b.X))
			set(spNtidY, uint64(b.Y))
			set(spNtidZ, uint64(b.Z))
			set(spCtaidX, ctaid[0])
			set(spCtaidY, ctaid[1])
			set(spCtaidZ, ctaid[2])
			set(spNctaidX, uint64(g.X))
			set(spNctaidY, uint64(g.Y))
			set(spNctaidZ, uint64(g.Z))
			set(spLaneid, uint64(l))
			set(spWarpid, uint64(w.idx))
			set(spNwarpid, uint64(c.nwarps))
			set(spLanemaskEq, 1<<l)
			set(spLanemaskLt, 1<<l-1)
			set(spLanemaskLe, 1<<(l+1)-1)
			set(spLanemaskGt, uint64(^uint32(0)<<(l+1))&0xffffffff)
			if l == 31 {
				set(spLanemaskGt, 0)
			}
			set(spLanemaskGe, uint64(^uint32(0)<<l))
			set(spSmid, 0)
			set(spNsmid, 1)
			set(spGridid, 0)
		}
		if k.spec.SIMT == format.SIMTITS {
			w.its = itsState{paths: w.its.paths[:0]}
			w.its.paths = append(w.its.paths, &itsPath{pc: k.funcs[0].start, mask: w.valid})
			w.stack = w.stack[:0]
		} else {
			w.stack = append(w.stack[:0], stackEntry{pc: k.funcs[0].start, rpc: k.funcs[0].exit, mask: w.valid, call: -1})
			w.its.paths = w.its.paths[:0]
		}
	}
	c.held, c.heldCap, c.reported = 0, 0, 0
	c.printf = printfOut{}
	for _, w := range c.warps {
		w.held, w.heldCap = w.rec.Bytes(), w.rec.CapBytes()
		c.held += w.held
		c.heldCap += w.heldCap
	}
	for {
		ran, done := false, true
		for _, w := range c.warps {
			if w.done {
				continue
			}
			done = false
			if w.blocked {
				continue
			}
			var st warpStatus
			var err error
			before := w.ninst
			w.mbarWait.set = false
			if k.spec.SIMT == format.SIMTITS {
				st, err = w.runITS(ctaQuantum)
			} else {
				st, err = w.runStack(ctaQuantum)
			}
			// A warp that only looked at an mbarrier's open phase made no progress.
			ran = ran || w.ninst != before || !w.mbarWait.set
			if err == nil {
				err = c.account(w)
			}
			if err != nil {
				return 0, err
			}
			if st == wsBlocked && w.waitingAtBarrier() {
				w.blocked = true
			}
		}
		if done {
			break
		}
		if c.stop != nil && c.stop() {
			return 0, errStopped
		}
		if !ran {
			return 0, c.deadlock()
		}
	}
	var n uint64
	for _, w := range c.warps {
		n += w.ninst
	}
	return n, nil
}

func (w *warpState) waitingAtBarrier() bool {
	if w.c.k.spec.SIMT == format.SIMTITS {
		for _, p := range w.its.paths {
			if p.state == psBarrier {
				return true
			}
		}
		return false
	}
	return w.blocked
}

// arrive counts lanes of w at barrier id (count 0: all live threads) from the
// instruction at pc; in.bop says whether they wait and what they reduce (truths: the
// lanes whose bar.red predicate is true).
func (c *cta) arrive(w *warpState, pc int32, id, count int, lanes, truths uint32) error {
	in := &c.k.prog[pc]
	b := &c.bars[id]
	red := in.bop
	if red == barArrive {
		red = barSync
	}
	if b.arrived > 0 && red != b.red {
		// PTX ISA 8.x, bar.red: not to be intermixed with bar.sync or bar.arrive on the
		// same active barrier; two different reductions meeting are undefined too.
		return w.fault(FaultUnsupported, pc, bits.TrailingZeros32(lanes), 0, "", fmt.Sprintf("barrier %d: %s meets %s from threads already waiting there, which PTX leaves undefined", id, c.k.insts[pc].PTX, barModeName(b.red)))
	}
	b.red = red
	b.arrived += bits.OnesCount32(lanes)
	b.truths += bits.OnesCount32(truths)
	if count > 0 {
		b.count = count
	}
	if in.bop != barArrive {
		b.waiters = append(b.waiters, barWaiter{w: w, pc: pc, lanes: lanes})
	}
	c.checkBarrier(id)
	return nil
}

// barModeName names a barrier's mode for a message.
func barModeName(red uint8) string {
	for name, op := range barReds {
		if op == red {
			return "bar.red" + name
		}
	}
	return "bar.sync or bar.arrive"
}

func (c *cta) checkBarrier(id int) {
	b := &c.bars[id]
	if b.arrived == 0 {
		return
	}
	need := b.count
	if need == 0 {
		need = c.live
	}
	if b.arrived < need {
		return
	}
	ws, red := b.waiters, b.red
	result := barRedValue(red, b.truths, b.arrived)
	b.arrived, b.count, b.waiters, b.red, b.truths = 0, 0, ws[:0], barSync, 0
	for _, x := range ws {
		w := x.w
		if red != barSync {
			w.barResult(&c.k.prog[x.pc], x.lanes, result)
		}
		w.epochBarrier()
		if c.k.spec.SIMT == format.SIMTITS {
			w.releaseBarrier()
		}
		w.blocked = false
	}
}

// barRedValue is what bar.red gives every thread that took part, truths of the arrived
// threads having had a true predicate: the count (.popc), or 0 or 1 (.and, .or).
func barRedValue(red uint8, truths, arrived int) uint64 {
	switch red {
	case barRedAnd:
		if truths != arrived {
			return 0
		}
		return 1
	case barRedOr:
		if truths == 0 {
			return 0
		}
		return 1
	}
	return uint64(truths)
}

func (w *warpState) epochBarrier() { w.lastEvent = w.ninst }

func (c *cta) threadsExited(n int) {
	c.live -= n
	for i := range c.bars {
		c.checkBarrier(i)
	}
}

// deadlock builds the fault for a CTA in which no warp can run.
func (c *cta) deadlock() error {
	k := c.k
	var waitW *warpState
	for _, w := range c.warps {
		if !w.done && w.blocked {
			waitW = w
			break
		}
	}
	if waitW == nil {
		for _, w := range c.warps {
			if mw := w.mbarWait; !w.done && mw.set {
				return c.mbarrierDeadlock(w)
			}
		}
		return &Fault{Kind: FaultBarrierDeadlock, Kernel: k.spec.Kernel, CTA: c.id, Thread: -1, PC: -1, Reason: "no warp can run"}
	}
	b := &c.bars[waitW.barID]
	need := b.count
	if need == 0 {
		need = c.live
	}
	// The first live thread that is not waiting at a barrier holds it up.
	culprit, cpc := -1, int32(-1)
	for _, w := range c.warps {
		var at uint32
		var pcOf func(l int) int32
		if k.spec.SIMT == format.SIMTITS {
			for _, p := range w.its.paths {
				if p.state == psBarrier {
					at |= p.mask
				}
			}
			pcOf = func(l int) int32 {
				for _, p := range w.its.paths {
					if p.mask>>l&1 != 0 {
						return p.pc
					}
				}
				return -1
			}
		} else {
			if w.blocked {
				at = w.barMask
			}
			pcOf = func(l int) int32 {
				for i := len(w.stack) - 1; i >= 0; i-- {
					if w.stack[i].mask>>l&1 != 0 {
						return w.stack[i].pc
					}
				}
				return -1
			}
		}
		if rest := w.valid &^ w.exited &^ at; rest != 0 {
			l := bits.TrailingZeros32(rest)
			culprit, cpc = w.idx*32+l, pcOf(l)
			break
		}
	}
	reason := fmt.Sprintf("barrier deadlock: barrier %d waits for %d threads and %d arrived", waitW.barID, need, b.arrived)
	if culprit >= 0 {
		where := ""
		if cpc >= 0 && int(cpc) < len(k.insts) {
			where = fmt.Sprintf(" (it waits at pc %d: %s)", cpc, k.insts[cpc].PTX)
		}
		reason += fmt.Sprintf("; thread %d never arrives%s: a __syncthreads inside divergent code?", culprit, where)
	}
	f := &Fault{Kind: FaultBarrierDeadlock, Kernel: k.spec.Kernel, CTA: c.id, Thread: culprit, PC: int(waitW.barPC), Inst: k.insts[waitW.barPC].PTX, Reason: reason}
	return f
}

// nearest describes the allocation nearest to a faulting address of space sp.
func (c *cta) nearest(sp mspace, addr uint64) string {
	if sp == msGlobal || sp == msGeneric {
		return c.gmem.nearest(addr)
	}
	return ""
}

// Meta is the self-description of a trace holding this one launch, written by producer
// (e.g. "gtrace 0.1.0").
func (k *Kernel) Meta(producer string) format.Meta {
	return format.Meta{Version: format.CurrentVersion, Producer: producer, Launches: []format.Launch{k.Launch()}}
}

// Capture emulates the launch and writes its whole trace file to w: Meta, Run and Close
// in one call. For a file that must not look whole until it is, write through
// format.Create with Meta and Run instead.
func (k *Kernel) Capture(ctx context.Context, w io.Writer, producer string) (*Result, error) {
	fw, err := format.NewWriter(w, k.Meta(producer))
	if err != nil {
		return nil, err
	}
	res, err := k.Run(ctx, 0, fw)
	if err != nil {
		fw.Abort()
		return nil, err
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	return res, nil
}
