package report

import (
	"math/bits"
	"slices"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/coalesce"
)

// sampleCTAs is how many CTAs of a launch the pattern scan reads, spread evenly over the
// grid. The patterns it looks for (the stride between lanes, the shape of a mask) repeat
// in every CTA of the kernels a rule is for; the metrics that size a finding come from the
// whole replay, not from the sample.
const sampleCTAs = 16

// maxStrides bounds the distinct lane strides kept per pc; the rest count as irregular.
const maxStrides = 8

// pcPattern is what the sampled records of one pc show.
type pcPattern struct {
	lanePattern
	fullOnly   bool // lanePattern counts records with all the warp's lanes active only
	masks      int  // sampled records, memory or not
	spaced     int  // records whose active lanes are single lanes k > 1 apart (tid % k == 0)
	spacings   map[int]int
	partialCnt int // records with some but not all of the launch's lanes active
	atom       atomPattern
	reuse      reusePattern
	bcast      broadcastPattern
	span       span // the bytes a global access touches, over every sampled record
	tex        texPattern
	// waits counts the sampled records at this pc that read a register a global or
	// local load of the warp wrote and nothing had read yet: where the warp waits on
	// memory. waitLoads and waitBytes sum the loads and their lanes' bytes in flight
	// at each such wait (every load since the warp's previous wait).
	waits, waitLoads, waitBytes int
}

// lanePattern is what the lane addresses of a pc's records show: of every record, or of
// the full records only once the pc has one (pcPattern.fullOnly).
type lanePattern struct {
	records int // sampled records with memory addresses
	// strides counts the address difference between neighbouring active lanes (lane l and
	// l+1 both active), at most maxStrides distinct values; irregular counts the rest.
	strides   map[int64]int
	irregular int
	pairs     int // neighbouring active lane pairs seen
	sectors   int // distinct 32-byte sectors the sampled records touch
	idealSecs int // sectors the same distinct bytes would take if they were contiguous
	// first is the first active lane's address in the first record counted, and lane
	// its lane: with the stride, the field of a struct the pc reads.
	first uint64
	lane  int
}

// atomPattern is what the sampled records of a global atomic show, over every record
// whatever its mask: a lane's update is one whether or not its neighbours take part.
type atomPattern struct {
	updates  int // lane updates
	recSecs  int // summed over records: the sectors each sends to L2, as the replay counts them
	warpSecs int // the same when ptxas aggregates the warp's updates (replay.Aggregated): the first lane's
	ctaAddrs int // summed over sampled CTAs: the distinct addresses each updates
	ctaSecs  int // summed over sampled CTAs: the distinct sectors each updates
	lo, hi   uint64
}

// atomSets are the distinct addresses and sectors one CTA updates at one pc.
type atomSets struct{ addrs, secs map[uint64]bool }

// ctaAtoms gathers one CTA's distinct addresses and sectors per atomic pc.
type ctaAtoms struct {
	sets map[uint32]*atomSets
	co   coalesce.Coalescer
	buf  []uint64
}

// add counts a record of pc into the CTA's sets and the pc's per-record sums: the sectors
// a record sends are the replay's (coalesce.Atomic: one pass per same-address round).
func (c *ctaAtoms) add(p *atomPattern, pc uint32, mask uint32, lanes *[32]uint64, width int) {
	if c.sets == nil {
		c.sets = map[uint32]*atomSets{}
	}
	e := c.sets[pc]
	if e == nil {
		e = &atomSets{map[uint64]bool{}, map[uint64]bool{}}
		c.sets[pc] = e
	}
	c.buf = c.buf[:0]
	for m := mask; m != 0; m &= m - 1 {
		a := lanes[bits.TrailingZeros32(m)]
		c.buf = append(c.buf, a)
		if p.updates == 0 || a < p.lo {
			p.lo = a
		}
		p.hi = max(p.hi, a+uint64(width))
		p.updates++
		e.addrs[a] = true
		for s := a / 32; s <= (a+uint64(max(width, 1))-1)/32; s++ {
			e.secs[s] = true
		}
	}
	p.recSecs += c.co.Atomic(c.buf, width).Sectors
	if len(c.buf) > 0 {
		p.warpSecs += c.co.Atomic(c.buf[:1], width).Sectors
	}
}

// flush adds the CTA's distinct counts to the pcs' sums and empties the sets.
func (c *ctaAtoms) flush(pats []pcPattern) {
	for pc, e := range c.sets {
		pats[pc].atom.ctaAddrs += len(e.addrs)
		pats[pc].atom.ctaSecs += len(e.secs)
		delete(c.sets, pc)
	}
}

// field is the offset within a struct of stride bytes that the pc's lane 0 would access.
func (p *pcPattern) field(stride int64) int64 {
	if stride <= 0 {
		return 0
	}
	a := int64(p.first) - int64(p.lane)*stride
	return (a%stride + stride) % stride
}

// dominantStride is the most common lane stride and its share of the neighbouring pairs.
// Ties go to the smaller stride, so the answer does not depend on map order.
func (p *pcPattern) dominantStride() (stride int64, share float64) {
	best := -1
	for s, n := range p.strides {
		if n > best || n == best && s < stride {
			stride, best = s, n
		}
	}
	if p.pairs == 0 {
		return 0, 0
	}
	return stride, float64(best) / float64(p.pairs)
}

// distinctStrides lists the strides seen, smallest first.
func (p *pcPattern) distinctStrides() []int64 {
	var s []int64
	for k := range p.strides {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// scanAll scans every launch of r (scanPatterns).
func scanAll(r *format.Reader) ([][]pcPattern, error) {
	var out [][]pcPattern
	for k := range r.Meta().Launches {
		p, err := scanPatterns(r, k)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// scanPatterns reads sampleCTAs CTAs of launch k and returns the pattern of every pc.
func scanPatterns(r *format.Reader, k int) ([]pcPattern, error) {
	l := &r.Meta().Launches[k]
	prog := l.Program.Insts
	pats := make([]pcPattern, len(prog))
	full := fullMask(l)
	n := r.NumCTAs(k)
	step := max(1, n/sampleCTAs)
	var lanes [32]uint64
	atoms := &ctaAtoms{}
	reads := &ctaReads{}
	var fly inFlight
	for cta := 0; cta < n; cta += step {
		warps, err := r.ReadCTA(k, cta)
		if err != nil {
			return nil, err
		}
		for wi, w := range warps {
			want := full[min(wi, len(full)-1)]
			fly.reset()
			for i := range w.Len() {
				pc := w.PC[i]
				if int(pc) >= len(prog) {
					continue // the reader checks pcs; stay safe on a trace from elsewhere
				}
				p := &pats[pc]
				fly.step(p, &prog[pc], w.Mask[i])
				p.masks++
				mask := w.Mask[i]
				if mask != want && mask != 0 {
					p.partialCnt++
					if k, ok := singleSpacing(mask); ok {
						p.spaced++
						if p.spacings == nil {
							p.spacings = map[int]int{}
						}
						p.spacings[k]++
					}
				}
				if w.Mode[i] == format.AddrNone {
					continue
				}
				w.LaneAddrs(i, &lanes)
				if in := &prog[pc]; in.Space == format.SpaceGlobal {
					p.span.add(mask, &lanes, int(in.Width))
					switch in.MemOp {
					case format.MemAtomic, format.MemReduce:
						atoms.add(&p.atom, pc, mask, &lanes, int(in.Width))
					case format.MemLoad:
						bc := uniform(mask, &lanes)
						if !bc {
							reads.add(&p.reuse, pc, mask, &lanes, int(in.Width))
						}
						p.bcast.add(mask, &lanes, bc)
						if mask == want {
							p.tex.add(mask, &lanes)
						}
					}
				}
				// A divergent record spreads its lanes' bytes over more sectors than the
				// same access with every lane active; that cost is the divergence rule's.
				// So count full records only, once the pc has one.
				switch {
				case mask == want && !p.fullOnly:
					p.lanePattern, p.fullOnly = lanePattern{}, true
				case mask != want && p.fullOnly:
					continue
				}
				p.records++
				if p.records == 1 {
					p.lane = bits.TrailingZeros32(mask)
					p.first = lanes[p.lane]
				}
				p.addLanes(mask, &lanes, int(prog[pc].Width))
			}
			reads.endWarp(pats)
		}
		atoms.flush(pats) // a CTA's sets end with it
		reads.endCTA(pats)
	}
	return pats, nil
}

// addLanes adds one record's lane addresses: strides between neighbouring active lanes,
// and the sectors touched against the sectors its distinct bytes need.
func (p *pcPattern) addLanes(mask uint32, lanes *[32]uint64, width int) {
	width = max(width, 1)
	var secs, addrs [32]uint64
	ns, na := 0, 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := lanes[l]
		if l < 31 && mask&(1<<(l+1)) != 0 {
			p.pairs++
			d := int64(lanes[l+1] - a)
			if _, ok := p.strides[d]; ok || len(p.strides) < maxStrides {
				if p.strides == nil {
					p.strides = map[int64]int{}
				}
				p.strides[d]++
			} else {
				p.irregular++
			}
		}
		if !slices.Contains(addrs[:na], a) {
			addrs[na] = a
			na++
		}
		for s := a / 32; s <= (a+uint64(width)-1)/32; s++ {
			if !slices.Contains(secs[:ns], s) && ns < len(secs) {
				secs[ns] = s
				ns++
			}
		}
	}
	p.sectors += ns
	p.idealSecs += max(1, (na*width+31)/32)
}

// fullMask is the mask of each warp of a CTA when all its threads are active: all lanes,
// but for a last warp the block does not fill.
func fullMask(l *format.Launch) []uint32 {
	threads := int(l.Block.X) * int(l.Block.Y) * int(l.Block.Z)
	var m []uint32
	for t := 0; t < threads; t += 32 {
		n := min(32, threads-t)
		m = append(m, uint32(uint64(1)<<n-1))
	}
	if len(m) == 0 {
		m = []uint32{^uint32(0)}
	}
	return m
}

// singleSpacing reports whether mask's active lanes are single lanes k > 1 apart, starting
// at lane 0, as `if (tid % k == 0)` leaves them; one active lane counts when it is lane 0.
func singleSpacing(mask uint32) (k int, ok bool) {
	if mask&1 == 0 {
		return 0, false
	}
	n := bits.OnesCount32(mask)
	if n == 1 {
		return 32, true
	}
	rest := mask &^ 1
	k = bits.TrailingZeros32(rest)
	if k < 2 {
		return 0, false
	}
	var want uint32
	for l := 0; l < 32; l += k {
		want |= 1 << l
	}
	return k, mask == want
}

// inFlight is one warp's global and local loads whose results nothing has read yet.
type inFlight struct {
	regs         map[uint16]bool // the registers they write
	loads, bytes int
}

// reset starts a warp: nothing in flight.
func (f *inFlight) reset() {
	clear(f.regs)
	f.loads, f.bytes = 0, 0
}

// step counts one record of the warp at pattern p: a read of an in-flight load's
// register is a wait on memory, after which every load before it counts as arrived;
// a load joins the flight.
func (f *inFlight) step(p *pcPattern, in *format.Inst, mask uint32) {
	if f.loads > 0 && slices.ContainsFunc(in.RegsRead, func(r uint16) bool { return f.regs[r] }) {
		p.waits++
		p.waitLoads += f.loads
		p.waitBytes += f.bytes
		f.reset()
	}
	if in.MemOp == format.MemLoad && (in.Space == format.SpaceGlobal || in.Space == format.SpaceLocal) && mask != 0 {
		if f.regs == nil {
			f.regs = map[uint16]bool{}
		}
		for _, r := range in.RegsWritten {
			f.regs[r] = true
		}
		f.loads++
		f.bytes += bits.OnesCount32(mask) * int(in.Width)
	}
}
