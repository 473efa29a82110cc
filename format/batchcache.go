package format

import (
	"slices"
	"sync"
)

// A batch holds several CTAs, and replay reads a launch's CTAs in order, one ReadCTA per
// CTA, from several goroutines at once. Without a cache each ReadCTA would decode its
// whole batch, so a batch of G CTAs would be decoded G times. batchCache keeps the last
// few decoded batches; a goroutine that wants a batch another is decoding waits for that
// decode rather than repeating it.
//
// Many entries, not one: replay hands CTA next+i to the i-th SM with room, and its
// goroutines each take every w-th SM, so all of them read from every batch a round
// spans at once; its first placement, CTA c to SM c mod SMs, spans the most: about SMs ×
// warps per SM / 256 batches, 33 for a 132-SM Hopper. With 8 entries, 8 goroutines
// replaying transpose_v1 on hopper decoded each batch 5 times.
//
// A batch in use (a ViewCTA not yet released) stays findable after it leaves the cache's
// bounds: the next CTA of that batch shares its decode. Before, a grid whose resident
// CTAs pinned more than cacheBytes had each batch decoded again for every CTA taken
// after its eviction, up to once per CTA: matmul_naive at width 384 (13 M
// warp-instructions) peaked at 22.6 GB instead of under 1 GB.
const (
	cacheEntries = 64
	// cacheBytes bounds the decoded bytes the cache keeps, beyond those in use; a batch
	// larger than this is decoded, used and dropped.
	cacheBytes = 256 << 20
)

type batchCache struct {
	mu      sync.Mutex
	entries []*cachedBatch       // the cached batches, least recently used first
	live    map[int]*cachedBatch // every batch cached or in use, by index
	bytes   int64                // decoded bytes held by entries
	limit   int64                // cacheBytes, or a test's bound
	decodes int                  // batches decoded, for tests
}

// cachedBatch is one decoded batch. d and err are set before ready is closed and not
// changed after; refs and gone are guarded by batchCache.mu.
type cachedBatch struct {
	idx   int
	ready chan struct{}
	d     *decoder
	err   error
	size  int64
	refs  int  // callers between acquire and release
	gone  bool // no longer in the cache: the last release returns d to the pool
}

// acquire returns batch idx of kernel decoded, from the cache, from a caller still using
// it, or by decoding it. The caller must release the entry, and must not modify its
// decoder.
func (c *batchCache) acquire(rd *Reader, kernel, idx int) (*cachedBatch, error) {
	c.mu.Lock()
	if e := c.live[idx]; e != nil {
		if !e.gone {
			i := slices.Index(c.entries, e)
			c.entries = append(slices.Delete(c.entries, i, i+1), e)
		}
		e.refs++
		c.mu.Unlock()
		<-e.ready
		if e.err != nil {
			err := e.err
			c.release(rd, e)
			return nil, err
		}
		return e, nil
	}
	if c.live == nil {
		c.live = make(map[int]*cachedBatch)
	}
	if c.limit == 0 {
		c.limit = cacheBytes
	}
	e := &cachedBatch{idx: idx, ready: make(chan struct{}), refs: 1}
	c.entries = append(c.entries, e)
	c.live[idx] = e
	c.decodes++
	c.evict(rd, cacheEntries)
	c.mu.Unlock()

	d := rd.decoder()
	err := rd.decode(d, kernel, idx)

	c.mu.Lock()
	e.d, e.err = d, err
	close(e.ready)
	if err != nil {
		// Drop it: the error goes to the callers waiting now, and a later read retries.
		c.drop(rd, e)
		c.forget(e)
		c.mu.Unlock()
		c.release(rd, e)
		return nil, err
	}
	if !e.gone {
		e.size = d.footprint()
		c.bytes += e.size
		for c.bytes > c.limit && len(c.entries) > 0 {
			c.drop(rd, c.entries[0])
		}
	}
	c.mu.Unlock()
	return e, nil
}

// release ends a caller's use of e.
func (c *batchCache) release(rd *Reader, e *cachedBatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs == 0 && e.gone {
		c.free(rd, e)
	}
}

// evict drops the least recently used entries until at most n remain. c.mu is held.
func (c *batchCache) evict(rd *Reader, n int) {
	for len(c.entries) > n {
		c.drop(rd, c.entries[0])
	}
}

// drop removes e from the cache; its decoder goes back to the pool once no caller uses
// it, and until then a caller asking for its batch shares it. c.mu is held.
func (c *batchCache) drop(rd *Reader, e *cachedBatch) {
	if i := slices.Index(c.entries, e); i >= 0 {
		c.entries = slices.Delete(c.entries, i, i+1)
	}
	if e.gone {
		return
	}
	e.gone = true
	c.bytes -= e.size
	if e.refs == 0 {
		c.free(rd, e)
	}
}

// free ends e, out of the cache and unused: its decoder goes back to the pool. c.mu is
// held.
func (c *batchCache) free(rd *Reader, e *cachedBatch) {
	c.forget(e)
	if e.d != nil {
		rd.pool.Put(e.d)
		e.d = nil
	}
}

// forget makes e's batch decode anew when next asked for. c.mu is held.
func (c *batchCache) forget(e *cachedBatch) {
	if c.live[e.idx] == e {
		delete(c.live, e.idx)
	}
}
