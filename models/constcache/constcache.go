package constcache

import (
	"fmt"
	"math/bits"

	"github.com/gtrace/gtrace/models/cache"
)

// Config gives the levels. L1.Size must be set; L15.Size 0 means no level 1.5.
type Config struct {
	L1  cache.Config
	L15 cache.Config
}

// Result describes one warp instruction.
type Result struct {
	Requests  int // distinct addresses = serialised requests (ncu idc__requests)
	L1Hits    int
	L1Misses  int
	L15Hits   int
	L15Misses int
	L2Sectors int // 32-byte sectors fetched from L2
}

// Stats accumulate Results.
type Stats struct {
	Instructions uint64
	Requests     uint64
	L1Hits       uint64
	L1Misses     uint64
	L15Hits      uint64
	L15Misses    uint64
	L2Sectors    uint64
}

// Cache is one SM's constant path. Not safe for concurrent use.
type Cache struct {
	l1, l15 *cache.Sectored
	uniq    [32]uint64
	stats   Stats
	fetch   func(line uint64, sectors uint8)
}

// New builds the levels.
func New(cfg Config) (*Cache, error) {
	if cfg.L1.Size == 0 {
		return nil, fmt.Errorf("constcache: level 1 has size 0")
	}
	l1, err := cache.New(cfg.L1)
	if err != nil {
		return nil, fmt.Errorf("constcache: level 1: %w", err)
	}
	c := &Cache{l1: l1}
	if cfg.L15.Size > 0 {
		if c.l15, err = cache.New(cfg.L15); err != nil {
			return nil, fmt.Errorf("constcache: level 1.5: %w", err)
		}
	}
	return c, nil
}

// Stats returns the counts so far.
func (c *Cache) Stats() Stats { return c.stats }

// Access serves one warp instruction: addrs are the active lanes' constant
// addresses (lane order), width the bytes per lane.
// OnFetch sets fn to receive every line and sector mask the cache reads from L2, so a
// caller can forward the misses to an L2 model. nil stops it.
func (c *Cache) OnFetch(fn func(line uint64, sectors uint8)) { c.fetch = fn }

func (c *Cache) fetched(r cache.Result) {
	if r.Fetch != 0 && c.fetch != nil {
		c.fetch(r.Line, r.Fetch)
	}
}

func (c *Cache) Access(addrs []uint64, width int) Result {
	var r Result
	n := 0
outer:
	for _, a := range addrs[:min(len(addrs), 32)] {
		for _, u := range c.uniq[:n] {
			if u == a {
				continue outer
			}
		}
		c.uniq[n] = a
		n++
	}
	r.Requests = n
	for _, a := range c.uniq[:n] {
		m := c.l1.Mask(a, width)
		if hr := c.l1.Access(a, m, cache.Load); hr.AllHit() {
			r.L1Hits++
			continue
		} else if c.l15 == nil {
			r.L1Misses++
			r.L2Sectors += bits.OnesCount8(hr.Fetch)
			c.fetched(hr)
			continue
		}
		r.L1Misses++
		if hr := c.l15.Access(a, c.l15.Mask(a, width), cache.Load); hr.AllHit() {
			r.L15Hits++
		} else {
			r.L15Misses++
			r.L2Sectors += bits.OnesCount8(hr.Fetch)
			c.fetched(hr)
		}
	}
	s := &c.stats
	s.Instructions++
	s.Requests += uint64(r.Requests)
	s.L1Hits += uint64(r.L1Hits)
	s.L1Misses += uint64(r.L1Misses)
	s.L15Hits += uint64(r.L15Hits)
	s.L15Misses += uint64(r.L15Misses)
	s.L2Sectors += uint64(r.L2Sectors)
	return r
}
