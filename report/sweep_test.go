package report

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"
)

// A sweep page is self-contained: one inline SVG chart per chart and its numbers in a
// table (a dash where a task has no result), the metric's label and unit from the
// Headlines (bytes in the unit the values reach), and each trace in one colour on every
// chart, even one it is missing from.
func TestSweepPage(t *testing.T) {
	nan := math.NaN()
	sp := &SweepPage{Title: "gtrace sweep: res", Summary: "6 tasks: 5 done, 1 failed, 0 pending", Results: "res",
		Charts: []SweepChart{
			{Metric: "sm__cycles_elapsed.avg", Engine: "timing", Fixed: "arch = hopper/h100", XKey: "l1.size",
				X:      []string{"16KB", "32KB", "64KB"},
				Series: []SweepSeries{{"a", []float64{300, 200, nan}}, {"b", []float64{50, 50, 50}}}},
			{Metric: "dram__bytes_read.sum", Engine: "memory", Fixed: "arch = hopper/h100", XKey: "l1.size",
				X:      []string{"16KB", "32KB", "64KB"},
				Series: []SweepSeries{{"b", []float64{8192, 4096, 2048}}}},
			{Metric: "gtrace__made_up", Engine: "memory", XKey: "arch", X: []string{"hopper/h100"},
				Series: []SweepSeries{{"a", []float64{7}}}},
		}}
	var buf bytes.Buffer
	if err := sp.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d SVG charts, want 3", n)
	}
	if f := fetches.FindString(page); f != "" || strings.Contains(page, "<script") {
		t.Errorf("the page fetches or runs something: %q", f)
	}
	for _, want := range []string{
		"6 tasks: 5 done, 1 failed, 0 pending",
		"<h3>cycles by l1.size (timing engine)</h3>",
		"<p class=\"launch\">arch = hopper/h100</p>",
		"<td>300</td><td>200</td><td>–</td>",
		"<h3>DRAM read by l1.size (memory engine)</h3>",
		"<td>8.19 KB</td><td>4.10 KB</td><td>2.05 KB</td>",
		"<h3>gtrace__made_up by arch (memory engine)</h3>",
		"read_parquet('res/**/*.parquet', hive_partitioning = true)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// b is the second trace met: the second colour, in its rows of both charts.
	colors := archColorsCSS()
	rows := regexp.MustCompile(`background:(#[0-9a-f]{6})"></i>b</td>`).FindAllStringSubmatch(page, -1)
	if len(rows) != 2 || rows[0][1] != colors[1] || rows[1][1] != colors[1] {
		t.Errorf("b's rows: %v, want colour %s twice", rows, colors[1])
	}
}
