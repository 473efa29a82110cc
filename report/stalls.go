package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
)

// MemoryRows are the memory section's rows: how the DRAM and the L2 were used.
var MemoryRows = []Headline{
	{"DRAM row-buffer hit rate", "gtrace__dram_row_hit_rate.pct", EngineMemory, "%", 1},
	{"DRAM burst utilisation (useful bytes)", "gtrace__dram_burst_utilization.pct", EngineMemory, "%", 1},
	{"DRAM channel imbalance (max / mean requests)", "gtrace__dram_channel_imbalance", EngineMemory, "", 1},
	{"L2 slice imbalance (max / mean sectors)", "gtrace__l2_slice_imbalance", EngineMemory, "", 1},
	{"DRAM throughput (of peak)", "dram__throughput.avg.pct_of_peak_sustained_elapsed", EngineTiming, "%", 1},
	{"L2 sectors read", "lts__t_sectors_srcunit_tex_op_read.sum", EngineMemory, "", 1},
	{"L2 sectors written", "lts__t_sectors_srcunit_tex_op_write.sum", EngineMemory, "", 1},
	{"L2 sectors of atomics (atom)", "lts__t_sectors_srcunit_tex_op_atom.sum", EngineMemory, "", 1},
	{"L2 sectors of reductions (red)", "lts__t_sectors_srcunit_tex_op_red.sum", EngineMemory, "", 1},
}

// rows are a table's rows for hs, one cell per run; a row no run has is left out.
func (kp *KernelPage) rows(hs []Headline) []htmlRow {
	var out []htmlRow
	for _, h := range hs {
		row := htmlRow{Label: h.Label, Metric: h.Metric}
		any := false
		for r := range kp.Runs {
			v := kp.Runs[r].Value(h)
			if !math.IsNaN(v) {
				any = true
			}
			row.Cells = append(row.Cells, formatValue(v, h.Unit))
		}
		if any {
			out = append(out, row)
		}
	}
	return out
}

// stallReasons are the warp states the timing engine reports, as Nsight Compute names
// them, with what each means (from Nsight Compute's Kernel Profiling Guide) and a
// colour (Paul Tol's muted palette, told apart by colour-blind readers).
var stallReasons = []struct{ Name, Meaning, Color string }{
	{"long_scoreboard", "waiting for an L1TEX result: a global, local or texture load", "#332288"},
	{"lg_throttle", "the local/global memory queue is full", "#88CCEE"},
	{"short_scoreboard", "waiting for an MIO result: shared memory, special math", "#44AA99"},
	{"mio_throttle", "the MIO queue (shared memory, special math) is full", "#117733"},
	{"barrier", "waiting at a barrier (__syncthreads) for the other warps", "#999933"},
	{"wait", "a fixed-latency dependency", "#DDCC77"},
	{"math_pipe_throttle", "the math pipe the instruction needs is busy", "#CC6677"},
	{"branch_resolving", "waiting after a taken branch for its target to be fetched", "#AA4499"},
	{"not_selected", "eligible, but another warp issued", "#882255"},
}

const (
	stallRatioPrefix = "smsp__average_warps_issue_stalled_"
	stallRatioSuffix = "_per_issue_active.ratio"
)

type htmlReason struct{ Name, Metric, Meaning, Color string }

func stallLegend() []htmlReason {
	var out []htmlReason
	for _, r := range stallReasons {
		out = append(out, htmlReason{r.Name, stallRatioPrefix + r.Name + stallRatioSuffix, r.Meaning, r.Color})
	}
	return out
}

// htmlStallBar is one run's warp states per issued instruction, as a stacked bar whose
// length is its total against the kernel's longest.
type htmlStallBar struct {
	Arch  string
	Total float64
	Segs  []htmlSeg
}

type htmlSeg struct {
	Reason string
	Value  float64      // warp-cycles in this state per issued instruction
	Style  template.CSS // width (share of the longest bar) and colour
	Title  string       // shown on hover
}

// stallBars draws each run's stall reasons; none without a timing replay.
func (kp *KernelPage) stallBars() []htmlStallBar {
	var bars []htmlStallBar
	longest := 0.0
	for r := range kp.Runs {
		run := &kp.Runs[r]
		if run.Timing == nil {
			return nil
		}
		bar := htmlStallBar{Arch: run.Arch + "/" + run.GPU}
		for _, sr := range stallReasons {
			v, _ := run.Timing.Metric(stallRatioPrefix + sr.Name + stallRatioSuffix)
			bar.Total += v
			bar.Segs = append(bar.Segs, htmlSeg{Reason: sr.Name, Value: v})
		}
		longest = max(longest, bar.Total)
		bars = append(bars, bar)
	}
	for b := range bars {
		for i := range bars[b].Segs {
			sg := &bars[b].Segs[i]
			sg.Style = template.CSS(fmt.Sprintf("width:%.2f%%;background:%s", 100*share(sg.Value, longest), stallReasons[i].Color))
			sg.Title = fmt.Sprintf("%s: %.2f warp-cycles per issued instruction (%.0f%% of %s's stalls)",
				sg.Reason, sg.Value, 100*share(sg.Value, bars[b].Total), bars[b].Arch)
		}
	}
	return bars
}

// maxHotLines is how many of a kernel's lines the stalls section lists.
const maxHotLines = 5

// htmlHotLine is a line of the source view among those that stall most.
type htmlHotLine struct {
	ID, Num, Text string
	Cycles        float64
	Share         float64 // of the kernel's stall cycles on the view's arch
	Reasons       string  // the top three with their shares
}

// hotLines lists the source view's lines with the most stall cycles, each with its
// reasons summed over its instructions.
func hotLines(sv *SourceView, hs *htmlSource) []htmlHotLine {
	var out []htmlHotLine
	total := 0.0
	for fi, f := range sv.Files {
		for li, ln := range f.Lines {
			c := ln.Cells[colStalls]
			if math.IsNaN(c) {
				continue
			}
			total += c
			if c == 0 {
				continue
			}
			by := map[string]float64{}
			for _, p := range ln.PCs {
				for _, s := range p.Stalls {
					by[s.Reason] += s.Cycles
				}
			}
			var rs []StallCount
			for r, v := range by {
				rs = append(rs, StallCount{r, v})
			}
			slices.SortFunc(rs, func(a, b StallCount) int {
				return cmp.Or(cmp.Compare(b.Cycles, a.Cycles), strings.Compare(a.Reason, b.Reason))
			})
			var words []string
			for i, r := range rs {
				if i == 3 {
					break
				}
				words = append(words, fmt.Sprintf("%s %.0f%%", r.Reason, 100*r.Cycles/c))
			}
			row := hs.Files[fi].Rows[li]
			out = append(out, htmlHotLine{ID: row.ID, Num: row.Num, Text: strings.TrimSpace(row.Text), Cycles: c, Reasons: strings.Join(words, ", ")})
		}
	}
	slices.SortStableFunc(out, func(a, b htmlHotLine) int { return cmp.Compare(b.Cycles, a.Cycles) })
	if len(out) > maxHotLines {
		out = out[:maxHotLines]
	}
	for i := range out {
		out[i].Share = out[i].Cycles / total
	}
	return out
}
