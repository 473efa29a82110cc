package replay

import "testing"

// smallChip is a hopper L2 of 4 slices of 2 lines each (1 set, 2 ways), 2 partitions
// and 4 SMs (0-1 in partition 0, 2-3 in 1), slices on consecutive lines and each
// line homed in its slice's partition.
func smallChip(t *testing.T, sets ...string) *l2Chip {
	t.Helper()
	cfg := presetOf(t, "hopper", "h200", append([]string{"l2.size=1KB", "l2.slices=4", "l2.ways=2", "l2.slice_map=lines", "l2.partition_bits=none"}, sets...)...)
	sc := cfg.L2.Slice()
	sc.MSHRs = 0
	l, err := newL2Chip(cfg, 4, sc)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestL2ChipNearCopy: a read from the partition that is not the line's home keeps a near
// copy there; a near miss that hits at home reads nothing from DRAM.
func TestL2ChipNearCopy(t *testing.T) {
	l := smallChip(t)
	const line = 3 * 128 // home slice 3, partition 1; its near slice in partition 0 is 1
	if near, home := l.entry(0, line); near != 1 || home != 3 {
		t.Fatalf("entry(SM 0) = %d, %d; want near 1, home 3", near, home)
	}
	if near, home := l.entry(2, line); near != 3 || home != 3 {
		t.Fatalf("entry(SM 2) = %d, %d; want 3, 3", near, home)
	}
	if _, res, far, fetch := l.load(0, line, 0b1); res.Hit != 0 || far != 0 || fetch != 0b1 {
		t.Fatalf("cold read: hit %04b far %04b fetch %04b", res.Hit, far, fetch)
	}
	if _, res, far, fetch := l.load(1, line, 0b1); res.Hit != 0b1 || far != 0 || fetch != 0 {
		t.Fatalf("read from the same partition: hit %04b far %04b fetch %04b, want a near hit", res.Hit, far, fetch)
	}
	if _, res, far, fetch := l.load(2, line, 0b1); res.Hit != 0b1 || far != 0 || fetch != 0 {
		t.Fatalf("read at home: hit %04b far %04b fetch %04b", res.Hit, far, fetch)
	}
	// Four lines homed at slice 1 push the near copy out of slice 1's two ways (under
	// LRU two would do; under SRRIP the copy that was hit outlives three newcomers); the
	// line is still at home, so the next read misses near and reads no DRAM.
	for _, other := range []uint64{1, 5, 9, 13} {
		l.load(0, other*128, 0b1)
	}
	if _, res, far, fetch := l.load(0, line, 0b1); res.Hit != 0 || far != 0b1 || fetch != 0 {
		t.Fatalf("after the near copy left: hit %04b far %04b fetch %04b, want a near miss served at home", res.Hit, far, fetch)
	}
	one := smallChip(t, "l2.partitions=1")
	if near, home := one.entry(0, line); near != home {
		t.Fatalf("one partition: entry %d, home %d", near, home)
	}
}

// TestL2ChipDirtyBudget: past l2.dirty_max of a slice's lines, a store writes back the
// least recently written dirty line, which stays valid and clean.
func TestL2ChipDirtyBudget(t *testing.T) {
	l := smallChip(t, "l2.dirty_max=0.5", "l2.partial_fill=false") // one dirty line per slice
	a, b := uint64(0), uint64(4*128)                               // both on slice 0
	l.store(a, 0b11, nil)
	if len(l.out) != 0 {
		t.Fatalf("first store wrote back %+v", l.out)
	}
	l.store(b, 0b1, nil)
	if len(l.out) != 1 || l.out[0] != (l2Out{line: a, dirty: 0b11}) {
		t.Fatalf("second dirty line: out %+v, want line %#x sectors 0011", l.out, a)
	}
	l.out = l.out[:0]
	if _, res, _, fetch := l.load(0, a, 0b11); res.Hit != 0b11 || fetch != 0 {
		t.Fatalf("the cleaned line: hit %04b fetch %04b, want it kept", res.Hit, fetch)
	}
	l.store(b, 0b10, nil) // b again: no new dirty line
	if len(l.out) != 0 {
		t.Fatalf("storing a dirty line again wrote back %+v", l.out)
	}
}

// TestL2ChipPartialFill: a sector a store made valid without all its bytes is read from
// DRAM before its write-back or a read of it; one written whole, or completed by later
// stores, is not.
func TestL2ChipPartialFill(t *testing.T) {
	l := smallChip(t, "l2.dirty_max=0.5")
	half := [4]uint32{0x0000ffff, 0xffff0000, 0xffffffff}
	l.store(0, 0b111, &half) // sector 0 and 1 half, 2 whole
	rest := [4]uint32{0, 0x0000ffff}
	l.store(0, 0b10, &rest)  // sector 1 now whole
	l.store(4*128, 0b1, nil) // over the budget: line 0 leaves
	if len(l.out) != 1 || l.out[0] != (l2Out{line: 0, dirty: 0b111, fill: 0b001}) {
		t.Fatalf("out %+v, want sectors 0111 written and 0001 read first", l.out)
	}
	l.out = l.out[:0]
	l.store(8*128, 0b1, &half) // a new half sector on slice 0
	if _, _, _, fetch := l.load(0, 8*128, 0b1); fetch != 0b1 {
		t.Fatalf("a read of a partial sector fetched %04b, want 0001", fetch)
	}
	if _, _, _, fetch := l.load(0, 8*128, 0b1); fetch != 0 {
		t.Fatalf("a second read fetched %04b", fetch)
	}
}

// TestTimedL2FarPartition: a read that misses its near partition and hits at home takes
// lat.l2_far_ns longer than an L2 hit (hw-facts §8: the pointer chase's plateau past
// one SM's near partition); a near hit, or a hit at home from the home's partition,
// takes an L2 hit.
func TestTimedL2FarPartition(t *testing.T) {
	for _, far := range []string{"117.4", "0"} {
		cfg := presetOf(t, "hopper", "h200", "l2.size=1KB", "l2.slices=4", "l2.ways=2", "l2.slice_map=lines", "l2.partition_bits=none", "lat.l2_far_ns="+far)
		l, err := newTimedL2(cfg, 4)
		if err != nil {
			t.Fatal(err)
		}
		hit, step := int64(cfg.L2HitCycles()), int64(cfg.L2FarCycles())
		if far != "0" && step != 232 { // 117.4 ns at 1980 MHz
			t.Fatalf("lat.l2_far_ns %s: %d cycles at %d MHz, want 232", far, step, cfg.SM.ClockMHz)
		}
		const line = 3 * 128 // home slice 3, partition 1 (SMs 2-3); near slice 1 for SMs 0-1
		var at int64
		for _, tc := range []struct {
			sm   int
			want int64
			what string
		}{
			{2, int64(cfg.DRAMCycles()), "cold, from the home partition: DRAM"},
			{0, hit + step, "from the other partition: near miss, hit at home"},
			{1, hit, "again from that partition: its near copy"},
			{3, hit, "from the home partition: a hit at home"},
		} {
			at += 10000 // far apart: no port or bus waits
			if got := l.read(at, tc.sm, line, 0b1, true) - at; got != tc.want {
				t.Errorf("lat.l2_far_ns=%s, SM %d, %s: %d cycles, want %d", far, tc.sm, tc.what, got, tc.want)
			}
		}
	}
}

// TestL2ChipPartitionBits: with l2.partition_bits a line's home partition is the XOR of
// those address bits (hopper: 12, 13, 15, 17, 19 and the page number, hw-facts section
// 16), so the lines of a 4 KB block share a home, flipping one of the bits moves it to
// the other partition and flipping any other bit leaves it; the slice within the
// partition is still l2.slice_map's, and the homes split the lines evenly.
func TestL2ChipPartitionBits(t *testing.T) {
	cfg := presetOf(t, "hopper", "h200")
	sc := cfg.L2.Slice()
	sc.MSHRs = 0
	l, err := newL2Chip(cfg, 132, sc)
	if err != nil {
		t.Fatal(err)
	}
	const base = 0x10_0000_0000 // capture's first allocation
	part := func(addr uint64) int { return l.part(l.home(addr)) }
	for off := uint64(128); off < 4096; off += 128 {
		if part(base+off) != part(base) {
			t.Fatalf("line %#x of a 4 KB block homed apart from its first", off)
		}
	}
	for b := 7; b < 40; b++ {
		moves := b == 12 || b == 13 || b == 15 || b == 17 || b == 19 || b >= 21
		if got := part(base^1<<b) != part(base); got != moves {
			t.Errorf("flipping address bit %d moves the home: %v, want %v", b, got, moves)
		}
	}
	var n [2]int
	slices := map[int]bool{}
	for i := range uint64(1 << 15) { // 4 MB of lines
		h := l.home(base + i*128)
		n[l.part(h)]++
		slices[h] = true
	}
	if n[0] != n[1] || len(slices) != len(l.slices) {
		t.Errorf("4 MB of lines: %v by partition on %d slices, want an even split over all %d", n, len(slices), len(l.slices))
	}
}

// TestTimedL2FarDRAM: a DRAM read of a line homed in the other partition than the
// reading SM's takes lat.dram_far_ns longer (the partitions' link, there and back); one
// homed in the SM's own partition takes lat.dram.
func TestTimedL2FarDRAM(t *testing.T) {
	for _, far := range []string{"89.7", "0"} {
		cfg := presetOf(t, "hopper", "h200", "lat.dram_far_ns="+far)
		l, err := newTimedL2(cfg, 132)
		if err != nil {
			t.Fatal(err)
		}
		step := int64(cfg.DRAMFarCycles())
		if far != "0" && step != 178 { // 89.7 ns at 1980 MHz
			t.Fatalf("lat.dram_far_ns %s: %d cycles at %d MHz, want 178", far, step, cfg.SM.ClockMHz)
		}
		var at int64
		remote := 0
		for i, addr := range []uint64{0x10_0000_0000, 0x10_0000_1000, 0x10_0010_0000, 0x10_0010_1000} {
			for _, sm := range []int{0, 131} { // one SM of each partition, each line cold to it
				line := addr + uint64(sm)*8192
				want := int64(cfg.DRAMCycles())
				if l.chip.remote(sm, line) {
					want += step
					remote++
				}
				at += 100000 // far apart: no port, bus or bank waits
				if got := l.read(at, sm, line, 0b1, false) - at; got != want {
					t.Errorf("lat.dram_far_ns=%s, line %d from SM %d (remote %v): %d cycles, want %d", far, i, sm, l.chip.remote(sm, line), got, want)
				}
			}
		}
		if remote != 4 { // each line is remote to one of the two SMs
			t.Errorf("%d of 8 reads homed remote, want 4", remote)
		}
	}
}
