package dram

import (
	"fmt"
	"math"
	"math/bits"
)

// Config describes the DRAM system.
type Config struct {
	Channels    int  // memory channels (partitions)
	Banks       int  // banks per channel
	RowBytes    int  // row-buffer (page) size per bank, bytes
	BurstLength int  // beats per burst
	BusBytes    int  // bytes per beat on one channel; BurstLength × BusBytes is the access granularity (at most 64)
	Interleave  int  // partition-interleave chunk, bytes
	Hash        bool // skew the channel by an XOR fold of higher address bits
}

// BurstBytes is the access granularity.
func (c Config) BurstBytes() int { return c.BurstLength * c.BusBytes }

// Validate reports the first inconsistency, or nil.
func (c Config) Validate() error {
	switch {
	case c.Channels < 1 || c.Banks < 1:
		return fmt.Errorf("dram: channels (%d) and banks (%d) must be at least 1", c.Channels, c.Banks)
	case c.BurstLength < 1 || c.BusBytes < 1:
		return fmt.Errorf("dram: burst length (%d) and bus bytes (%d) must be at least 1", c.BurstLength, c.BusBytes)
	case c.BurstBytes() > 64 || bits.OnesCount(uint(c.BurstBytes())) != 1:
		return fmt.Errorf("dram: burst of %d B (%d × %d): want a power of two up to 64", c.BurstBytes(), c.BurstLength, c.BusBytes)
	case c.Interleave < c.BurstBytes() || c.Interleave%c.BurstBytes() != 0:
		return fmt.Errorf("dram: interleave %d B must be a multiple of the %d B burst", c.Interleave, c.BurstBytes())
	case c.RowBytes < c.BurstBytes() || c.RowBytes%c.BurstBytes() != 0:
		return fmt.Errorf("dram: row %d B must be a multiple of the %d B burst", c.RowBytes, c.BurstBytes())
	}
	return nil
}

// Location is where an address lives.
type Location struct {
	Channel, Bank int
	Row           uint64
}

// Stats are cumulative.
type Stats struct {
	Requests     uint64
	ReadBytes    uint64 // bytes requested by reads
	WriteBytes   uint64
	Bursts       uint64 // bursts moved
	BurstBytes   uint64 // Bursts × burst size
	UsefulBytes  uint64 // distinct requested bytes inside those bursts
	RowHits      uint64
	RowMisses    uint64 // bank had no open row
	RowConflicts uint64 // another row was open
	PerChannel   []uint64
}

// RowHitRate is row hits over bursts, in percent.
func (s Stats) RowHitRate() float64 {
	return pct(s.RowHits, s.RowHits+s.RowMisses+s.RowConflicts)
}

// BurstUtilization is useful bytes over burst bytes moved, in percent.
func (s Stats) BurstUtilization() float64 { return pct(s.UsefulBytes, s.BurstBytes) }

// ChannelImbalance is max over mean requests per channel: 1 is perfectly
// balanced, Channels means everything went to one channel.
func (s Stats) ChannelImbalance() float64 { return Imbalance(s.PerChannel) }

// Imbalance is max over mean of per-unit counts (channels, L2 slices): 1 when every
// unit took as many, the number of units when one took all; 0 when none took any.
func Imbalance(per []uint64) float64 {
	var sum, mx uint64
	for _, n := range per {
		sum += n
		mx = max(mx, n)
	}
	if sum == 0 {
		return 0
	}
	return float64(mx) * float64(len(per)) / float64(sum)
}

// ChannelCV is the coefficient of variation of requests per channel.
func (s Stats) ChannelCV() float64 {
	n := float64(len(s.PerChannel))
	var sum, sq float64
	for _, c := range s.PerChannel {
		sum += float64(c)
	}
	if sum == 0 {
		return 0
	}
	mean := sum / n
	for _, c := range s.PerChannel {
		sq += (float64(c) - mean) * (float64(c) - mean)
	}
	return math.Sqrt(sq/n) / mean
}

func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// Model is the DRAM system. Not safe for concurrent use.
type Model struct {
	cfg     Config
	burst   uint64
	openRow []int64  // per channel×bank; -1 = closed
	last    []uint64 // per channel: most recent burst address + 1 (0 = none)
	lastWr  []bool
	lastUse []uint64 // per channel: byte mask of useful bytes in that burst
	stats   Stats
}

// Bytes is the memory the model's state takes, with the timed channels NewChannels
// builds over it (per bank: the open row, twice, and when it is ready; per channel: the
// last burst, its mask and kind, the bus and the last activate; the latest column
// command: its line, direction and time; the bus's direction and the write queue (its
// addresses, a slice, and its line count and latest line); and the per-channel counts),
// so that a caller can ask before building one of an absurd size. A queue's addresses
// are not counted: at most WriteBatch lines' sectors a channel.
func (c Config) Bytes() uint64 {
	ch, banks := uint64(max(c.Channels, 0)), uint64(max(c.Banks, 0))
	return ch*banks*3*8 + ch*(12*8+3)
}

// New builds a model.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{
		cfg:     cfg,
		burst:   uint64(cfg.BurstBytes()),
		openRow: make([]int64, cfg.Channels*cfg.Banks),
		last:    make([]uint64, cfg.Channels),
		lastWr:  make([]bool, cfg.Channels),
		lastUse: make([]uint64, cfg.Channels),
	}
	m.stats.PerChannel = make([]uint64, cfg.Channels)
	for i := range m.openRow {
		m.openRow[i] = -1
	}
	return m, nil
}

func fold(q uint64) uint64 { return q ^ q>>5 ^ q>>11 ^ q>>17 }

// Map returns where addr lives.
func (m *Model) Map(addr uint64) Location {
	c := uint64(m.cfg.Channels)
	il := uint64(m.cfg.Interleave)
	chunk := addr / il
	ch := chunk % c
	if m.cfg.Hash {
		ch = (chunk + fold(chunk/c)) % c
	}
	local := chunk/c*il + addr%il
	row := uint64(m.cfg.RowBytes)
	return Location{
		Channel: int(ch),
		Bank:    int(local / row % uint64(m.cfg.Banks)),
		Row:     local / (row * uint64(m.cfg.Banks)),
	}
}

// Access serves one request of bytes useful bytes at addr.
func (m *Model) Access(addr uint64, bytes int, write bool) { m.access(addr, bytes, write, true) }

// Move moves the bursts that hold [addr, addr+bytes) without counting any of their bytes
// as useful: what a cache fetches beyond what was asked for (an L2 that reads 64 bytes
// around a 32-byte miss) costs bursts and row activity, but serves no request yet.
func (m *Model) Move(addr uint64, bytes int, write bool) { m.access(addr, bytes, write, false) }

func (m *Model) access(addr uint64, bytes int, write, useful bool) {
	if bytes <= 0 {
		return
	}
	s := &m.stats
	s.Requests++
	switch {
	case !useful:
	case write:
		s.WriteBytes += uint64(bytes)
	default:
		s.ReadBytes += uint64(bytes)
	}
	end := addr + uint64(bytes)
	counted := -1
	for b := addr &^ (m.burst - 1); b < end; b += m.burst {
		loc := m.Map(b)
		ch := loc.Channel
		if ch != counted { // a request counts once per channel it touches
			s.PerChannel[ch]++
			counted = ch
		}
		lo, hi := max(addr, b)-b, min(end, b+m.burst)-b
		use := (^uint64(0) >> (64 - (hi - lo))) << lo
		if !useful {
			use = 0
		}
		if m.last[ch] == b+1 && m.lastWr[ch] == write {
			m.lastUse[ch] |= use
			continue
		}
		m.retire(ch)
		m.last[ch], m.lastWr[ch], m.lastUse[ch] = b+1, write, use
		s.Bursts++
		s.BurstBytes += m.burst
		rb := &m.openRow[ch*m.cfg.Banks+loc.Bank]
		switch {
		case *rb == int64(loc.Row):
			s.RowHits++
		case *rb < 0:
			s.RowMisses++
		default:
			s.RowConflicts++
		}
		*rb = int64(loc.Row)
	}
}

// retire adds a channel's current burst's useful bytes to the total.
func (m *Model) retire(ch int) {
	m.stats.UsefulBytes += uint64(bits.OnesCount64(m.lastUse[ch]))
	m.lastUse[ch] = 0
}

// Stats returns the counts so far, including the bursts still open.
func (m *Model) Stats() Stats {
	s := m.stats
	for _, u := range m.lastUse {
		s.UsefulBytes += uint64(bits.OnesCount64(u))
	}
	s.PerChannel = append([]uint64(nil), m.stats.PerChannel...)
	return s
}
