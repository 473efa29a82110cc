package replay

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"strings"
	"sync"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/coalesce"
	"github.com/gtrace/gtrace/models/constcache"
	"github.com/gtrace/gtrace/models/dram"
	"github.com/gtrace/gtrace/models/sched"
	"github.com/gtrace/gtrace/models/smem"
	"github.com/gtrace/gtrace/models/texcache"
)

// Options tune a replay. The zero value is valid.
type Options struct {
	// Workers is how many goroutines run the per-SM stage; 0 means GOMAXPROCS. With more
	// than one, the memory engine also serves the L2 on a goroutine of its own and
	// decodes the trace ahead. Results do not depend on it.
	Workers int
	// PerPC also reports every metric per instruction.
	PerPC bool
	// Progress, if set, is called with CTAs finished and CTAs in the kernel.
	Progress func(kernel, done, total int)
	// CTASpan, if set, is called by the timing engine as each CTA retires: its
	// kernel, SM and id, the cycle it started and the cycle its last warp finished (the
	// spans clock64 stamps give on a GPU).
	CTASpan func(kernel, sm, cta int, start, end int64)
	// Issue, if set, is called by the timing engine as each warp-instruction issues:
	// its kernel, SM, CTA, warp within the CTA, pc and cycle. A probe's clock reads
	// (mov from %clock64) give the cycles its stamps would give on a GPU.
	Issue func(kernel, sm, cta, warp int, pc uint32, t int64)
}

// Report is the outcome of replaying a trace on one architecture.
type Report struct {
	Arch, GPU, Name string
	Kernels         []KernelReport
}

// KernelReport holds one kernel launch's metrics.
type KernelReport struct {
	Name      string
	Launch    *format.Launch
	Occupancy arch.CTAOccupancy
	// SharedCarveout and L1Bytes are the per-SM split the replay used for this launch.
	SharedCarveout, L1Bytes int
	Metrics                 []Metric
	PerPC                   []PCReport // with Options.PerPC
}

// Metric returns the value of the named metric and whether the report has it.
func (k *KernelReport) Metric(name string) (float64, bool) { return metricIn(k.Metrics, name) }

// Metric returns the value of the named metric at this pc and whether it was counted.
func (p *PCReport) Metric(name string) (float64, bool) { return metricIn(p.Metrics, name) }

func metricIn(ms []Metric, name string) (float64, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// PCReport is one instruction's share of a kernel's metrics.
type PCReport struct {
	PC      uint32
	PTX     string
	Line    uint32
	Metrics []Metric
}

// roundQuantum is how many warp-instructions one SM issues per round before the L2 stage
// runs. Rounds are the unit of interleaving between SMs at the shared L2: smaller is finer
// and slower.
const roundQuantum = 256

// Memory replays every kernel of r through cfg's memory hierarchy and counts what each
// access costs there. It is functional: no cycles, only counts.
//
// Interleaving, which decides what the caches see, is deterministic and documented:
//   - CTAs go to SMs breadth-first (CTA i to SM i mod SMs) until each SM holds the
//     occupancy limit; afterwards, at the end of each round, SMs with a free slot take the
//     next CTAs in SM order.
//   - Within an SM, resident warps issue one warp-instruction each in turn (loose round
//     robin over CTA slots, then warps), until the SM has issued roundQuantum
//     warp-instructions in the round or all its warps wait or are done. A warp that
//     executes bar.sync waits until every unfinished warp of its CTA has.
//   - The L2 and DRAM then serve the round's L1 misses SM by SM, in order.
//
// Caches start cold for each kernel, as under ncu's default cache control.
func Memory(ctx context.Context, r *format.Reader, cfg *arch.Config, opts Options) (*Report, error) {
	return eachKernel(r, cfg, "replay", func(ki int) (*KernelReport, error) { return replayKernel(ctx, r, ki, cfg, opts) })
}

// eachKernel runs one engine over every launch of r, in order, into one report.
func eachKernel(r *format.Reader, cfg *arch.Config, verb string, run func(kernel int) (*KernelReport, error)) (*Report, error) {
	rep := &Report{Arch: cfg.Arch, GPU: cfg.GPU, Name: cfg.Name}
	meta := r.Meta()
	for ki := range meta.Launches {
		kr, err := run(ki)
		if err != nil {
			return nil, fmt.Errorf("%s %s on %s: %w", verb, meta.Launches[ki].Kernel, cfg.GPU, err)
		}
		rep.Kernels = append(rep.Kernels, *kr)
	}
	return rep, nil
}

type warpState struct {
	w     *format.Warp // its rows in window win of its CTA
	i     int          // the next of them
	win   int
	atBar bool
}

type ctaState struct {
	warps   []warpState
	live    int // warps with instructions left
	waiting int // live warps waiting at a barrier
	id      int
	// The CTA's row windows (format.Reader.Windows: one unless its warps are long), each
	// decoded while a live warp still has rows in it: memory follows the resident
	// warps' windows, not their whole streams.
	wins ctaWindows
}

// nextWindow moves warp j of c, out of rows in its window, on to its rows in the next
// window, and reports whether it has any; one without has finished, and leaves every
// window it had not passed.
func (c *ctaState) nextWindow(r *format.Reader, kernel, j int) (bool, error) {
	ws := &c.warps[j]
	if n := ws.win + 1; n < len(c.wins) {
		if c.wins[n].views == nil {
			if err := c.wins.view(r, kernel, c.id, n); err != nil {
				return false, err
			}
		}
		c.wins.leave(ws.win)
		ws.win, ws.w, ws.i = n, c.wins[n].views[j], 0
		if ws.w.Len() > 0 {
			return true, nil
		}
	}
	for k := ws.win; k < len(c.wins); k++ {
		c.wins.leave(k)
	}
	ws.w, ws.i = noRows, 0
	return false, nil
}

// moveOn moves warp j of c, out of rows in its window, on to the next window, and reports
// whether it has rows left; an error stops the SM.
func (s *smState) moveOn(r *format.Reader, kernel int, c *ctaState, j int) bool {
	more, err := c.nextWindow(r, kernel, j)
	if err != nil {
		s.err = err
	}
	return more
}

// releaseCTAs gives back the batches of the SM's resident CTAs: at the end of a kernel
// that stopped early (an error or a cancelled context) some are still resident.
func (s *smState) releaseCTAs() {
	for _, c := range s.ctas {
		c.wins.release()
	}
	s.ctas = nil
}

type l2op uint8

const (
	l2Read l2op = iota
	l2Write
	l2Atom
	l2Red
)

type l2req struct {
	line uint64
	mask uint8
	op   l2op
	pc   uint32
	// lsu marks a load from the LSU pipe (global or local through L1), whose misses bring
	// in the whole l2.fetch_bytes block. Texture and constant misses fetch the sectors
	// they ask for: on the H200, tex_random_tex's L2 hit rate (54.7%) is what 32-byte
	// fetches give (with 64-byte ones the model gave 75%).
	lsu bool
	// use holds, for each 32-byte chunk of the line, the bytes the requesting lanes
	// asked for (bit i = byte i); zero means unknown, taken as the whole chunk. DRAM
	// burst utilisation counts these bytes as the useful part of a fetched burst.
	use [4]uint32
}

// smState is one SM: its private caches and resident CTAs. Only its own goroutine touches
// it during the SM stage.
type smState struct {
	cfg  *arch.Config
	prog []format.Inst
	kind []instKind
	agg  []bool // per pc: an atomic ptxas aggregates per warp (Aggregated); nil: none
	// matrix: per pc, the lanes of an ldmatrix that give its rows (matrixLanes); nil: none
	matrix []uint32
	smModels
	ncPath bool // ld.global.nc goes through the read-only cache (Kepler)
	l1Glob bool // global loads allocate in L1

	ctas    []*ctaState
	pending []int      // CTA ids assigned, to be loaded at the start of the next SM stage
	pcs     []counters // per-pc counts of the worker running this SM in the current round
	l2q     []l2req
	l2spare []l2req // the queue the L2 stage may still be serving (l2Pipe)
	addrs   []uint64
	// haveAddrs: addrs holds the current global instruction's lanes (laneAddrs).
	haveAddrs bool
	curPC     uint32
	err       error
	done      int // CTAs finished in this round
}

// instKind is what the engine does with an instruction, decided once per program row.
type instKind uint8

const (
	ikPlain instKind = iota
	ikBarrier
	ikGlobal
	ikLocal
	ikShared
	ikConst
	ikParam
	ikTex
	ikGeneric
	ikConstBankRead // a special register that SASS reads from the constant bank
	ikS2R           // a special register that SASS reads with S2R (s2rRegister)
)

func classify(in *format.Inst) instKind {
	// PTX opcodes are lower case, SASS ones (a trace imported from Accel-Sim) upper case:
	// bar.sync and BAR.SYNC.DEFER_BLOCKING are the same barrier.
	op := strings.ToLower(in.Opcode)
	switch {
	case in.Class == format.ClassSync && (strings.HasPrefix(op, "bar.sync") || strings.HasPrefix(op, "barrier.sync") ||
		strings.HasPrefix(op, "bar.red") || strings.HasPrefix(op, "barrier.red") || op == "bar" || op == "barrier"):
		return ikBarrier
	case in.MemOp == format.MemNone:
		// %ntid and %nctaid live in constant bank 0 in SASS: reading one is an LDC/ULDC.
		if strings.HasPrefix(op, "mov") && (strings.Contains(in.PTX, "%ntid") || strings.Contains(in.PTX, "%nctaid")) {
			return ikConstBankRead
		}
		if (strings.HasPrefix(op, "mov") && s2rRegister(lastOperand(in.PTX))) || op == "s2r" {
			return ikS2R
		}
		return ikPlain
	}
	switch in.Space {
	case format.SpaceGlobal:
		return ikGlobal
	case format.SpaceLocal:
		return ikLocal
	case format.SpaceShared:
		return ikShared
	case format.SpaceConst:
		return ikConst
	case format.SpaceParam:
		return ikParam
	case format.SpaceTexture:
		return ikTex
	case format.SpaceGeneric:
		return ikGeneric
	}
	return ikPlain
}

// smModels are one SM's memory components, the same for the memory and timing engines.
type smModels struct {
	l1      *cache.Sectored
	tex     *texcache.Cache
	cc      *constcache.Cache
	banks   *smem.Banks
	coal    *coalesce.Coalescer // global accesses, the arch's rule
	sectors *coalesce.Coalescer // local accesses, always 32-byte sectors
}

// newSMModels builds an SM's components from cfg. With timedFills the L1 and texture
// caches get no MSHRs (fills land at once in the functional cache; a timing engine keeps
// their arrival times itself). fetch receives every sector the texture and constant
// caches read from L2.
func newSMModels(cfg *arch.Config, timedFills bool, fetch func(line uint64, sectors uint8)) (smModels, error) {
	var m smModels
	l1, tex := cfg.L1.Config, cfg.Tex
	if timedFills {
		l1.MSHRs, tex.MSHRs = 0, 0
	}
	var err error
	if m.l1, err = cache.New(l1); err != nil {
		return m, fmt.Errorf("l1: %w", err)
	}
	if m.tex, err = texcache.New(tex); err != nil {
		return m, fmt.Errorf("tex: %w", err)
	}
	if m.cc, err = constcache.New(constcache.Config{L1: cfg.Const.L1, L15: cfg.Const.L15}); err != nil {
		return m, fmt.Errorf("const: %w", err)
	}
	if m.banks, err = smem.New(cfg.Shared.Banks, cfg.Shared.BankWidth); err != nil {
		return m, fmt.Errorf("shared: %w", err)
	}
	if m.coal, err = coalesce.New(cfg.GlobalLoadMode()); err != nil {
		return m, err
	}
	if m.sectors, err = coalesce.New(coalesce.Sectors32); err != nil {
		return m, err
	}
	m.tex.OnFetch(inL2Lines(cfg.L2.Line, fetch))
	m.cc.OnFetch(inL2Lines(cfg.L2.Line, fetch))
	return m, nil
}

// inL2Lines passes fetch a texture or constant cache's read in the L2's lines. The
// cache gives its own line and a mask of 32-byte chunks counted from it; a line shorter
// than the L2's may start inside one of the L2's (a 64-byte constant line at 0x40 is
// chunks 2 and 3 of the L2's line at 0x00), and a longer one spans two (a 256-byte
// one): each L2 line it touches gets one request, with the chunks where they are in it.
func inL2Lines(l2Line int, fetch func(line uint64, sectors uint8)) func(line uint64, sectors uint8) {
	size := uint64(l2Line)
	per := size / cache.Chunk
	full := uint16(1)<<per - 1
	return func(line uint64, mask uint8) {
		for m := uint16(mask); m != 0; {
			base := line - line%size
			off := (line - base) / cache.Chunk
			if in := uint8(m << off & full); in != 0 {
				fetch(base, in)
			}
			m >>= per - off
			line = base + size
		}
	}
}

func newSM(cfg *arch.Config, prog []format.Inst, kinds []instKind, agg []bool, matrix []uint32) (*smState, error) {
	s := &smState{cfg: cfg, prog: prog, kind: kinds, agg: agg, matrix: matrix, addrs: make([]uint64, 0, 32)}
	var err error
	s.smModels, err = newSMModels(cfg, false, func(line uint64, sectors uint8) {
		s.l2q = append(s.l2q, l2req{line: line, mask: sectors, op: l2Read, pc: s.curPC})
	})
	if err != nil {
		return nil, err
	}
	s.ncPath = cfg.Arch == "kepler"
	s.l1Glob = cfg.L1.CacheGlobal
	return s, nil
}

// step issues warp w's next instruction.
func (s *smState) step(ws *warpState) {
	w := ws.w
	i := ws.i
	ws.i++
	pc := w.PC[i]
	mask := w.Mask[i]
	if int(pc) >= len(s.prog) {
		s.err = fmt.Errorf("warp %d of CTA %d: pc %d outside the program table (%d rows)", w.Warp, w.CTA, pc, len(s.prog))
		return
	}
	s.curPC = pc
	// Every count lands on the instruction that caused it; kernel totals are the sum.
	c := &s.pcs[pc]
	c.Inst++
	c.ThreadInst += popc(mask)
	in := &s.prog[pc]
	k := s.kind[pc]
	if k == ikGeneric {
		k = s.resolveGeneric(w, i)
	}
	switch k {
	case ikBarrier:
		ws.atBar = true
	case ikConstBankRead, ikParam:
		// Uniform constant-bank read (kernel parameters, launch geometry): one request.
		c.CReq++
		c.CHit++
	case ikGlobal:
		s.global(c, in, w, i)
	case ikLocal:
		s.local(c, in, w, i)
	case ikShared:
		s.shared(c, in, w, i)
	case ikConst:
		s.addrs = w.Addrs(i, s.addrs[:0])
		r := s.cc.Access(s.addrs, max(int(in.Width), 1))
		c.CReq += uint64(r.Requests)
		c.CHit += uint64(r.L1Hits)
	case ikTex:
		s.addrs = w.Addrs(i, s.addrs[:0])
		r := s.tex.Access(s.addrs, texelBytes(in))
		c.TReq++
		c.TSec += uint64(r.Sectors)
		c.THit += uint64(r.Hits)
	}
}

// texelBytes is the size of one texel fetch: the texture's element size is not in the
// instruction, so it is taken as the instruction's per-component width (tex.2d.v4.f32
// fetches one 4-byte texel of a float texture, and so on).
func texelBytes(in *format.Inst) int {
	if in.Width >= 4 {
		return int(in.Width) / 4
	}
	return 4
}

// resolveGeneric decides the space a generic access reached from its first active lane's
// address, by the trace's address map.
func (s *smState) resolveGeneric(w *format.Warp, i int) instKind {
	s.addrs = w.Addrs(i, s.addrs[:0])
	return genericKind(s.addrs)
}

// genericKind is the engine's kind for a generic access whose active lanes' addresses are
// addrs: the space of the first one, by the trace's address map (both engines use it).
func genericKind(addrs []uint64) instKind {
	if len(addrs) == 0 {
		return ikPlain
	}
	switch format.SpaceOfGeneric(addrs[0]) {
	case format.SpaceShared:
		return ikShared
	case format.SpaceLocal:
		return ikLocal
	case format.SpaceConst:
		return ikConst
	}
	return ikGlobal
}

// coalesceGlobal splits row i of warp w, a global access whose active lanes' addresses
// are addrs, into requests and sectors, as both engines do: a cp.async.cg whose lanes
// repeat a destination a unit per distinct destination (coalesce.Serial), an atomic or a reduction
// takes a pass per same-address round (coalesce.Atomic), or one pass by its first lane
// when ptxas aggregates it (agg, aggregate.go), a load or a store the
// coalescer's requests, found from the row's base and stride when the trace stores it so
// (addrs may then be nil: globalNeedsAddrs says when they are read).
func coalesceGlobal(c *coalesce.Coalescer, op format.MemOp, cache format.CacheOp, w *format.Warp, i int, addrs []uint64, width int, agg bool) coalesce.Result {
	if op == format.MemLoad && cache == format.CacheCG {
		if kept, ok := copyDistinct(addrs, w.CopyDests(i)); ok {
			return c.Serial(kept.addrs[:kept.n], width)
		}
	}
	if op == format.MemAtomic || op == format.MemReduce {
		if agg && len(addrs) > 1 {
			addrs = addrs[:1]
		}
		return c.Atomic(addrs, width)
	}
	switch w.Mode[i] {
	case format.AddrStride: // the rows globalNeedsAddrs leaves out
		return c.Strided(w.Mask[i], w.Base[i], w.Stride[i], width, op == format.MemStore)
	case format.AddrUniform:
		return c.Strided(w.Mask[i], w.Base[i], 0, width, op == format.MemStore)
	}
	return c.Coalesce(w.Mask[i], addrs, width, op == format.MemStore)
}

// globalNeedsAddrs reports whether coalesceGlobal reads the lanes' addresses of row i of
// w for op and cache: atomics, gathers (deltas) and cp.async.cg rows with their
// destinations need them, other strided and uniform rows do not.
func globalNeedsAddrs(op format.MemOp, cache format.CacheOp, w *format.Warp, i int) bool {
	mode := w.Mode[i]
	return op == format.MemAtomic || op == format.MemReduce || (mode != format.AddrStride && mode != format.AddrUniform) ||
		cache == format.CacheCG && len(w.CopyDests(i)) != 0
}

// keptLanes is the sources of the lanes copyDistinct keeps.
type keptLanes struct {
	addrs [32]uint64
	n     int
}

// copyDistinct is, for a cp.async row whose active lanes read srcs and write the
// destinations in dst (format.Warp.CopyDests), the sources of the first lane of each
// distinct destination, and whether any destination repeats (false when none does, or
// when the row has no destinations: callers then take every lane).
func copyDistinct(srcs []uint64, dst []int32) (kept keptLanes, repeats bool) {
	if len(dst) == 0 || len(dst) != 2*len(srcs) {
		return kept, false
	}
	for l := range srcs {
		seen := false
		for m := 0; m < l && !seen; m++ {
			seen = dst[2*m] == dst[2*l]
		}
		if !seen {
			kept.addrs[kept.n] = srcs[l]
			kept.n++
		}
	}
	return kept, kept.n < len(srcs)
}

func memKindOf(in *format.Inst) memKind {
	switch in.MemOp {
	case format.MemStore:
		return kSt
	case format.MemAtomic:
		return kAtom
	case format.MemReduce:
		return kRed
	}
	return kLd
}

// laneAddrs returns the active lanes' addresses of the instruction global is on (row i
// of w), expanding them at the first call: a strided row that hits in L1 needs none.
func (s *smState) laneAddrs(w *format.Warp, i int) []uint64 {
	if !s.haveAddrs {
		s.addrs, s.haveAddrs = w.Addrs(i, s.addrs[:0]), true
	}
	return s.addrs
}

func (s *smState) global(c *counters, in *format.Inst, w *format.Warp, i int) {
	s.haveAddrs = false
	k := memKindOf(in)
	width := max(int(in.Width), 1)
	var addrs []uint64
	if globalNeedsAddrs(in.MemOp, in.CacheOp, w, i) {
		addrs = s.laneAddrs(w, i)
	}
	r := coalesceGlobal(s.coal, in.MemOp, in.CacheOp, w, i, addrs, width, s.agg != nil && s.agg[s.curPC])
	c.GReq[k] += uint64(r.Requests)
	c.GSec[k] += uint64(r.Sectors)
	nc := k == kLd && in.CacheOp == format.CacheNC && s.ncPath // through the texture path, not the LSU's
	if !nc {
		c.LSUWave += lsuWavefronts(r.Requests, r.Sectors)
	}
	if k == kLd || k == kSt {
		c.GTrans[k] += uint64(r.Transactions)
		c.GUseful[k] += uint64(r.UsefulBytes)
		c.GBus[k] += uint64(r.BusBytes())
	}
	switch {
	case nc:
		t := s.tex.Access(s.laneAddrs(w, i), width)
		c.NCSec += uint64(t.Sectors)
		c.NCHit += uint64(t.Hits)
	case k == kLd:
		if dst := w.CopyDests(i); len(dst) != 0 {
			wave, ideal := copyWavefronts(s.banks, s.laneAddrs(w, i), dst, width, in.CacheOp == format.CacheCG)
			c.CpWave += uint64(wave)
			c.CpConf += uint64(wave - ideal)
		}
		cached := s.l1Glob && in.CacheOp != format.CacheCG && in.CacheOp != format.CacheCV && in.CacheOp != format.CacheVolatile
		for _, u := range r.Units() {
			q := l2req{line: u.Line, mask: u.Sectors, op: l2Read, pc: s.curPC, lsu: true}
			if cached {
				res := s.l1.Access(u.Line, u.Sectors, cache.Load)
				c.GLdHit += popc8(res.Hit | res.Merged)
				if q.mask = res.Fetch; q.mask == 0 {
					continue
				}
			}
			q.use = s.rowUse(w, i, u.Line, width)
			s.l2q = append(s.l2q, q)
		}
	case k == kSt:
		for _, u := range r.Units() {
			if s.l1Glob {
				res := s.l1.Access(u.Line, u.Sectors, cache.Store)
				// A store to a resident sector is a lookup hit, as ncu counts it (L1
				// writes through and updates the line).
				c.GStHit += popc8(res.Hit)
				if res.Forward != 0 {
					s.l2q = append(s.l2q, s.storeReq(w, i, u.Line, res.Forward, width))
				}
				continue
			}
			s.l2q = append(s.l2q, s.storeReq(w, i, u.Line, u.Sectors, width))
		}
	default: // atomics and reductions are performed at L2
		op := l2Atom
		if k == kRed {
			op = l2Red
		}
		for _, u := range r.Units() {
			s.l2q = append(s.l2q, l2req{line: u.Line, mask: u.Sectors, op: op, pc: s.curPC})
		}
	}
}

// storeReq is the L2 request of a global store's sectors in mask of line, with the bytes
// the lanes write where the L2 needs them: storeBytes' rule (only l2.partial_fill), the
// bytes from rowUse, which expands the lanes' addresses only if it must.
func (s *smState) storeReq(w *format.Warp, i int, line uint64, mask uint8, width int) l2req {
	q := l2req{line: line, mask: mask, op: l2Write, pc: s.curPC}
	if s.cfg.L2.PartialFill {
		q.use = s.rowUse(w, i, line, width)
	}
	return q
}

func (s *smState) local(c *counters, in *format.Inst, w *format.Warp, i int) {
	s.addrs = w.Addrs(i, s.addrs[:0])
	st := in.MemOp == format.MemStore
	j := 0
	op := cache.Load
	if st {
		j, op = 1, cache.Store
	}
	r := s.sectors.Coalesce(w.Mask[i], s.addrs, max(int(in.Width), 1), st)
	c.LReq[j] += uint64(r.Requests)
	c.LSec[j] += uint64(r.Sectors)
	c.LSUWave += lsuWavefronts(r.Requests, r.Sectors)
	for _, u := range r.Units() {
		res := s.l1.Access(u.Line, u.Sectors, op)
		if !st {
			c.LHit += popc8(res.Hit | res.Merged)
		}
		if res.Fetch != 0 {
			s.l2q = append(s.l2q, l2req{line: u.Line, mask: res.Fetch, op: l2Read, pc: s.curPC, lsu: true})
		}
		if res.Forward != 0 {
			s.l2q = append(s.l2q, l2req{line: u.Line, mask: res.Forward, op: l2Write, pc: s.curPC})
		}
		if res.EvictDirty != 0 {
			s.l2q = append(s.l2q, l2req{line: res.EvictLine, mask: res.EvictDirty, op: l2Write, pc: s.curPC})
		}
	}
}

func (s *smState) shared(c *counters, in *format.Inst, w *format.Warp, i int) {
	s.addrs = w.Addrs(i, s.addrs[:0])
	var lanes uint32
	if s.matrix != nil {
		lanes = s.matrix[s.curPC]
	}
	mask, addrs := narrowLanes(w.Mask[i], s.addrs, lanes)
	r := sharedAccess(s.banks, in.MemOp, mask, addrs, max(int(in.Width), 1))
	if lanes != 0 { // an ldmatrix: wavefronts and conflicts as a shared load's, no instruction
		c.SWave[0] += uint64(r.Wavefronts)
		c.SIdeal[0] += uint64(r.Ideal)
		return
	}
	j := 0
	switch in.MemOp {
	case format.MemStore:
		j = 1
	case format.MemAtomic, format.MemReduce:
		j = 2
	}
	c.SReq[j]++
	c.SWave[j] += uint64(r.Wavefronts)
	c.SIdeal[j] += uint64(r.Ideal)
	if j < 2 && r.Ways < len(c.SWays) {
		c.SWays[r.Ways]++
	}
}

// usedBytes marks, for each 32-byte chunk of the 128-byte line at line, the bytes that
// the lanes' accesses of width bytes at addrs touch.
func usedBytes(line uint64, addrs []uint64, width int) (use [4]uint32) {
	for _, a := range addrs {
		useRange(&use, line, a, a+uint64(width))
	}
	return use
}

// useRange marks in use the bytes of [a, b) that lie in the 128-byte line at line.
func useRange(use *[4]uint32, line, a, b uint64) {
	end := line + 128
	if b <= line || a >= end {
		return
	}
	// [lo, hi) within the line, a chunk at a time (one, unless it straddles chunks).
	lo, hi := max(a, line)-line, min(b, end)-line
	for lo < hi {
		n := min(hi, lo|31+1) - lo
		use[lo/32] |= uint32((uint64(1)<<n - 1) << (lo % 32))
		lo += n
	}
}

// rowUse is usedBytes for row i of w, a global access of width bytes per lane: when its
// active lanes are one run, each reading the bytes after the last (a stride of width),
// they read one range, marked at once.
func (s *smState) rowUse(w *format.Warp, i int, line uint64, width int) (use [4]uint32) {
	if m := w.Mask[i]; w.Mode[i] == format.AddrStride && w.Stride[i] == int64(width) && m != 0 && m&(m+m&-m) == 0 {
		a := w.Base[i] + uint64(width*bits.TrailingZeros32(m))
		if b := a + uint64(width*bits.OnesCount32(m)); b > a {
			useRange(&use, line, a, b)
			return use
		}
	}
	return usedBytes(line, s.laneAddrs(w, i), width)
}

// runRound issues up to roundQuantum warp-instructions on the SM.
func (s *smState) runRound(r *format.Reader, kernel int) {
	for _, id := range s.pending {
		c := &ctaState{id: id, wins: make([]ctaWindow, max(1, r.Windows(kernel, id)))}
		if err := c.wins.view(r, kernel, c.id, 0); err != nil {
			s.err = err
			return
		}
		c.warps = make([]warpState, len(c.wins[0].views))
		for j, w := range c.wins[0].views {
			c.warps[j].w = w
			if w.Len() > 0 {
				c.live++
			} else {
				c.warps[j].w = noRows
			}
		}
		for j := range c.wins {
			c.wins[j].pending = c.live
		}
		s.ctas = append(s.ctas, c)
	}
	s.pending = s.pending[:0]
	issued := 0
	for issued < roundQuantum && s.err == nil {
		progress := false
		for _, c := range s.ctas {
			for j := range c.warps {
				ws := &c.warps[j]
				if ws.atBar || ws.i >= ws.w.Len() {
					continue
				}
				s.step(ws)
				issued++
				progress = true
				if ws.atBar {
					c.waiting++
				}
				if ws.i >= ws.w.Len() && !s.moveOn(r, kernel, c, j) {
					c.live--
					if ws.atBar {
						ws.atBar = false
						c.waiting--
					}
				}
				if c.waiting > 0 && c.waiting == c.live {
					for k := range c.warps {
						c.warps[k].atBar = false
					}
					c.waiting = 0
				}
			}
		}
		// Retire finished CTAs.
		kept := s.ctas[:0]
		for _, c := range s.ctas {
			if c.live > 0 {
				kept = append(kept, c)
			} else {
				c.wins.release()
				s.done++
			}
		}
		for k := len(kept); k < len(s.ctas); k++ {
			s.ctas[k] = nil
		}
		s.ctas = kept
		if !progress {
			break
		}
	}
}

// sharedAccess is one warp's shared-memory instruction in the bank model, as both
// engines do: atomics and reductions serialise lanes on one word (smem.Banks.Atomic).
func sharedAccess(b *smem.Banks, op format.MemOp, mask uint32, addrs []uint64, width int) smem.Result {
	if op == format.MemAtomic || op == format.MemReduce {
		return b.Atomic(mask, addrs, width)
	}
	return b.Access(mask, addrs, width)
}

// copyWavefronts is the shared side of a cp.async (SASS LDGSTS) whose active lanes read
// width bytes each from srcs and write them to the shared destinations in dst (pairs:
// destination, source bytes; format.Warp.CopyDests): its wavefronts, and the ideal
// count that ncu's op_ldgsts bank conflicts are the rest of. An H100 (scripts/hw/probe.sh
// ldgsts, TestLdgstsProbeCounts) writes each 128-byte source line's lanes in a pass of
// their own, a pass taking as many wavefronts as the most lanes on one bank, with lanes
// on one destination counted apart (a store would merge them); the ideal is the
// copy's bytes over the banks' width. cp.async.cg counts no conflicts, and when two
// lanes share a destination it takes one wavefront per distinct destination.
func copyWavefronts(b *smem.Banks, srcs []uint64, dst []int32, width int, cg bool) (wave, ideal int) {
	n := len(srcs)
	if n == 0 || len(dst) != 2*n {
		return 0, 0
	}
	if cg {
		if kept, repeats := copyDistinct(srcs, dst); repeats {
			return kept.n, kept.n
		}
	}
	var done uint32
	var group [32]uint64 // one source line's destinations
	for l := 0; l < n; l++ {
		if done>>l&1 != 0 {
			continue
		}
		line, g := srcs[l]/coalesce.LineBytes, 0
		for m := l; m < n; m++ {
			if srcs[m]/coalesce.LineBytes == line {
				done |= 1 << m
				group[g] = uint64(uint32(dst[2*m]))
				g++
			}
		}
		wave += b.Spread(group[:g], width)
	}
	if cg {
		return wave, wave
	}
	pass := b.PassBytes()
	return wave, (n*width + pass - 1) / pass
}

// matrixLanes is, per pc, the lanes that take part in an ldmatrix (SASS LDSM): those
// whose addresses give its rows, 8 per matrix (.x1 lanes 0-7, .x2 0-15, .x4 all); 0
// for every other instruction, and nil when the program has no ldmatrix. An H100 counts
// an ldmatrix's wavefronts and bank conflicts over those lanes, with the shared loads',
// but no shared-load instruction for it (scripts/hw/probe.sh ldsm, TestLdsmProbeCounts).
func matrixLanes(prog []format.Inst) []uint32 {
	var lanes []uint32
	for pc := range prog {
		op := prog[pc].Opcode
		if !strings.HasPrefix(op, "ldmatrix") && !strings.HasPrefix(op, "LDSM") {
			continue
		}
		if lanes == nil {
			lanes = make([]uint32, len(prog))
		}
		switch {
		case strings.Contains(op, ".x4") || strings.HasSuffix(op, ".4"):
			lanes[pc] = 0xffffffff
		case strings.Contains(op, ".x2") || strings.HasSuffix(op, ".2"):
			lanes[pc] = 0xffff
		default:
			lanes[pc] = 0xff
		}
	}
	return lanes
}

// narrowLanes keeps of a shared access by the lanes in mask, whose addresses are addrs
// in lane order, those in lanes (matrixLanes) when lanes is not 0.
func narrowLanes(mask uint32, addrs []uint64, lanes uint32) (uint32, []uint64) {
	if lanes == 0 {
		return mask, addrs
	}
	mask &= lanes
	return mask, addrs[:min(bits.OnesCount32(mask), len(addrs))]
}

// l2State is the shared L2 (in slices) and DRAM of the chip.
type l2State struct {
	fetchSectors uint // sectors a read miss brings in: l2.fetch_bytes / 32 (1, 2 or 4)
	chip         *l2Chip
	dram         *dram.Model
	pcs          []counters // per-pc counts of the L2 and DRAM
	perSlice     []uint64   // sectors of the SMs' requests each slice took (where they entered)
}

// sliceImbalance is max over mean of the sectors the slices took (dram.Imbalance). ncu's
// per-LTS instances give the same ratio as lts__t_sectors_srcunit_tex.max / .avg.
func (l *l2State) sliceImbalance() float64 { return dram.Imbalance(l.perSlice) }

// fetchBlock widens a mask of missing sectors to the aligned blocks of sectors sectors
// holding them (l2.fetch_bytes / 32); both engines' L2s use it.
func fetchBlock(miss uint8, sectors uint) uint8 {
	if sectors <= 1 {
		return miss
	}
	var out uint8
	group := uint8(1)<<sectors - 1
	for b := uint(0); b < 8; b += sectors {
		if miss&(group<<b) != 0 {
			out |= group << b
		}
	}
	return out
}

// serve runs SM sm's requests of one round through the L2, in order.
func (l *l2State) serve(sm int, reqs []l2req) {
	for i := range reqs {
		q := &reqs[i]
		c := &l.pcs[q.pc]
		n := popc8(q.mask)
		switch q.op {
		case l2Read:
			slice, res, _, fetch := l.chip.load(sm, q.line, q.mask)
			l.perSlice[slice] += uint64(n)
			c.L2Read += n
			c.L2Hit += popc8(res.Hit | res.Merged)
			for b := uint64(0); b < 8; b++ {
				if fetch&(1<<b) != 0 {
					l.fetch(q.line+b*cache.Chunk, q.useOf(b))
					c.DRAMRead += cache.Chunk
				}
			}
			// A miss brings in the whole fetch block around each missing sector; the
			// neighbours cost DRAM bursts but serve no request yet.
			if extra := fetchBlock(fetch, l.fetchSectors) &^ q.mask; q.lsu && extra != 0 && fetch != 0 {
				if _, _, _, more := l.chip.load(sm, q.line, extra); more != 0 {
					for b := uint64(0); b < 8; b++ {
						if more&(1<<b) != 0 {
							l.dram.Move(q.line+b*cache.Chunk, cache.Chunk, false)
							c.DRAMRead += cache.Chunk
						}
					}
				}
			}
		case l2Write, l2Atom, l2Red:
			// NVIDIA's L2 takes a written sector without fetching it (byte-masked), and
			// ncu counts such a write as a hit: on an H200 a kernel that stores 131072
			// cold sectors and loads 131072 cold ones shows a 51.8% L2 hit rate.
			slice, res := l.chip.store(q.line, q.mask, &q.use)
			l.perSlice[slice] += uint64(n)
			if q.op == l2Write {
				c.L2Write += n
				c.L2Hit += n
			} else {
				if q.op == l2Red {
					c.L2Red += n
				} else {
					c.L2Atom += n
				}
				c.L2Hit += popc8(res.Hit | res.Merged)
				for b := uint64(0); b < 8; b++ {
					if res.Fetch&(1<<b) != 0 {
						l.dram.Access(q.line+b*cache.Chunk, cache.Chunk, false)
						c.DRAMRead += cache.Chunk
					}
				}
			}
		}
		l.writeBack(c)
	}
}

// l2Pipe hands each round's L2 requests to the L2 stage. The L2 serves them round after
// round and, within a round, SM by SM in SM order, the order the documented interleaving
// fixes. In the memory engine nothing an SM does depends on the L2 (its L1, its CTAs and
// its counts are its own), so with more than one worker the L2 serves round r on a
// goroutine of its own while the SMs run round r+1: the same requests in the same order,
// so the same counts for any worker count.
type l2Pipe struct {
	l2     *l2State
	work   chan []l2work // unbuffered: a send returns once the L2 is done with the round before
	done   chan struct{}
	batch  [2][]l2work // the round being served and the one being filled, alternately
	turn   int
	closed bool
}

// l2work is one SM's requests of one round.
type l2work struct {
	sm int
	q  []l2req
}

func newL2Pipe(l2 *l2State, async bool) *l2Pipe {
	p := &l2Pipe{l2: l2}
	if async {
		p.work, p.done = make(chan []l2work), make(chan struct{})
		go func() {
			defer close(p.done)
			for b := range p.work {
				for _, w := range b {
					l2.serve(w.sm, w.q)
				}
			}
		}()
	}
	return p
}

// send gives the L2 the round's requests of every SM and gives each SM an empty queue.
// Asynchronously, each SM's queue alternates between two buffers: when send returns,
// the L2 has taken this round and finished the one before, whose buffers the SMs get.
func (p *l2Pipe) send(sms []*smState) {
	if p.work == nil {
		for sm, s := range sms {
			if len(s.l2q) > 0 {
				p.l2.serve(sm, s.l2q)
				s.l2q = s.l2q[:0]
			}
		}
		return
	}
	b := p.batch[p.turn][:0]
	for sm, s := range sms {
		if len(s.l2q) > 0 {
			b = append(b, l2work{sm, s.l2q})
		}
	}
	p.batch[p.turn] = b
	if len(b) == 0 {
		return
	}
	p.work <- b
	p.turn ^= 1
	for _, s := range sms {
		if len(s.l2q) > 0 {
			s.l2q, s.l2spare = s.l2spare[:0], s.l2q
		}
	}
}

// close waits for the L2 to serve every round sent; later calls do nothing.
func (p *l2Pipe) close() {
	if p.work != nil && !p.closed {
		close(p.work)
		<-p.done
	}
	p.closed = true
}

func (q *l2req) useOf(chunk uint64) uint32 {
	if chunk < uint64(len(q.use)) {
		return q.use[chunk]
	}
	return 0
}

// fetch reads one 32-byte sector from DRAM; use marks the bytes the request that missed
// asked for (0: all of them), each contiguous run of which counts as useful.
func (l *l2State) fetch(addr uint64, use uint32) {
	if use == 0 {
		l.dram.Access(addr, cache.Chunk, false)
		return
	}
	for use != 0 {
		lo := bits.TrailingZeros32(use)
		run := bits.TrailingZeros32(^(use >> lo))
		l.dram.Access(addr+uint64(lo), run, false)
		if lo+run >= 32 {
			break
		}
		use &^= (1<<run - 1) << lo
	}
}

// writeBack moves the sectors the L2 let go of during the last request to DRAM.
func (l *l2State) writeBack(c *counters) {
	l.chip.drain(func(addr uint64, write bool) {
		l.dram.Access(addr, cache.Chunk, write)
		if write {
			c.DRAMWrite += cache.Chunk
		} else {
			c.DRAMRead += cache.Chunk
		}
	})
}

func replayKernel(ctx context.Context, r *format.Reader, ki int, base *arch.Config, opts Options) (*KernelReport, error) {
	l := &r.Meta().Launches[ki]
	cfg, occ, err := kernelConfig(base, l)
	if err != nil {
		return nil, err
	}
	if err := checkModelMemory(cfg, occ, l.WarpsPerCTA(), false); err != nil {
		return nil, err
	}
	prog := l.Program.Insts
	kinds := make([]instKind, len(prog))
	for i := range prog {
		kinds[i] = classify(&prog[i])
	}
	agg := Aggregated(l.Program, l.PTXProducer, cfg)
	matrix := matrixLanes(prog)
	nsm := cfg.SM.Count
	sms := make([]*smState, nsm)
	for i := range sms {
		if sms[i], err = newSM(cfg, prog, kinds, agg, matrix); err != nil {
			return nil, err
		}
	}
	defer func() {
		for _, s := range sms {
			s.releaseCTAs()
		}
	}()
	l2 := &l2State{fetchSectors: uint(max(cfg.L2.FetchBytes/cache.Chunk, 1))}
	if l2.chip, err = newL2Chip(cfg, nsm, cfg.L2.Slice()); err != nil {
		return nil, err
	}
	if l2.dram, err = dram.New(cfg.DRAM.Config); err != nil {
		return nil, fmt.Errorf("dram: %w", err)
	}
	l2.pcs = make([]counters, len(prog))
	l2.perSlice = make([]uint64, len(l2.chip.slices))

	grid := sched.Grid{Total: r.NumCTAs(ki)}
	resident := make([]int, nsm)
	place := func(sm int) {
		id, _ := grid.Take()
		sms[sm].pending = append(sms[sm].pending, id)
		resident[sm]++
	}
	// Breadth-first initial placement.
	sched.Spread(grid.Total, nsm, occ.CTAsPerSM, place)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, nsm)
	// Each worker counts into its own per-pc array; integer sums do not depend on which
	// worker counted what, so the totals are the same for any worker count.
	workerPCs := make([][]counters, workers)
	for w := range workerPCs {
		workerPCs[w] = make([]counters, len(prog))
	}
	pipe := newL2Pipe(l2, workers > 1)
	defer pipe.close()
	for grid.Retired() < grid.Total {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for sm := w; sm < nsm; sm += workers {
					if resident[sm] > 0 || len(sms[sm].pending) > 0 {
						sms[sm].pcs = workerPCs[w]
						sms[sm].runRound(r, ki)
					}
				}
			}(w)
		}
		wg.Wait()
		progressed := false
		for _, s := range sms {
			if s.err != nil {
				return nil, s.err
			}
		}
		pipe.send(sms)
		for sm, s := range sms {
			if s.done > 0 {
				progressed = true
			}
			grid.Retire(s.done)
			resident[sm] -= s.done
			s.done = 0
			for resident[sm] < occ.CTAsPerSM && grid.Left() > 0 {
				place(sm)
				progressed = true
			}
		}
		if workers > 1 {
			next, _ := grid.Peek()
			r.Prefetch(ki, next) // the batch the next CTAs come from, decoded meanwhile
		}
		if opts.Progress != nil && progressed {
			opts.Progress(ki, grid.Retired(), grid.Total)
		}
	}

	pipe.close() // the L2's counts are complete once it has served the last round
	perPC := make([]counters, len(prog))
	var sum counters
	weights, own, _ := sassEstimate(l.Program, l.PTXProducer, cfg.CC, agg)
	for pc := range prog {
		for _, wp := range workerPCs {
			perPC[pc].add(&wp[pc])
		}
		perPC[pc].add(&l2.pcs[pc])
		perPC[pc].SASS = sassCount(perPC[pc].Inst, weights, pc)
		perPC[pc].SASSThread = sassCount(perPC[pc].ThreadInst, weights, pc)
		sum.add(&perPC[pc])
	}
	sum.DRAMRead += launchReadBytes(l.Program, own, cfg)
	kr := &KernelReport{Name: l.Kernel, Launch: l, Occupancy: occ, SharedCarveout: cfg.Shared.Size, L1Bytes: cfg.L1.Size}
	kr.Metrics = sum.metrics()
	ds := l2.dram.Stats()
	kr.Metrics = append(kr.Metrics,
		Metric{"gtrace__dram_row_hit_rate.pct", ds.RowHitRate()},
		Metric{"gtrace__dram_burst_utilization.pct", ds.BurstUtilization()},
		Metric{"gtrace__dram_channel_imbalance", ds.ChannelImbalance()},
		Metric{"gtrace__l2_slice_imbalance", l2.sliceImbalance()},
		Metric{"gtrace__ctas_per_sm", float64(occ.CTAsPerSM)},
	)
	if opts.PerPC {
		for pc := range prog {
			if perPC[pc].Inst == 0 {
				continue
			}
			kr.PerPC = append(kr.PerPC, PCReport{PC: uint32(pc), PTX: prog[pc].PTX, Line: prog[pc].Line, Metrics: perPC[pc].metrics()})
		}
	}
	return kr, nil
}
