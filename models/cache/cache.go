package cache

import (
	"math/bits"
	"unsafe"
)

// Op is the kind of access, for statistics and write handling.
type Op uint8

const (
	Load Op = iota
	Store
	NumOps
)

func (o Op) String() string {
	if o == Store {
		return "st"
	}
	return "ld"
}

// Result is what one Access did. Masks are per 32-byte chunk of Line.
type Result struct {
	Line    uint64 // byte address of the line accessed
	Hit     uint8  // requested chunks found valid
	Merged  uint8  // requested chunks missing but already outstanding (MSHR merge)
	Miss    uint8  // requested chunks missing and not outstanding
	Fetch   uint8  // chunks to read from the next level (Miss widened to whole sectors)
	Forward uint8  // store chunks to send to the next level (write-through, write-evict, no-allocate)

	Evicted    bool   // a valid line was replaced
	EvictLine  uint64 // its byte address
	EvictDirty uint8  // its dirty chunks, to write back below
}

// AllHit reports whether every requested chunk was valid.
func (r Result) AllHit() bool { return r.Miss == 0 && r.Merged == 0 }

// OpStats counts one kind of access. Chunk counts are 32-byte sectors, as ncu counts them.
type OpStats struct {
	Requests uint64 // Access calls
	Sectors  uint64 // chunks requested
	Hits     uint64 // chunks hit
	Misses   uint64 // chunks missed (fetched or forwarded)
	Merges   uint64 // chunks that merged into an outstanding miss
}

// HitRate is hits over sectors requested, in percent (0 when nothing was requested).
func (s OpStats) HitRate() float64 {
	if s.Sectors == 0 {
		return 0
	}
	return 100 * float64(s.Hits) / float64(s.Sectors)
}

// Stats are cumulative counts since New or the last ResetStats.
type Stats struct {
	Op          [NumOps]OpStats
	Fetched     uint64 // chunks read from the next level
	Forwarded   uint64 // store chunks sent to the next level
	WrittenBack uint64 // dirty chunks written back on eviction or FlushDirty
	Evictions   uint64 // valid lines replaced
}

// Total sums loads and stores.
func (s Stats) Total() OpStats {
	var t OpStats
	for _, o := range s.Op {
		t.Requests += o.Requests
		t.Sectors += o.Sectors
		t.Hits += o.Hits
		t.Misses += o.Misses
		t.Merges += o.Merges
	}
	return t
}

// Sectored is a sectored set-associative cache. It is not safe for
// concurrent use; give each simulated cache its own.
type Sectored struct {
	cfg        Config
	sets, ways int
	lineShift  uint
	full       uint8 // mask of all chunks in a line
	secChunks  int   // chunks per sector
	present    bool

	// One struct per slot keeps what an access touches in one host cache line.
	slots      []slot
	head, tail []int32
	index      *lineIndex // for sets with many ways; nil = scan the set

	mshr     []mshrEntry // ring of slots with pending chunks
	mshrHead int
	mshrLen  int

	stats Stats
}

// slot is one line frame. Replacement order is a doubly linked list per set (prev, next),
// most recent first; empty slots sit at the tail, so the victim is always the tail.
type slot struct {
	tag                uint64 // line number (addr >> lineShift)
	prev, next         int32
	valid, pend, dirty uint8 // pend: fetched but not yet arrived (MSHR outstanding)
	rrpv               uint8 // SRRIP's re-reference prediction: 0 near to rripDistant
	// gen counts the times the slot was emptied: an MSHR entry made before the last
	// emptying is stale, so emptying a slot need not search the ring.
	gen uint32
}

// mshrEntry is one outstanding miss: a slot, live while the slot's gen is still gen.
type mshrEntry struct {
	slot int32
	gen  uint32
}

// New builds a cache from cfg.
func New(cfg Config) (*Sectored, error) {
	line, sector, sets, ways, err := cfg.Geometry()
	if err != nil {
		return nil, err
	}
	c := &Sectored{
		cfg:       cfg,
		sets:      sets,
		ways:      ways,
		lineShift: uint(bits.TrailingZeros(uint(line))),
		full:      uint8(1<<(line/Chunk) - 1),
		secChunks: sector / Chunk,
		present:   cfg.Size > 0,
	}
	return c, nil
}

// alloc builds the slots at the first access: an engine builds every cache of every SM
// for each kernel, and many (the texture cache of a kernel without texture fetches) are
// never touched.
func (c *Sectored) alloc() {
	n := c.sets * c.ways
	c.slots = make([]slot, n)
	c.head = make([]int32, c.sets)
	c.tail = make([]int32, c.sets)
	c.mshr = make([]mshrEntry, c.cfg.MSHRs)
	if c.ways > indexedWays {
		x := newLineIndex(n)
		c.index = &x
	}
	c.resetOrder()
}

// indexedWays is the most ways a set may have before a cache looks lines up through a
// lineIndex rather than by scanning the set.
const indexedWays = 32

// Bytes is the memory a cache of this configuration takes once it has been accessed
// (alloc's slots, per-set order, MSHRs and line index), so that a caller building
// thousands of them can ask before it allocates. An invalid configuration takes none.
func (c Config) Bytes() uint64 {
	_, _, sets, ways, err := c.Geometry()
	if err != nil {
		return 0
	}
	n := uint64(sets) * uint64(ways)
	b := n*uint64(unsafe.Sizeof(slot{})) + 2*uint64(sets)*4 + uint64(c.MSHRs)*uint64(unsafe.Sizeof(mshrEntry{}))
	if ways > indexedWays {
		b += indexSize(n) * uint64(unsafe.Sizeof(indexEntry{}))
	}
	return b
}

// Config returns the configuration the cache was built with.
func (c *Sectored) Config() Config { return c.cfg }

// LineBytes is the line size in bytes.
func (c *Sectored) LineBytes() int { return 1 << c.lineShift }

// Stats returns the counts so far.
func (c *Sectored) Stats() Stats { return c.stats }

// ResetStats zeroes the counts and keeps the contents.
func (c *Sectored) ResetStats() { c.stats = Stats{} }

// Mask returns the chunk mask of the byte range [addr, addr+size) within
// addr's line; bytes beyond the line are ignored.
func (c *Sectored) Mask(addr uint64, size int) uint8 {
	if size <= 0 {
		return 0
	}
	off := addr & (1<<c.lineShift - 1)
	end := off + uint64(size) - 1
	if max := uint64(1)<<c.lineShift - 1; end > max {
		end = max
	}
	first, last := off/Chunk, end/Chunk
	return uint8((1<<(last+1) - 1) &^ (1<<first - 1))
}

func (c *Sectored) setOf(line uint64) int {
	switch c.cfg.SetIndex {
	case FermiHash:
		// gpgpu-sim FERMI_HASH_SET_FUNCTION, written for 128-byte lines:
		// bits 7-11 XOR bits 13,14,15,17,19; bit 12 prepended for 64 sets.
		addr := line << c.lineShift
		lower := (addr >> c.lineShift) & 0x1F
		upper := (addr&0xE000)>>13 | (addr&0x20000)>>14 | (addr&0x80000)>>15
		s := lower ^ upper
		if c.sets == 64 {
			s |= (addr & 0x1000) >> 7
		}
		return int(s)
	case XORFold:
		b := uint(bits.TrailingZeros(uint(c.sets)))
		s := uint64(0)
		for l := line; l != 0; l >>= b {
			s ^= l
		}
		return int(s & uint64(c.sets-1))
	}
	return int(line % uint64(c.sets))
}

// widen expands a chunk mask to whole sectors.
func (c *Sectored) widen(m uint8) uint8 {
	if c.secChunks == 1 {
		return m
	}
	var out uint8
	sec := uint8(1<<c.secChunks - 1)
	for i := 0; i < 8; i += c.secChunks {
		if m&(sec<<i) != 0 {
			out |= sec << i
		}
	}
	return out & c.full
}

// lookup returns the slot holding line, or -1.
func (c *Sectored) lookup(set int, line uint64) int {
	if c.index != nil {
		return c.index.get(line)
	}
	base := set * c.ways
	for i := base; i < base+c.ways; i++ {
		if c.slots[i].tag == line && (c.slots[i].valid|c.slots[i].pend) != 0 {
			return i
		}
	}
	return -1
}

func (c *Sectored) resetOrder() {
	for set := 0; set < c.sets; set++ {
		base := set * c.ways
		for w := 0; w < c.ways; w++ {
			c.slots[base+w].prev = int32(base + w - 1)
			c.slots[base+w].next = int32(base + w + 1)
		}
		c.slots[base].prev = -1
		c.slots[base+c.ways-1].next = -1
		c.head[set], c.tail[set] = int32(base), int32(base+c.ways-1)
	}
}

func (c *Sectored) unlink(set, s int) {
	p, n := c.slots[s].prev, c.slots[s].next
	if p >= 0 {
		c.slots[p].next = n
	} else {
		c.head[set] = n
	}
	if n >= 0 {
		c.slots[n].prev = p
	} else {
		c.tail[set] = p
	}
}

// toHead makes s the most recently used slot of its set.
func (c *Sectored) toHead(set, s int) {
	if int(c.head[set]) == s {
		return
	}
	c.unlink(set, s)
	c.slots[s].prev, c.slots[s].next = -1, c.head[set]
	c.slots[c.head[set]].prev = int32(s)
	c.head[set] = int32(s)
}

// toTail makes s the next victim of its set (used when it becomes empty).
func (c *Sectored) toTail(set, s int) {
	if int(c.tail[set]) == s {
		return
	}
	c.unlink(set, s)
	c.slots[s].prev, c.slots[s].next = c.tail[set], -1
	c.slots[c.tail[set]].next = int32(s)
	c.tail[set] = int32(s)
}

// empty removes s's line: the slot becomes the set's next victim.
func (c *Sectored) empty(set, s int) {
	if c.slots[s].pend != 0 {
		c.dropMSHR(s)
	}
	if c.index != nil && c.slots[s].valid|c.slots[s].pend != 0 {
		c.index.del(c.slots[s].tag)
	}
	c.slots[s].valid, c.slots[s].pend, c.slots[s].dirty = 0, 0, 0
	c.toTail(set, s)
}

// allocate replaces the set's victim (the tail: an empty slot if there is
// one, else the least recently used or first inserted line; under SRRIP, rripVictim) with line.
func (c *Sectored) allocate(set int, line uint64, r *Result) int {
	s := int(c.tail[set])
	if c.cfg.Replacement == SRRIP && c.slots[s].valid|c.slots[s].pend != 0 {
		s = c.rripVictim(set)
	}
	if c.slots[s].valid|c.slots[s].pend != 0 {
		r.Evicted = true
		r.EvictLine = c.slots[s].tag << c.lineShift
		r.EvictDirty = c.slots[s].dirty
		c.stats.Evictions++
		c.stats.WrittenBack += uint64(bits.OnesCount8(c.slots[s].dirty))
		c.empty(set, s)
	}
	c.slots[s].tag = line
	c.slots[s].rrpv = rripLong
	if c.index != nil {
		c.index.put(line, s)
	}
	c.toHead(set, s)
	return s
}

// SRRIP's 2-bit re-reference predictions: a new line's and the victim's.
const (
	rripLong    = 2
	rripDistant = 3
)

// rripVictim is the slot SRRIP replaces in a full set: the least recently used of the
// lines predicted furthest away, after ageing every line of the set by what that line
// lacked of rripDistant.
func (c *Sectored) rripVictim(set int) int {
	victim, far := -1, uint8(0)
	for s := c.tail[set]; s >= 0; s = c.slots[s].prev {
		if v := c.slots[s].rrpv; victim < 0 || v > far {
			victim, far = int(s), v
		}
	}
	if age := rripDistant - far; age > 0 {
		for s := c.tail[set]; s >= 0; s = c.slots[s].prev {
			c.slots[s].rrpv += age
		}
	}
	return victim
}

// Access looks up the chunks in mask of the line holding addr. Chunks outside
// the line are ignored; an empty mask does nothing.
func (c *Sectored) Access(addr uint64, mask uint8, op Op) Result {
	mask &= c.full
	line := addr >> c.lineShift
	r := Result{Line: line << c.lineShift}
	if mask == 0 {
		return r
	}
	st := &c.stats.Op[op]
	st.Requests++
	n := uint64(bits.OnesCount8(mask))
	st.Sectors += n

	if !c.present {
		st.Misses += n
		r.Miss = mask
		if op == Load {
			r.Fetch = c.widen(mask)
			c.stats.Fetched += uint64(bits.OnesCount8(r.Fetch))
		} else {
			r.Forward = mask
			c.stats.Forwarded += n
		}
		return r
	}

	if c.slots == nil {
		c.alloc()
	}
	set := c.setOf(line)
	s := c.lookup(set, line)
	var valid, pend uint8
	if s >= 0 {
		valid, pend = c.slots[s].valid, c.slots[s].pend
		if c.cfg.Replacement != FIFO {
			c.toHead(set, s) // LRU's order, and SRRIP's tie-break
		}
		c.slots[s].rrpv = 0 // read only under SRRIP
	}

	if op == Load {
		r.Hit = mask & valid
		r.Merged = mask & pend &^ valid
		r.Miss = mask &^ (valid | pend)
		st.Hits += uint64(bits.OnesCount8(r.Hit))
		st.Merges += uint64(bits.OnesCount8(r.Merged))
		st.Misses += uint64(bits.OnesCount8(r.Miss))
		if r.Miss != 0 {
			if s < 0 {
				s = c.allocate(set, line, &r)
			}
			r.Fetch = c.widen(r.Miss) &^ (c.slots[s].valid | c.slots[s].pend)
			c.stats.Fetched += uint64(bits.OnesCount8(r.Fetch))
			if len(c.mshr) > 0 {
				if c.slots[s].pend == 0 {
					c.pushMSHR(s)
				}
				c.slots[s].pend |= r.Fetch
			} else {
				c.slots[s].valid |= r.Fetch
			}
		}
		return r
	}

	// Store: a pending chunk counts as present (its data merges on arrival).
	have := valid | pend
	r.Hit = mask & have
	r.Miss = mask &^ have
	st.Hits += uint64(bits.OnesCount8(r.Hit))
	st.Misses += uint64(bits.OnesCount8(r.Miss))
	switch c.cfg.Write {
	case WriteBack:
		if s < 0 && !c.cfg.WriteAllocate {
			r.Forward = mask
			break
		}
		if s < 0 {
			s = c.allocate(set, line, &r)
		}
		c.slots[s].valid |= mask
		c.slots[s].pend &^= mask
		c.slots[s].dirty |= mask
	case WriteThrough:
		r.Forward = mask
		if s < 0 && c.cfg.WriteAllocate {
			s = c.allocate(set, line, &r)
		}
		if s >= 0 {
			c.slots[s].valid |= mask
			c.slots[s].pend &^= mask
		}
	case WriteEvict:
		r.Forward = mask
		if s >= 0 {
			c.empty(set, s)
		}
	}
	c.stats.Forwarded += uint64(bits.OnesCount8(r.Forward))
	return r
}

func (c *Sectored) pushMSHR(s int) {
	if c.mshrLen == len(c.mshr) {
		c.retireOldest()
	}
	c.mshr[(c.mshrHead+c.mshrLen)%len(c.mshr)] = mshrEntry{int32(s), c.slots[s].gen}
	c.mshrLen++
}

func (c *Sectored) retireOldest() {
	e := c.mshr[c.mshrHead]
	c.mshrHead = (c.mshrHead + 1) % len(c.mshr)
	c.mshrLen--
	if s := e.slot; s >= 0 && c.slots[s].gen == e.gen {
		c.slots[s].valid |= c.slots[s].pend
		c.slots[s].pend = 0
	}
}

// dropMSHR forgets slot s's entries (its line was evicted or invalidated) by making
// them stale; only when gen wraps does it search the ring.
func (c *Sectored) dropMSHR(s int) {
	c.slots[s].gen++
	if c.slots[s].gen != 0 {
		return
	}
	for i := 0; i < c.mshrLen; i++ {
		j := (c.mshrHead + i) % len(c.mshr)
		if int(c.mshr[j].slot) == s {
			c.mshr[j].slot = -1
		}
	}
}

// Outstanding is the number of MSHR entries in use.
func (c *Sectored) Outstanding() int { return c.mshrLen }

// Drain completes every outstanding miss: pending chunks become valid. The
// memory engine calls it where its documented interleaving says a round of
// warps has finished.
func (c *Sectored) Drain() {
	for c.mshrLen > 0 {
		c.retireOldest()
	}
}

// Invalidate empties the cache (dirty data is dropped, not written back: use
// FlushDirty first for a write-back cache). Stats are kept.
func (c *Sectored) Invalidate() {
	for i := range c.slots {
		c.slots[i].valid, c.slots[i].pend, c.slots[i].dirty = 0, 0, 0
	}
	if c.index != nil {
		c.index.clear()
	}
	if c.slots != nil {
		c.resetOrder()
	}
	c.mshrHead, c.mshrLen = 0, 0
}

// Clean marks the line holding addr clean, counts its dirty chunks as written back and
// returns them (0 when the line is absent or clean). The line stays valid.
func (c *Sectored) Clean(addr uint64) uint8 {
	if c.slots == nil {
		return 0
	}
	line := addr >> c.lineShift
	s := c.lookup(c.setOf(line), line)
	if s < 0 {
		return 0
	}
	d := c.slots[s].dirty
	c.slots[s].dirty = 0
	c.stats.WrittenBack += uint64(bits.OnesCount8(d))
	return d
}

// FlushDirty calls fn for every line with dirty chunks, in slot order, then
// marks them clean and counts them as written back.
func (c *Sectored) FlushDirty(fn func(line uint64, dirty uint8)) {
	for s := range c.slots {
		if d := c.slots[s].dirty; d != 0 {
			if fn != nil {
				fn(c.slots[s].tag<<c.lineShift, d)
			}
			c.stats.WrittenBack += uint64(bits.OnesCount8(d))
			c.slots[s].dirty = 0
		}
	}
}
