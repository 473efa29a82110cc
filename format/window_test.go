package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// smallWindows cuts groups of more than 300 rows into windows of 16 rows a warp or more.
func smallWindows(w *Writer) { w.SetWindows(300, 16) }

// longTrace is randomTrace with, in each launch, one warp of CTA 0 much longer than the
// rest, so that its group is cut into several windows.
func longTrace(seed uint64) *trace {
	tr := randomTrace(seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	for k := range tr.ctas {
		w := tr.ctas[k][0][rng.IntN(len(tr.ctas[k][0]))]
		w.Reset()
		randomWarp(w, 700+rng.IntN(300), len(tr.meta.Launches[k].Program.Insts), rng)
	}
	return tr
}

// A group whose rows pass windowBatchRows is written as row windows; every read path
// joins them back into the warps written, and ViewWindow hands out each window: W rows
// of each warp that goes on past it, the rest of each warp that ends in it.
func TestRowWindows(t *testing.T) {
	windowed := 0
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			tr := longTrace(seed)
			r := openBytes(t, tr.write(t, smallWindows))
			checkRoundTrip(t, tr, r)
			for k := range tr.ctas {
				for c, ws := range tr.ctas[k] {
					n := r.Windows(k, c)
					if n < 1 {
						t.Fatalf("Windows(%d, %d) = %d", k, c, n)
					}
					if n > 1 {
						windowed++
					}
					got := make([]*Warp, len(ws))
					for i := range got {
						got[i] = &Warp{Kernel: k, CTA: c, Warp: i}
					}
					rows := make([][]int, n) // rows of each warp in each window
					for j := range n {
						views, release, err := r.ViewWindow(k, c, j)
						if err != nil {
							t.Fatal(err)
						}
						rows[j] = make([]int, len(ws))
						for i, v := range views {
							if v.Kernel != k || v.CTA != c || v.Warp != i {
								t.Fatalf("window %d: warp %d says %d/%d/%d", j, i, v.Kernel, v.CTA, v.Warp)
							}
							got[i].appendRows(v, 8)
							rows[j][i] = v.Len()
						}
						release()
					}
					// A window before the last is the same length for every warp that
					// goes on past it, and that length is the longest of the window.
					for j := 0; j+1 < n; j++ {
						longest := 0
						for i := range ws {
							longest = max(longest, rows[j][i])
						}
						for i := range ws {
							if rows[j+1][i] > 0 && rows[j][i] != longest {
								t.Fatalf("CTA %d/%d warp %d: %d rows in window %d, %d in the next; a full window is %d", k, c, i, rows[j][i], j, rows[j+1][i], longest)
							}
						}
					}
					for i := range ws {
						sameWarp(t, fmt.Sprintf("windows of %d/%d", k, c), got[i], ws[i])
					}
					if _, _, err := r.ViewWindow(k, c, n); err == nil {
						t.Fatalf("ViewWindow(%d, %d, %d) of %d windows: no error", k, c, n, n)
					}
				}
			}
			if r.Held() != 0 {
				t.Fatalf("%d views held after release", r.Held())
			}
			// inspect's figures: batches, groups, and the groups in windows.
			cut, groups := 0, 0
			for k := range tr.ctas {
				g := r.group[k]
				for c := 0; c < len(tr.ctas[k]); c += g {
					groups++
					if r.Windows(k, c) > 1 {
						cut++
					}
				}
			}
			sum, err := Summarize(r)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Groups != groups || sum.Windowed != cut || sum.Batches != len(r.blocks) || (cut > 0) != (sum.Batches > sum.Groups) {
				t.Fatalf("Summarize: %d batches, %d groups, %d windowed; want %d batches, %d groups, %d windowed", sum.Batches, sum.Groups, sum.Windowed, len(r.blocks), groups, cut)
			}
		})
	}
	if windowed == 0 {
		t.Fatal("no CTA was written in windows")
	}
}

// With the default thresholds a small trace is one batch a group, window 0: the same
// batches as before windows, plus the window column.
func TestNoWindowsBelowThreshold(t *testing.T) {
	tr := longTrace(3)
	r := openBytes(t, tr.write(t))
	for k := range tr.ctas {
		for c := range tr.ctas[k] {
			if n := r.Windows(k, c); n != 1 {
				t.Fatalf("Windows(%d, %d) = %d, want 1", k, c, n)
			}
		}
	}
	if got, want := len(r.blocks), len(r.groups)-1; got != want {
		t.Fatalf("%d batches for %d groups", got, want)
	}
}

// A window column that does not count 0, 1, ... within a group is refused at open, as
// is a damaged one: the index cannot silently differ from the columns.
func TestWindowIndexRefused(t *testing.T) {
	good := longTrace(5).write(t, smallWindows)
	r := openBytes(t, good)
	multi := -1 // the second window of a group of several
	for gi := 0; gi+1 < len(r.groups); gi++ {
		if r.groups[gi+1]-r.groups[gi] > 2 {
			multi = r.groups[gi] + 1
			break
		}
	}
	if multi < 0 {
		t.Fatal("no group of three windows or more")
	}
	var ce *CorruptError

	// Windows 1 and 2 swapped in the footer's list of batches: 0, 2, 1.
	entry := func(b fileBlock) []byte {
		e := binary.LittleEndian.AppendUint64(nil, uint64(b.offset))
		e = binary.LittleEndian.AppendUint32(e, uint32(b.metaLen))
		e = append(e, 0, 0, 0, 0)
		return binary.LittleEndian.AppendUint64(e, uint64(b.bodyLen))
	}
	e1, e2 := entry(r.blocks[multi]), entry(r.blocks[multi+1])
	i1, i2 := bytes.LastIndex(good, e1), bytes.LastIndex(good, e2)
	if i1 < 0 || i2 != i1+24 {
		t.Fatalf("footer entries of batches %d and %d not found side by side (%d, %d)", multi, multi+1, i1, i2)
	}
	swapped := bytes.Clone(good)
	copy(swapped[i1:], e2)
	copy(swapped[i2:], e1)
	_, err := NewReader(bytes.NewReader(swapped), int64(len(swapped)))
	if !errors.As(err, &ce) || ce.Batch != multi || !strings.Contains(err.Error(), "window 2 after window 0") {
		t.Fatalf("windows 0, 2, 1: %v, want a CorruptError on batch %d", err, multi)
	}

	// A bit flipped in batch multi's window column: its zstd frame no longer checks.
	sc := r.scratch()
	blk := r.blocks[multi]
	sc.raw = resize(sc.raw, int(blk.metaLen))
	if err := r.readAt(sc.raw, blk.offset, multi); err != nil {
		t.Fatal(err)
	}
	parseMessage(sc.raw, &sc.bm)
	b := sc.bm.buffers[windowBuffer]
	flipped := bytes.Clone(good)
	flipped[blk.offset+blk.metaLen+b.offset+b.length-2] ^= 0x40 // in the frame's checksum
	_, err = NewReader(bytes.NewReader(flipped), int64(len(flipped)))
	if !errors.As(err, &ce) || ce.Batch != multi {
		t.Fatalf("a flipped window column of batch %d: %v, want a CorruptError on that batch", multi, err)
	}
}
