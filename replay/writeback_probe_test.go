package replay

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// writebackProbe is the H200 run of scripts/hw/probe.sh writeback (its main part and,
// as writeback-sm, its per-SM part) that docs/research/hw-facts.md §11 reads: what the
// L2 keeps and writes back during a kernel.
const writebackProbe = "../traces/hw/h200-2026-11-25-writeback/"

// wbLaunch is one launch of scripts/hw/writeback.cu with what ncu measured of it
// (caches flushed before it, base clocks). Bytes are MB (2^20); near is the L2
// lookups of the SMs' L1s (srcunit tex), fabric those that came from the other L2
// partition (srcunit ltcfabric).
type wbLaunch struct {
	kind                     string
	mb                       float64 // footprint
	sm                       int     // the per-SM part: the SM it ran on
	dramRead, dramWrite      float64
	nearRead, nearReadHit    float64
	nearWrite, fabricRead    float64
	fabricReadHit, fabricWri float64
}

func readWritebackProbe(t *testing.T, probe string) []wbLaunch {
	t.Helper()
	recs, metric := readProbeRun(t, writebackProbe, probe)
	const mb = 1 << 20
	var ls []wbLaunch
	for _, rec := range recs {
		id, err1 := strconv.Atoi(rec[0])
		bytes, err2 := strconv.ParseFloat(rec[2], 64)
		blocks, err3 := strconv.Atoi(rec[3])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s-free.csv %v: not id,kind,bytes,blocks,...", probe, rec)
		}
		m, ok := metric[id]
		if !ok {
			t.Fatalf("%s launch %d: not in the ncu run", probe, id)
		}
		sec := func(name string) float64 {
			v, ok := m[name]
			if !ok {
				t.Fatalf("%s launch %d: no %s", probe, id, name)
			}
			return v * 32 / mb
		}
		l := wbLaunch{kind: rec[1], mb: bytes / mb,
			dramRead: m["dram__bytes_read.sum"] / mb, dramWrite: m["dram__bytes_write.sum"] / mb,
			nearRead: sec("lts__t_sectors_srcunit_tex_op_read.sum"), nearReadHit: sec("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"),
			nearWrite: sec("lts__t_sectors_srcunit_tex_op_write.sum"), fabricRead: sec("lts__t_sectors_srcunit_ltcfabric_op_read.sum"),
			fabricReadHit: sec("lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum"), fabricWri: sec("lts__t_sectors_srcunit_ltcfabric_op_write.sum")}
		if probe == "writeback-sm" {
			l.sm = blocks
		}
		ls = append(ls, l)
	}
	return ls
}

// TestWritebackProbe checks the readings of hw-facts §11 against the committed H200 run
// (go test -run TestWritebackProbe -v ./replay prints its table): each is a number the
// L2 model takes or is checked on.
func TestWritebackProbe(t *testing.T) {
	ls := readWritebackProbe(t, "writeback")
	by := map[string]map[float64]wbLaunch{}
	for _, l := range ls {
		if by[l.kind] == nil {
			by[l.kind] = map[float64]wbLaunch{}
		}
		by[l.kind][l.mb] = l
		if testing.Verbose() {
			fmt.Printf("%-12s %4.0f MB  DRAM read %6.1f write %6.1f  near read %6.1f hit %6.1f write %6.1f  fabric read %6.1f hit %6.1f write %6.1f\n",
				l.kind, l.mb, l.dramRead, l.dramWrite, l.nearRead, l.nearReadHit, l.nearWrite, l.fabricRead, l.fabricReadHit, l.fabricWri)
		}
	}
	if len(by["wr_seq"]) != 14 || len(by["chase2"]) != 3 {
		t.Fatalf("want 14 footprints of each stream kind and 3 chases, got %d and %d", len(by["wr_seq"]), len(by["chase2"]))
	}
	// Whole sectors written in order: nothing goes to DRAM until the footprint passes
	// about 25.5 MB, then all but 25.5 MB; nothing is read.
	for mb, l := range by["wr_seq"] {
		kept := mb - l.dramWrite
		if l.dramRead > 0.1 || (mb <= 20 && l.dramWrite > 0.2) || (mb >= 32 && math.Abs(kept-25.5) > 0.5) {
			t.Errorf("wr_seq %.0f MB: DRAM read %.1f, write %.1f (kept %.1f MB dirty)", mb, l.dramRead, l.dramWrite, kept)
		}
	}
	// Half of every sector, sectors in random order: each sector that leaves the L2 is
	// read from DRAM and written back whole, from 8 MB on, where whole sectors stay.
	for mb, l := range by["wr_half_rand"] {
		if mb >= 8 && (math.Abs(l.dramRead-l.dramWrite) > 0.08*l.dramWrite+0.3 || l.dramWrite < mb-5.5) {
			t.Errorf("wr_half_rand %.0f MB: DRAM read %.1f, write %.1f", mb, l.dramRead, l.dramWrite)
		}
	}
	// All SMs read their footprint twice: the second pass finds it in the near L2 up to
	// 32 MB, most of it at 40, little at 48, none at 64.
	for mb, want := range map[float64][2]float64{16: {0.99, 1.01}, 32: {0.95, 1}, 40: {0.6, 0.8}, 48: {0, 0.15}, 64: {0, 0.02}} {
		l := by["rd2_seq"][mb]
		if second := l.nearReadHit / mb; second < want[0] || second > want[1] {
			t.Errorf("rd2_seq %.0f MB: second pass hits %.2f of its footprint, want %.2f-%.2f", mb, second, want[0], want[1])
		}
	}
	// One thread's chase: the second pass of 44 MB misses the near L2 on every hop and
	// half of its 64-byte fetches go to DRAM; at 100 MB all do.
	for mb, want := range map[float64]float64{16: 0, 44: 0.5, 100: 1} {
		one, two := by["chase1"][mb], by["chase2"][mb]
		pass := two.nearRead - one.nearRead
		near := (two.nearReadHit - one.nearReadHit) / pass
		dram := (two.dramRead - one.dramRead) / (2 * pass) // 64 B fetched per 32 B sector read
		if (mb == 16 && near < 0.99) || (mb > 16 && near > 0.01) || math.Abs(dram-want) > 0.08 {
			t.Errorf("chase %.0f MB, second pass: near hits %.2f, DRAM %.2f of its fetches (want %.2f)", mb, near, dram, want)
		}
	}
	// The per-SM part: on every SM a chase's near misses all cross the fabric, and one
	// write sector in two does.
	sm := readWritebackProbe(t, "writeback-sm")
	seen := map[string]int{}
	for _, l := range sm {
		seen[l.kind]++
		switch l.kind {
		case "smchase":
			if r := l.fabricRead / l.nearRead; math.Abs(r-1) > 0.01 {
				t.Errorf("SM %d chase: %.3f fabric sectors per near sector", l.sm, r)
			}
		case "smwrite":
			if r := l.fabricWri / l.nearWrite; math.Abs(r-0.5) > 0.01 {
				t.Errorf("SM %d writes: %.3f fabric sectors per near sector", l.sm, r)
			}
		}
	}
	if seen["smchase"] != 132 || seen["smwrite"] != 132 {
		t.Errorf("per-SM part: %v launches, want 132 of each", seen)
	}
}
