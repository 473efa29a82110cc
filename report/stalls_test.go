package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestStallBars: each arch's bar adds up the timing replay's stall reasons per issued
// instruction, the longest bar spans the whole width and the others their share of it;
// the hot lines are the source view's lines with the most stall cycles, largest first,
// each with its share of the kernel's.
func TestStallBars(t *testing.T) {
	pg := buildPage(t, Options{}, []string{"fermi", "ampere", "hopper"}, "transpose_v1")
	kp := &pg.Kernels[0]
	bars := kp.stallBars()
	if len(bars) != 3 {
		t.Fatalf("%d stall bars, want one per arch (3)", len(bars))
	}
	longest := 0.0
	for b, bar := range bars {
		want := 0.0
		for _, m := range kp.Runs[b].Timing.Metrics {
			if strings.HasPrefix(m.Name, stallRatioPrefix) && strings.HasSuffix(m.Name, stallRatioSuffix) {
				want += m.Value
			}
		}
		if math.Abs(bar.Total-want) > 1e-9*want || want == 0 {
			t.Errorf("%s: bar total %.3f, the replay's stall reasons per issue add to %.3f", bar.Arch, bar.Total, want)
		}
		longest = max(longest, bar.Total)
	}
	for _, bar := range bars {
		width := 0.0
		for _, sg := range bar.Segs {
			w := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(string(sg.Style), ";", 2)[0], "width:"), "%")
			v, err := strconv.ParseFloat(w, 64)
			if err != nil {
				t.Fatalf("segment style %q: %v", sg.Style, err)
			}
			width += v
		}
		if want := 100 * bar.Total / longest; math.Abs(width-want) > 0.1 {
			t.Errorf("%s: segments span %.2f%% of the width, want %.2f%%", bar.Arch, width, want)
		}
	}

	hs := htmlSourceOf("k0", kp.Source, pg.Archs[kp.Source.Run])
	hot := hotLines(kp.Source, hs)
	if len(hot) == 0 || len(hot) > maxHotLines {
		t.Fatalf("%d hot lines", len(hot))
	}
	top, total := 0.0, 0.0
	for _, f := range kp.Source.Files {
		for _, ln := range f.Lines {
			if c := ln.Cells[colStalls]; !math.IsNaN(c) {
				top, total = max(top, c), total+c
			}
		}
	}
	if hot[0].Cycles != top || hot[0].ID == "" || math.Abs(hot[0].Share-top/total) > 1e-12 {
		t.Errorf("first hot line %+v; the most stalled line has %.0f of %.0f cycles", hot[0], top, total)
	}
	for i := 1; i < len(hot); i++ {
		if hot[i].Cycles > hot[i-1].Cycles {
			t.Errorf("hot lines out of order at %d: %.0f after %.0f", i, hot[i].Cycles, hot[i-1].Cycles)
		}
	}
}
