package replay

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/coalesce"
	"github.com/gtrace/gtrace/models/sched"
)

// Timing replays every kernel of r on cfg with time: integer SM cycles, each SM's warp
// schedulers (cfg.SM.Scheduler policy, cfg.SM.Schedulers × DispatchPerScheduler issue),
// a per-warp scoreboard over the program table's registers, pipe widths, the memory
// pipeline (L1 with MSHRs, sliced L2 and DRAM channels with bandwidth, queueing and row
// timing), barriers, and CTAs launched as earlier ones retire. It reports cycles, time,
// IPC, occupancy, issue-slot use and stall reasons named as Nsight Compute's warp states
// (the smsp__pcsamp_warps_issue_stalled_* family: warp-cycles spent in each state, as PC
// sampling at every cycle would count them), per pc with opts.PerPC.
//
// Divergence follows the arch: on a stack arch (sm.simt=stack) a warp issues its records
// in trace order, so the paths of a split run one after the other; on an ITS arch each
// path between a split and its reconvergence is its own stream, and the warp issues from
// whichever path is ready, so one path's memory wait hides behind the other.
//
// All SMs advance on one goroutine in cycle order (SMs in index order within a cycle), so
// the shared L2 and DRAM see one order of requests: results are the same on every run and
// do not depend on opts.Workers.
func Timing(ctx context.Context, r *format.Reader, cfg *arch.Config, opts Options) (*Report, error) {
	return eachKernel(r, cfg, "timing", func(ki int) (*KernelReport, error) { return timeKernel(ctx, r, ki, cfg, opts) })
}

// Cycles is the modelled sm__cycles_elapsed.avg of each kernel of r on cfg, for a
// validator comparing with measured cycles.
func Cycles(ctx context.Context, r *format.Reader, cfg *arch.Config) ([]float64, error) {
	rep, err := Timing(ctx, r, cfg, Options{})
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(rep.Kernels))
	for i := range rep.Kernels {
		out[i], _ = rep.Kernels[i].Metric("sm__cycles_elapsed.avg")
	}
	return out, nil
}

// stall is a warp state, named as ncu names them.
type stall uint8

const (
	stSelected stall = iota
	stNotSelected
	stLongScoreboard
	stShortScoreboard
	stWait
	stMathPipeThrottle
	stMIOThrottle
	stLGThrottle
	stBarrier
	stBranchResolving
	numStalls
)

var stallNames = [numStalls]string{"selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait",
	"math_pipe_throttle", "mio_throttle", "lg_throttle", "barrier", "branch_resolving"}

func stallOf(r sched.Reason) stall {
	switch r {
	case sched.Long:
		return stLongScoreboard
	case sched.Short:
		return stShortScoreboard
	}
	return stWait
}

// pipe indexes a scheduler's execution pipes.
type pipe uint8

const (
	pALU pipe = iota
	pSFU
	pDP
	pINT     // the integer pipe (sm.int32_lanes; no lanes, unused, where it is 0)
	pTensor  // the tensor cores: one slot a cycle, an mma takes sm.mma_cycles_k8/k16
	pNone    // memory (timed by the SM's LSU/MIO), barriers
	numPipes = pNone
)

// timedInst is what the engine needs of a program row, decided once per kernel.
type timedInst struct {
	kind  instKind
	pipe  pipe
	slots int // issue slots on the pipe: more than 1 where SASS expands the instruction
	// An integer add or move (intFlex) is IADD3/VIADD on the integer pipe, for intN
	// slots, or IMAD.IADD/.MOV on the FP32 pipe's half, for alt: the block scheduler
	// (orderer.takePipe) picks one as ptxas does, and sets pipe and slots. alt is 0
	// for every other instruction.
	intN, alt int
	// skip: for a branch over a block ptxas predicates, the block's SASS instructions
	// on each pipe (memory ones on the ALU pipe), which a warp that takes the branch
	// issues predicated off.
	skip  [numPipes]uint16
	three bool // three or more register sources (not counting predicates): see sm.reuse_miss_cycles
	// redirect: a branch whose taken direction is a taken BRA in SASS, so the warp's
	// next issue waits lat.branch (see redirects).
	redirect bool
	// loop: for the back edge of a loop ptxas unrolls (countedBackEdge), whose BRA
	// only some trips take (unrolledBRAs), its index in timedWarp.trips plus one (0:
	// any other instruction); exitOf: the same for the branch whose direction leaves
	// that loop (the back edge itself, not taken, or the conditional exit just before
	// a bra.uni back edge, taken: exitTaken).
	loop, exitOf uint16
	exitTaken    bool
	lat          int64
	why          sched.Reason
	rd, wr       []uint16
	width        int
	memOp        format.MemOp
	cacheOp      format.CacheOp
	agg          bool   // an atomic ptxas aggregates per warp (Aggregated)
	lanes        uint32 // an ldmatrix's lanes that give its rows (matrixLanes); 0 for others
	bar          barWait
	cp           cpOp // its cp.async role (timing_copy.go), and wait_group's count
	cpN          uint16
}

// barWait is which release from a CTA barrier an instruction waits for when its warp
// issues past the barrier (lat.bar > 0; with lat.bar 0 every instruction's is barNone
// and a warp waits at its barrier): none (arithmetic, branches, clock reads), the
// barrier's (another barrier, an S2R, and the reads that need no memory ordering:
// constant, texture and ld.global.nc), a shared access's, a global one's, or, for a
// generic access, the one of the space its addresses fall in (hw-facts sections 31-32).
type barWait uint8

const (
	barNone barWait = iota
	barSync
	barShared
	barGlobal
	barGeneric
	numBarWaits
)

// barWaitOf is the release an instruction of kind k (before an S2R is made an ALU
// move) waits for; in is its program row. On the H200 a read through the non-coherent
// paths (constant, texture, ld.global.nc) issues when the barrier releases, where a
// coherent global load waits for the CTA's earlier accesses to be performed (section 32
// of hw-facts: ldsrate.cu).
func barWaitOf(k instKind, in *format.Inst) barWait {
	switch k {
	case ikBarrier, ikS2R, ikConst, ikParam, ikConstBankRead, ikTex:
		return barSync
	case ikShared:
		return barShared
	case ikGlobal:
		if in.MemOp == format.MemLoad && in.CacheOp == format.CacheNC {
			return barSync
		}
		return barGlobal
	case ikLocal:
		return barGlobal
	case ikGeneric:
		return barGeneric
	}
	return barNone
}

// itsWindow bounds how many records past the oldest unissued one an ITS warp looks at for
// a ready path. The capture's ITS scheduler switches paths every 64 instructions.
const itsWindow = 256

// timedWarp is one resident warp in the timing engine: its trace, the record it issues
// next and why it waits, its scoreboard, and for a divergent ITS warp the order its
// records may issue in.
type timedWarp struct {
	// The fields the step reads every cycle come first, so a warp's evaluation touches
	// one or two cache lines; the scoreboard (about 1 KiB) comes last.

	// This cycle's verdict, and the state charged for the cycles until the next step.
	ready    bool
	atBar    bool
	finished bool
	barHeld  bool // issued past a barrier that has not released (lat.bar)
	state    stall
	atPC     uint32
	next     int // record to issue when ready
	wake     int64
	barAt    int64 // the cycle the last barrier released: its last warp's arrival
	// fetchAt is the first cycle the warp may issue after a taken branch (lat.branch);
	// trips counts, per counted loop (timedInst.loop), the back edges it took since it
	// last left that loop.
	fetchAt int64
	trips   []uint32
	// since is the first cycle not yet charged to (atPC, state): a warp's state changes
	// only when it is evaluated, so refresh charges the cycles since its last
	// evaluation, not every step every warp.
	since int64

	// okRec is a record whose scoreboard check passed since the warp last issued (-1:
	// none), with its pc and row. Until the warp issues again no write is added to its
	// scoreboard and pending ones only land, so the check would pass again: canIssue skips it.
	okRec  int
	okPC   uint32
	okIn   *timedInst
	okPipe *sched.Pipe // the row's pipe on the warp's scheduler (nil: none)

	// armed: the warp's next record passed its scoreboard and needs only its pipe (an
	// arithmetic row, not a divergent ITS warp), so until it is selected its verdict at
	// each step is the pipe's; step does not evaluate it but lets Pick test the pipe, and
	// its cycles are charged from the pipe's sums at selection (armFree, armBusy: the
	// sums when it was armed). On a single-issue arch without the two-level policy
	// only; the others evaluate every warp as before.
	armed            bool
	res              *resourceWatch // the resource it waits for: its pipe or an SM memory queue
	armFree, armBusy int64

	// w is the view holding the row it read last, from row base of the warp on (see
	// timing_rows.go), or noRows once it has left that view's window.
	w     *format.Warp
	cta   *timedCTA
	slot  int
	sched int

	order  sched.WarpOrder // which records may issue next
	base   int
	lastPC uint32 // the pc of the record it issued last

	cp copyGroups // its cp.async copies in flight

	// idx is its place in its CTA. It holds windows left.. of its CTA, and its order's
	// current run begins at row floor (ordBuf: the run's order when it is not a
	// whole block's).
	idx, left, floor int
	ordBuf           []uint16

	sb sched.Scoreboard
}

// held reports whether w has arrived at its CTA's barrier and the barrier has not
// released: it waits there (atBar), or it issued past it (barHeld, lat.bar).
func (w *timedWarp) held() bool { return w.atBar || w.barHeld }

// timedCTA is a resident CTA: its warps, how many are unfinished and how many wait at
// its barrier.
type timedCTA struct {
	warps   []*timedWarp
	live    int
	waiting int
	drained int64
	ctaRows // the windows its warps' rows are views into
	id      int
	start   int64
}

// slotHot mirrors the few fields of a slot's warp that step and Pick read every cycle,
// packed so that scanning them does not touch every warp: due is when step must next
// evaluate the warp (never while it is finished, armed or held at a barrier; every
// step while it is ready; else at its wake cycle).
type slotHot struct {
	due          int64
	ready, armed bool
	res          *resourceWatch
}

// timedSched is one warp scheduler of an SM: its policy, its share of each execution
// pipe, and a watch over each pipe for the warps armed on it.
type timedSched struct {
	pol   sched.Policy
	pipes [numPipes]sched.Pipe
	arm   [numPipes]resourceWatch
	last  int // slot of the warp that issued this scheduler's previous instruction (-1: none)
}

// resourceWatch is what an armed warp (see timedWarp.armed) needs of the one resource it waits
// for, a scheduler's pipe or one of the SM's memory queues (memClass): whether it was
// free at this step, when it frees if not, and the cycles since the kernel began that
// followed a step at which it was free or busy. An armed warp's verdict at every step
// is the resource's (not selected when free, busy otherwise), so its cycles while
// armed are the difference of two of these sums.
type resourceWatch struct {
	free          bool
	at            int64 // when a busy resource frees
	cumFree, cumB int64
	n             int         // armed warps waiting for it
	busy          stall       // the state of a warp that finds it busy
	pipe          *sched.Pipe // the pipe, or nil for a memory queue
	mshr          bool        // a memory queue whose warps also need a free MSHR (loads)
	store         bool        // a memory queue whose warps also need the stores' path
}

// The SM's memory queues as canIssue sees them: a load (global, local, texture, generic)
// needs the LSU queue and a free MSHR, a store the LSU queue, a shared or constant
// access the MIO queue (the same queue, a different stall name).
const (
	mcLoad = iota
	mcStore
	mcShared
	numMemClasses
)

// memClass is the queue an instruction of kind k waits for, or -1.
func memClass(k instKind, op format.MemOp) int {
	switch k {
	case ikGlobal, ikLocal, ikTex, ikGeneric:
		if op == format.MemStore {
			return mcStore
		}
		return mcLoad
	case ikShared, ikConst:
		return mcShared
	}
	return -1
}

// timedSM is one SM in the timing engine: its warp slots and schedulers, its memory
// models (L1, shared memory, constant and texture caches) with the fills in flight, its
// LSU, the CTAs it will launch, and its cycle counts. step advances it one cycle.
type timedSM struct {
	e  *timer
	id int
	smModels
	fill *cache.InFlight // L1 sectors on their way in

	scheds  []timedSched
	marm    [numMemClasses]resourceWatch // the memory queues armed warps wait for
	arms    []*resourceWatch             // every scheduler pipe's watch and marm's, for step
	slots   []*timedWarp                 // by slot; nil = free
	hot     []slotHot                    // by slot: what step and Pick read every cycle (see publish)
	readyFn func(slot int) bool          // whether slots[slot] may issue: made once, for Policy.Pick
	ctas    []*timedCTA
	live    int // warps resident and unfinished

	lsu     sched.LSU   // the LSU/MIO pipe and the L1's MSHRs
	stp     sched.LSU   // the stores' own path (arch.Config.StorePath); its MSHRs are the stores the SM holds (sm.lsu_stores)
	merge   *storeMerge // the lines on stp a later store may join (sm.store_merge_lines); nil: none
	fetched []cache.Result
	// sharedEnd is when the shared accesses queued on the LSU so far are done, stored
	// when the last store on the stores' path has read its operands (sm.drain_stores).
	sharedEnd, stored int64
	s2rFree           int64 // when the SM's S2R unit takes the next (sreg)
	cpFree            int64 // when the SM's fill port takes a copy's next shared write (copyLand), in hundredths of a cycle

	next     int64             // next cycle this SM has something to do; -1 = idle
	last     int64             // cycle of the previous step
	launcher sched.CTALauncher // when the CTAs it has room for start
	end      int64             // when its last CTA retired

	// statistics
	active, warpCycles, issueCycles int64
	err                             error
}

type timer struct {
	cfg    *arch.Config
	r      *format.Reader
	ki     int
	prog   []format.Inst
	insts  []timedInst
	l2     *timedL2
	sms    []*timedSM
	occ    arch.CTAOccupancy
	grid   sched.Grid // the launch's CTAs, handed to SMs as they have room
	issue  int        // dispatch per scheduler
	lsuCyc int64
	// The LSU's costs in hundredths of a cycle (sm.lsu_*_cycles): a load's missing
	// line and sector, and, where stores have their own path (cfg.StorePath), a
	// stored line, a sector, and a line written in part.
	missLine, missSector                int64
	storeLine, storeSector, partialLine int64
	storeReg                            int64 // sm.lsu_store_reg_cycles, in hundredths
	storePath                           bool  // cfg.StorePath()
	// constCyc is the memory pipe's cycles per distinct address of a constant load
	// (const.address_cycles, or lsuCyc when 0).
	constCyc int64
	its      bool
	retire   int64 // sm.cta_retire_ns in SM cycles: how long a retired CTA still holds its room
	// prefetch: decode the next CTA's batch in the background (opts.Workers ≠ 1).
	prefetch bool
	abuf     []uint64
	// twoLevel: the policy is two-level, the only one that acts on LongStall.
	twoLevel bool
	// canArm: warps may be armed (timedWarp.armed): single issue, not two-level.
	canArm bool
	// reuseMiss: sm.reuse_miss_cycles.
	reuseMiss int
	// cpCopy and cpWave are what a cp.async and each of its shared wavefronts hold the
	// SM's fill port, in hundredths of a cycle (sm.ldgsts_copy_cycles,
	// sm.ldgsts_wavefront_cycles; copyLand).
	cpCopy, cpWave int64
	// barLat[b] is how long after the last arrival at a barrier an instruction that
	// needs it (timedInst.bar b) may issue (lat.bar, lat.bar_shared, lat.bar_global).
	barLat [numBarWaits]int64
	// sassCount: sass.go's estimate of each pc's SASS instructions (nil: count PTX), for
	// the report.
	sassCount []int
	// launchRead is what the launch reads from DRAM besides its data (launchReadBytes).
	launchRead uint64
	// loops: how many counted loops the program has (timedInst.loop).
	loops int

	lat arch.Latency
	ord *orderer

	inst      []uint64            // per pc
	stalls    [][numStalls]uint64 // per pc
	thread    []uint64            // per pc
	issued    uint64              // total warp instructions
	progress  func(kernel, done, total int)
	ctaSpan   func(kernel, sm, cta int, start, end int64)
	issueHook func(kernel, sm, cta, warp int, pc uint32, t int64)
}

// intDivideByRegister reports whether in is an integer div or rem whose divisor is a
// register (an immediate divisor becomes a multiply and shift), and its kind.
func intDivideByRegister(in *format.Inst) (signed, wide, ok bool) {
	op := in.Opcode
	if !strings.HasPrefix(op, "div.") && !strings.HasPrefix(op, "rem.") {
		return false, false, false
	}
	switch {
	case strings.HasSuffix(op, ".u32"):
	case strings.HasSuffix(op, ".s32"):
		signed = true
	case strings.HasSuffix(op, ".u64"):
		wide = true
	case strings.HasSuffix(op, ".s64"):
		signed, wide = true, true
	default:
		return false, false, false // floating point
	}
	return signed, wide, strings.HasPrefix(lastOperand(in.PTX), "%")
}

func opClass(in *format.Inst, k instKind, l arch.Latency) (pipe, int64, sched.Reason) {
	switch k {
	case ikBarrier:
		return pNone, 0, sched.Fixed
	case ikParam:
		// SASS reads kernel parameters as constant-bank operands: no instruction.
		return pALU, int64(l.ALU), sched.Fixed
	case ikConstBankRead:
		return pALU, int64(l.Const), sched.Short
	case ikS2R: // timed by the SM's S2R unit (sreg)
		return pNone, 0, sched.Short
	case ikPlain:
	default:
		return pNone, 0, sched.Long // timed by the memory pipeline
	}
	switch in.Class {
	case format.ClassFP32:
		return pALU, int64(l.FMA), sched.Fixed
	case format.ClassFP64:
		return pDP, int64(l.DP), sched.Fixed
	case format.ClassSFU:
		return pSFU, int64(l.SFU), sched.Short
	case format.ClassTensor: // its latency and slots depend on its shape: mmaCost
		return pTensor, 0, sched.Fixed
	case format.ClassSync:
		return pNone, int64(l.ALU), sched.Fixed
	}
	return pALU, int64(l.ALU), sched.Fixed
}

// noSkip: a timedInst.skip of a branch over no predicated block.
var noSkip [numPipes]uint16

// blockPipes is what the block of n SASS instructions after the branch at pc, which
// ptxas predicates, takes on each pipe: each instruction's slots on its own (memory
// instructions on the ALU pipe, one slot per SASS instruction). The block is at most
// ifConvertMax instructions, so the counts fit.
func blockPipes(insts []timedInst, own []int, n, pc int) [numPipes]uint16 {
	var by [numPipes]uint16
	for i := pc + 1; i < len(insts) && n > 0; i++ {
		k := own[i]
		if k == 0 {
			continue
		}
		n -= k
		p, slots := insts[i].pipe, insts[i].slots
		if p >= numPipes {
			p, slots = pALU, k
		}
		by[p] += uint16(slots)
	}
	return by
}

// planLatency is the latency the block scheduler (timing_order.go) plans for the
// instruction at pc: the engine's own for arithmetic, shared, constant and S2R reads, and
// DRAM's for global, local and texture loads, whose latency a compiler cannot know.
func (e *timer) planLatency(pc int) int64 {
	in := &e.insts[pc]
	switch in.kind {
	case ikShared:
		return int64(max(e.lat.Shared, 1))
	case ikConst:
		return int64(max(e.lat.Const, 1))
	case ikS2R:
		return int64(max(e.lat.S2R, 1))
	case ikGlobal, ikLocal, ikTex, ikGeneric:
		if in.memOp == format.MemStore || len(in.wr) == 0 {
			return 1
		}
		return int64(max(e.lat.DRAM, 1))
	}
	return max(in.lat, 1)
}

func timeKernel(ctx context.Context, r *format.Reader, ki int, base *arch.Config, opts Options) (*KernelReport, error) {
	l := &r.Meta().Launches[ki]
	cfg, occ, err := kernelConfig(base, l)
	if err != nil {
		return nil, err
	}
	if err := checkModelMemory(cfg, occ, l.WarpsPerCTA(), true); err != nil {
		return nil, err
	}
	if _, err := sched.New(cfg.SM.Scheduler); err != nil {
		return nil, err
	}
	e := &timer{cfg: cfg, r: r, ki: ki, prog: l.Program.Insts, occ: occ, grid: sched.Grid{Total: r.NumCTAs(ki)},
		issue: max(cfg.SM.DispatchPerScheduler, 1), lat: cfg.Latency,
		lsuCyc: int64(max(32/max(cfg.SM.LSULanes, 1), 1)), constCyc: int64(cfg.Const.AddressCycles), twoLevel: cfg.SM.Scheduler == "two-level", its: cfg.SM.SIMT == "its", retire: int64(cfg.CTARetireCycles()), progress: opts.Progress, ctaSpan: opts.CTASpan, issueHook: opts.Issue, abuf: make([]uint64, 0, 32)}
	if e.constCyc == 0 {
		e.constCyc = e.lsuCyc
	}
	e.canArm = e.issue == 1 && !e.twoLevel
	hund := func(v float64) int64 { return int64(math.Round(v * 100)) }
	e.missLine, e.missSector = hund(cfg.SM.LSUMissLineCycles), hund(cfg.SM.LSUMissSectorCycles)
	e.storeLine, e.storeSector, e.partialLine = hund(cfg.SM.LSUStoreLineCycles), hund(cfg.SM.LSUStoreSectorCycles), hund(cfg.SM.LSUPartialLineCycles)
	e.storeReg, e.storePath = hund(cfg.SM.LSUStoreRegCycles), cfg.StorePath()
	e.prefetch = opts.Workers != 1 && runtime.GOMAXPROCS(0) > 1
	e.reuseMiss = cfg.SM.ReuseMissCycles
	e.cpCopy, e.cpWave = hund(cfg.SM.LDGSTSCopyCycles), cmp.Or(hund(cfg.SM.LDGSTSWavefrontCycles), 100*e.lsuCyc)
	if b := cfg.Latency.Bar; b > 0 {
		or := func(v int) int64 { return int64(cmp.Or(v, b)) }
		e.barLat = [numBarWaits]int64{barSync: int64(b), barShared: or(cfg.Latency.BarShared), barGlobal: or(cfg.Latency.BarGlobal)}
	}
	n := len(e.prog)
	e.insts = make([]timedInst, n)
	agg := Aggregated(l.Program, l.PTXProducer, cfg)
	matrix := matrixLanes(l.Program.Insts)
	count, own, folded := sassEstimate(l.Program, l.PTXProducer, cfg.CC, agg)
	e.sassCount = count
	e.launchRead = launchReadBytes(l.Program, own, cfg)
	loops := loopsIn(e.prog)
	for pc := range e.prog {
		in := &e.prog[pc]
		k := classify(in)
		bar := barNone
		if cfg.Latency.Bar > 0 {
			bar = barWaitOf(k, in)
		}
		if k == ikS2R && cfg.Latency.S2R == 0 {
			k = ikPlain // an ALU move
		}
		p, lat, why := opClass(in, k, cfg.Latency)
		ik := intNone
		if k == ikPlain {
			ik = intKindOf(in)
		}
		if ik != intNone {
			lat = intLatency(in, ik, cfg.Latency)
		}
		slots, alt := 1, 0
		if n, chain := intDivide(in, cfg.Latency, own != nil && hoistedDivide(e.prog, pc, loops)); n > 0 {
			// The sequence is integer ops (IMAD, ISETP, IADD3) but for its one
			// MUFU.RCP: it issues on the ALU pipe, as a rem does, not on the SFU's,
			// where capture's class for div (format.ClassSFU) would put it.
			slots, lat, p = n, chain, pALU
		}
		// With a SASS estimate (sass.go), an instruction takes its pipe for the SASS
		// instructions it stands for (at least one: what ptxas folds away still issues
		// here, see docs/issue-11.md), and a branch over a predicated block charges the
		// block to the warps that take it. An instruction ptxas fuses into the one
		// that makes its operand (an add into IMAD.HI, predicate logic into ISETP)
		// adds one cycle to that one's latency.
		if own != nil {
			if p < numPipes {
				slots = max(own[pc], 1)
			}
			if folded[pc] {
				lat = 1
			}
		}
		if ik != intNone && cfg.SM.INT32Lanes > 0 && p == pALU {
			p, slots, alt = intPipes(ik, slots, own != nil && own[pc] == 0, cfg.SM)
		}
		if p == pTensor {
			var class int
			if slots, lat, class = mmaCost(in.Opcode, cfg); slots == 0 {
				what := "tensor cores (sm.mma_cycles_k8/k16 0)"
				if class == mmaF64 {
					what = "f64 tensor cores (sm.mma_cycles_f64 0)"
				}
				return nil, fmt.Errorf("%s/%s has no %s: the kernel's %s (pc %d) cannot be timed there", cfg.Arch, cfg.GPU, what, in.Opcode, pc)
			}
		}
		srcs := 0
		for _, r := range in.RegsRead {
			if r&format.PredReg == 0 {
				srcs++
			}
		}
		// An mma's measured interval (sm.mma_cycles_*) has its operand reads in it.
		e.insts[pc] = timedInst{kind: k, pipe: p, slots: slots, intN: slots, alt: alt, three: srcs >= 3 && p != pTensor, lat: lat, why: why, rd: in.RegsRead, wr: in.RegsWritten,
			width: max(int(in.Width), 1), memOp: in.MemOp, cacheOp: in.CacheOp, agg: agg != nil && agg[pc], bar: bar}
		e.insts[pc].cp, e.insts[pc].cpN = cpOpOf(in)
		if matrix != nil {
			e.insts[pc].lanes = matrix[pc]
		}
	}
	for pc := range e.insts {
		if own != nil && isBranch(&e.prog[pc]) && count[pc] > own[pc] {
			e.insts[pc].skip = blockPipes(e.insts, own, count[pc]-own[pc], pc)
		}
		e.insts[pc].redirect = cfg.Latency.Branch > 0 && redirects(e.prog, own, pc)
		if e.insts[pc].redirect && own != nil && countedBackEdge(e.prog, pc) && e.loops < math.MaxUint16 {
			e.loops++
			in := &e.insts[pc]
			in.loop, in.exitOf = uint16(e.loops), uint16(e.loops)
			if !conditional(&e.prog[pc]) { // "@p bra EXIT; bra.uni HEAD": leaves when p
				e.insts[pc-1].exitOf, e.insts[pc-1].exitTaken = uint16(e.loops), true
				in.exitOf = 0
			}
		}
	}
	regs := int(l.RegsPerThread)
	if regs == 0 {
		regs = cfg.SM.MaxRegsPerThread
	}
	e.ord = newOrderer(e.prog, e.insts, e.planLatency, regs)
	if cfg.SM.INT32Lanes > 0 {
		ns := max(cfg.SM.Schedulers, 1)
		e.ord.balancePipes(cfg.SM.FP32Lanes/ns, cfg.SM.INT32Lanes/ns)
	}
	e.inst = make([]uint64, n)
	e.thread = make([]uint64, n)
	e.stalls = make([][numStalls]uint64, n)
	if e.l2, err = newTimedL2(cfg, cfg.SM.Count); err != nil {
		return nil, err
	}
	e.sms = make([]*timedSM, cfg.SM.Count)
	for i := range e.sms {
		if e.sms[i], err = e.newSM(i); err != nil {
			return nil, err
		}
	}
	// Breadth-first initial placement, as the memory engine; each SM's launcher starts
	// the CTAs it has room for at sm.cta_launch_ns apart.
	sched.Spread(e.grid.Total, len(e.sms), occ.CTAsPerSM, func(sm int) {
		e.sms[sm].launcher.Vacate(0)
		e.sms[sm].next = 0
	})
	if err := e.run(ctx); err != nil {
		return nil, err
	}
	return e.report(l, opts), nil
}

func (e *timer) newSM(id int) (*timedSM, error) {
	cfg := e.cfg
	// Nothing waits for a fill that landed 4 DRAM latencies before the latest.
	s := &timedSM{e: e, id: id, launcher: sched.CTALauncher{Cycles: int64(cfg.CTALaunchCycles())}, fill: cache.NewInFlight(1<<14, 4*int64(e.lat.DRAM)), next: -1,
		lsu: sched.LSU{Queue: int64(cfg.SM.LSUQueueCycles), MSHRs: max(cfg.L1.MSHRs, 1)},
		stp: sched.LSU{MSHRs: cfg.SM.LSUStores}, merge: newStoreMerge(cfg.SM.StoreMergeLines)}
	var err error
	// Fills land at once in the functional caches; s.fill holds their time.
	s.smModels, err = newSMModels(cfg, true, func(line uint64, sectors uint8) {
		s.fetched = append(s.fetched, cache.Result{Line: line, Fetch: sectors})
	})
	if err != nil {
		return nil, err
	}
	s.scheds = make([]timedSched, max(cfg.SM.Schedulers, 1))
	ns := len(s.scheds)
	for i := range s.scheds {
		s.scheds[i].pol, _ = sched.New(cfg.SM.Scheduler)
		s.scheds[i].last = -1
		s.scheds[i].pipes[pALU].Lanes = max(cfg.SM.FP32Lanes/ns, 1)
		s.scheds[i].pipes[pSFU].Lanes = max(cfg.SM.SFULanes/ns, 1)
		s.scheds[i].pipes[pDP].Lanes = max(cfg.SM.DPLanes/ns, 1)
		if cfg.SM.INT32Lanes > 0 {
			s.scheds[i].pipes[pINT].Lanes = max(cfg.SM.INT32Lanes/ns, 1)
		}
		s.scheds[i].pipes[pTensor].Lanes = 32 // a slot a cycle: an mma takes its cycles' worth
		for p := range s.scheds[i].arm {
			a := &s.scheds[i].arm[p]
			a.busy, a.pipe = stMathPipeThrottle, &s.scheds[i].pipes[p]
			if pipe(p) == pINT && cfg.SM.INT32Lanes == 0 || pipe(p) == pTensor && cfg.SM.MMACyclesK16 == 0 {
				continue // no integer pipe or tensor cores: nothing is armed on it
			}
			s.arms = append(s.arms, a)
		}
	}
	s.marm[mcLoad].busy, s.marm[mcStore].busy, s.marm[mcShared].busy = stLGThrottle, stLGThrottle, stMIOThrottle
	s.marm[mcLoad].mshr, s.marm[mcStore].store = true, true
	for c := range s.marm {
		s.arms = append(s.arms, &s.marm[c])
	}
	s.slots = make([]*timedWarp, cfg.SM.MaxWarps)
	s.hot = make([]slotHot, cfg.SM.MaxWarps)
	for i := range s.hot {
		s.hot[i].due = math.MaxInt64
	}
	s.readyFn = func(slot int) bool {
		h := &s.hot[slot]
		return h.ready || (h.armed && h.res.free)
	}
	return s, nil
}

// run advances the SMs in cycle order until every CTA has retired: SMs due at the same
// cycle step in index order. A step changes only its own SM's next cycle, so a heap of
// the SMs' next cycles keyed by (cycle, index) gives the same order as scanning every SM
// each cycle, without the scan.
func (e *timer) run(ctx context.Context) error {
	// A run that stops early leaves CTAs resident: give back their batches.
	defer func() {
		for _, s := range e.sms {
			s.releaseCTAs()
		}
	}()
	q := smQueue{}
	for _, s := range e.sms {
		if s.next >= 0 {
			q.push(s)
		}
	}
	steps := 0
	for len(q) > 0 {
		s := q.pop()
		s.step(s.next)
		if s.err != nil {
			return s.err
		}
		if s.next >= 0 {
			q.push(s)
		}
		if steps++; steps&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if done := e.grid.Retired(); done != e.grid.Total {
		return fmt.Errorf("%d of %d CTAs retired: a barrier never completed", done, e.grid.Total)
	}
	return nil
}

// releaseCTAs gives back the batches of the SM's resident CTAs, as the memory engine's
// smState.releaseCTAs does.
func (s *timedSM) releaseCTAs() {
	for _, c := range s.ctas {
		c.wins.release()
	}
	s.ctas = nil
}

// smQueue is a min-heap of SMs by (next, id).
type smQueue []*timedSM

func (q smQueue) less(i, j int) bool {
	return q[i].next < q[j].next || (q[i].next == q[j].next && q[i].id < q[j].id)
}

func (q *smQueue) push(s *timedSM) {
	h := append(*q, s)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	*q = h
}

func (q *smQueue) pop() *timedSM {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && h.less(l, m) {
			m = l
		}
		if l+1 < n && h.less(l+1, m) {
			m = l + 1
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// launch loads the next CTA of the grid into free warp slots.
func (s *timedSM) launch(t int64) {
	e := s.e
	id, ok := e.grid.Take()
	if !ok {
		return
	}
	c := &timedCTA{id: id, start: t}
	if !s.viewCTA(c) {
		return
	}
	if next, ok := e.grid.Peek(); ok && e.prefetch {
		e.r.Prefetch(e.ki, next) // the next CTA's batch decodes on another core
	}
	s.ctas = append(s.ctas, c)
	for idx, w := range c.wins[0].views {
		slot := -1
		for i, x := range s.slots {
			if x == nil {
				slot = i
				break
			}
		}
		if slot < 0 {
			s.err = fmt.Errorf("CTA %d: no free warp slot on SM %d (occupancy %d CTAs)", id, s.id, e.occ.CTAsPerSM)
			return
		}
		tw := &timedWarp{w: w, idx: idx, cta: c, slot: slot, sched: slot % len(s.scheds), finished: w.Len() == 0, since: t, okRec: -1, barAt: math.MinInt64 / 2}
		if e.loops > 0 {
			tw.trips = make([]uint32, e.loops)
		}
		if e.its && c.rows == 0 && diverged(w) {
			tw.order = sched.Divergent(w.Path, w.Flags, format.FlagSplit, format.FlagReconverge, itsWindow, e.ord.pathOrder(w, itsWindow, nil))
		} else {
			tw.order = sched.Streamed(func(k int) (int, []uint16) { return s.runAt(tw, k) })
		}
		s.slots[slot] = tw
		c.warps = append(c.warps, tw)
		if !tw.finished {
			c.live++
			s.live++
			s.scheds[tw.sched].pol.Add(slot, id)
		} else {
			s.slots[slot] = nil
		}
		s.publish(tw)
	}
	for j := range c.wins {
		c.wins[j].pending = c.live
	}
	if c.live == 0 {
		s.retire(c, t)
	}
}

// viewCTA views c's rows at launch: its first window, or the whole CTA where it has one
// window or, under ITS, a warp that diverges (see timing_rows.go).
func (s *timedSM) viewCTA(c *timedCTA) bool {
	e := s.e
	n := e.r.Windows(e.ki, c.id)
	if n > 1 && e.its {
		div, err := s.diverges(c.id, n)
		if err != nil {
			s.err = err
			return false
		}
		if div {
			n = 1
		}
	}
	c.wins = make(ctaWindows, max(n, 1))
	if n <= 1 {
		warps, release, err := e.r.ViewCTA(e.ki, c.id)
		if err != nil {
			s.err = err
			return false
		}
		c.wins[0] = ctaWindow{views: warps, release: release}
		return true
	}
	return s.view(c, 0)
}

// diverges reports whether a warp of CTA id, stored in n windows, ever goes more than
// one way: it reads the flags of the CTA's windows one window at a time.
func (s *timedSM) diverges(id, n int) (bool, error) {
	e := s.e
	for j := range n {
		views, release, err := e.r.ViewWindow(e.ki, id, j)
		if err != nil {
			return false, err
		}
		div := slices.ContainsFunc(views, diverged)
		release()
		if div {
			return true, nil
		}
	}
	return false, nil
}

// diverged reports whether w's threads ever went more than one way.
func diverged(w *format.Warp) bool {
	for _, f := range w.Flags {
		if f&format.FlagSplit != 0 {
			return true
		}
	}
	return false
}

// markIssued records that w issued record i.
func (w *timedWarp) markIssued(i int) {
	w.okRec = -1
	w.order.Issued(i)
}

// retire frees a finished CTA's slots at t and launches the next CTA when its last
// pending result lands.
func (s *timedSM) retire(c *timedCTA, t int64) {
	e := s.e
	free := max(t, c.drained)
	for _, w := range c.warps {
		if s.slots[w.slot] == w {
			s.slots[w.slot] = nil
			s.hot[w.slot] = slotHot{due: math.MaxInt64}
		}
	}
	for i, x := range s.ctas {
		if x == c {
			s.ctas = append(s.ctas[:i], s.ctas[i+1:]...)
			break
		}
	}
	c.wins.release()
	if e.ctaSpan != nil {
		e.ctaSpan(e.ki, s.id, c.id, c.start, t)
	}
	done := e.grid.Retire(1)
	s.end = max(s.end, free)
	if e.progress != nil {
		e.progress(e.ki, done, e.grid.Total)
	}
	if e.grid.Left() > 0 {
		s.launcher.Vacate(free + e.retire)
	}
}

// canIssue decides whether w can issue record i at t; if not it sets w's state and wake.
func (s *timedSM) canIssue(w *timedWarp, i int, t int64) bool {
	if t < w.fetchAt { // charged to the branch, at atPC still, as ncu samples it
		w.state, w.wake = stBranchResolving, w.fetchAt
		return false
	}
	var in *timedInst
	if i == w.okRec {
		in = w.okIn
		w.atPC = w.okPC
	} else {
		e := s.e
		pc, ok := s.pc(w, i)
		if !ok {
			if s.err == nil {
				s.err = fmt.Errorf("warp %d of CTA %d: no record %d", w.idx, w.cta.id, i)
			}
			return false
		}
		if int(pc) >= len(e.insts) {
			s.err = fmt.Errorf("warp %d of CTA %d: pc %d outside the program table (%d rows)", w.idx, w.cta.id, pc, len(e.insts))
			return false
		}
		in = &e.insts[pc]
		w.atPC = pc
		if ok, until, why := w.sb.Check(t, in.rd, in.wr); !ok {
			w.state, w.wake = stallOf(why), until
			return false
		}
		if in.cp >= cpWaitGroup { // waits for the copies as a load's reader does
			if at := w.cp.ready(in.cp, in.cpN); t < at {
				w.state, w.wake = stLongScoreboard, at
				return false
			}
		}
		w.okRec, w.okPC, w.okIn, w.okPipe = i, pc, in, nil
		if in.pipe < numPipes {
			w.okPipe = &s.scheds[w.sched].pipes[in.pipe]
		}
	}
	if in.bar != barNone {
		if wait, at := s.barWait(w, in, i, t); wait {
			w.state, w.wake = stBarrier, at
			return false
		}
	}
	if p := w.okPipe; p != nil {
		if ok, at := p.Free(t); !ok {
			w.state, w.wake = stMathPipeThrottle, at
			return false
		}
		return true
	}
	switch in.kind {
	case ikGlobal, ikLocal, ikTex, ikGeneric:
		st := in.memOp == format.MemStore
		if wait, at := s.lsu.IssueWait(t, !st); wait {
			w.state, w.wake = stLGThrottle, at
			return false
		}
		if wait, at := s.storeWait(t, st); wait {
			w.state, w.wake = stLGThrottle, at
			return false
		}
	case ikShared, ikConst:
		if wait, at := s.lsu.IssueWait(t, false); wait {
			w.state, w.wake = stMIOThrottle, at
			return false
		}
	}
	return true
}

// barWait reports whether the instruction in, record i of w, must wait at t for the
// release of the barrier w issued past, and until when (-1: it has not released).
func (s *timedSM) barWait(w *timedWarp, in *timedInst, i int, t int64) (bool, int64) {
	if w.barHeld {
		return true, -1
	}
	b := in.bar
	if b == barGeneric {
		b = barGlobal
		if v, k := s.row(w, i); v != nil && s.resolve(v, k) == ikShared {
			b = barShared
		}
	}
	at := w.barAt + s.e.barLat[b]
	return t < at, at
}

// disarm makes an armed warp, selected at t, ready to issue: its cycles since it was
// armed go to not-selected and math-pipe-throttle as its pipe was free or busy.
func (s *timedSM) disarm(w *timedWarp, t int64) {
	a := w.res
	a.n--
	w.armed, w.res = false, nil
	st := &s.e.stalls[w.okPC]
	st[stNotSelected] += uint64(a.cumFree - w.armFree)
	st[a.busy] += uint64(a.cumB - w.armBusy)
	w.since = t
	w.atPC = w.okPC
	w.ready, w.next, w.state = true, w.okRec, stNotSelected
}

// advance adds the dt cycles since the previous step to the sum of a's state then.
func (a *resourceWatch) advance(dt int64) {
	if dt <= 0 {
		return
	}
	if a.free {
		a.cumFree += dt
	} else {
		a.cumB += dt
	}
}

// watch decides at t whether a is free, as canIssue would for a warp waiting for it: a
// pipe by its credit, a memory queue by the LSU queue and, for loads, the MSHRs.
func (s *timedSM) watch(a *resourceWatch, t int64) {
	if a.pipe != nil {
		a.free, a.at = a.pipe.Free(t)
		return
	}
	if wait, at := s.lsu.IssueWait(t, a.mshr); wait {
		a.free, a.at = false, at
		return
	}
	if wait, at := s.storeWait(t, a.store); wait {
		a.free, a.at = false, at
		return
	}
	a.free = true
}

// storeWait reports whether a store (st) at t must wait for one of the SM's
// sm.lsu_stores to free, and until when.
func (s *timedSM) storeWait(t int64, st bool) (bool, int64) {
	if !st || !s.e.storePath {
		return false, t
	}
	return s.stp.MSHRWait(t)
}

// publish copies w's hot fields into s.hot; every change to them is followed by one.
func (s *timedSM) publish(w *timedWarp) {
	if s.slots[w.slot] != w {
		return
	}
	h := &s.hot[w.slot]
	h.ready, h.armed, h.res = w.ready, w.armed, w.res
	switch {
	case w.finished || w.armed || (w.held() && w.state == stBarrier):
		h.due = math.MaxInt64
	case w.ready:
		h.due = math.MinInt64
	default:
		h.due = w.wake
	}
}

// refresh sets w.ready (and w.next) or w's stall state for cycle t.
func (s *timedSM) refresh(w *timedWarp, t int64) {
	s.warpReady(w, t)
	s.publish(w)
}

// warpReady is refresh without the copy to s.hot: it charges w's cycles since its last
// evaluation to its state, then decides (and may arm w).
func (s *timedSM) warpReady(w *timedWarp, t int64) {
	if dt := t - w.since; dt > 0 && !w.finished {
		e := s.e
		e.stalls[w.atPC][w.state] += uint64(dt)
		w.since = t
	}
	w.ready = false
	w.wake = -1
	switch {
	case w.finished:
		return
	case w.atBar:
		w.state = stBarrier
		w.atPC = w.lastPC
		if w.order.IsDivergent() { // viewed whole (timing_rows.go)
			w.atPC = w.w.PC[w.order.Latest()]
		}
		return
	}
	if !w.order.IsDivergent() {
		// One candidate: canIssue sets the stall state and wake itself, and atPC.
		i := w.okRec
		if i < 0 {
			i = w.order.Next()
		}
		ok := s.canIssue(w, i, t)
		if ok {
			w.ready, w.next = true, i
			w.state = stNotSelected
		}
		if w.okRec == i && s.e.canArm {
			var a *resourceWatch
			if w.okPipe != nil {
				a = &s.scheds[w.sched].arm[w.okIn.pipe]
			} else if c := memClass(w.okIn.kind, w.okIn.memOp); c >= 0 {
				a = &s.marm[c]
			}
			if a != nil && (ok || w.state == a.busy) {
				if a.n == 0 { // step has not been keeping this resource's status
					s.watch(a, t)
				}
				w.armed, w.res, w.armFree, w.armBusy = true, a, a.cumFree, a.cumB
				a.n++
				w.ready, w.wake = false, math.MaxInt64
			}
		}
		return
	}
	st, wake, pc := stall(0), int64(-1), uint32(0)
	w.order.Candidates(func(i int) bool {
		if s.canIssue(w, i, t) {
			w.ready, w.next = true, i
			return true
		}
		if wake < 0 || (w.wake >= 0 && w.wake < wake) {
			st, wake, pc = w.state, w.wake, w.atPC
		}
		return false
	})
	if !w.ready {
		w.state, w.wake, w.atPC = st, wake, pc
		return
	}
	w.state = stNotSelected // canIssue set atPC
}

// step is one cycle of the SM: count the cycles since the last step, launch CTAs whose
// slots are free, then let every scheduler issue, and find the next cycle the SM has
// something to do. A warp's cycles are charged to its state when it is next evaluated
// (refresh), which every warp is at the step it issues its last instruction.
func (s *timedSM) step(t int64) {
	s.countCycles(t)
	if s.launchDue(t); s.err != nil {
		return
	}
	for i := range s.hot {
		// A warp that waits for a known cycle (a result, a pipe, an MSHR) keeps its
		// verdict until then: nothing can make it ready sooner. A finished warp's verdict
		// never changes, nor does a waiting one's at a barrier until the barrier releases
		// it (issue clears atBar), nor an armed one's until it is selected. s.hot[i].due
		// holds that decision.
		if s.hot[i].due <= t {
			s.refresh(s.slots[i], t)
		}
	}
	issued := s.issueAll(t)
	if s.err != nil {
		return
	}
	s.next = s.nextCycle(t, issued)
	if s.next < 0 && s.live > 0 {
		// Every live warp waits at a barrier that cannot complete.
		s.err = fmt.Errorf("SM %d: %d warps can never issue again at cycle %d", s.id, s.live, t)
	}
}

// countCycles charges the cycles since the last step to the SM's active and warp
// cycles and to the status of every resource armed warps wait for, and brings those
// statuses to cycle t.
func (s *timedSM) countCycles(t int64) {
	if dt := t - s.last; dt > 0 && s.live > 0 {
		s.active += dt
		s.warpCycles += dt * int64(s.live)
	}
	if s.e.canArm {
		for _, a := range s.arms {
			if a.n > 0 {
				a.advance(t - s.last)
				s.watch(a, t)
			}
		}
	}
	s.last = t
}

// launchDue launches the CTAs due by t, one per sm.cta_launch_ns. Rooms outnumber the
// CTAs left once the grid runs dry (each retirement frees one while any CTA is left, on
// every SM); those rooms launch nothing and wake no SM.
func (s *timedSM) launchDue(t int64) {
	for s.err == nil && s.e.grid.Left() > 0 && s.launcher.Launch(t) {
		s.launch(t)
	}
}

// issueAll lets each scheduler pick a ready warp and issue up to sm.dispatch
// instructions from it at t, and reports whether any did.
func (s *timedSM) issueAll(t int64) bool {
	e := s.e
	any := false
	for si := range s.scheds {
		sc := &s.scheds[si]
		w := sc.pol.Pick(s.readyFn)
		if w < 0 {
			continue
		}
		tw := s.slots[w]
		if tw.armed {
			s.disarm(tw, t)
		}
		n := 0
		for n < e.issue && tw.ready && !tw.finished {
			s.issue(tw, tw.next, t)
			if s.err != nil {
				return any
			}
			n++
			if tw.finished || tw.atBar {
				break
			}
			s.refresh(tw, t) // a second, independent instruction (Kepler dual issue)
		}
		// Selected for this cycle; its next verdict comes at the next step. (The
		// evaluation after its issue may have armed it: the next step decides again.)
		if tw.armed {
			tw.res.n--
			tw.armed, tw.res = false, nil
		}
		tw.ready, tw.state, tw.wake = false, stSelected, -1
		s.publish(tw)
		sc.pol.Issued(w)
		s.issueCycles++
		any = true
	}
	return any
}

// nextCycle is the next cycle after t the SM has something to do, or -1: the next
// cycle if a warp issued at t; else the earliest wake of a warp, of a resource an
// armed warp waits for, or of a CTA launch. Under the two-level policy it also lets
// long waits demote warps from the active set.
func (s *timedSM) nextCycle(t int64, issued bool) int64 {
	e := s.e
	next := int64(-1)
	if issued {
		next = t + 1
	}
	switch {
	case e.twoLevel:
		next = s.twoLevelNext(t, issued, next)
	case !issued:
		// After a cycle without issue the SM sleeps until the earliest wake.
		for i := range s.hot {
			if d := s.hot[i].due; d > t && d != math.MaxInt64 {
				next = earlier(next, d)
			}
		}
	}
	if !issued && e.canArm {
		for _, a := range s.arms {
			if a.n > 0 && !a.free {
				next = earlier(next, a.at)
			}
		}
	}
	if e.grid.Left() == 0 {
		return next
	}
	return earlier(next, s.launcher.Next(t))
}

// twoLevelNext is nextCycle's look at the warps under the two-level policy, given next
// so far: long waits demote a warp from the active set (the other policies ignore
// them), and without issue at t the SM sleeps until the earliest wake.
func (s *timedSM) twoLevelNext(t int64, issued bool, next int64) int64 {
	for _, w := range s.slots {
		if w == nil {
			continue
		}
		// A warp held at a barrier leaves the two-level active set too: otherwise a full
		// active set waiting for a pending warp that cannot enter it never moves again.
		if (w.state == stLongScoreboard || (w.held() && w.state == stBarrier)) &&
			s.scheds[w.sched].pol.LongStall(w.slot) && next < 0 {
			next = t + 1 // a pending warp entered the active set: look again next cycle
		}
		if !issued && w.wake > t && !w.armed {
			next = earlier(next, w.wake)
		}
	}
	return next
}

// earlier is the earlier of two cycles, where -1 stands for none.
func earlier(a, b int64) int64 {
	if a < 0 || (b >= 0 && b < a) {
		return b
	}
	return a
}

func (s *timedSM) issue(w *timedWarp, i int, t int64) {
	e := s.e
	fw, r := s.row(w, i) // canIssue's row, in a window w still holds
	if fw == nil {
		if s.err == nil {
			s.err = fmt.Errorf("warp %d of CTA %d: record %d issued without its row", w.idx, w.cta.id, i)
		}
		return
	}
	pc := fw.PC[r]
	in := &e.insts[pc]
	w.lastPC = pc
	e.inst[pc]++
	e.thread[pc] += popc(fw.Mask[r])
	e.issued++
	w.markIssued(i)
	if e.issueHook != nil {
		e.issueHook(e.ki, s.id, fw.CTA, fw.Warp, pc, t)
	}
	sc := &s.scheds[w.sched]
	if in.pipe < numPipes {
		n := in.slots
		if in.three && sc.last != w.slot {
			n += e.reuseMiss // operands from the banks, not the reuse cache
		}
		sc.pipes[in.pipe].TakeN(t, n)
	}
	next, ok := s.pc(w, i+1)
	taken := ok && next != pc+1
	if taken && in.skip != noSkip {
		for p, n := range in.skip { // the predicated block, issued with its guard off
			if n > 0 {
				sc.pipes[p].TakeN(t, int(n))
			}
		}
	} else if taken && in.redirect {
		n := 1
		if in.loop > 0 {
			w.trips[in.loop-1]++
			n = unrolledBRAs(w.trips[in.loop-1], false)
		}
		if n > 0 {
			w.fetchAt = t + int64(n)*int64(e.lat.Branch)
		}
	}
	if in.exitOf > 0 && taken == in.exitTaken { // the warp leaves a counted loop
		trips := &w.trips[in.exitOf-1]
		if n := unrolledBRAs(*trips, true); n > 0 {
			w.fetchAt = max(w.fetchAt, t+int64(n)*int64(e.lat.Branch))
		}
		*trips = 0
	}
	sc.last = w.slot
	k := in.kind
	if k == ikGeneric {
		k = s.resolve(fw, r)
	}
	var done int64
	switch k {
	case ikBarrier:
		if in.bar != barNone && len(in.wr) == 0 { // a bar.red's result waits for the release
			w.barHeld = true
		} else {
			w.atBar = true
		}
		w.cta.waiting++
	case ikGlobal:
		var left int64
		done, left = s.global(in, fw, r, t)
		if e.cfg.SM.DrainStores {
			w.cta.drained = max(w.cta.drained, left)
		}
	case ikLocal:
		done = s.local(in, fw, r, t)
	case ikShared:
		done = s.shared(in, fw, r, t)
	case ikConst:
		done = s.constant(fw, r, in, t)
	case ikTex:
		done = s.texture(fw, r, in, t, texelBytes(&e.prog[pc]))
	case ikS2R:
		done = s.sreg(t)
	default:
		done = t + in.lat
	}
	if in.cp != cpNone {
		w.cp.issue(in.cp, in.cpN, done)
	}
	if done > t && len(in.wr) > 0 {
		why := in.why
		switch k {
		case ikShared, ikConst, ikS2R:
			why = sched.Short
		case ikGlobal, ikLocal, ikTex:
			why = sched.Long
		}
		w.sb.Add(t, in.wr, done, why)
	}
	s.pass(w) // no row of w is read below its run from here
	if w.order.Finished() {
		w.finished = true
		s.pass(w)
		s.live--
		s.scheds[w.sched].pol.Remove(w.slot)
		c := w.cta
		c.live--
		c.drained = max(c.drained, w.sb.Drained(), w.cp.last, t+1)
		if w.held() {
			w.atBar, w.barHeld = false, false
			c.waiting--
		}
	}
	c := w.cta
	if c.waiting > 0 && c.waiting == c.live {
		for _, x := range c.warps {
			x.atBar, x.barHeld, x.barAt = false, false, t
			s.publish(x)
		}
		c.waiting = 0
	}
	if c.live == 0 {
		s.retire(c, t+1)
	}
}

func (s *timedSM) resolve(w *format.Warp, i int) instKind { return genericKind(s.e.addrs(w, i)) }

func (e *timer) addrs(w *format.Warp, i int) []uint64 {
	e.abuf = w.Addrs(i, e.abuf[:0])
	return e.abuf
}

// global issues a global memory instruction at t and returns when its result lands
// and, for a store, when it reads its operands (0 otherwise; sm.drain_stores).
func (s *timedSM) global(in *timedInst, w *format.Warp, i int, t int64) (done, left int64) {
	e := s.e
	a := e.addrs(w, i)
	st := in.memOp == format.MemStore
	if in.memOp == format.MemLoad && in.cacheOp == format.CacheNC && e.cfg.Arch == "kepler" {
		// The read-only data cache (LDG) is the texture cache.
		return s.texture(w, i, in, t, in.width), 0
	}
	r := coalesceGlobal(s.coal, in.memOp, in.cacheOp, w, i, a, in.width, in.agg)
	units := r.Units()
	if st && e.storePath {
		return t, s.store(units, a, in.width, t)
	}
	start := s.lsu.Reserve(t, len(units), e.lsuCyc)
	done = start + int64(e.lat.L1Hit)
	switch {
	case in.memOp == format.MemLoad:
		cached := e.cfg.L1.CacheGlobal && in.cacheOp != format.CacheCG && in.cacheOp != format.CacheCV && in.cacheOp != format.CacheVolatile
		var extra int64 // hundredths of a cycle the lines not in the L1 cost past a hit
		for j, u := range units {
			at := start + int64(j)*e.lsuCyc + extra/100
			fetch := u.Sectors
			if cached {
				res := s.l1.Access(u.Line, u.Sectors, cache.Load)
				p := s.fill.Pending(u.Line, res.Hit, at)
				if p > 0 {
					done = max(done, p)
				}
				fetch = res.Fetch
				if fetch == 0 {
					if p > 0 { // its sectors on their way: a one-sector miss's cost
						extra += e.missCost(1)
					}
					continue
				}
			}
			extra += e.missCost(bits.OnesCount8(fetch))
			d := e.l2.read(at, s.id, u.Line, fetch, true)
			if cached {
				s.fill.Fill(u.Line, fetch, d)
			}
			s.lsu.Miss(d)
			done = max(done, d)
		}
		s.lsu.Extend(extra)
		if in.cp == cpCopy { // its bytes go to shared memory, not registers
			done = s.copyLand(in, w, i, a, done)
		} else {
			done += e.wideLoad(in.width)
		}
	case st:
		for j, u := range units {
			s.storeLine(u, storeBytes(e.cfg.L2.PartialFill, u.Line, a, in.width), start+int64(j)*e.lsuCyc)
		}
		return t, start
	default: // atomics and reductions at L2
		for j, u := range units {
			done = max(done, e.l2.write(start+int64(j)*e.lsuCyc, u.Line, u.Sectors, true, nil))
		}
	}
	return done, 0
}

// missCost is what a load's line that is not in the L1 costs the LSU past a hit's
// lsuCyc, in hundredths of a cycle: sm.lsu_miss_line_cycles plus
// sm.lsu_miss_sector_cycles for each of the n sectors it sends to the L2 (0 when
// neither is set). A line whose sectors are all on their way costs a one-sector
// miss's, whatever its sectors: on the H200 such a lookup costs about 1.2 cycles for
// lines of one sector and of four alike (hw-facts section 33, scripts/hw/inflight.cu).
func (e *timer) missCost(n int) int64 {
	if e.missLine == 0 && e.missSector == 0 {
		return 0
	}
	return max(e.missLine+e.missSector*int64(n)-100*e.lsuCyc, 0)
}

// store sends a global store's lines down the stores' own path (arch.Config.StorePath)
// once the LSU's queue ahead of them at t is done (scripts/hw/lgafter.cu: on the H200 a
// store is acknowledged only after the work queued before it): each line holds the
// path for the larger of sm.lsu_store_line_cycles and sm.lsu_store_sector_cycles a
// sector, and a line the store writes part of a sector of also takes the LSU for
// sm.lsu_partial_line_cycles (lgstore.cu: a shared load waits behind such lines, not
// behind whole sectors). The store holds one of the SM's sm.lsu_stores until its last
// line has left (lgbuffer.cu), and the path at least sm.lsu_store_reg_cycles for its
// address and each 4 bytes of its data (stsmall.cu). A line that joins an earlier
// store's line still on the path (s.merge, sm.store_merge_lines) takes no time of it,
// and only its sectors the earlier line does not carry reach the L2, with that line.
// It returns when the store reads its operands (sm.drain_stores).
func (s *timedSM) store(units []coalesce.Unit, a []uint64, width int, t int64) (left int64) {
	e := s.e
	start := s.stp.Take(s.lsu.Free(t), 0)
	var cum, partial int64
	for _, u := range units {
		var written, use [4]uint32 // the bytes the lanes write, once; what the L2 is told (storeBytes)
		if e.partialLine > 0 || e.cfg.L2.PartialFill {
			written = usedBytes(u.Line, a, width)
		}
		if e.partialLine > 0 && partialSector(u.Sectors, written) {
			partial += e.partialLine
		}
		if e.cfg.L2.PartialFill {
			use = written
		}
		mask := s.l1Store(u)
		if ok, left, fresh := s.merge.join(u.Line, mask, t); ok {
			e.l2.chip.merged(u.Line, mask&^fresh, &use)
			if fresh != 0 {
				e.l2.write(left, u.Line, fresh, false, &use)
			}
			continue
		}
		at := start + cum/100
		cum += max(e.storeLine, e.storeSector*int64(bits.OnesCount8(u.Sectors)))
		if mask != 0 {
			s.merge.sent(u.Line, mask, start+cum/100)
			e.l2.write(at, u.Line, mask, false, &use)
		}
	}
	cum = max(cum, e.storeReg*int64(1+(width+3)/4)) // its address and data registers
	s.stp.Extend(cum)
	s.stp.Miss(s.stp.Free(0)) // held until its last line has left
	// It reads its operands once the shared accesses queued before it and the stores
	// before it on the path are done; not the global lines queued before it, which
	// only its lines wait for (scripts/hw/lgdrain.cu). A store holds the path for its
	// lines or its partial lines, the longer.
	left = max(t, s.sharedEnd, s.stored)
	s.stored = left + (max(cum, partial)+99)/100
	if partial > 0 {
		s.lsu.Take(t, partial)
	}
	return left
}

// storeLine writes a global store's line u through the L1 to the L2 at cycle at, use
// the bytes of its sectors the store writes (storeBytes).
func (s *timedSM) storeLine(u coalesce.Unit, use [4]uint32, at int64) {
	if mask := s.l1Store(u); mask != 0 {
		s.e.l2.write(at, u.Line, mask, false, &use)
	}
}

// l1Store writes a global store's line u through the L1 and returns the sectors it
// sends on to the L2.
func (s *timedSM) l1Store(u coalesce.Unit) uint8 {
	if !s.e.cfg.L1.CacheGlobal {
		return u.Sectors
	}
	return s.l1.Access(u.Line, u.Sectors, cache.Store).Forward
}

// partialSector reports whether a store writes only part of one of sectors, use the
// bytes of each it writes (usedBytes).
func partialSector(sectors uint8, use [4]uint32) bool {
	for i := range 4 {
		if sectors&(1<<i) != 0 && use[i] != ^uint32(0) {
			return true
		}
	}
	return false
}

// wideLoad is the cycles a global load of width bytes a lane waits beyond a 4-byte one's
// (lat.ldg_64, lat.ldg_128), wherever its data comes from.
func (e *timer) wideLoad(width int) int64 {
	switch {
	case width >= 16:
		return int64(e.lat.LDG128)
	case width >= 8:
		return int64(e.lat.LDG64)
	}
	return 0
}

func (s *timedSM) local(in *timedInst, w *format.Warp, i int, t int64) int64 {
	e := s.e
	a := e.addrs(w, i)
	st := in.memOp == format.MemStore
	r := s.sectors.Coalesce(w.Mask[i], a, in.width, st)
	units := r.Units()
	start := s.lsu.Reserve(t, len(units), e.lsuCyc)
	done := start + int64(e.lat.L1Hit)
	op := cache.Load
	if st {
		op = cache.Store
	}
	for j, u := range units {
		at := start + int64(j)*e.lsuCyc
		res := s.l1.Access(u.Line, u.Sectors, op)
		if p := s.fill.Pending(u.Line, res.Hit, at); p > 0 {
			done = max(done, p)
		}
		if res.Fetch != 0 {
			d := e.l2.read(at, s.id, u.Line, res.Fetch, true)
			s.fill.Fill(u.Line, res.Fetch, d)
			s.lsu.Miss(d)
			done = max(done, d)
		}
		if res.Forward != 0 {
			e.l2.write(at, u.Line, res.Forward, false, nil)
		}
		if res.EvictDirty != 0 {
			e.l2.write(at, res.EvictLine, res.EvictDirty, false, nil)
		}
	}
	if st {
		return t
	}
	return done
}

func (s *timedSM) shared(in *timedInst, w *format.Warp, i int, t int64) int64 {
	e := s.e
	mask, addrs := narrowLanes(w.Mask[i], e.addrs(w, i), in.lanes)
	r := sharedAccess(s.banks, in.memOp, mask, addrs, in.width)
	n := max(r.Wavefronts, 1)
	start := s.lsu.Reserve(t, n, e.lsuCyc)
	s.sharedEnd = max(s.sharedEnd, start+int64(n)*e.lsuCyc)
	return start + int64(e.lat.Shared) + int64(n-1)*e.lsuCyc
}

// sreg issues an S2R at t and returns when its result lands: it starts once the
// shared accesses queued before it are done and the SM's previous S2R has held the
// unit sm.s2r_cycles (scripts/hw/s2r.cu).
func (s *timedSM) sreg(t int64) int64 {
	e := s.e
	start := max(t, s.sharedEnd, s.s2rFree)
	s.s2rFree = start + int64(e.cfg.SM.S2RCycles)
	return start + int64(e.lat.S2R)
}

func (s *timedSM) constant(w *format.Warp, i int, in *timedInst, t int64) int64 {
	e := s.e
	s.fetched = s.fetched[:0]
	r := s.cc.Access(e.addrs(w, i), in.width)
	n := max(r.Requests, 1)
	start := s.lsu.Reserve(t, n, e.constCyc)
	serial := int64(n-1) * e.constCyc // the last address leaves this much after the first
	done := start + int64(e.lat.Const) + serial
	if r.L15Hits > 0 && e.lat.ConstL15 > 0 {
		done = max(done, start+int64(e.lat.ConstL15)+serial)
	}
	for _, f := range s.fetched {
		done = max(done, e.l2.read(start, s.id, f.Line, f.Fetch, false))
	}
	return done
}

func (s *timedSM) texture(w *format.Warp, i int, in *timedInst, t int64, texel int) int64 {
	e := s.e
	s.fetched = s.fetched[:0]
	r := s.tex.Access(e.addrs(w, i), texel)
	start := s.lsu.Reserve(t, max(r.Lines, 1), e.lsuCyc)
	done := start + int64(e.lat.Texture)
	for _, f := range s.fetched {
		d := e.l2.read(start, s.id, f.Line, f.Fetch, false) + int64(e.lat.Texture)
		s.lsu.Miss(d)
		done = max(done, d)
	}
	return done
}

// mmaCost is an mma's tensor-pipe slots and latency on cfg (0 slots: cfg has no tensor
// cores for it), by its mmaClass, which it returns too.
func mmaCost(opcode string, cfg *arch.Config) (slots int, lat int64, class int) {
	switch class = mmaClass(opcode); class {
	case mmaF64:
		return cfg.SM.MMACyclesF64, int64(cfg.Latency.MMAF64), class
	case mmaK16:
		return cfg.SM.MMACyclesK16, int64(cfg.Latency.MMAK16), class
	}
	return cfg.SM.MMACyclesK8, int64(cfg.Latency.MMAK8), class
}

// mma cost classes: sm.mma_cycles_k8, _k16 and _f64 with their latencies.
const (
	mmaK8 = iota
	mmaK16
	mmaF64
)

// mmaInputBits are the bits of an mma's input elements, by the type's name in PTX or
// SASS (lower case); f16 and bf16 are mmaClass's default.
var mmaInputBits = map[string]int{"tf32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8, "s4": 4, "u4": 4, "b1": 1}

// shapeDigits reads PTX m16n8k16 and SASS 16816 alike as "16816" (after the m): m, then
// n = 8, then k.
var shapeDigits = strings.NewReplacer("n", "", "k", "")

// mmaClass is an mma's cost class (PTX mma, SASS HMMA/IMMA/BMMA/DMMA): f64 (PTX .f64,
// SASS DMMA), else by its depth, k times its inputs' bits over 16 (f16 and bf16 16,
// tf32 32, s8 and u8 8, s4 and u4 4, b1 1): over 8 is k16, as an H100 runs m16n8k8.tf32
// and m16n8k32.s8 at m16n8k16.f16's latency and rate and m16n8k16.s8 at m16n8k8's
// (traces/hw/h100-2026-11-27-mma-more); Volta's HMMA.884 is k8. A shape it cannot read
// is k16.
func mmaClass(opcode string) int {
	parts := strings.Split(strings.ToLower(opcode), ".")
	if parts[0] == "dmma" || slices.Contains(parts, "f64") {
		return mmaF64
	}
	bits := 16
	if parts[0] == "imma" {
		bits = 8
	}
	if parts[0] == "bmma" {
		bits = 1
	}
	for _, p := range parts { // PTX: .atype is the first input type; SASS: a suffix
		if b, ok := mmaInputBits[p]; ok {
			bits = b
			break
		}
	}
	for _, part := range parts {
		shape := shapeDigits.Replace(strings.TrimPrefix(part, "m"))
		if len(shape) < 3 || strings.Trim(shape, "0123456789") != "" {
			continue
		}
		rest, ok := strings.CutPrefix(shape, "16")
		if !ok {
			rest, ok = strings.CutPrefix(shape, "8")
		}
		if n8, ok2 := strings.CutPrefix(rest, "8"); ok && ok2 {
			if k, err := strconv.Atoi(n8); err == nil {
				if k*bits > 8*16 {
					return mmaK16
				}
				return mmaK8
			}
		}
	}
	return mmaK16
}
