package format

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// deltaWarp is one warp of rows whose lanes step by the given strides in turn: lane l
// of row r adds steps[(l+r) % len(steps)] to lane l-1, so no row is AddrStride and every
// row is stored as deltas.
func deltaWarp(cta, warp int, steps []int64, rows int) *Warp {
	w := &Warp{CTA: cta, Warp: warp}
	for r := range rows {
		var lanes [32]uint64
		a := uint64(0x7000_0000_0000) + uint64(r)*4096
		for l := range lanes {
			if l > 0 {
				a += uint64(steps[(l+r)%len(steps)])
			}
			lanes[l] = a
		}
		w.AppendMem(uint32(5*(r%2)), 0xFFFFFFFF, 0, 0, &lanes) // the program's load and store
		w.Append(2, 0xFFFFFFFF, 0, 0)
	}
	return w
}

// The reader keeps a batch's deltas in the narrowest column that holds all of them: 16
// bits, 32, or 64 when one needs it. Every way of reading gives the written addresses,
// and the decoded batch takes a quarter or half the bytes of the 64-bit column.
func TestReaderNarrowsDeltas(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []int64
		width int // bytes per delta the reader keeps
	}{
		{"int16", []int64{4, -60, 0, math.MaxInt16, math.MinInt16}, 2},
		{"int32", []int64{4, 1 << 20, math.MinInt32, math.MaxInt32}, 4},
		{"int64", []int64{4, 1 << 20, -(1 << 40)}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Two CTAs of two warps, one batch; one warp of each CTA moves no memory.
			ctas := [][]*Warp{
				{deltaWarp(0, 0, tc.steps, 40), {CTA: 0, Warp: 1}},
				{{CTA: 1, Warp: 0}, deltaWarp(1, 1, tc.steps, 7)},
			}
			for _, ws := range ctas {
				ws[1].Append(2, 1, 0, 0)
			}
			tr := &trace{meta: Meta{Launches: []Launch{loopLaunch("k", 2, 2)}}, ctas: [][][]*Warp{ctas}}
			b := tr.write(t)
			r := openBytes(t, b)
			widthOf := func(w *Warp) int {
				switch {
				case len(w.Deltas16) > 0:
					return 2
				case len(w.Deltas32) > 0:
					return 4
				case len(w.Deltas) > 0:
					return 8
				}
				return 0
			}
			for c, ws := range ctas {
				views, release, err := r.ViewCTA(0, c)
				if err != nil {
					t.Fatal(err)
				}
				read, err := r.ReadCTA(0, c)
				if err != nil {
					t.Fatal(err)
				}
				for i, want := range ws {
					for how, got := range map[string]*Warp{"ViewCTA": views[i], "ReadCTA": read[i]} {
						sameWarp(t, how, got, want)
						if want.Len() > 0 && len(want.Deltas) > 0 {
							if wd := widthOf(got); wd != tc.width {
								t.Errorf("%s cta %d warp %d keeps %d-byte deltas, want %d", how, c, i, wd, tc.width)
							}
							var row []int64
							for j := range want.Len() {
								row = got.RowDeltas(j, row[:0])
								if lo, hi := want.DeltaOff[j], want.DeltaOff[j+1]; !slices.Equal(row, want.Deltas[lo:hi]) {
									t.Fatalf("%s row %d: RowDeltas %v, want %v", how, j, row, want.Deltas[lo:hi])
								}
							}
						}
					}
					if got := read[i]; want.Len() > 0 && len(want.Deltas) > 0 {
						if g, w := got.Bytes(), want.Bytes()-(8-tc.width)*len(want.Deltas); g != w {
							t.Errorf("ReadCTA warp %d holds %d bytes, want %d", i, g, w)
						}
					}
				}
				release()
			}
			// A narrowed warp written again gives the same file.
			back := &trace{meta: tr.meta}
			back.ctas = [][][]*Warp{make([][]*Warp, len(ctas))}
			for c := range ctas {
				ws, err := r.ReadCTA(0, c)
				if err != nil {
					t.Fatal(err)
				}
				back.ctas[0][c] = ws
			}
			if !bytes.Equal(back.write(t), b) {
				t.Error("rewriting the read warps changed the file")
			}
		})
	}
}

// A hand-built warp with deltas in two widths is refused, naming the fields.
func TestWriterRefusesDeltasInTwoWidths(t *testing.T) {
	w := deltaWarp(0, 0, []int64{4, 8}, 2)
	w.Deltas16 = []int16{1}
	_, err := writeOne(w)
	if err == nil || !strings.Contains(err.Error(), "more than one of Deltas, Deltas32 and Deltas16") {
		t.Fatalf("err %v, want the two widths named", err)
	}
}

func writeOne(w *Warp) ([]byte, error) {
	var buf bytes.Buffer
	wr, err := NewWriter(&buf, Meta{Launches: []Launch{loopLaunch("k", 1, 1)}})
	if err != nil {
		return nil, err
	}
	if err := wr.WriteCTA(0, 0, []*Warp{w}); err != nil {
		return nil, err
	}
	return buf.Bytes(), wr.Close()
}
