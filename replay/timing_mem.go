package replay

import (
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/dram"
)

// timedL2 is the chip's L2 slices and DRAM with time: each slice's input port and data
// return (cache.Ports) and each DRAM channel (dram.Channels) is a server with a
// busy-until time, and requests reserve them in the order the engine issues them
// (nondecreasing time), so queueing delay is the wait for the reservation.
//
// The ports' rates are l2.in_bytes_per_clk and l2.bytes_per_clk (cache.Ports says what
// takes them). On an H200 the return is twice the port's rate, so a warp whose 32 lanes
// touch 32 lines (one sector each) is held by the port at half the sector rate of one
// that touches 8 whole lines: what makes seed 001's testOffset<32> twice as slow as
// testOffset<8> with the same sectors (scripts/hw/l2probe.sh).
//
// Hit and miss decisions, near copies, write-backs and partial fills come from the same
// l2Chip as the memory engine's (the port a read takes is its near copy's slice); a
// read that misses near and hits at home in the other partition adds lat.l2_far_ns, and
// one that reads DRAM for a line homed there lat.dram_far_ns.
// Data in flight is a cache.InFlight, per 32-byte sector, the time its fill lands (an
// access that hits a sector still in flight waits for it, as an MSHR merge does).
type timedL2 struct {
	chip  *l2Chip
	ports *cache.Ports // l2.in_bytes_per_clk, l2.bytes_per_clk, l2.atomic_pass_clk
	dram  *dram.Channels

	latL2        int64
	latFar       int64           // what a near miss that hits at home adds (lat.l2_far_ns)
	latDRAMFar   int64           // what a DRAM read of a line homed far adds (lat.dram_far_ns)
	fetchSectors uint            // sectors an LSU read miss brings in: l2.fetch_bytes / 32
	fill         *cache.InFlight // sectors on their way into L2

	// acked is when the latest store or atomic is done at L2: the kernel is not over
	// before then, though no warp waits for a store or a RED.
	acked int64
	// written is the store sectors the L2 took (lts__t_sectors_srcunit_tex_op_write).
	written uint64
}

func newTimedL2(cfg *arch.Config, nsm int) (*timedL2, error) {
	latDRAM := int64(cfg.DRAMCycles())
	// Nothing waits for a fill that landed 4 DRAM latencies before the latest.
	l := &timedL2{latL2: int64(cfg.L2HitCycles()), latFar: int64(cfg.L2FarCycles()),
		latDRAMFar: int64(cfg.DRAMFarCycles()), fill: cache.NewInFlight(1<<16, 4*latDRAM),
		fetchSectors: uint(max(cfg.L2.FetchBytes/cache.Chunk, 1))}
	sc := cfg.L2.Slice()
	sc.MSHRs = 0 // fills land at once in the functional cache; l.fill holds their time
	var err error
	if l.chip, err = newL2Chip(cfg, nsm, sc); err != nil {
		return nil, err
	}
	out, in := cfg.L2BytesPerSMCycle()
	if l.ports, err = cache.NewPorts(len(l.chip.slices), in, out, cfg.L2.AtomicPassClk); err != nil {
		return nil, err
	}
	l.dram, err = dram.NewChannels(cfg.DRAM.Config, channelTiming(cfg))
	return l, err
}

// channelTiming is what the DRAM channels of cfg need beyond their address mapping.
func channelTiming(cfg *arch.Config) dram.Timing {
	d := &cfg.DRAM
	return dram.Timing{ClockMHz: cfg.SM.ClockMHz, BandwidthGBs: d.BandwidthGBs, LatencyCycles: int64(cfg.DRAMCycles()),
		RowMissNS: d.RowMissNS, RowHitNS: d.RowHitNS, RRDNS: d.RRDNS, Reorder: d.Reorder,
		CCDReadNS: d.CCDReadNS, CCDWriteNS: d.CCDWriteNS, TurnNS: d.TurnaroundNS, WriteBatch: d.WriteBatch,
		WriteWindowNS: d.WriteWindowNS}
}

// read serves an L1 miss for the sectors in mask of line, sent at cycle t, and returns
// the cycle the data is back at the SM (t + lat.l2_hit unloaded, t + lat.dram on a miss).
// A miss from the LSU pipe (lsu) brings in the whole l2.fetch_bytes block around each
// missing sector, as the memory engine's L2 does: the neighbours take DRAM bandwidth and
// land with the sector, so a later request for them waits for that fill, not a new one.
// Texture and constant misses fetch only their sectors (see l2req.lsu in memory.go).
func (l *timedL2) read(t int64, sm int, line uint64, mask uint8, lsu bool) int64 {
	s, _, far, fetch := l.chip.load(sm, line, mask) // what it finds does not depend on time
	start := l.ports.Read(s, t, int(popc8(mask)))
	done := start + l.latL2
	if far != 0 {
		done += l.latFar
	}
	var crossing int64 // a line homed far comes from DRAM over the partitions' link
	if fetch != 0 && l.latDRAMFar != 0 && l.chip.remote(sm, line) {
		crossing = l.latDRAMFar
	}
	done = max(done, l.fetch(start, line, fetch, crossing))
	done = max(done, l.fill.Pending(line, mask&^fetch, done))
	l.writeBack(start)
	if !lsu || fetch == 0 || l.fetchSectors <= 1 {
		return done
	}
	if extra := fetchBlock(fetch, l.fetchSectors) &^ mask; extra != 0 {
		_, _, _, more := l.chip.load(sm, line, extra)
		l.fetch(start, line, more, crossing)
		l.writeBack(start)
	}
	return done
}

// fetch reads the sectors in mask of line from DRAM at cycle start, each landing in
// l.fill crossing later (a line homed in the other partition), and returns when the
// latest lands (start if none).
func (l *timedL2) fetch(start int64, line uint64, mask uint8, crossing int64) int64 {
	last := start
	for b := uint64(0); b < 8; b++ {
		if mask&(1<<b) != 0 {
			d := l.dram.Access(start, line+b*cache.Chunk, false) + crossing
			l.fill.Fill(line, 1<<b, d)
			last = max(last, d)
		}
	}
	return last
}

// write takes store (or atomic) sectors at cycle t; use holds the bytes a store writes
// in each sector (for l2.partial_fill; zero: whole sectors). An atomic's fetch and
// result return like a read. It returns when the write is done at L2 (an atomic's
// result back at the SM).
func (l *timedL2) write(t int64, line uint64, mask uint8, atomic bool, use *[4]uint32) int64 {
	s, res := l.chip.store(line, mask, use) // what it finds does not depend on time
	start := l.ports.Write(s, t, int(popc8(mask)), atomic)
	if !atomic {
		l.written += uint64(popc8(mask))
	}
	done := start + l.latL2
	if atomic {
		for b := uint64(0); b < 8; b++ {
			if res.Fetch&(1<<b) != 0 {
				done = max(done, l.dram.Access(start, line+b*cache.Chunk, false))
			}
		}
	}
	l.writeBack(start)
	l.acked = max(l.acked, done)
	return done
}

// writeBack sends the sectors the L2 let go of to DRAM at cycle t.
func (l *timedL2) writeBack(t int64) {
	l.chip.drain(func(addr uint64, write bool) { l.dram.Access(t, addr, write) })
}
