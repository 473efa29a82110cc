package coalesce

import (
	"fmt"
	"math/bits"
)

// Mode is an architecture's coalescing rule.
type Mode uint8

const (
	Lines128   Mode = iota + 1 // "fermi-128B-lines"
	Segments32                 // "fermi-32B-segments"
	Sectors32                  // "sectored-32B"
)

var modeNames = [...]string{Lines128: "fermi-128B-lines", Segments32: "fermi-32B-segments", Sectors32: "sectored-32B"}

func (m Mode) String() string {
	if m >= Lines128 && m <= Sectors32 {
		return modeNames[m]
	}
	return fmt.Sprintf("invalid(%d)", uint8(m))
}

// ParseMode parses a mode name as String prints it.
func ParseMode(s string) (Mode, error) {
	for m := Lines128; m <= Sectors32; m++ {
		if modeNames[m] == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown coalescer mode %q (want %s, %s or %s)", s, Lines128, Segments32, Sectors32)
}

// UnmarshalText parses a mode name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	*m = v
	return err
}

// MarshalText prints the mode name.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// LineBytes is the line size a Unit addresses; SectorBytes one mask bit.
const (
	LineBytes   = 128
	SectorBytes = 32
)

// Unit is one line a request touches and the 32-byte sectors touched in it.
type Unit struct {
	Line    uint64 // 128-byte-aligned byte address
	Sectors uint8  // bit i: bytes [32i, 32i+32) of the line
}

// Result describes one warp instruction. Its slices belong to the
// Coalescer and are overwritten by the next Coalesce.
type Result struct {
	Mode         Mode
	Requests     int // requests issued (1 per instruction, or per half/quarter warp on Fermi modes)
	Transactions int // the mode's units: lines for fermi-128B-lines, 32 B segments or sectors otherwise
	Sectors      int // 32-byte sectors, summed over requests (ncu's l1tex__t_sectors)
	UsefulBytes  int // distinct bytes the active lanes ask for
	UnitBytes    int // bytes per transaction: 128 or 32

	units []Unit
	ends  []int // ends[i] is the end of request i in units
}

// Request returns request i's unique units, in order of first touch.
func (r *Result) Request(i int) []Unit {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.units[start:r.ends[i]]
}

// Units returns every request's units, request after request.
func (r *Result) Units() []Unit { return r.units }

// BusBytes is the bytes the transactions move.
func (r *Result) BusBytes() int { return r.Transactions * r.UnitBytes }

// BusUtilization is UsefulBytes / BusBytes in percent (0 for an empty instruction).
func (r *Result) BusUtilization() float64 {
	if r.Transactions == 0 {
		return 0
	}
	return 100 * float64(r.UsefulBytes) / float64(r.BusBytes())
}

// Coalescer holds one mode and reusable buffers. It is not safe for concurrent use.
type Coalescer struct {
	mode  Mode
	units [2 * 32]Unit // a lane's access may straddle two lines
	ends  [4]int
	sort  [32]uint64
	memo  *[memoEntries]memoEntry // Strided's answers, built at its first call
	lanes [32]uint64
}

// memoEntries is how many strided shapes a Coalescer remembers (direct-mapped): a
// kernel's accesses take few shapes, a full warp's and the ragged edges'.
const memoEntries = 32

// memoKey is what a strided access's result depends on, apart from which line its
// base is in.
type memoKey struct {
	mask   uint32
	stride int64
	off    uint8 // base's offset in its line
	width  uint8
	store  bool
}

// memoEntry is one remembered result, its units' lines relative to the base's line.
type memoEntry struct {
	key   memoKey
	valid bool
	res   Result
	units []Unit
	ends  []int
}

// New returns a coalescer for m.
func New(m Mode) (*Coalescer, error) {
	if m < Lines128 || m > Sectors32 {
		return nil, fmt.Errorf("coalesce: invalid mode %d", m)
	}
	return &Coalescer{mode: m}, nil
}

// Mode returns the coalescer's mode.
func (c *Coalescer) Mode() Mode { return c.mode }

// Coalesce processes one warp instruction. addrs holds the active lanes'
// addresses in lane order; mask has one bit per active lane (bit i = lane i).
// If mask does not have len(addrs) bits set, the addresses are taken to be
// lanes 0..len(addrs)-1. width is the bytes each lane accesses (1 to 16;
// other values are clamped into that range). At most 32 addresses are used.
func (c *Coalescer) Coalesce(mask uint32, addrs []uint64, width int, store bool) Result {
	if len(addrs) > 32 {
		addrs = addrs[:32]
	}
	width = min(max(width, 1), 16)
	if bits.OnesCount32(mask) != len(addrs) {
		mask = uint32(1<<len(addrs) - 1)
	}
	mode := c.mode
	if store && mode == Lines128 {
		mode = Segments32
	}
	r := Result{Mode: mode, UnitBytes: SectorBytes}
	if mode == Lines128 {
		r.UnitBytes = LineBytes
	}
	if len(addrs) == 0 {
		r.units, r.ends = c.units[:0], c.ends[:0]
		return r
	}
	r.UsefulBytes = c.uniqueBytes(addrs, width)

	// Lanes per request: the whole warp, or a half/quarter warp on Fermi modes.
	group := 32
	if mode != Sectors32 && width > 4 {
		group = 32 * 4 / width // 16 for 8-byte words, 8 for 16-byte words
	}
	n, nreq, i := 0, 0, 0
	for g := 0; g < 32; g += group {
		start := n
		gmask := mask & uint32((uint64(1)<<(g+group))-(uint64(1)<<g))
		if gmask == 0 {
			continue
		}
		// Consecutive lanes usually share a line: accumulate its bits in a
		// register and write them back when the line changes.
		last, lastLine, lastBits := -1, uint64(0), uint8(0)
		// The group's units span [lo, hi]: a line outside is new without a search, which
		// keeps monotonic (strided) lanes linear rather than quadratic.
		lo, hi := ^uint64(0), uint64(0)
		for m := gmask; m != 0; m &= m - 1 { // lanes of this group, in order
			a := addrs[i]
			i++
			first, end := a/SectorBytes, (a+uint64(width)-1)/SectorBytes
			for s := first; s <= end; s++ {
				line := s * SectorBytes &^ (LineBytes - 1)
				bit := uint8(1) << (s % (LineBytes / SectorBytes))
				if last >= 0 && lastLine == line {
					lastBits |= bit
					continue
				}
				if last >= 0 {
					c.units[last].Sectors |= lastBits
				}
				j := start - 1
				if line >= lo && line <= hi {
					for j = n - 1; j >= start && c.units[j].Line != line; j-- {
					}
				}
				lo, hi = min(lo, line), max(hi, line)
				if j < start {
					j = n
					c.units[n] = Unit{Line: line}
					n++
				}
				last, lastLine, lastBits = j, line, bit
			}
		}
		if last >= 0 {
			c.units[last].Sectors |= lastBits
		}
		for _, u := range c.units[start:n] {
			r.Sectors += bits.OnesCount8(u.Sectors)
		}
		if mode == Lines128 {
			r.Transactions += n - start
		}
		c.ends[nreq] = n
		nreq++
	}
	if mode != Lines128 {
		r.Transactions = r.Sectors
	}
	r.Requests = nreq
	r.units, r.ends = c.units[:n], c.ends[:nreq]
	return r
}

// maxMemoStride bounds the strides Strided remembers: all of a warp's lanes then lie
// within 32 × maxMemoStride + LineBytes bytes after its base's line.
const maxMemoStride = 1 << 24

// Strided is Coalesce for the lanes of mask at base + stride × lane (lane = the bit's
// index), the layout most accesses of a regular kernel have (format.AddrStride). Its
// result is the same; it is faster because the result depends on base only through
// base's line and its offset in it: for a new line with a shape seen before it moves the
// remembered units by the difference instead of coalescing again.
func (c *Coalescer) Strided(mask uint32, base uint64, stride int64, width int, store bool) Result {
	width = min(max(width, 1), 16)
	off := base % LineBytes
	frame := base - off
	if mask == 0 || stride < 0 || stride > maxMemoStride || frame > ^uint64(0)-(32*maxMemoStride+2*LineBytes) {
		// No shift-invariant frame (a negative stride, or the top of the address
		// space): coalesce the lanes' addresses.
		return c.Coalesce(mask, c.laneAddrs(mask, base, stride), width, store)
	}
	if c.memo == nil {
		c.memo = new([memoEntries]memoEntry)
	}
	k := memoKey{mask: mask, stride: stride, off: uint8(off), width: uint8(width), store: store}
	h := (uint64(mask)*0x9E3779B97F4A7C15 ^ uint64(stride)*0xC2B2AE3D27D4EB4F ^ uint64(off)<<8 ^ uint64(width)<<1) >> 59
	if store {
		h ^= 1
	}
	e := &c.memo[h%memoEntries]
	if !e.valid || e.key != k {
		// Coalesce in the frame of base's line: lanes at off + stride × lane.
		r := c.Coalesce(mask, c.laneAddrs(mask, off, stride), width, store)
		e.key, e.valid, e.res = k, true, r
		e.units, e.ends = append(e.units[:0], r.units...), append(e.ends[:0], r.ends...)
	}
	r := e.res
	n := copy(c.units[:], e.units)
	for i := range n {
		c.units[i].Line += frame
	}
	r.units, r.ends = c.units[:n], c.ends[:copy(c.ends[:], e.ends)]
	return r
}

// laneAddrs lists the addresses of mask's lanes at base + stride × lane, in lane order.
func (c *Coalescer) laneAddrs(mask uint32, base uint64, stride int64) []uint64 {
	a := c.lanes[:0]
	for m := mask; m != 0; m &= m - 1 {
		a = append(a, base+uint64(stride*int64(bits.TrailingZeros32(m))))
	}
	return a
}

// uniqueBytes counts the distinct bytes of the lanes' [a, a+width) ranges.
func (c *Coalescer) uniqueBytes(addrs []uint64, width int) int {
	s := addrs // sorted already in the common case: sort a copy only if not
	for i := 1; i < len(addrs); i++ {
		if addrs[i] < addrs[i-1] {
			s = c.sort[:len(addrs)]
			if descending(addrs) { // a negative stride: reversing sorts it
				for k, a := range addrs {
					s[len(addrs)-1-k] = a
				}
				break
			}
			copy(s, addrs)
			insertionSort(s)
			break
		}
	}
	w := uint64(width)
	total := uint64(0)
	end := uint64(0) // end of the covered range so far
	for k, a := range s {
		switch {
		case k == 0 || a >= end:
			total += w
		case a+w > end:
			total += a + w - end
		}
		if k == 0 || a+w > end {
			end = a + w
		}
	}
	return int(total)
}

func descending(s []uint64) bool {
	for i := 1; i < len(s); i++ {
		if s[i] > s[i-1] {
			return false
		}
	}
	return true
}

func insertionSort(s []uint64) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i - 1
		for ; j >= 0 && s[j] > v; j-- {
			s[j+1] = s[j]
		}
		s[j+1] = v
	}
}

// Serial is one request whose lanes the L1 serves one at a time: each address in addrs
// is a unit of its own with the sectors its width bytes touch, in the order given,
// lines repeated when two lanes share one. An H100 serves a cp.async.cg whose lanes
// repeat a shared destination so (scripts/hw/ldgsts.cu): one sector a distinct
// destination in l1tex__t_sectors and in the L2's reads, where the same sources
// copied to distinct destinations coalesce.
func (c *Coalescer) Serial(addrs []uint64, width int) Result {
	if len(addrs) > 32 {
		addrs = addrs[:32]
	}
	width = min(max(width, 1), 16)
	r := Result{Mode: Sectors32, UnitBytes: SectorBytes}
	n := 0
	for _, a := range addrs {
		n = c.addLane(n, n, a, width)
	}
	for _, u := range c.units[:n] {
		r.Sectors += bits.OnesCount8(u.Sectors)
	}
	if len(addrs) > 0 {
		r.UsefulBytes = c.uniqueBytes(addrs, width)
		r.Requests = 1
	}
	r.Transactions = r.Sectors
	c.ends[0] = n
	r.units, r.ends = c.units[:n], c.ends[:1]
	return r
}

// addLane adds the sectors that width bytes at a touch to the units c.units[start:n],
// one unit a line (a new one at n when none there has the line), and returns the new n.
func (c *Coalescer) addLane(start, n int, a uint64, width int) int {
	for s := a / SectorBytes; s <= (a+uint64(width)-1)/SectorBytes; s++ {
		line := s * SectorBytes &^ (LineBytes - 1)
		j := start
		for j < n && c.units[j].Line != line {
			j++
		}
		if j == n {
			c.units[n] = Unit{Line: line}
			n++
		}
		c.units[j].Sectors |= uint8(1) << (s % (LineBytes / SectorBytes))
	}
	return n
}

// Atomic processes one warp's atomic or reduction instruction, given its active lanes'
// addresses in lane order. Lanes that share an address cannot be served in one pass of
// the request to L2: the request is split into passes, the first serving one lane of
// each address, the next one more lane of each address that has one left, and so on,
// and each pass sends the sectors its lanes touch. Sectors is summed over the passes and
// Units lists every pass's units, pass after pass: what ncu counts as
// l1tex__t_sectors_pipe_lsu_mem_global_op_{atom,red} and
// lts__t_sectors_srcunit_tex_op_{atom,red}. Measured on an H100
// (traces/hw/h100-2026-11-25-heldout.csv): 32 lanes on one word give 32 sectors per
// request (1048576 for hist_global@bins=1), and 16 bins 274545, both exactly this count.
// There is one request per instruction.
func (c *Coalescer) Atomic(addrs []uint64, width int) Result {
	if len(addrs) > 32 {
		addrs = addrs[:32]
	}
	width = min(max(width, 1), 16)
	r := Result{Mode: Sectors32, UnitBytes: SectorBytes}
	if len(addrs) == 0 {
		r.units, r.ends = c.units[:0], c.ends[:0]
		return r
	}
	r.UsefulBytes = c.uniqueBytes(addrs, width)
	// pass[i]: how many earlier lanes share lane i's address.
	var pass [32]uint8
	passes := uint8(0)
	for i, a := range addrs {
		for j := 0; j < i; j++ {
			if addrs[j] == a {
				pass[i]++
			}
		}
		passes = max(passes, pass[i]+1)
	}
	n := 0
	for p := uint8(0); p < passes; p++ {
		start := n
		for i, a := range addrs {
			if pass[i] == p {
				n = c.addLane(start, n, a, width)
			}
		}
		for _, u := range c.units[start:n] {
			r.Sectors += bits.OnesCount8(u.Sectors)
		}
	}
	r.Transactions, r.Requests = r.Sectors, 1
	c.ends[0] = n
	r.units, r.ends = c.units[:n], c.ends[:1]
	return r
}
