package arch

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/ncucsv"
)

// chaseRun is one footprint of scripts/hw/footprint.sh's pointer chase: SM cycles per
// hop, and the SM and L2 clocks ncu recorded for that launch.
type chaseRun struct {
	bytes         int
	cycles        float64
	smMHz, l2MHz  float64
	clockControl  string
	footprintFile string
}

// readChase reads dir's chase-CC.csv (the program's output under ncu) and
// chase-CC-ncu.csv (ncu's clocks, one launch per footprint, in the same order).
func readChase(t *testing.T, dir, cc string) []chaseRun {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "chase-"+cc+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []chaseRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), ",")
		if len(p) != 5 || p[0] != "chase" {
			continue
		}
		b, err1 := strconv.Atoi(p[1])
		c, err2 := strconv.ParseFloat(p[3], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", f.Name(), sc.Text())
		}
		runs = append(runs, chaseRun{bytes: b, cycles: c, clockControl: cc, footprintFile: f.Name()})
	}
	ncuFile := filepath.Join(dir, "chase-"+cc+"-ncu.csv")
	rows, err := ncucsv.ReadFile(ncuFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		v, err := ncucsv.Number(r.Value)
		if err != nil || r.ID >= len(runs) {
			t.Fatalf("%s: bad row %+v", ncuFile, r)
		}
		switch r.Metric {
		case "sm__cycles_elapsed.avg.per_second":
			runs[r.ID].smMHz = v / 1e6
		case "lts__cycles_elapsed.avg.per_second":
			runs[r.ID].l2MHz = v / 1e6
		}
	}
	for _, c := range runs {
		if c.smMHz == 0 || c.l2MHz == 0 {
			t.Fatalf("%s: no clocks for the %d B footprint", ncuFile, c.bytes)
		}
	}
	return runs
}

// The hopper presets' L2, far-partition and DRAM latencies (a DRAM hop's mean over
// lines homed near and far), split into an SM-clock
// part, an L2-clock part and a fixed time, give the cycles the GPU took at both SM clocks it was measured
// at (1980 MHz with no clock control, and ncu's base clock: 1590 MHz on the H100, 1500
// on the H200), within 1%. With all of the latency in SM cycles, as before, the base
// clock's cycles would be 11-19% off.
func TestLatencyClockDomains(t *testing.T) {
	for _, tc := range []struct {
		gpu, dir     string
		farLo, farHi int // MB: the plateau past one SM's near partition
	}{
		{"h100", "h100-2026-11-25-footprint", 32, 44},
		{"h200", "h200-2026-11-25-footprint", 36, 52},
	} {
		dir := filepath.Join("..", "..", "traces", "hw", tc.dir)
		var worstOld float64
		for _, cc := range []string{"none", "base"} {
			for _, run := range readChase(t, dir, cc) {
				var level string
				switch {
				case run.bytes <= 16<<20:
					level = "l2"
				case run.bytes >= 100<<20:
					level = "dram"
				case run.bytes >= tc.farLo<<20 && run.bytes <= tc.farHi<<20:
					level = "far"
				default:
					continue // the cliffs between levels: a mix of two
				}
				c, err := Preset("hopper", tc.gpu)
				if err != nil {
					t.Fatal(err)
				}
				old := float64(c.L2HitCycles())
				switch level {
				case "dram":
					old = float64(c.DRAMCycles()) + float64(c.DRAMFarCycles())/2
				case "far":
					old += float64(c.L2FarCycles())
				}
				worstOld = max(worstOld, math.Abs(old-run.cycles)/run.cycles)
				for k, v := range map[string]int{"sm.clock_mhz": int(math.Round(run.smMHz)), "l2.clock_mhz": int(math.Round(run.l2MHz))} {
					if err := c.Set(k, strconv.Itoa(v)); err != nil {
						t.Fatal(err)
					}
				}
				got := float64(c.L2HitCycles())
				if level == "far" {
					got += float64(c.L2FarCycles())
				}
				if level == "dram" { // a chase's lines are homed near and far alike: half pay lat.dram_far_ns
					got = float64(c.DRAMCycles()) + float64(c.DRAMFarCycles())/2
					if c.Latency.DRAM != c.DRAMCycles() {
						t.Errorf("%s: lat.dram %d not re-derived at the new clock (%d)", tc.gpu, c.Latency.DRAM, c.DRAMCycles())
					}
				}
				if e := math.Abs(got-run.cycles) / run.cycles; e > 0.01 {
					t.Errorf("%s %s, %d MB at SM %.0f / L2 %.0f MHz: model %v cycles, GPU %.1f (%.1f%% off)",
						tc.gpu, level, run.bytes>>20, run.smMHz, run.l2MHz, got, run.cycles, 100*e)
				}
			}
		}
		if worstOld < 0.10 {
			t.Errorf("%s: latencies fixed at the 1980 MHz values are within %.1f%% at every clock: the probe no longer separates the domains", tc.gpu, 100*worstOld)
		}
	}
}

// lat.dram is derived while lat.dram_ns is set, and refused as a setting, as l1.size
// is on unified archs; with lat.dram_ns=0 it is an input again.
func TestDRAMLatencyDerived(t *testing.T) {
	c, err := Preset("hopper", "h200")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set("lat.dram", "700"); err == nil || !strings.Contains(err.Error(), "lat.dram_ns") {
		t.Errorf("setting a derived lat.dram: %v", err)
	}
	before := c.Latency.DRAM
	if err := c.Set("sm.clock_mhz", "1000"); err != nil {
		t.Fatal(err)
	}
	if c.Latency.DRAM >= before {
		t.Errorf("lat.dram %d at 1000 MHz, %d at 1980: the ns part did not scale", c.Latency.DRAM, before)
	}
	if err := c.Set("lat.dram_ns", "0"); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("lat.dram", "700"); err != nil || c.DRAMCycles() != 700 {
		t.Errorf("lat.dram=700 after lat.dram_ns=0: %v, %d", err, c.DRAMCycles())
	}
	for _, kv := range [][2]string{{"l2.clock_mhz", "-1"}, {"lat.l2_hit_l2clk", "-3"}, {"lat.dram_ns", "-1"}, {"lat.dram_ns", "NaN"}} {
		d, _ := Preset("hopper", "h100")
		if err := d.Set(kv[0], kv[1]); err != nil {
			continue // refused when parsed: as good
		}
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: Validate says %v", kv[0], kv[1], err)
		}
	}
	// Presets that never measured the parts keep their latencies in SM cycles.
	a, _ := Preset("ampere", "a100")
	if a.L2HitCycles() != a.Latency.L2Hit || a.DRAMCycles() != a.Latency.DRAM || a.L2ClockMHz() != a.SM.ClockMHz {
		t.Errorf("a100: %d/%d, %d/%d, %d/%d", a.L2HitCycles(), a.Latency.L2Hit, a.DRAMCycles(), a.Latency.DRAM, a.L2ClockMHz(), a.SM.ClockMHz)
	}
}
