package format

import "math/bits"

// Flags mark the divergence structure of a record, so that a timing replay can either
// serialise the paths of a split (as a SIMT stack does) or interleave them (as ITS does).
type Flags uint8

const (
	// FlagSplit marks a branch whose active threads went more than one way. The records
	// that follow, up to the matching FlagReconverge, belong to the child paths.
	FlagSplit Flags = 1 << iota
	// FlagReconverge marks the first record executed after the paths of a split rejoined.
	FlagReconverge
	// FlagSwitch marks a record where the capture's scheduler moved from one path to
	// another without reconverging (ITS interleaving, or a stack pop to a sibling path).
	FlagSwitch
	// FlagOOB marks a memory record with lanes that accessed outside every allocation,
	// in a launch captured with Launch.OOBWarn: those lanes read zeros or had their
	// writes dropped, and the record keeps their addresses as the kernel computed them.
	// The engines replay the record like any other, as the hardware issues the access.
	FlagOOB
)

// AddrMode says how a record's lane addresses are encoded.
type AddrMode uint8

const (
	// AddrNone: the record moves no memory.
	AddrNone AddrMode = iota
	// AddrUniform: every active lane uses Base.
	AddrUniform
	// AddrStride: active lane l uses Base + Stride*l (l is the lane id, 0..31). A file
	// stores Stride in 32 bits: AppendMem uses this mode only for such strides, and the
	// writer stores a row with a wider one as AddrDeltas.
	AddrStride
	// AddrDeltas: the first active lane uses Base; each next active lane adds the next Delta.
	AddrDeltas
)

// Warp is one warp's dynamic stream, stored column-wise: row i is the i-th
// warp-instruction the warp executed. A Warp handed out by a Reader is owned by the
// caller unless the method that returned it says otherwise.
type Warp struct {
	Kernel int // index into Meta.Launches
	CTA    int // linear CTA id: x + y*grid.X + z*grid.X*grid.Y
	Warp   int // warp index within the CTA

	PC    []uint32 // index into the kernel's Program.Insts
	Mask  []uint32 // active lanes; bit l is lane l
	Path  []uint16 // divergence path id (0 = the warp's initial path)
	Flags []Flags

	Mode   []AddrMode
	Base   []uint64
	Stride []int64
	// DeltaOff has Len()+1 entries once a row exists: row i's deltas are
	// [DeltaOff[i]:DeltaOff[i+1]] of Deltas, or of Deltas16 or Deltas32 in a Warp a
	// Reader hands out whose batch's deltas all fit 16 or 32 bits (the reader narrows
	// them there, which takes a quarter or half the memory); at most one of the three is
	// non-empty. Addrs, LaneAddrs and RowDeltas read any of them; Clone widens them back.
	DeltaOff []uint32
	Deltas   []int64
	Deltas32 []int32
	Deltas16 []int16

	CoordOff []uint32 // len Len()+1: row i's lane pairs are Coords[CoordOff[i]:CoordOff[i+1]]
	// Coords holds two values for each active lane of a row that has them, in lane
	// order: a texture fetch's texel x, y (TexCoords), a cp.async's shared destination
	// and the bytes it reads from its source (CopyDests). Other rows have none.
	Coords []int32
}

// Len is the number of warp-instructions in the stream.
func (w *Warp) Len() int { return len(w.PC) }

// Bytes is the size of the stream's columns: what holding it costs, whatever storage
// earlier streams left behind. It depends only on the records, so a bound on it is
// deterministic.
func (w *Warp) Bytes() int {
	return 4*len(w.PC) + 4*len(w.Mask) + 2*len(w.Path) + len(w.Flags) + len(w.Mode) +
		8*len(w.Base) + 8*len(w.Stride) + 4*len(w.DeltaOff) + 8*len(w.Deltas) + 4*len(w.Deltas32) + 2*len(w.Deltas16) +
		4*len(w.CoordOff) + 4*len(w.Coords)
}

// CapBytes is the storage the stream's columns hold, used or not.
func (w *Warp) CapBytes() int {
	return 4*cap(w.PC) + 4*cap(w.Mask) + 2*cap(w.Path) + cap(w.Flags) + cap(w.Mode) +
		8*cap(w.Base) + 8*cap(w.Stride) + 4*cap(w.DeltaOff) + 8*cap(w.Deltas) + 4*cap(w.Deltas32) + 2*cap(w.Deltas16) +
		4*cap(w.CoordOff) + 4*cap(w.Coords)
}

// Reset empties the stream and keeps its storage.
func (w *Warp) Reset() {
	w.PC, w.Mask, w.Path, w.Flags = w.PC[:0], w.Mask[:0], w.Path[:0], w.Flags[:0]
	w.Mode, w.Base, w.Stride = w.Mode[:0], w.Base[:0], w.Stride[:0]
	w.DeltaOff, w.Deltas, w.Deltas32, w.Deltas16 = w.DeltaOff[:0], w.Deltas[:0], w.Deltas32[:0], w.Deltas16[:0]
	w.CoordOff, w.Coords = w.CoordOff[:0], w.Coords[:0]
}

func (w *Warp) appendRow(pc, mask uint32, path uint16, flags Flags, mode AddrMode, base uint64, stride int64) {
	if len(w.DeltaOff) == 0 {
		w.DeltaOff = append(w.DeltaOff, 0)
		w.CoordOff = append(w.CoordOff, 0)
	}
	w.PC = append(w.PC, pc)
	w.Mask = append(w.Mask, mask)
	w.Path = append(w.Path, path)
	w.Flags = append(w.Flags, flags)
	w.Mode = append(w.Mode, mode)
	w.Base = append(w.Base, base)
	w.Stride = append(w.Stride, stride)
	w.DeltaOff = append(w.DeltaOff, uint32(len(w.Deltas)))
	w.CoordOff = append(w.CoordOff, uint32(len(w.Coords)))
}

// Append adds a record that moves no memory.
func (w *Warp) Append(pc, mask uint32, path uint16, flags Flags) {
	w.appendRow(pc, mask, path, flags, AddrNone, 0, 0)
}

// AppendMem adds a memory record. lanes[l] is lane l's address; only lanes in mask are read.
// It picks the most compact encoding that reproduces the addresses exactly.
func (w *Warp) AppendMem(pc, mask uint32, path uint16, flags Flags, lanes *[32]uint64) {
	if mask == 0 {
		w.Append(pc, mask, path, flags)
		return
	}
	first := bits.TrailingZeros32(mask)
	rest := mask & (mask - 1)
	if rest == 0 {
		w.appendRow(pc, mask, path, flags, AddrUniform, lanes[first], 0)
		return
	}
	// Uniform?
	uniform := true
	for m := rest; m != 0; m &= m - 1 {
		if lanes[bits.TrailingZeros32(m)] != lanes[first] {
			uniform = false
			break
		}
	}
	if uniform {
		w.appendRow(pc, mask, path, flags, AddrUniform, lanes[first], 0)
		return
	}
	// Base + stride by lane id?
	second := bits.TrailingZeros32(rest)
	diff := int64(lanes[second] - lanes[first])
	span := int64(second - first)
	if stride := diff / span; diff%span == 0 && stride == int64(int32(stride)) { // the file's stride column is int32
		base := lanes[first] - uint64(stride*int64(first))
		ok := true
		for m := rest; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if lanes[l] != base+uint64(stride*int64(l)) {
				ok = false
				break
			}
		}
		if ok {
			w.appendRow(pc, mask, path, flags, AddrStride, base, stride)
			return
		}
	}
	prev := lanes[first]
	for m := rest; m != 0; m &= m - 1 {
		a := lanes[bits.TrailingZeros32(m)]
		w.Deltas = append(w.Deltas, int64(a-prev))
		prev = a
	}
	w.appendRow(pc, mask, path, flags, AddrDeltas, lanes[first], 0)
}

// AppendTex adds a texture fetch: texel addresses as in AppendMem, and each active lane's
// integer texel coordinates xy[l].
func (w *Warp) AppendTex(pc, mask uint32, path uint16, flags Flags, lanes *[32]uint64, xy *[32][2]int32) {
	w.appendPairs(pc, mask, path, flags, lanes, xy)
}

// AppendCopy adds a cp.async (SASS LDGSTS): each active lane's global source as a
// load's address in AppendMem, and in dst[l] its shared destination (the offset in
// the CTA's shared memory) and how many bytes it reads from the source (src-size; 0
// with ignore-src), which the row's own addresses cannot carry.
func (w *Warp) AppendCopy(pc, mask uint32, path uint16, flags Flags, lanes *[32]uint64, dst *[32][2]int32) {
	w.appendPairs(pc, mask, path, flags, lanes, dst)
}

// appendPairs adds a memory record with two values per active lane in Coords.
func (w *Warp) appendPairs(pc, mask uint32, path uint16, flags Flags, lanes *[32]uint64, xy *[32][2]int32) {
	w.AppendMem(pc, mask, path, flags, lanes)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		w.Coords = append(w.Coords, xy[l][0], xy[l][1])
	}
	w.CoordOff[len(w.CoordOff)-1] = uint32(len(w.Coords))
}

// Addrs appends row i's addresses to dst, one per active lane in lane order, and returns
// the extended slice. A record that moves no memory appends nothing.
func (w *Warp) Addrs(i int, dst []uint64) []uint64 {
	mask := w.Mask[i]
	switch w.Mode[i] {
	case AddrUniform:
		for n := bits.OnesCount32(mask); n > 0; n-- {
			dst = append(dst, w.Base[i])
		}
	case AddrStride:
		for m := mask; m != 0; m &= m - 1 {
			dst = append(dst, w.Base[i]+uint64(w.Stride[i]*int64(bits.TrailingZeros32(m))))
		}
	case AddrDeltas:
		lo, hi := w.DeltaOff[i], w.DeltaOff[i+1]
		switch {
		case len(w.Deltas16) > 0:
			dst = appendDeltas(dst, w.Base[i], w.Deltas16[lo:hi])
		case len(w.Deltas32) > 0:
			dst = appendDeltas(dst, w.Base[i], w.Deltas32[lo:hi])
		default:
			dst = appendDeltas(dst, w.Base[i], w.Deltas[lo:hi])
		}
	}
	return dst
}

type delta interface{ ~int16 | ~int32 | ~int64 }

// appendDeltas appends a and each address the deltas step to from it.
func appendDeltas[T delta](dst []uint64, a uint64, deltas []T) []uint64 {
	dst = append(dst, a)
	for _, d := range deltas {
		a += uint64(int64(d))
		dst = append(dst, a)
	}
	return dst
}

// laneDeltas sets the address of each lane of mask: the first a, each next one the
// previous plus the next delta.
func laneDeltas[T delta](lanes *[32]uint64, mask uint32, a uint64, deltas []T) {
	k := 0
	for m := mask; m != 0; m &= m - 1 {
		if k > 0 {
			a += uint64(int64(deltas[k-1]))
		}
		lanes[bits.TrailingZeros32(m)] = a
		k++
	}
}

// RowDeltas appends row i's deltas to dst, widened to 64 bits, whichever column holds
// them, and returns the extended slice.
func (w *Warp) RowDeltas(i int, dst []int64) []int64 {
	if len(w.DeltaOff) == 0 {
		return dst
	}
	return w.appendDeltaRange(dst, w.DeltaOff[i], w.DeltaOff[i+1])
}

// deltaLen is how many deltas w holds and in how many of Deltas, Deltas32 and Deltas16.
func (w *Warp) deltaLen() (n, cols int) {
	for _, l := range [...]int{len(w.Deltas), len(w.Deltas32), len(w.Deltas16)} {
		if l > 0 {
			n, cols = n+l, cols+1
		}
	}
	return n, cols
}

// takeDeltas points w's delta columns at [lo:hi) of src's, in the width src holds them.
func (w *Warp) takeDeltas(src *Warp, lo, hi uint32) {
	switch {
	case len(src.Deltas16) > 0:
		w.Deltas16 = src.Deltas16[lo:hi:hi]
	case len(src.Deltas32) > 0:
		w.Deltas32 = src.Deltas32[lo:hi:hi]
	default:
		w.Deltas = src.Deltas[lo:hi:hi]
	}
}

// appendDeltaRange appends deltas [lo:hi) to dst, widened, whichever column holds them.
func (w *Warp) appendDeltaRange(dst []int64, lo, hi uint32) []int64 {
	switch {
	case len(w.Deltas16) > 0:
		return widenTo(dst, w.Deltas16[lo:hi])
	case len(w.Deltas32) > 0:
		return widenTo(dst, w.Deltas32[lo:hi])
	}
	return append(dst, w.Deltas[lo:hi]...)
}

// LaneAddrs fills lanes[l] with lane l's address for each active lane of row i and
// returns the active mask; inactive lanes are left as they were.
func (w *Warp) LaneAddrs(i int, lanes *[32]uint64) uint32 {
	mask := w.Mask[i]
	switch w.Mode[i] {
	case AddrUniform:
		for m := mask; m != 0; m &= m - 1 {
			lanes[bits.TrailingZeros32(m)] = w.Base[i]
		}
	case AddrStride:
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			lanes[l] = w.Base[i] + uint64(w.Stride[i]*int64(l))
		}
	case AddrDeltas:
		lo, hi := w.DeltaOff[i], w.DeltaOff[i+1]
		switch {
		case len(w.Deltas16) > 0:
			laneDeltas(lanes, mask, w.Base[i], w.Deltas16[lo:hi])
		case len(w.Deltas32) > 0:
			laneDeltas(lanes, mask, w.Base[i], w.Deltas32[lo:hi])
		default:
			laneDeltas(lanes, mask, w.Base[i], w.Deltas[lo:hi])
		}
	default:
		return 0
	}
	return mask
}

// TexCoords returns row i's texel coordinates (x, y per active lane), or nil.
func (w *Warp) TexCoords(i int) []int32 { return w.pairs(i) }

// CopyDests returns a cp.async row's shared destination and source bytes per active
// lane (AppendCopy), or nil: traces written before gtrace recorded them, and SASS
// imports (an LDGSTS line of an Accel-Sim trace holds its global addresses only).
func (w *Warp) CopyDests(i int) []int32 { return w.pairs(i) }

func (w *Warp) pairs(i int) []int32 {
	if len(w.CoordOff) == 0 {
		return nil
	}
	return w.Coords[w.CoordOff[i]:w.CoordOff[i+1]]
}

// Clone returns a deep copy of w whose DeltaOff and CoordOff start at 0 and whose deltas
// are in Deltas, whatever width w held them in. Use it to keep a Warp yielded by
// appendRows appends v's rows to w: a warp joined from its windows. w's deltas are in
// the column of width bytes (2, 4 or 8), which must be at least v's (deltaWidth).
func (w *Warp) appendRows(v *Warp, width int) {
	n := v.Len()
	if n == 0 {
		return
	}
	if len(w.DeltaOff) == 0 {
		w.DeltaOff, w.CoordOff = append(w.DeltaOff, 0), append(w.CoordOff, 0)
	}
	w.PC, w.Mask, w.Path, w.Flags = append(w.PC, v.PC...), append(w.Mask, v.Mask...), append(w.Path, v.Path...), append(w.Flags, v.Flags...)
	w.Mode, w.Base, w.Stride = append(w.Mode, v.Mode...), append(w.Base, v.Base...), append(w.Stride, v.Stride...)
	d0, d1 := v.DeltaOff[0], v.DeltaOff[n]
	dAt, _ := w.deltaLen()
	switch {
	case width == 2:
		w.Deltas16 = append(w.Deltas16, v.Deltas16[d0:d1]...)
	case width == 4 && len(v.Deltas32) > 0:
		w.Deltas32 = append(w.Deltas32, v.Deltas32[d0:d1]...)
	case width == 4:
		w.Deltas32 = widenTo(w.Deltas32, v.Deltas16[d0:d1])
	default:
		w.Deltas = v.appendDeltaRange(w.Deltas, d0, d1)
	}
	k0, kAt := v.CoordOff[0], uint32(len(w.Coords))
	w.Coords = append(w.Coords, v.Coords[k0:v.CoordOff[n]]...)
	for i := 1; i <= n; i++ {
		w.DeltaOff = append(w.DeltaOff, uint32(dAt)+v.DeltaOff[i]-d0)
		w.CoordOff = append(w.CoordOff, kAt+v.CoordOff[i]-k0)
	}
}

// reserve gives the empty w room for rows rows, deltas deltas of width bytes and coords
// coordinates, so that appendRows fills it without growing.
func (w *Warp) reserve(rows, deltas, coords, width int) {
	if rows == 0 {
		return
	}
	w.PC, w.Mask, w.Path, w.Flags = make([]uint32, 0, rows), make([]uint32, 0, rows), make([]uint16, 0, rows), make([]Flags, 0, rows)
	w.Mode, w.Base, w.Stride = make([]AddrMode, 0, rows), make([]uint64, 0, rows), make([]int64, 0, rows)
	w.DeltaOff, w.CoordOff = make([]uint32, 0, rows+1), make([]uint32, 0, rows+1)
	w.Coords = make([]int32, 0, coords)
	switch width {
	case 2:
		w.Deltas16 = make([]int16, 0, deltas)
	case 4:
		w.Deltas32 = make([]int32, 0, deltas)
	default:
		w.Deltas = make([]int64, 0, deltas)
	}
}

// deltaWidth is the bytes of each delta in the column w holds them in (2 for none).
func (w *Warp) deltaWidth() int {
	switch {
	case len(w.Deltas) > 0:
		return 8
	case len(w.Deltas32) > 0:
		return 4
	}
	return 2
}

// widenTo appends src's values to dst, widened.
func widenTo[D, S delta](dst []D, src []S) []D {
	for _, x := range src {
		dst = append(dst, D(x))
	}
	return dst
}

// Reader.All past the next iteration.
func (w *Warp) Clone() *Warp {
	c := &Warp{Kernel: w.Kernel, CTA: w.CTA, Warp: w.Warp}
	n := w.Len()
	if n == 0 {
		return c
	}
	c.PC = append([]uint32(nil), w.PC...)
	c.Mask = append([]uint32(nil), w.Mask...)
	c.Path = append([]uint16(nil), w.Path...)
	c.Flags = append([]Flags(nil), w.Flags...)
	c.Mode = append([]AddrMode(nil), w.Mode...)
	c.Base = append([]uint64(nil), w.Base...)
	c.Stride = append([]int64(nil), w.Stride...)
	d0, d1 := w.DeltaOff[0], w.DeltaOff[n]
	c.Deltas = w.appendDeltaRange(nil, d0, d1)
	c.DeltaOff = make([]uint32, n+1)
	for i := range c.DeltaOff {
		c.DeltaOff[i] = w.DeltaOff[i] - d0
	}
	k0, k1 := w.CoordOff[0], w.CoordOff[n]
	c.Coords = append([]int32(nil), w.Coords[k0:k1]...)
	c.CoordOff = make([]uint32, n+1)
	for i := range c.CoordOff {
		c.CoordOff[i] = w.CoordOff[i] - k0
	}
	return c
}
