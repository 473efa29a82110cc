// Package format is gtrace's trace file: the schema, a streaming writer, a random-access
// reader, typed errors, and the Parquet export that DuckDB and Python read.
//
// # Version
//
// This package writes and reads format V1 (see Version). The version is the decimal
// string under the schema metadata key "gtrace.format.version"; a reader rejects any
// other value with a *VersionError before it looks at the columns.
//
// # File layout (V1)
//
// A trace is one Arrow IPC file (not the stream format): the writer is arrow's
// ipc.FileWriter with zstd buffer compression, so pyarrow.ipc.open_file and any other
// Arrow reader open it. One record batch holds one CTA, the batches in launch order,
// then CTA order, so batch index = (CTAs of the earlier launches) + linear CTA id.
//
//	offset 0  +---------------------------------------------------------------+
//	          | "ARROW1" 00 00                                                |
//	          +---------------------------------------------------------------+
//	          | schema message: 9 columns (below) + custom metadata:          |
//	          |   gtrace.format.version = "1"                                 |
//	          |   gtrace.meta = JSON {producer, launches: [{kernel, grid,     |
//	          |     block, shared_bytes, regs_per_thread, simt, source_hash,  |
//	          |     ptx_producer, textures, program: [{op, class, space,      |
//	          |     memop, width, cache, rd, wr, ptx, file, line}, ...]}]}    |
//	          +---------------------------------------------------------------+
//	          | record batch 0 = kernel 0, CTA 0                              |
//	          |   rows: every warp-instruction of the CTA, sorted by warp,    |
//	          |   then issue order; each column's buffer zstd-compressed      |
//	          |   (8-byte uncompressed length, then one zstd frame)           |
//	          +---------------------------------------------------------------+
//	          | record batch 1 = kernel 0, CTA 1                              |
//	          | ...                                                           |
//	          | record batch N-1 = last kernel, last CTA                      |
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
//	warp    uint8        warp index within the CTA (CUDA blocks hold at most 32 warps)
//	pc      uint32       index into the launch's program table
//	mask    uint32       active lanes, bit l = lane l
//	path    uint16       divergence path id, 0 = the warp's initial path
//	info    uint8        bits 0-5: Flags; bits 6-7: AddrMode
//	base    uint64       Base, minus the Base of the previous row with the same pc in
//	                     the same warp (wrapping; the first such row is stored as is)
//	stride  int32        Stride of an AddrStride row, else 0
//	deltas  list<int64>  Deltas of an AddrDeltas row (active lanes - 1 values), else []
//	coords  list<int32>  texel x, y per active lane of a texture fetch, else []
//
// Sequence numbers are implicit: a warp's rows are contiguous and in issue order.
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
// coalesced or strided loop costs about 0.13 byte per warp-instruction (see
// bench_test.go). Storing it raw costs several times more, because each base is new.
//
// # Divergence flags
//
// FlagSplit marks a branch where the active lanes went more than one way; the records up
// to the matching FlagReconverge belong to the child paths, told apart by path.
// FlagReconverge marks the first record after the paths rejoined. FlagSwitch marks a
// record where the capture's scheduler moved to another path without reconverging (ITS
// interleaving, or a stack pop to a sibling path). A timing replay serialises or
// interleaves the paths as its architecture does.
//
// # One batch per CTA: the trade-off
//
// A batch per CTA makes the CTA-to-batch mapping arithmetic (no index), gives each
// column enough rows for zstd to work well, and matches how replay schedules work (a
// CTA runs on one SM). The cost: the writer holds one whole CTA, and reading one warp
// decompresses its CTA's batch. Memory is bounded by the largest CTA, not the trace: a
// CTA of 32 warps × 100k instructions is about 120 MB decoded. Splitting huge CTAs into
// several batches would bound that too, at the price of a batch index in the metadata;
// V1 does not, and a reader refuses a batch that would decode to more than 4 GiB.
//
// # Reading
//
// Reader methods are safe for concurrent use. ReadCTA and ReadWarp return warps the
// caller owns; All yields a reused view, valid until the next iteration (Warp.Clone keeps
// one). The reader never expands addresses: Warp.Addrs and Warp.LaneAddrs do, on demand.
// Every length, offset and value that later code indexes with (pc against the program
// table, delta counts against the mask, list offsets) is checked when a batch is
// decoded, and malformed input of any kind yields a *CorruptError, *VersionError or
// *SchemaError, never a panic.
//
// # Export
//
// Package format/export writes plain columns for SQL through arrow's pqarrow, streaming
// 64 Ki-row batches into zstd row groups; docs/sql.md is a cookbook of DuckDB queries
// over it, run by its tests. It is a separate package so that reading and writing traces
// does not link pqarrow's dependencies.
package format
