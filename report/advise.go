package report

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// Rule names, as `advise --format json` prints them. A script may rely on them.
const (
	RuleUncoalesced  = "uncoalesced"
	RuleAoS          = "aos-field-by-field"
	RuleBankConflict = "bank-conflicts"
	RuleTreeStride   = "reduction-interleaved-addressing"
	RuleDivergence   = "divergent-branch"
	RuleInterleaved  = "reduction-interleaved-threads"
	RuleAtomics      = "contended-atomics"
	RuleLatency      = "latency-bound"
	RuleMemLatency   = "memory-latency-bound"
	RuleTiling       = "untiled-reuse"
	RuleConstant     = "uniform-global-read"
	RuleTexture      = "2d-local-read"
)

// Seed documents a lesson cites (../shared/seeds/ in the repository that made gtrace).
const (
	seedHardware = "cuda-hardware-mapping-simt-memory-spaces"
	seedCoalesce = "cuda-performance-coalescing-banks-reduction"
	seedLayout   = "optimization-techniques-layout-scatter-tiling"
	seedVolkov   = "volkov-better-performance-at-lower-occupancy"
	seedTiling   = "memory-types-and-tiling"
)

// Finding is one rule firing at one instruction.
type Finding struct {
	Rule   string `json:"rule"`
	Kernel string `json:"kernel"`
	PC     uint32 `json:"pc"`
	File   string `json:"file,omitempty"`
	Line   uint32 `json:"line,omitempty"`
	PTX    string `json:"ptx"`
	// Saw is what was measured, Lesson the seed and version that teach the fix, Fix what
	// to change.
	Saw    string `json:"saw"`
	Lesson string `json:"lesson"`
	Fix    string `json:"fix"`
	// The expected gain: Metric at this pc (for a divergent branch, over the pcs of its
	// paths) now and after the fix.
	Metric string  `json:"metric"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Into, when not empty, is the metric After counts in: the fix moves the cost to
	// another counter (global loads read through a texture).
	Into string `json:"after_metric,omitempty"`
	// Share is the finding's part of the kernel's total of its cost, ShareOf names that
	// cost (global sectors, shared wavefronts, issue slots): findings are ranked by it.
	Share   float64 `json:"share"`
	ShareOf string  `json:"share_of"`
}

// KernelAdvice is one launch's findings, largest share first.
type KernelAdvice struct {
	Name     string    `json:"name"`
	Findings []Finding `json:"findings"`
}

// Advice is the advisor's answer for one trace on one arch.
type Advice struct {
	Arch    string         `json:"arch"`
	GPU     string         `json:"gpu"`
	Kernels []KernelAdvice `json:"kernels"`
}

// Thresholds: a rule fires when its cost is at least this many times the ideal, and its
// share of the kernel's total cost is at least minShare. The factors are where the seed
// lessons start to matter (a 2-way conflict halves the shared bandwidth; two sectors per
// ideal one halve the bus use), not fitted to any kernel.
const (
	uncoalescedFactor = 2.0
	conflictFactor    = 1.5
	divergenceFactor  = 0.9 // SIMD efficiency below 90% of the kernel entry's
	// contentionFactor: the sectors a CTA's atomics send to L2 against the distinct
	// sectors they update, at which a private copy in shared memory at least halves the
	// global atomic traffic.
	contentionFactor = 2.0
	minShare         = 0.05
	// maxStruct is the largest stride read as the size of a struct: beyond it a stride
	// is a row pitch.
	maxStruct = 256
)

// AdviseOptions tune Advise. The zero value replays with both engines.
type AdviseOptions struct {
	Replay replay.Options
	// NoTiming skips the timing replay, and with it the rules that need its stalls
	// (latency-bound, memory-latency-bound): faster on big traces.
	NoTiming bool
}

// Advise replays r on cfg with the memory engine (and the timing engine, for the rules
// on stalls) and applies every rule to every launch.
func Advise(ctx context.Context, r *format.Reader, cfg *arch.Config, opts AdviseOptions) (*Advice, error) {
	ro := opts.Replay
	ro.PerPC = true
	rep, err := replay.Memory(ctx, r, cfg, ro)
	if err != nil {
		return nil, err
	}
	var tim *replay.Report
	if !opts.NoTiming {
		if tim, err = replay.Timing(ctx, r, cfg, ro); err != nil {
			return nil, err
		}
	}
	pats, err := scanAll(r)
	if err != nil {
		return nil, err
	}
	return adviseOn(r, pats, cfg, rep, tim), nil
}

// adviseOn applies every rule to a memory replay of r made with per-pc metrics, and a
// timing replay with per-pc stalls (nil: none), given the patterns of r's launches
// (scanAll: they do not depend on the arch).
func adviseOn(r *format.Reader, pats [][]pcPattern, cfg *arch.Config, rep, tim *replay.Report) *Advice {
	adv := &Advice{Arch: rep.Arch, GPU: rep.GPU}
	for k := range rep.Kernels {
		kr := &rep.Kernels[k]
		in := &kernelInput{launch: &r.Meta().Launches[k], rep: kr, pats: pats[k], pcs: perPC(kr), sharedPerCTA: cfg.Shared.MaxPerCTA, cfg: cfg}
		if tim != nil {
			in.tim = &tim.Kernels[k]
		}
		ka := KernelAdvice{Name: kr.Name, Findings: []Finding{}}
		for _, rule := range []func(*kernelInput) []Finding{uncoalesced, bankConflicts, divergence, contendedAtomics, untiledReuse, uniformGlobalRead, textureReads, latencyBound, memoryLatency} {
			ka.Findings = append(ka.Findings, rule(in)...)
		}
		ka.Findings = dropSmall(oneLoadFix(ka.Findings))
		slices.SortStableFunc(ka.Findings, func(a, b Finding) int {
			switch {
			case a.Share > b.Share:
				return -1
			case a.Share < b.Share:
				return 1
			}
			return int(a.PC) - int(b.PC)
		})
		adv.Kernels = append(adv.Kernels, ka)
	}
	return adv
}

// Group is the findings of one rule with one fix at one source line: what a person
// changes once (an unrolled loop fires a rule at many pcs).
type Group struct {
	First Finding  // the largest share of the group
	PCs   []uint32 // every pc, in the order of the findings
	Share float64  // summed
	Gains []Gain   // per metric, summed: a load's and a store's sectors apart
}

// Gain is the expected change of one metric.
type Gain struct {
	Metric        string
	Into          string // the metric After counts in, when not Metric (Finding.Into)
	Before, After float64
}

// Groups gathers findings (ranked, as Advise returns them) into groups, in the order of
// their first finding.
func Groups(fs []Finding) []Group {
	type key struct {
		rule, fix, file string
		line            uint32
	}
	var out []Group
	at := map[key]int{}
	for _, f := range fs {
		k := key{f.Rule, f.Fix, f.File, f.Line}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Group{First: f})
		}
		g := &out[i]
		g.PCs = append(g.PCs, f.PC)
		g.Share += f.Share
		j := slices.IndexFunc(g.Gains, func(x Gain) bool { return x.Metric == f.Metric && x.Into == f.Into })
		if j < 0 {
			j = len(g.Gains)
			g.Gains = append(g.Gains, Gain{Metric: f.Metric, Into: f.Into})
		}
		g.Gains[j].Before += f.Before
		g.Gains[j].After += f.After
	}
	return out
}

// dropSmall keeps the findings whose rule, at their source line, has at least minShare of
// its cost: a loop the compiler unrolled spreads one line's cost over many pcs, each
// small, and a line is what a person changes. Without a line table (PTX compiled without
// -lineinfo) the rule's findings over the kernel count together.
func dropSmall(fs []Finding) []Finding {
	type key struct {
		rule, file string
		line       uint32
	}
	keyOf := func(f *Finding) key {
		if f.Line == 0 {
			return key{rule: f.Rule} // no line table: the rule over the kernel
		}
		return key{rule: f.Rule, file: f.File, line: f.Line}
	}
	share := map[key]float64{}
	for i := range fs {
		share[keyOf(&fs[i])] += fs[i].Share
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return share[keyOf(&f)] < minShare })
}

// kernelInput is what a rule reads about one launch.
type kernelInput struct {
	launch *format.Launch
	rep    *replay.KernelReport
	pats   []pcPattern
	pcs    map[uint32]map[string]float64 // per-pc metrics by name
	// sharedPerCTA is the most shared memory one CTA may have on the arch: a private
	// copy of what atomics update must fit in it.
	sharedPerCTA int
	cfg          *arch.Config
	tim          *replay.KernelReport // the timing replay with per-pc stalls; nil: none
}

// finding starts a finding at pc with its location filled in.
func (in *kernelInput) finding(rule string, pc uint32) Finding {
	inst := &in.launch.Program.Insts[pc]
	return Finding{Rule: rule, Kernel: in.rep.Name, PC: pc, File: inst.File, Line: inst.Line, PTX: inst.PTX}
}

// total sums a metric over the kernel's pcs.
func (in *kernelInput) total(names ...string) float64 {
	var t float64
	for _, n := range names {
		v, _ := in.rep.Metric(n)
		t += v
	}
	return t
}

// uncoalesced fires at a global load or store whose sectors per request are at least
// uncoalescedFactor times what its distinct bytes need. The lane stride seen in the trace
// says which lesson applies: a struct read field by field, a column walked by the lanes of
// a warp, or a scattered index.
func uncoalesced(in *kernelInput) []Finding {
	var out []Finding
	totalSecs := in.total("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
	// Strides at which several pcs of the kernel read different fields: one struct.
	fields := map[int64]map[int64]bool{}
	for pc := range in.pats {
		p := &in.pats[pc]
		if s, share := p.dominantStride(); share >= 0.5 && s > int64(in.launch.Program.Insts[pc].Width) && s <= maxStruct {
			if fields[s] == nil {
				fields[s] = map[int64]bool{}
			}
			fields[s][p.field(s)] = true
		}
	}
	for _, p := range in.rep.PerPC {
		m := in.pcs[p.PC]
		for _, op := range []string{"ld", "st"} {
			secs := m["l1tex__t_sectors_pipe_lsu_mem_global_op_"+op+".sum"]
			reqs := m["l1tex__t_requests_pipe_lsu_mem_global_op_"+op+".sum"]
			pat := &in.pats[p.PC]
			if secs == 0 || reqs == 0 || pat.sectors == 0 || totalSecs == 0 {
				continue
			}
			spr := secs / reqs
			ratio := float64(pat.sectors) / float64(pat.idealSecs)
			inst := &in.launch.Program.Insts[p.PC]
			width := int64(inst.Width)
			stride, share := pat.dominantStride()
			// Lanes a width apart are coalesced: what they spill over more sectors
			// comes of the lanes a divergent branch left idle, the divergence rule's.
			if ratio < uncoalescedFactor || share >= 0.5 && stride == width {
				continue
			}
			f := in.finding(RuleUncoalesced, p.PC)
			f.Metric = "l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum"
			f.Before, f.After = secs, secs/ratio
			f.Share, f.ShareOf = secs/totalSecs, "global sectors"
			what := map[string]string{"ld": "load", "st": "store"}[op]
			f.Saw = fmt.Sprintf("global %s of %d B per lane takes %.1f sectors per request, %.1f× the %.1f its bytes need",
				what, width, spr, ratio, spr/ratio)
			switch {
			case share < 0.5:
				f.Saw += "; neighbouring lanes' addresses follow no single stride (a gather or scatter)"
				f.Lesson = seedCoalesce + ": coalescing table, random access (every lane its own sector)"
				f.Fix = "make neighbouring threads read neighbouring elements: sort or bin the indices so a warp's accesses fall in few sectors, or read the data once in order into shared memory"
			case len(fields[stride]) >= 2:
				f.Rule = RuleAoS
				f.Saw += fmt.Sprintf("; neighbouring lanes are %d B apart, and the kernel reads %d fields at that stride (this one at offset %d): a %d-byte struct read field by field",
					stride, len(fields[stride]), pat.field(stride), stride)
				f.Lesson = seedLayout + ": data layout, AoS against SoA and ASTA (burst utilisation)"
				f.Fix = "store each field in its own array (structure of arrays), or in tiles of 32 elements per field (ASTA), so a warp reads one field contiguously"
			case stride >= 128 || stride <= -128:
				f.Saw += fmt.Sprintf("; neighbouring lanes are %d B apart (a column of a row-major array, or an index scaled by a large factor)", stride)
				f.Lesson = seedCoalesce + ": matrix transpose V1 (one side of the copy walks columns) to V2 (a tile through shared memory, both sides along rows)"
				f.Fix = "let threadIdx.x index the fastest-varying dimension; for a transpose, stage a 32×32 tile in shared memory so both the global read and the global write run along rows"
			default:
				f.Saw += fmt.Sprintf("; neighbouring lanes are %d B apart", stride)
				f.Lesson = seedHardware + ": coalescing granularity, offset and strided access"
				f.Fix = fmt.Sprintf("make lane i access element i (a stride of %d B): a stride of k elements costs k times the sectors", width)
			}
			out = append(out, f)
		}
	}
	return out
}

// bankConflicts fires at a shared load or store that takes at least conflictFactor times
// its ideal wavefronts. The word stride between lanes says which fix: an even stride is
// padded to an odd one; a stride that changes from one visit to the next (doubling in a
// tree reduction) is replaced by sequential addressing.
func bankConflicts(in *kernelInput) []Finding {
	var out []Finding
	totalWaves := in.total("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
	for _, p := range in.rep.PerPC {
		m := in.pcs[p.PC]
		for _, op := range []string{"ld", "st"} {
			waves := m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_"+op+".sum"]
			conf := m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_"+op+".sum"]
			ideal := waves - conf
			if waves == 0 || ideal <= 0 || waves < conflictFactor*ideal {
				continue
			}
			ways := conflictWays(m)
			f := in.finding(RuleBankConflict, p.PC)
			f.Metric = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum"
			f.Before, f.After = waves, ideal
			f.Share, f.ShareOf = waves/totalWaves, "shared wavefronts"
			what := map[string]string{"ld": "load", "st": "store"}[op]
			f.Saw = fmt.Sprintf("shared %s takes %.2f× its ideal wavefronts (up to %d-way bank conflicts)", what, waves/ideal, ways)
			pat := &in.pats[p.PC]
			stride, share := pat.dominantStride()
			pow2 := 0
			for _, s := range pat.distinctStrides() {
				if s >= 8 && s&(s-1) == 0 {
					pow2++
				}
			}
			switch {
			case pow2 >= 3:
				f.Rule = RuleTreeStride
				f.Saw += fmt.Sprintf("; the lane stride changes from visit to visit (%s B): a tree reduction with interleaved addressing",
					joinInts(pat.distinctStrides()))
				f.Lesson = seedCoalesce + ": reduction V2 (strided index, bank conflicts) to V3 (sequential addressing)"
				f.Fix = "walk the tree with sequential addressing: for (s = blockDim.x/2; s > 0; s >>= 1) if (tid < s) sdata[tid] += sdata[tid + s]"
			case share >= 0.5 && stride%4 == 0 && stride/4%2 == 0 && stride != 0:
				words := stride / 4
				f.Saw += fmt.Sprintf("; neighbouring lanes are %d words apart, so %d lanes share each bank used", words, gcd(int(words), 32))
				f.Lesson = seedCoalesce + ": matrix transpose V2 (32-way conflicts on the column read) to V3 (padding)"
				f.Fix = fmt.Sprintf("pad each row by one word (e.g. [32][33] for [32][32]) so the stride becomes %d words, odd, and the lanes fall in distinct banks", words+1)
			default:
				f.Lesson = seedCoalesce + ": shared memory banks (32 banks of 4 bytes; a conflict serialises)"
				f.Fix = "arrange the shared indices so the lanes of a warp hit distinct banks (word index mod 32), or the same word (a broadcast)"
			}
			out = append(out, f)
		}
	}
	return out
}

// divergence fires at a branch whose paths run below divergenceFactor of the kernel
// entry's SIMD efficiency, when the idle lanes on them are at least minShare of the
// kernel's issue slots. Masks of single lanes k apart mark the interleaved tree of
// reduction V1.
func divergence(in *kernelInput) []Finding {
	eff := func(pc int) (inst, e float64, ok bool) {
		m, ok := in.pcs[uint32(pc)]
		if !ok || m["gtrace__ptx_inst_executed.sum"] == 0 {
			return 0, 0, false
		}
		return m["gtrace__ptx_inst_executed.sum"], m["gtrace__simd_efficiency.pct"], true
	}
	_, entry, ok := eff(0)
	if !ok || entry == 0 {
		return nil
	}
	var slots float64
	for _, p := range in.rep.PerPC {
		n, _, _ := eff(int(p.PC))
		slots += n * entry
	}
	low := func(pc int) bool {
		_, e, ok := eff(pc)
		return ok && e < divergenceFactor*entry
	}
	// Runs of low pcs (a pc never executed does not end a run: it is another path's),
	// each charged to the branch that leads into it.
	type region struct {
		lost, inst, used float64
		spaced, masks    int
		first, last      int
	}
	var order []int
	regions := map[int]*region{}
	prog := in.launch.Program.Insts
	for pc := 0; pc < len(prog); {
		if !low(pc) {
			pc++
			continue
		}
		br := branchInto(prog, pc)
		r := regions[br]
		if r == nil {
			r = &region{first: pc}
			regions[br] = r
			order = append(order, br)
		}
		for ; pc < len(prog); pc++ {
			n, e, ok := eff(pc)
			if !ok {
				continue
			}
			if e >= divergenceFactor*entry {
				break
			}
			r.lost += n * (entry - e)
			r.inst += n
			r.used += n * e
			r.spaced += in.pats[pc].spaced
			r.masks += in.pats[pc].partialCnt
			r.last = pc
		}
	}
	var out []Finding
	for _, br := range order {
		r := regions[br]
		if r.lost < minShare*slots {
			continue
		}
		f := in.finding(RuleDivergence, uint32(max(br, 0)))
		branch := "a branch"
		if br >= 0 {
			branch = fmt.Sprintf("the branch at pc %d (%s)", br, prog[br].PTX)
		} else {
			f = in.finding(RuleDivergence, uint32(r.first))
		}
		// The gain is in warp-instructions: the same thread-instructions, packed into
		// warps as full as at the entry, take fewer issue slots.
		e := r.used / r.inst
		f.Metric = "gtrace__ptx_inst_executed.sum"
		f.Before, f.After = r.inst, r.inst*e/entry
		f.Share, f.ShareOf = r.lost/slots, "lane issue slots"
		f.Saw = fmt.Sprintf("after %s, pcs %d-%d run at %.0f%% SIMD efficiency against %.0f%% at the kernel's entry; idle lanes there are %.0f%% of the kernel's issue slots",
			branch, r.first, r.last, e, entry, 100*f.Share)
		if r.masks > 0 && 2*r.spaced >= r.masks {
			f.Rule = RuleInterleaved
			f.Saw += "; the active lanes are single lanes k apart, as tid % k == 0 leaves them"
			f.Lesson = seedCoalesce + ": reduction V1 (interleaved threads, divergent) to V2 (a strided index keeps the active threads contiguous)"
			f.Fix = "let contiguous threads do the work: index = 2*s*tid; if (index < blockDim.x) sdata[index] += sdata[index + s] (then V3's sequential addressing removes its bank conflicts)"
		} else {
			f.Lesson = seedHardware + ": divergence, warp-aligned branching"
			f.Fix = "make the condition uniform within each warp (branch on threadIdx.x / warpSize, or group the work so that each warp takes one path)"
		}
		out = append(out, f)
	}
	return out
}

// contendedAtomics fires at a global atomic whose CTAs each send the L2 at least
// contentionFactor times the distinct sectors they update (the same words again, in
// one pass per same-address round), and whose addresses span no more than a CTA's
// shared memory: a histogram into few bins. The fix is privatisation: each CTA updates
// a copy in shared memory, then adds it to the global one once per address, so the
// global atomics a CTA sends fall to the distinct sectors it updates.
func contendedAtomics(in *kernelInput) []Finding {
	var out []Finding
	totalSecs := in.total("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
		"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum")
	agg := replay.Aggregated(in.launch.Program, in.launch.PTXProducer, in.cfg)
	for _, p := range in.rep.PerPC {
		a := &in.pats[p.PC].atom
		inst := &in.launch.Program.Insts[p.PC]
		op := map[format.MemOp]string{format.MemAtomic: "atom", format.MemReduce: "red"}[inst.MemOp]
		metric := "l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum"
		secs := in.pcs[p.PC][metric]
		if op == "" || !mergeable(inst.Opcode) || a.updates == 0 || a.recSecs == 0 || secs == 0 || totalSecs == 0 {
			continue
		}
		perAddr := float64(a.updates) / float64(a.ctaAddrs)
		sent, passes := a.recSecs, "lanes on one word take a pass each"
		if agg != nil && agg[p.PC] {
			sent, passes = a.warpSecs, "ptxas already makes each warp's updates one atomic, as the address and operand are the same in every lane"
		}
		gain := float64(sent) / float64(a.ctaSecs)
		span := a.hi - a.lo
		if gain < contentionFactor || in.sharedPerCTA > 0 && span > uint64(in.sharedPerCTA) {
			continue
		}
		f := in.finding(RuleAtomics, p.PC)
		f.Metric = metric
		// After the fix a CTA sends one update per distinct address, in order: the
		// sectors it updates, each once.
		f.Before, f.After = secs, secs/gain
		f.Share, f.ShareOf = secs/totalSecs, "global sectors"
		f.Saw = fmt.Sprintf("global atomic: a CTA updates each of its addresses %.1f times on average, all within %d B, and sends the L2 %.1f× the sectors it updates (%s)",
			perAddr, span, gain, passes)
		f.Lesson = seedLayout + ": privatization, histogram (one copy per block in shared memory, then one atomic per bin)"
		f.Fix = fmt.Sprintf("give each block a private copy in shared memory (%d B here), update it with shared atomics, __syncthreads(), then add each non-zero entry to the global array with one atomicAdd; a grid-stride loop over fewer blocks merges more updates per copy", span)
		out = append(out, f)
	}
	return out
}

// mergeable reports whether an atomic's updates can be summed into a private copy and
// added once: add, min, max, and, or, xor, inc, dec. A compare-and-swap or an exchange
// (a lock, a ticket) cannot.
func mergeable(opcode string) bool {
	for _, op := range []string{".add", ".min", ".max", ".and", ".or", ".xor", ".inc", ".dec"} {
		if strings.Contains(opcode, op+".") || strings.HasSuffix(opcode, op) {
			return true
		}
	}
	return false
}

// conflictWays is the most lanes of one shared request on one bank among a pc's
// requests (gtrace__shared_requests_ways_N.sum), 0 if it made none.
func conflictWays(m map[string]float64) int {
	for w := 32; w >= 1; w-- {
		if m[sharedWays[w]] > 0 {
			return w
		}
	}
	return 0
}

// sharedWays[w] names the count of shared requests whose worst bank took w lanes.
var sharedWays = func() (n [33]string) {
	for w := 1; w <= 32; w++ {
		n[w] = fmt.Sprintf("gtrace__shared_requests_ways_%d.sum", w)
	}
	return n
}()

// branchInto is the branch that leads into the code at pc: a branch whose target is pc,
// or else the nearest conditional branch before it; -1 if there is none.
func branchInto(prog []format.Inst, pc int) int {
	for b := range prog {
		if t, ok := prog[b].BranchTarget(); ok && t == pc {
			return b
		}
	}
	for b := pc - 1; b >= 0; b-- {
		if prog[b].Class == format.ClassControl && strings.HasPrefix(prog[b].PTX, "@") {
			return b
		}
	}
	return -1
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func joinInts(v []int64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}
