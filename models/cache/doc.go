// Package cache is a sectored, set-associative cache model: the one component
// behind gtrace's L1, L2 slices, read-only/texture and constant caches.
//
// # Masks
//
// Every mask in this package has one bit per 32-byte chunk of a line (bit i
// covers bytes [32i, 32i+32) of the line), whatever the cache's own sector
// size. That is the unit ncu counts ("sectors") and the unit the coalescer
// produces, so callers pass the coalescer's masks straight in. A cache whose
// Sector is larger than 32 bytes (Fermi's non-sectored L1: Sector == Line ==
// 128) fills and tracks whole sectors: a miss on one chunk fetches every chunk
// of its sector, which is how a 128-byte line fill shows up in the counts.
//
// # What one Access does
//
//   - Load: chunks present are hits; chunks already being fetched by an
//     outstanding miss (an MSHR entry) are merges; the rest are misses.
//     Misses allocate the line (evicting the Replacement policy's victim: LRU, FIFO or SRRIP) and are
//     fetched at sector granularity from the next level (Result.Fetch).
//   - Store, by WritePolicy:
//     write-back (L2): written chunks become valid and dirty; dirty chunks
//     leave on eviction (Result.EvictDirty). With WriteAllocate a missing
//     line is allocated without a fetch (write-validate: NVIDIA's L2 keeps
//     byte masks, and gpgpu-sim models the same with its lazy-fetch-on-read
//     policy [M]); without it the store is forwarded.
//     write-through (Volta+ L1): the store is always forwarded; present
//     chunks stay valid; a miss allocates only with WriteAllocate.
//     write-evict (Fermi/Kepler L1): the store is forwarded and a line it
//     hits is invalidated ("stores invalidate the L1 line", NVIDIA Fermi
//     global-memory slides [R]; gpgpu-sim's L1 write policy for Fermi).
//
// # MSHRs in a functional model
//
// With MSHRs > 0 a fetched chunk is "pending" until the caller says time has
// passed (Drain) or the MSHR table is full and its oldest entry retires. An
// access that needs a pending chunk is counted as a merge, not as a new miss,
// and is not fetched again: the functional engine gets the merge counts a
// timing model would, under its own documented notion of "outstanding". With
// MSHRs == 0 fills complete at once.
//
// The hot path (Access) allocates nothing.
//
// # With time
//
// The timing engine keeps the functional cache (fills land at once) and adds time
// beside it: InFlight holds the cycle each fetched sector lands, so an access that
// finds it present but not yet landed waits for it; Ports are a sliced cache's input
// ports and data returns, each a server reserved in request order at its byte rate
// (the L2's l2.in_bytes_per_clk and l2.bytes_per_clk).
package cache
