package report

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/gtrace/gtrace/format"
)

// reuseFactor: the sectors a CTA's global loads at one pc request against the distinct
// sectors they read, at which staging the data in shared memory at least halves the
// pc's global load traffic (the same factor as the other rules' 2×: half the sectors is
// where the lesson starts to matter, not a fitted value).
const reuseFactor = 2.0

// reusePattern is what the sampled records of a global load show about reuse, over every
// record whatever its mask: how often the same sectors and bytes are requested again by
// the same warp and by the CTA's other warps.
type reusePattern struct {
	recSecs  int // summed over records: the distinct sectors each requests (the replay's count)
	warpSecs int // summed over sampled warps: the distinct sectors each reads at the pc
	ctaSecs  int // summed over sampled CTAs: the distinct sectors each reads at the pc
	// ctaShare is ctaSecs with each sector that several global load pcs of the CTA read
	// split evenly among them: an unrolled loop reads one row through several pcs, and
	// a tile loads each of its sectors once, whichever pcs used it.
	ctaShare float64
	recBytes int // lane bytes requested: active lanes times the width
	ctaBytes int // summed over sampled CTAs: the distinct bytes each reads (distinct addresses times the width)
}

// sectorSet is the sectors and addresses one CTA reads at one pc.
type sectorSet struct {
	secs, addrs map[uint64]bool
	width       int
}

// ctaReads gathers, per global load pc, the distinct sectors one warp reads and the
// distinct sectors and addresses one CTA reads. Its maps are emptied, not dropped, at
// the end of a warp or a CTA: the next one reuses them.
type ctaReads struct {
	warp map[uint32]map[uint64]bool
	cta  map[uint32]*sectorSet
}

// add counts a record of a global load at pc: the sectors it requests (distinct within
// the record, as the replay counts them) and its lanes' bytes, into the pc's sums and
// the warp's and CTA's sets. The caller leaves out broadcasts (uniform): a constant or
// a register serves them better.
func (c *ctaReads) add(p *reusePattern, pc uint32, mask uint32, lanes *[32]uint64, width int) {
	width = max(width, 1)
	if c.warp == nil {
		c.warp, c.cta = map[uint32]map[uint64]bool{}, map[uint32]*sectorSet{}
	}
	w := c.warp[pc]
	if w == nil {
		w = map[uint64]bool{}
		c.warp[pc] = w
	}
	k := c.cta[pc]
	if k == nil {
		k = &sectorSet{map[uint64]bool{}, map[uint64]bool{}, width}
		c.cta[pc] = k
	}
	var secs [64]uint64 // a lane's bytes span at most 2 sectors
	n := 0
	for m := mask; m != 0; m &= m - 1 {
		a := lanes[bits.TrailingZeros32(m)]
		p.recBytes += width
		k.addrs[a] = true
		for s := a / 32; s <= (a+uint64(width)-1)/32; s++ {
			w[s], k.secs[s] = true, true
			if !slices.Contains(secs[:n], s) && n < len(secs) {
				secs[n] = s
				n++
			}
		}
	}
	p.recSecs += n
}

// uniform reports whether every active lane of mask reads one address.
func uniform(mask uint32, lanes *[32]uint64) bool {
	if mask == 0 {
		return true
	}
	a := lanes[bits.TrailingZeros32(mask)]
	for m := mask; m != 0; m &= m - 1 {
		if lanes[bits.TrailingZeros32(m)] != a {
			return false
		}
	}
	return true
}

// endWarp adds the warp's distinct sectors to the pcs' sums and empties its sets.
func (c *ctaReads) endWarp(pats []pcPattern) {
	for pc, secs := range c.warp {
		pats[pc].reuse.warpSecs += len(secs)
		clear(secs)
	}
}

// endCTA adds the CTA's distinct sectors and bytes to the pcs' sums and empties its sets.
func (c *ctaReads) endCTA(pats []pcPattern) {
	readers := map[uint64]int{}
	for _, e := range c.cta {
		for sec := range e.secs {
			readers[sec]++
		}
	}
	for pc, e := range c.cta {
		for sec := range e.secs {
			pats[pc].reuse.ctaShare += 1 / float64(readers[sec])
		}
		pats[pc].reuse.ctaSecs += len(e.secs)
		pats[pc].reuse.ctaBytes += len(e.addrs) * e.width
		clear(e.secs)
		clear(e.addrs)
	}
}

// untiledReuse fires at a global load whose CTA requests each sector it reads at least
// reuseFactor times: the warps of a block read the same data again (seed 004's untiled
// matrix multiply: a row of M serves the 16 threads of a tile row, and each warp asks
// for the sector again at every next k; a column of N serves every warp of the block).
// The fix is tiling: the block loads each element once into shared memory, then every
// thread reads it there, so the pc's sectors fall to the distinct sectors the CTA
// reads. The saw states the kernel's computational intensity (FLOPs per byte its
// threads load from global memory) and what it becomes with every such load staged.
func untiledReuse(in *kernelInput) []Finding {
	const metric = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
	totalSecs := in.total(metric, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
	prog := in.launch.Program.Insts
	// The kernel's global load bytes (thread-level, as seed 004 counts them), and the
	// bytes every firing pc would load once tiled.
	var bytes, saved float64
	var out []Finding
	for _, p := range in.rep.PerPC {
		if int(p.PC) >= len(prog) {
			continue
		}
		inst := &prog[p.PC]
		if inst.Space != format.SpaceGlobal || inst.MemOp != format.MemLoad {
			continue
		}
		b := threadInsts(p.Metric) * float64(inst.Width)
		bytes += b
		r := &in.pats[p.PC].reuse
		secs := in.pcs[p.PC][metric]
		if r.ctaSecs == 0 || r.ctaBytes == 0 || secs == 0 || totalSecs == 0 {
			continue
		}
		gain := float64(r.recSecs) / r.ctaShare
		_, regular := in.pats[p.PC].dominantStride()
		if gain < reuseFactor || float64(r.recBytes) < reuseFactor*float64(r.ctaBytes) || regular < 0.5 {
			continue
		}
		saved += b - b*float64(r.ctaBytes)/float64(r.recBytes)
		fd := in.finding(RuleTiling, p.PC)
		fd.Metric = metric
		// After tiling the CTA loads each sector once: the pc's share of them.
		fd.Before, fd.After = secs, secs/gain
		fd.Share, fd.ShareOf = secs/totalSecs, "global sectors"
		fd.Saw = fmt.Sprintf("global load: a CTA requests %.1f× the sectors it needs here (%.1f× as the same warp asks again, %.1f× as its other warps ask, %.1f× as other loads of the kernel read the same sectors), and its threads load each byte %.1f times",
			gain, float64(r.recSecs)/float64(r.warpSecs), float64(r.warpSecs)/float64(r.ctaSecs), float64(r.ctaSecs)/r.ctaShare, float64(r.recBytes)/float64(r.ctaBytes))
		fd.Lesson = seedTiling + ": tiling (computational intensity, matrix multiply from 0.25 to 4 FLOP/B with 16×16 tiles)"
		fd.Fix = "tile the loop: each phase, the block's threads load one tile of the data they share into shared memory (one element per thread), __syncthreads(), compute from shared memory, __syncthreads() before the next tile; the block then reads each element from global memory once"
		out = append(out, fd)
	}
	if len(out) == 0 {
		return nil
	}
	if flops := roofOf(prog, in.rep, nil, in.cfg).FLOP(); flops > 0 && bytes > saved {
		note := fmt.Sprintf("; the kernel does %.2f FLOP per byte its threads load from global memory, %.2f with every such load tiled", flops/bytes, flops/(bytes-saved))
		for i := range out {
			out[i].Saw += note
		}
	}
	return out
}

// threadInsts is a pc's thread-instructions from its per-pc metrics: warp-instructions
// times SIMD efficiency, rounded (it is a whole count).
func threadInsts(metric func(string) (float64, bool)) float64 {
	inst, _ := metric("gtrace__ptx_inst_executed.sum")
	simd, _ := metric("gtrace__simd_efficiency.pct")
	return math.Round(inst * 32 * simd / 100)
}

// oneLoadFix keeps, at a global load where both untiled-reuse and uncoalesced fire,
// the finding that promises the fewer sectors after (tiling on a tie), so the same
// sectors are never promised twice. A tile is loaded a row per warp, coalesced, so
// tiling usually holds the coalescing gain too (the untiled matrix multiply's M load
// spans two rows per warp, two sectors where its one address per half-warp needs one);
// where lanes are far apart and the reuse is small, coalescing wins.
func oneLoadFix(fs []Finding) []Finding {
	type key struct {
		pc     uint32
		metric string
	}
	after := map[key]map[string]float64{} // by rule
	for _, f := range fs {
		if f.Rule == RuleTiling || f.Rule == RuleUncoalesced {
			k := key{f.PC, f.Metric}
			if after[k] == nil {
				after[k] = map[string]float64{}
			}
			after[k][f.Rule] = f.After
		}
	}
	return slices.DeleteFunc(fs, func(f Finding) bool {
		a := after[key{f.PC, f.Metric}]
		t, tiled := a[RuleTiling]
		u, uncoalesced := a[RuleUncoalesced]
		switch {
		case !tiled || !uncoalesced:
			return false
		case f.Rule == RuleUncoalesced:
			return t <= u
		case f.Rule == RuleTiling:
			return u < t
		}
		return false
	})
}
