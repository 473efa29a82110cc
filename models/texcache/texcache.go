package texcache

import (
	"math/bits"

	"github.com/gtrace/gtrace/models/cache"
)

// BlockLinear returns the byte offset of texel (x, y) in a texture width texels wide
// with elemBytes-byte texels, in the layout the emulator records (package doc): NVIDIA's
// block-linear layout with a block height of one GOB.
func BlockLinear(x, y, width, elemBytes int) uint64 {
	b := x * elemBytes
	gobsX := (width*elemBytes + 63) / 64
	gob := (y/8)*gobsX + b/64
	in := b%64/32*256 + y%8/2*64 + b%32/16*32 + y%2*16 + b%16
	return uint64(gob)*512 + uint64(in)
}

// Result describes one texture instruction.
type Result struct {
	Lines   int // unique lines
	Sectors int // unique 32-byte sectors (ncu l1tex__t_sectors_pipe_tex_mem_texture)
	Hits    int // sectors hit
	Misses  int // sectors missed (including merges into outstanding fills)
	Fetched int // 32-byte sectors read from L2
}

// Stats accumulate Results.
type Stats struct {
	Requests uint64
	Sectors  uint64
	Hits     uint64
	Fetched  uint64
}

// HitRate is sector hits over sectors, in percent.
func (s Stats) HitRate() float64 {
	if s.Sectors == 0 {
		return 0
	}
	return 100 * float64(s.Hits) / float64(s.Sectors)
}

// Cache is one SM's texture cache. Not safe for concurrent use.
type Cache struct {
	c     *cache.Sectored
	lines [64]uint64
	masks [64]uint8
	stats Stats
	fetch func(line uint64, sectors uint8)
}

// New builds a texture cache on a models/cache configuration.
func New(cfg cache.Config) (*Cache, error) {
	c, err := cache.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Cache{c: c}, nil
}

// Stats returns the counts so far.
func (t *Cache) Stats() Stats { return t.stats }

// Access serves one texture instruction: addrs are the active lanes' texel
// addresses, width the bytes per texel fetched.
// OnFetch sets fn to receive every line and sector mask the cache reads from the next
// level, so a caller can forward the misses to an L2 model. nil stops it.
func (t *Cache) OnFetch(fn func(line uint64, sectors uint8)) { t.fetch = fn }

func (t *Cache) Access(addrs []uint64, width int) Result {
	n := 0
	for _, a := range addrs[:min(len(addrs), 32)] {
		for s, last := a/cache.Chunk, (a+uint64(max(width, 1))-1)/cache.Chunk; s <= last; s++ {
			line, bit := s/4*128, uint8(1)<<(s%4)
			j := n - 1
			for ; j >= 0 && t.lines[j] != line; j-- {
			}
			if j >= 0 {
				t.masks[j] |= bit
			} else if n < len(t.lines) {
				t.lines[n], t.masks[n] = line, bit
				n++
			}
		}
	}
	var r Result
	r.Lines = n
	for i := 0; i < n; i++ {
		res := t.c.Access(t.lines[i], t.masks[i], cache.Load)
		r.Sectors += bits.OnesCount8(t.masks[i])
		r.Hits += bits.OnesCount8(res.Hit)
		r.Fetched += bits.OnesCount8(res.Fetch)
		if res.Fetch != 0 && t.fetch != nil {
			t.fetch(t.lines[i], res.Fetch)
		}
	}
	r.Misses = r.Sectors - r.Hits
	t.stats.Requests++
	t.stats.Sectors += uint64(r.Sectors)
	t.stats.Hits += uint64(r.Hits)
	t.stats.Fetched += uint64(r.Fetched)
	return r
}
