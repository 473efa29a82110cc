package format

import (
	"io"
	"math/bits"

	"github.com/gtrace/gtrace/format/internal/pq"
)

// ExportOptions configures ExportParquet. The zero value exports one row per
// warp-instruction in row groups of 1 Mi rows.
type ExportOptions struct {
	// PerLane writes one row per lane access of a memory instruction (columns kernel,
	// cta, warp, seq, pc, space, lane, addr) instead of one row per warp-instruction.
	PerLane bool
	// RowGroupRows is the number of rows per Parquet row group; 0 means 1<<20.
	RowGroupRows int
}

// Columns of the per-instruction export, in order. docs/sql.md documents them.
var instColumns = []pq.Column{
	{Name: "kernel", Kind: pq.String},
	{Name: "cta", Kind: pq.Int32, Bits: 32},
	{Name: "cta_x", Kind: pq.Int32, Bits: 32},
	{Name: "cta_y", Kind: pq.Int32, Bits: 32},
	{Name: "cta_z", Kind: pq.Int32, Bits: 32},
	{Name: "warp", Kind: pq.Int32, Bits: 16},
	{Name: "seq", Kind: pq.Int32, Bits: 32},
	{Name: "pc", Kind: pq.Int32, Bits: 32},
	{Name: "opcode", Kind: pq.String},
	{Name: "class", Kind: pq.String},
	{Name: "space", Kind: pq.String},
	{Name: "memop", Kind: pq.String},
	{Name: "width", Kind: pq.Int32, Bits: 8},
	{Name: "mask", Kind: pq.Int32, Bits: 32},
	{Name: "active", Kind: pq.Int32, Bits: 8},
	{Name: "path", Kind: pq.Int32, Bits: 16},
	{Name: "flags", Kind: pq.Int32, Bits: 8},
	{Name: "addrs", Kind: pq.ListUint64},
	{Name: "file", Kind: pq.String},
	{Name: "line", Kind: pq.Int32, Bits: 32},
}

var laneColumns = []pq.Column{
	{Name: "kernel", Kind: pq.String},
	{Name: "cta", Kind: pq.Int32, Bits: 32},
	{Name: "warp", Kind: pq.Int32, Bits: 16},
	{Name: "seq", Kind: pq.Int32, Bits: 32},
	{Name: "pc", Kind: pq.Int32, Bits: 32},
	{Name: "space", Kind: pq.String},
	{Name: "lane", Kind: pq.Int32, Bits: 8},
	{Name: "addr", Kind: pq.Int64},
}

// ExportParquet writes the trace as a zstd-compressed Parquet file for DuckDB, pandas or
// pyarrow: plain columns, text where the trace has enums, addresses expanded (`addrs` is
// list<uint64>, null for a record that moves no memory). It streams: memory holds one CTA
// and one row group's compressed pages. Unsigned columns carry Parquet's unsigned
// integer types (DuckDB reads them as UTINYINT, USMALLINT, UINTEGER, UBIGINT).
func ExportParquet(r *Reader, w io.Writer, opts ExportOptions) error {
	cols := instColumns
	if opts.PerLane {
		cols = laneColumns
	}
	groupRows := opts.RowGroupRows
	if groupRows <= 0 {
		groupRows = 1 << 20
	}
	pw, err := pq.NewWriter(w, cols, groupRows)
	if err != nil {
		return err
	}
	meta := r.Meta()
	addrs := make([]uint64, 0, 32) // non-nil: a memory record with no active lane is an empty list, not null
	var lanes [32]uint64
	for wp, err := range r.All() {
		if err != nil {
			return err
		}
		l := &meta.Launches[wp.Kernel]
		cta := uint32(wp.CTA)
		for i := 0; i < wp.Len(); i++ {
			in := &l.Program.Insts[wp.PC[i]] // the reader checked pc against the table
			if opts.PerLane {
				mask := wp.LaneAddrs(i, &lanes)
				for m := mask; m != 0; m &= m - 1 {
					lane := bits.TrailingZeros32(m)
					pw.String(0, l.Kernel)
					pw.Int32(1, int32(cta))
					pw.Int32(2, int32(wp.Warp))
					pw.Int32(3, int32(i))
					pw.Int32(4, int32(wp.PC[i]))
					pw.String(5, in.Space.String())
					pw.Int32(6, int32(lane))
					pw.Int64(7, int64(lanes[lane]))
					if err := pw.EndRow(); err != nil {
						return err
					}
				}
				continue
			}
			gx, gy := max(l.Grid.X, 1), max(l.Grid.Y, 1)
			pw.String(0, l.Kernel)
			pw.Int32(1, int32(cta))
			pw.Int32(2, int32(cta%gx))
			pw.Int32(3, int32(cta/gx%gy))
			pw.Int32(4, int32(cta/gx/gy))
			pw.Int32(5, int32(wp.Warp))
			pw.Int32(6, int32(i))
			pw.Int32(7, int32(wp.PC[i]))
			pw.String(8, in.Opcode)
			pw.String(9, in.Class.String())
			pw.String(10, in.Space.String())
			pw.String(11, in.MemOp.String())
			pw.Int32(12, int32(in.Width))
			pw.Int32(13, int32(wp.Mask[i]))
			pw.Int32(14, int32(bits.OnesCount32(wp.Mask[i])))
			pw.Int32(15, int32(wp.Path[i]))
			pw.Int32(16, int32(wp.Flags[i]))
			if wp.Mode[i] == AddrNone {
				pw.List(17, nil)
			} else {
				addrs = wp.Addrs(i, addrs[:0])
				pw.List(17, addrs)
			}
			pw.String(18, in.File)
			pw.Int32(19, int32(in.Line))
			if err := pw.EndRow(); err != nil {
				return err
			}
		}
	}
	return pw.Close()
}
