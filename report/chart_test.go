package report

import (
	"regexp"
	"strconv"
	"testing"
)

// bar matches the rectangles vgsvg draws for bars, M x,y L x,y' L x',y' L x',y Z, in an
// arch's colour (the white canvas is such a rectangle too).
var bar = regexp.MustCompile(`d="M([0-9.]+),[0-9.]+L[0-9.]+,[0-9.]+L([0-9.]+),[0-9.]+L[0-9.]+,[0-9.]+Z" style="fill:#([0-9A-F]{6})`)

// TestChartKeepsEveryGroupInside draws two to six kernels on four archs and checks that
// every bar, with room for its kernel's tick label, lies inside the chart: the groups
// spread about their ticks, which gonum's bar range leaves out.
func TestChartKeepsEveryGroupInside(t *testing.T) {
	width := regexp.MustCompile(`viewBox="0 0 ([0-9.]+) `)
	for _, nk := range []int{1, 2, 6} {
		kernels := make([]string, nk)
		values := make([][]float64, 4)
		for k := range kernels {
			kernels[k] = "kernel_" + strconv.Itoa(k)
		}
		for a := range values {
			for k := range kernels {
				values[a] = append(values[a], float64(1+a+k))
			}
		}
		svg, err := groupedBars("cycles", "", kernels, values, archColors)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := strconv.ParseFloat(width.FindStringSubmatch(svg)[1], 64)
		bars := bar.FindAllStringSubmatch(svg, -1)
		if len(bars) < 4*nk+1 {
			t.Fatalf("%d kernels: %d bars drawn, want %d", nk, len(bars), 4*nk)
		}
		lo, hi := w, 0.0
		for _, b := range bars {
			if b[3] == "FFFFFF" {
				continue
			}
			x0, _ := strconv.ParseFloat(b[1], 64)
			x1, _ := strconv.ParseFloat(b[2], 64)
			lo, hi = min(lo, x0, x1), max(hi, x0, x1)
		}
		// Half a group's pitch is left at the right edge for the last tick label.
		if margin := (w - lo) / float64(2*nk); w-hi < margin/2 {
			t.Errorf("%d kernels: bars reach x=%.0f of a %.0f-wide chart; the last group and its label are cut", nk, hi, w)
		}
	}
}
