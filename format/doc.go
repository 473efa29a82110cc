// Package format is gtrace's trace file: the schema, a streaming writer, a random-access
// reader, typed errors, and the Parquet export that DuckDB and Python read.
//
// # Version
//
// This package writes format V3 and reads V1 to V3 (see Version). The version is the
// decimal string under the schema metadata key "gtrace.format.version"; a reader rejects
// any other value with a *VersionError before it looks at the columns. V1 has not
// shipped: grouping CTAs into batches (below) changed it in place rather than making a
// new version. V2 adds integrity and nothing else; its columns and batches are V1's. V3
// adds row windows (see Windows): a group of CTAs with long warps may take several
// batches, and a tenth column, window, says which of them a batch is.
//
// # Integrity (V2)
//
// Nothing a damaged file holds may change what a replay sees while the file still reads.
//
//   - The metadata JSON's CRC-32C is stored beside it, under "gtrace.meta.crc32c", and
//     checked on open before the JSON is parsed (ErrChecksum). V1 files have none; they
//     are read, and Version.Checked says they are unchecked (inspect prints it).
//   - Every name in the metadata must be one the enums have, and the rows must agree with
//     themselves (a load has a space and a width, only texture fetches read the texture
//     space, grids and blocks are at least 1 in each extent, ...): a *MetaError names the
//     launch, pc and field. The writer applies the same checks, so it never writes what
//     the reader would refuse.
//   - Each column buffer is one zstd frame with a content checksum (the encoder's
//     default), which the decoder verifies (ErrCorruptZstd).
//   - Every length and offset of the footer and of each record batch's header is checked
//     against the file, and each buffer's claimed size against its compressed bytes
//     (MaxZstdRatio), before anything is allocated for it.
//
// TestCorruptionNeverSilent holds this: every bit flip of the footer and of each batch
// header, sampled flips of the batch bodies and of the head schema message, truncations
// at every message boundary, zeroed runs and appended bytes (about 46 000 variants of an
// 11 KB trace); each is a typed error or reads exactly as the original. `make fuzz` runs
// it over every bit and every cut.
//
// # File layout
//
// A trace is one Arrow IPC file (not the stream format): the writer is arrow's
// ipc.FileWriter with zstd buffer compression, so pyarrow.ipc.open_file and any other
// Arrow reader open it. A group of G consecutive CTAs of one launch, G being the
// launch's ctas_per_batch (see Batches), is one record batch, or several (row windows,
// see Windows) when its warps are long; the groups come in launch order, then CTA order,
// so CTA c of launch k is in group (groups of the earlier launches) + c/G, as CTA c mod
// G of it, and a launch of N CTAs has ceil(N/G) groups, the last one short.
//
//	offset 0  +---------------------------------------------------------------+
//	          | "ARROW1" 00 00                                                |
//	          +---------------------------------------------------------------+
//	          | schema message: 11 columns (below) + custom metadata:         |
//	          |   gtrace.format.version = "3"                                 |
//	          |   gtrace.meta.crc32c = CRC-32C of gtrace.meta, 8 hex digits   |
//	          |   gtrace.meta = JSON {producer, launches: [{kernel, grid,     |
//	          |     block, shared_bytes, regs_per_thread, local_bytes, simt,  |
//	          |     source_hash,                                              |
//	          |     ptx_producer, ctas_per_batch, stream, textures, program:  |
//	          |     [{op, class, space, memop, width, cache, rd, wr, ptx,     |
//	          |     file, line}, ...]}], transfers: [{call, kind, bytes,      |
//	          |     pinned, stream, after}, ...] (a program's copies, gtrace  |
//	          |     run), syncs: [{call, stream, event, after, copies}, ...]  |
//	          |     (its calls that order streams: event records and waits,   |
//	          |     synchronizes, non-blocking streams; gtrace run)}          |
//	          +---------------------------------------------------------------+
//	          | record batch 0 = kernel 0, CTAs 0 .. G-1 (window 0)           |
//	          |   rows: every warp-instruction of those CTAs, sorted by cta,  |
//	          |   warp, then issue order; each column's buffer zstd-          |
//	          |   compressed (8-byte uncompressed length, one zstd frame)     |
//	          +---------------------------------------------------------------+
//	          | record batch 1 = their window 1, if their warps are long      |
//	          | ...                                                           |
//	          | record batch = kernel 0, CTAs G .. 2G-1 (window 0)            |
//	          | ...                                                           |
//	          | last record batch = last kernel, its last (up to G) CTAs      |
//	          +---------------------------------------------------------------+
//	          | end-of-stream marker FF FF FF FF 00 00 00 00                  |
//	          +---------------------------------------------------------------+
//	          | footer (flatbuffer): schema again + one block per batch:      |
//	          |   {offset, metadata length, body length}                      |
//	          +---------------------------------------------------------------+
//	          | int32 footer length | "ARROW1"                                |
//	end       +---------------------------------------------------------------+
//
// The footer is written last, by Close. A file cut short anywhere lacks the trailing
// magic and is rejected with ErrTruncated; Create also writes under a temporary name and
// renames only on a successful Close.
//
// # Columns
//
// One row per warp-instruction. No column is nullable and none uses a dictionary (an IPC
// file cannot replace a dictionary between batches): all text lives in the program
// table in the metadata, referenced by pc.
//
//	cta     uint8        CTA within the batch: linear CTA id - the batch's first (G <= 256)
//	warp    uint8        warp index within the CTA (CUDA blocks hold at most 32 warps)
//	pc      uint32       index into the launch's program table
//	mask    uint32       active lanes, bit l = lane l
//	path    uint16       divergence path id, 0 = the warp's initial path
//	info    uint8        bits 0-5: Flags; bits 6-7: AddrMode
//	base    uint64       Base, minus the Base of the previous row with the same pc in
//	                     the same batch (wrapping; the first such row is stored as is)
//	stride  int32        Stride of an AddrStride row, else 0
//	deltas  list<int64>  Deltas of an AddrDeltas row (active lanes - 1 values), else []
//	coords  list<int32>  two per active lane: a texture fetch's texel x, y; a cp.async's
//	                     shared destination and bytes read from its source; else []
//	window  uint32       (V3) the batch's row window in its group, the same in every row
//
// Sequence numbers are implicit: within a batch a warp's rows are contiguous and in
// issue order, and its rows in window j+1 follow those in window j.
//
// Narrow columns stay separate. Measured on transpose_v1 and reduce_v3 (see Batches):
// packing pc and mask into one uint64 made them 3 times and 7% larger (zstd found
// fewer matches in the wide values); packing warp, info and path into one uint32 saved
// 3% and 12%, less than the batch size moves them, at the price of a column a pyarrow
// user must unpack.
//
// Columns are as narrow as their values allow, because reading is mostly zstd writing
// out decompressed bytes: narrowing warp from 16 bits and stride from 64 made a full
// read about 15% faster (bench_test.go). A stride outside int32 is stored as an
// AddrDeltas row (Warp.AppendMem never makes one; the writer converts any other).
//
// # Address encodings
//
// Warp.AppendMem picks the most compact exact encoding of the 32 lane addresses:
//
//	AddrNone     the record moves no memory
//	AddrUniform  every active lane uses base (also any single-lane access)
//	AddrStride   lane l uses base + stride*l, l being the lane id (inactive lanes skipped)
//	AddrDeltas   first active lane uses base; each next active lane adds the next delta
//
// Storing base as a delta against the last row of the same pc turns a loop whose
// addresses advance by a constant into a repeating column that zstd removes: a
// coalesced or strided loop costs about 0.02 byte per warp-instruction (see
// bench_test.go). Storing it raw costs several times more, because each base is new.
// The chain runs across the warps and CTAs of a batch, not only within a warp: a short
// warp's first access then is a delta against its neighbour's, usually the same for
// every warp, where restarting at each warp stored one raw 64-bit address per pc per
// warp (transpose_v1: 0.37 against 0.27 byte per warp-instruction).
//
// # Divergence flags
//
// FlagSplit marks a branch where the active lanes went more than one way; the records up
// to the matching FlagReconverge belong to the child paths, told apart by path.
// FlagReconverge marks the first record after the paths rejoined. FlagSwitch marks a
// record where the capture's scheduler moved to another path without reconverging (ITS
// interleaving, or a stack pop to a sibling path). A timing replay serialises or
// interleaves the paths as its architecture does. FlagOOB, outside the divergence
// structure, marks a memory record with lanes outside every allocation; only a launch
// captured under --oob=warn (Launch.OOBWarn, "oob":"warn" in its metadata) may have it,
// and the writer and reader refuse it elsewhere.
//
// # Batches
//
// Every record batch has a fixed cost of about 1 KB: about 700 bytes of flatbuffer
// metadata (12 field nodes, 24 buffers, compression info) and, for each of its 12
// non-empty buffers, an 8-byte length and a zstd frame; with the compression lost at a
// batch boundary, halving the number of batches saved about 1.4 KB a batch. V1 first
// wrote a batch per CTA, and for real kernels with small CTAs that overhead dominated:
// transpose V1 at 2048² (4096 CTAs of 32 warps, 736 rows each) was 1.68 bytes per
// warp-instruction, half of it batch metadata; reduction V3 at 2^22 (16384 CTAs of 8
// warps) was 2.0. So a batch holds G consecutive CTAs, G = min(ceil(256 / warps per
// CTA), 256): at least 256 warps, whatever the CTA size. The two kernels fell to 0.37
// and 0.17 byte per warp-instruction, and to 0.27 and 0.14 with the base delta chained
// across the batch; the synthetic loops of bench_test.go (32 CTAs of 8 warps, now one
// batch) fell from 0.07-0.13 to 0.01-0.02. Batches of 512 and 1024 warps would give
// 0.15 and 0.09 for transpose, 0.11 and 0.09 for reduction, at 2 and 4 times the memory.
//
// G depends on the launch alone, so a CTA's batch stays arithmetic and needs no index.
// The writer records G as ctas_per_batch and the reader uses that value, not the rule,
// so the rule can change without a new format version.
//
// The cost: the writer holds one group, and reading one CTA or one warp decompresses
// its whole batch. Memory is bounded by the largest batch, not the trace: since V3 a
// batch of long warps is a row window of them (see Windows), about 2^18 rows, 11 MB
// decoded. The reader refuses a batch that would decode to more than 4 GiB, and the
// writer refuses to write one. Reading a launch's CTAs in
// order, as replay does from several goroutines, decodes each batch once: the Reader
// keeps the last 64 decoded batches, 256 MiB at most, and every batch a ViewCTA still
// holds, so the CTAs of a batch in use share one decode however far past those bounds
// (batchcache.go).
//
// # Windows
//
// Until V3 a group of CTAs was one batch, and a replay held the decoded batch of every
// resident CTA until the CTA retired: memory grew with the resident grid's whole
// streams, 81 bytes a warp-instruction, about 60 GB for a launch of 10^9 with every CTA
// resident at once (docs/issue-14.md). V3 cuts a group whose rows pass 2^18 into row
// windows of W rows a warp, W = max(1024, 2^18 / its warps with rows): batch j of the
// group holds rows j*W .. (j+1)*W-1 of each of its warps (a warp that has ended has
// none), and every row of it has window = j. A group of 2^18 rows or fewer stays one
// batch of window 0, as before. Windows add a batch's fixed cost (about 1 KB) for every
// window past the first, and the window column costs about 70 bytes a batch (its
// header entries, length prefix and zstd frame): transpose V1 at 2048², 512 batches of
// short warps, went from 803 066 to 840 050 bytes.
//
// The index comes from the file, not from arithmetic: Arrow's Go writer puts no custom
// metadata on a batch or in the footer, and the schema's is written before the first
// batch. So the reader reads every batch's window column when it opens a V3 file (one
// header and one small buffer a batch, its zstd checksum verified) and starts a group at
// each window 0; windows that do not count 0, 1, ... within a group, or more groups
// than the launches have, are ErrCorrupt.
//
// Reader.Windows says how many windows a CTA has and Reader.ViewWindow views one of
// them. Both engines hold, for each resident CTA, only the windows that its live warps
// have not passed (the timing engine joins a CTA with a warp that diverges under ITS,
// whose issue order is computed over the whole warp); ViewCTA, ReadCTA, ReadWarp and
// All join a CTA's windows into whole warps (each warp's storage sized exactly, its
// deltas as narrow as its windows allow). matmul_naive at 768² (1.0 × 10^8
// warp-instructions, 6 windows of 1024 rows a warp), hopper, one run each: the memory
// engine's peak RSS went from 3.1 GB to 0.95 GB and its time from 14.9 to 9.2 s; the
// timing engine's from 4.4 GB (joined windows) to 2.0 GB.
//
// # Reading
//
// Reader methods are safe for concurrent use. ReadCTA and ReadWarp return warps the
// caller owns; All yields a reused view, valid until the next iteration (Warp.Clone keeps
// one). The reader never expands addresses: Warp.Addrs and Warp.LaneAddrs do, on demand.
// It keeps a decoded batch's deltas in the narrowest of 16, 32 or 64 bits that holds
// every one of them (Warp.Deltas16, Deltas32, Deltas), because they are most of what a
// resident CTA holds: a 16×16 block reading two rows per warp stores 31 deltas per
// access. On matmul_naive at 384² that cut the memory replay's peak heap from 1611 MB to
// 1008 MB (BenchmarkMemoryResident) and cost the list-mode read (BenchmarkRead/random)
// about a tenth of its speed.
// Every length, offset and value that later code indexes with (pc against the program
// table, delta counts against the mask, list offsets) is checked when a batch is
// decoded, and malformed input of any kind yields a *CorruptError, *VersionError,
// *SchemaError or *MetaError, never a panic.
//
// # Export
//
// Package format/export writes plain columns for SQL through arrow's pqarrow, streaming
// 64 Ki-row batches into zstd row groups; docs/sql.md is a cookbook of DuckDB queries
// over it, run by its tests. It is a separate package so that reading and writing traces
// does not link pqarrow's dependencies.
package format
