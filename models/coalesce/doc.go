// Package coalesce turns one warp-instruction's global-memory addresses into
// the requests and transaction units an architecture's load/store path sees.
//
// Input: the active lanes' addresses in lane order, their lane mask, the
// access width in bytes (1, 2, 4, 8 or 16) and whether it is a store.
// Output (Result): requests, each with its set of unique units. A Unit is a
// 128-byte-aligned line plus a mask of the 32-byte sectors the lanes touch in
// it, the form models/cache takes.
//
// # Modes
//
//	fermi-128B-lines    Fermi/Kepler with global loads cached in L1 (-dlcm=ca):
//	                    one transaction per distinct 128 B line. [PG cc 2.x §F.4.2]
//	fermi-32B-segments  The L2-only path (-dlcm=cg, Kepler's default for global
//	                    loads, and every pre-Volta store): one transaction per
//	                    distinct 32 B segment. [PG cc 2.x §F.4.2]
//	sectored-32B        Volta and later: 32 B sectors of 128 B lines, counted as
//	                    ncu counts l1tex__t_{requests,sectors}_pipe_lsu_mem_global_*:
//	                    one request per warp instruction and the unique sectors
//	                    it touches. [NCU §2.3.4; our H200 run: 4 sectors per
//	                    coalesced 4 B request, 32 at a 128 B stride]
//
// On the two Fermi modes a warp's request for 8-byte words is split into two
// requests, one per half-warp, and for 16-byte words into four, one per
// quarter-warp, each broken into its own lines or segments ("If the size of
// the words accessed by each thread is more than 4 bytes, a memory request by
// a warp is first split into separate 128-byte memory requests", PG cc 2.x
// §F.4.2). A line two half-warps share is therefore counted twice, as the
// hardware issues it twice.
//
// Stores: Fermi and Kepler do not cache stores in L1 (it is write-evict), so
// in fermi-128B-lines mode a store is coalesced into 32 B segments, the L2
// granularity (assumed from PG cc 2.x §F.4.2 "cached in L2 only … 32-byte
// transactions" and the store-invalidates-L1 policy).
//
// # Bus utilisation
//
// Result.UsefulBytes is the number of distinct bytes the active lanes ask for
// (a broadcast of one float is 4 bytes); BusBytes is transactions × unit size.
// Their ratio is seed 000's "bus utilization" column: sequential 100/100 %,
// misaligned 50 % (2 lines) / 80 % (5 segments), broadcast 3.125 % / 12.5 %,
// random 128/(N·128) / 128/(N·32).
//
// A Coalescer reuses its buffers: Coalesce allocates nothing, and a Result's
// units stay valid until the next call.
package coalesce
