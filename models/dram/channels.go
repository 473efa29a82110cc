package dram

import (
	"fmt"
	"math"
)

// ticks is the fixed-point unit the channels keep time in: 1/ticks of an SM cycle, so
// that a data bus moving 21.1 bytes per cycle keeps its rate in integers.
const ticks = 1024

// Timing is what the timed channels need beyond the address mapping.
type Timing struct {
	ClockMHz     int     // the SM clock: every time is in its cycles
	BandwidthGBs float64 // peak bandwidth of all channels together
	RowMissNS    float64 // precharge + activate: how long a row miss holds its bank
	// RowHitNS is how much of RowMissNS a read that finds its row open still waits: 0,
	// a hit saves the whole activation; RowMissNS, a hit is as late as a miss at an idle
	// bank and saves only the bank's time.
	RowHitNS      float64
	RRDNS         float64 // least time between two row activations in one channel (tRRD)
	LatencyCycles int64   // unloaded latency of a read that misses the row, L2 to SM
	// Reorder serves a channel's requests as their banks become ready (FR-FCFS: a row
	// hit or a free bank goes first), not in arrival order, where a request that waits
	// for its bank holds up every later one in its channel.
	Reorder bool
	// CCDReadNS and CCDWriteNS are the least time between two column commands of one
	// channel, a read and a write: the sectors of one 128-byte line that come one after
	// another in one direction share a command, so a channel moving part of each line
	// runs at a command a line, not at its bus's rate. 0: no limit.
	CCDReadNS, CCDWriteNS float64
	// TurnNS is the bus turnaround: a channel's data bus and column commands stand idle
	// this long when it changes from reads to writes or back.
	TurnNS float64
	// WriteBatch is how many lines of writes a channel holds before it sends them
	// together (a write queue drained at its high watermark), so that it turns around
	// once a batch. 0: each write goes when it comes.
	WriteBatch int
	// WriteWindowNS is how long a write holds its channel's reads: a write sent when
	// no window is open opens one, and a read sent during it returns no sooner than
	// the unloaded latency after its end. Writes sent during a window join it and do
	// not lengthen it, so the share of time a channel holds its reads saturates with
	// its write rate (λW / (1 + λW), λ its written lines a ns) and a read caught waits
	// W/2 on average. 0: none.
	WriteWindowNS float64
}

// Channels is the DRAM with time, as the timing engine drives it: each bank's open row
// and the cycle it is free, each channel's data bus and its latest row activation.
// Requests reserve them in the order they come (the engine sends them in
// nondecreasing time), so queueing delay is the wait for the reservation.
//
// A request for one 32-byte sector opens its row if another is open, which holds the
// bank for RowMissNS, no sooner than RRDNS after the channel's previous activation;
// the channel's bus then moves the sector at its share of the peak bandwidth. The
// latency a pointer chase measures (LatencyCycles) is over cold rows, so a row hit
// returns RowMissNS - RowHitNS sooner. Not safe for concurrent use.
//
// In arrival order (Reorder false) a request starts no sooner than the one before it
// in its channel: one that waits for its bank delays the bus and the activations of
// all that follow, so scattered rows reach a fraction of the bus's peak. With Reorder
// the bus and the activation rate are shared in arrival order, one burst and one RRDNS
// a request, but a request's data waits only for its own bank: what a first-ready
// (FR-FCFS) scheduler with a deep queue achieves.
//
// A channel also issues at most one column command per CCDReadNS after a read and per
// CCDWriteNS after a write, and one command moves the sectors of a 128-byte line that
// come one after another in one direction: a line's fetch or its write-back. A channel
// moving a sector or two of every line runs at a command a line, below its bus's rate.
//
// With WriteBatch, writes wait in their channel's queue until it holds that many lines
// and then go together, reads first meanwhile; changing direction costs the bus and the
// commands TurnNS, so a channel mixing reads and writes turns around twice a batch.
//
// With WriteWindowNS a write also holds its channel's reads for a while: a read sent
// within that window of the write that opened it comes back no sooner than the
// unloaded latency after the window. The window stands for the time a channel spends
// in write mode, which the H200 shows as a wait of most reads wherever the writes are
// homed (docs/research/hw-facts.md section 18); it takes no bus time of its own.
type Channels struct {
	m         *Model // the address mapping only
	banks     int
	busBusy   []int64 // ticks: each channel's data bus
	bankReady []int64 // cycles: each bank, channel-major
	openRow   []int64 // each bank's open row; -1: none
	lastAct   []int64 // ticks: each channel's latest row activation
	burst     int64   // ticks one channel needs per 32-byte sector
	rowMiss   int64   // cycles
	rowHit    int64   // cycles of rowMiss a row hit still waits
	rrd       int64   // ticks
	latency   int64   // cycles
	reorder   bool
	// Column commands: each channel's latest command (the line and direction it moves,
	// when it issued), and the least gap after a read and after a write.
	cmdLine  []int64 // noCommand, turned, or a line
	cmdWrite []bool
	cmdAt    []int64  // ticks
	ccd      [2]int64 // ticks: [0] after a read, [1] after a write
	// Writes: each channel's bus direction, and its queue (the sectors' addresses and
	// how many lines they are, the latest line queued).
	turn      int64 // ticks
	batch     int
	busWrite  []bool
	queue     [][]uint64
	queued    []int
	queueLine []int64
	// The write windows: each channel's latest, [winStart, winEnd) in cycles.
	window           int64
	winStart, winEnd []int64

	readBytes, writeBytes uint64
}

// sectorBytes is what one Access moves: the L2's sector.
const sectorBytes = 32

// NewChannels builds the timed channels of cfg.
func NewChannels(cfg Config, t Timing) (*Channels, error) {
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	// Bytes one channel moves per SM cycle: the peak bandwidth shared evenly.
	perCycle := t.BandwidthGBs * 1e9 / (float64(t.ClockMHz) * 1e6) / float64(cfg.Channels)
	if !(perCycle > 0) || math.IsInf(perCycle, 0) {
		return nil, fmt.Errorf("dram: bandwidth %g GB/s over %d channels at %d MHz", t.BandwidthGBs, cfg.Channels, t.ClockMHz)
	}
	if t.RowMissNS < 0 || t.RRDNS < 0 || t.LatencyCycles < 0 || t.CCDReadNS < 0 || t.CCDWriteNS < 0 || t.TurnNS < 0 || t.WriteBatch < 0 || t.WriteWindowNS < 0 {
		return nil, fmt.Errorf("dram: row miss %g ns, tRRD %g ns, tCCD %g and %g ns, turnaround %g ns, write batch %d, write window %g ns and latency %d cycles must not be negative",
			t.RowMissNS, t.RRDNS, t.CCDReadNS, t.CCDWriteNS, t.TurnNS, t.WriteBatch, t.WriteWindowNS, t.LatencyCycles)
	}
	if t.RowHitNS < 0 || t.RowHitNS > t.RowMissNS {
		return nil, fmt.Errorf("dram: a row hit's wait %g ns must be from 0 to the row miss's %g ns", t.RowHitNS, t.RowMissNS)
	}
	nsTicks := func(ns float64) int64 { return int64(ns*float64(t.ClockMHz)/1000*ticks + 0.5) }
	nsCycles := func(ns float64) int64 { return int64(ns*float64(t.ClockMHz)/1000 + 0.5) }
	c := &Channels{m: m, banks: cfg.Banks, latency: t.LatencyCycles, reorder: t.Reorder,
		busBusy:   make([]int64, cfg.Channels),
		bankReady: make([]int64, cfg.Channels*cfg.Banks),
		openRow:   make([]int64, cfg.Channels*cfg.Banks),
		lastAct:   make([]int64, cfg.Channels),
		burst:     max(int64(math.Round(ticks*float64(sectorBytes)/max(perCycle, 1e-9))), 1),
		rowMiss:   nsCycles(t.RowMissNS),
		rowHit:    nsCycles(t.RowHitNS),
		rrd:       nsTicks(t.RRDNS),
		ccd:       [2]int64{nsTicks(t.CCDReadNS), nsTicks(t.CCDWriteNS)},
		cmdLine:   make([]int64, cfg.Channels),
		cmdWrite:  make([]bool, cfg.Channels),
		cmdAt:     make([]int64, cfg.Channels),
		turn:      nsTicks(t.TurnNS),
		batch:     t.WriteBatch,
		busWrite:  make([]bool, cfg.Channels),
		queue:     make([][]uint64, cfg.Channels),
		queued:    make([]int, cfg.Channels),
		queueLine: make([]int64, cfg.Channels),
		window:    nsCycles(t.WriteWindowNS),
		winStart:  make([]int64, cfg.Channels),
		winEnd:    make([]int64, cfg.Channels),
	}
	for i := range c.openRow {
		c.openRow[i] = -1
	}
	for i := range c.cmdLine {
		c.cmdLine[i] = noCommand
	}
	for i := range c.lastAct {
		c.lastAct[i] = -c.rrd
	}
	return c, nil
}

// Access moves the 32-byte sector at addr, sent from L2 at cycle t, and returns the
// cycle its data reaches the SM: t + LatencyCycles when nothing waits. A write that
// waits in its channel's queue (WriteBatch) returns t + LatencyCycles; its batch takes
// the bus when it is full (or at Drain). A read sent during its channel's write window
// (WriteWindowNS) returns no sooner than LatencyCycles after the window's end.
func (c *Channels) Access(t int64, addr uint64, write bool) int64 {
	loc := c.m.Map(addr)
	ch := loc.Channel
	if !write {
		c.readBytes += sectorBytes
		done := c.access(t, addr, loc, false)
		if t >= c.winStart[ch] && t < c.winEnd[ch] { // never without WriteWindowNS
			done = max(done, c.winEnd[ch]+c.latency)
		}
		return done
	}
	c.writeBytes += sectorBytes
	if c.window > 0 && t >= c.winEnd[ch] {
		c.winStart[ch], c.winEnd[ch] = t, t+c.window
	}
	if c.batch == 0 {
		return c.access(t, addr, loc, true)
	}
	if line := int64(addr / lineBytes); len(c.queue[ch]) == 0 || line != c.queueLine[ch] {
		c.queued[ch]++
		c.queueLine[ch] = line
	}
	c.queue[ch] = append(c.queue[ch], addr)
	if c.queued[ch] < c.batch {
		return t + c.latency
	}
	return c.drain(ch, t)
}

// Drain sends every write still queued at cycle t and returns the cycle the last is
// done (t if none waits). The timing engine does not call it: a kernel ends when its
// writes are in the L2, and what the L2 sent DRAM may still be queued.
func (c *Channels) Drain(t int64) int64 {
	last := t
	for ch := range c.queue {
		if len(c.queue[ch]) > 0 {
			last = max(last, c.drain(ch, t))
		}
	}
	return last
}

// drain sends channel ch's queued writes at cycle t, in the order they came, and
// returns when the last is done.
func (c *Channels) drain(ch int, t int64) int64 {
	var last int64
	for _, addr := range c.queue[ch] {
		last = c.access(t, addr, c.m.Map(addr), true)
	}
	c.queue[ch], c.queued[ch] = c.queue[ch][:0], 0
	return last
}

// access moves the sector at addr, which lies at loc, at cycle t, past the queue.
func (c *Channels) access(t int64, addr uint64, loc Location, write bool) int64 {
	b := loc.Channel*c.banks + loc.Bank
	ready := max(t, c.bankReady[b])
	// In arrival order nothing of this request happens before its bank is free; with
	// Reorder it takes its activation and bus slot from when it arrives.
	from := ready * ticks
	if c.reorder {
		from = t * ticks
	}
	if c.busWrite[loc.Channel] != write && c.turn > 0 {
		c.turnAround(loc.Channel, write)
	}
	hit := c.openRow[b] == int64(loc.Row)
	if !hit {
		act := max(from, c.lastAct[loc.Channel]+c.rrd)
		c.lastAct[loc.Channel] = act
		ready = max(ready, (act+ticks-1)/ticks) + c.rowMiss
		c.openRow[b] = int64(loc.Row)
	}
	slot := max(ready*ticks, c.busBusy[loc.Channel])
	if c.reorder {
		slot = max(from, c.busBusy[loc.Channel])
	}
	slot = max(slot, c.command(loc.Channel, addr, write, from))
	c.busBusy[loc.Channel] = slot + c.burst
	start := max(ready*ticks, slot)
	c.bankReady[b] = ready
	// The latency includes the row miss, which a row hit saves but for rowHit.
	lat := c.latency - c.rowMiss
	if hit {
		lat += c.rowHit
	}
	return (start+ticks-1)/ticks + lat
}

// turnAround turns channel ch's bus to write (or to read): the bus and the next
// column command wait TurnNS more.
func (c *Channels) turnAround(ch int, write bool) {
	c.busWrite[ch] = write
	c.busBusy[ch] += c.turn
	if c.cmdLine[ch] != noCommand {
		c.cmdAt[ch] += c.turn
		c.cmdLine[ch] = turned
	}
}

// cmdLine's values that are no line: no command yet, and a channel that turned around
// since its latest (the next is a new command).
const (
	noCommand = -1
	turned    = -2
)

// lineBytes is what one column command moves at most: the L2's line.
const lineBytes = 128

// command returns the tick the column command that moves addr issues, no sooner than
// from: the channel's latest command if it moves the same line in the same direction
// (the sectors of a line's fetch or write-back come one after another), else a new one,
// the direction's gap after the latest. Without gaps (tCCD 0) it returns 0.
func (c *Channels) command(ch int, addr uint64, write bool, from int64) int64 {
	if c.ccd == [2]int64{} {
		return 0
	}
	line := int64(addr / lineBytes)
	if line == c.cmdLine[ch] && write == c.cmdWrite[ch] {
		return c.cmdAt[ch]
	}
	at := from
	if c.cmdLine[ch] != noCommand {
		at = max(at, c.cmdAt[ch]+c.ccd[b2i(c.cmdWrite[ch])])
	}
	c.cmdLine[ch], c.cmdWrite[ch], c.cmdAt[ch] = line, write, at
	return at
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Bytes returns the bytes read and written so far.
func (c *Channels) Bytes() (read, written uint64) { return c.readBytes, c.writeBytes }
