// Package dram models the memory behind L2: channels (memory partitions),
// banks with open-page row buffers, and bursts.
//
// # Address mapping
//
// An address is split into partition-interleave chunks of Interleave bytes
// (256 B on every preset: gpgpu-sim's "dramid@8" [M]). Chunk k goes to
// channel k mod Channels; with Hash set, the channel is skewed by an XOR fold
// of the chunk's higher bits, (k + fold(k / Channels)) mod Channels, which
// leaves a sequential stream perfectly balanced and spreads a stride of
// Channels × Interleave bytes, the classic partition-camping pattern, over
// every channel (as the hashed partition indexing of later GPUs does,
// gpgpu-sim's IPOLY option for H100 [M]).
//
// Within a channel, the channel-local address a = (k / Channels) ×
// Interleave + (addr mod Interleave) is split as
//
//	bank = (a / RowBytes) mod Banks
//	row  = a / (RowBytes × Banks)
//
// so consecutive rows of a channel go to consecutive banks.
//
// # Bursts and rows
//
// A request (addr, bytes, write) needs the bursts covering [addr,
// addr+bytes), each BurstBytes = BurstLength × BusBytes long and aligned.
// Bytes is what the requester will use, so a 4-byte field read out of a
// 16-byte struct moves a whole burst for 4 useful bytes. A burst the channel
// has just moved (its most recent, same direction) is not moved again: the
// request's bytes are added to it, as the lanes of one warp that share a
// burst would be. Each new burst opens its row if needed: a row hit (row
// already open), a row miss (bank idle) or a row conflict (another row open).
//
// Reports: row-buffer hit rate, burst utilisation (distinct useful bytes /
// burst bytes moved) and channel balance (max/mean requests per channel, and
// their coefficient of variation), so AoS vs SoA vs ASTA and partition
// camping (seed 002) show up as numbers. Access allocates nothing.
package dram
