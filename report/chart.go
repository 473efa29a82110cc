package report

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// archColors tell the archs apart in every chart, in the order the page lists them
// (Okabe and Ito's palette, which colour-blind readers can tell apart).
var archColors = []color.RGBA{
	{0xE6, 0x9F, 0x00, 0xFF}, {0x56, 0xB4, 0xE9, 0xFF}, {0x00, 0x9E, 0x73, 0xFF},
	{0xD5, 0x5E, 0x00, 0xFF}, {0xCC, 0x79, 0xA7, 0xFF}, {0x00, 0x72, 0xB2, 0xFF},
	{0xF0, 0xE4, 0x42, 0xFF}, {0x00, 0x00, 0x00, 0xFF},
}

// groupedBars draws one metric as bars grouped by kernel, one bar per arch, and returns
// inline SVG. values[a][k] is arch a's value for kernel k, drawn in colors[a] (modulo
// their number). The legend is the page's, one for every chart (archColorsCSS).
func groupedBars(title, unit string, kernels []string, values [][]float64, colors []color.RGBA) (string, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = unit
	p.Y.Min = 0
	n := len(values)
	w := vg.Points(max(4, min(14, 200/float64(max(1, n*len(kernels))))))
	for a := range values {
		b, err := plotter.NewBarChart(plotter.Values(values[a]), w)
		if err != nil {
			return "", fmt.Errorf("chart %s: %w", title, err)
		}
		b.Offset = vg.Length(float64(a)-float64(n-1)/2) * w
		b.LineStyle.Width = 0
		b.Color = colors[a%len(colors)]
		p.Add(b)
	}
	p.NominalX(kernels...)
	// A group's bars spread about its kernel's tick by up to half the group's width,
	// which the bars' own data range does not count: give each kernel a unit of axis.
	p.X.Min, p.X.Max = -0.5, float64(len(kernels))-0.5
	if len(kernels) > 4 {
		p.X.Tick.Label.Rotation = 0.6
		p.X.Tick.Label.XAlign = draw.XRight
	}
	width := vg.Length(max(360, min(1100, 60+40*n*len(kernels))))
	height := vg.Length(220)
	if len(kernels) > 4 {
		// gonum leaves room for a rotated label's height as drawn flat: add what the
		// longest name drops below that at 0.6 rad (sin 0.6 of its length, at about
		// half the font size per character).
		longest := 0
		for _, k := range kernels {
			longest = max(longest, len([]rune(k)))
		}
		height += vg.Length(0.565 * 0.5 * float64(p.X.Tick.Label.Font.Size) * float64(longest))
	}
	return svgOf(p, width, height)
}

// svgOf draws p at width × height as inline SVG.
func svgOf(p *plot.Plot, width, height vg.Length) (string, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	return inlineSVG(buf.String()), nil
}

// archColorsCSS is archColors as CSS colours, for the page's legend.
func archColorsCSS() []string {
	var s []string
	for _, c := range archColors {
		s = append(s, fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B))
	}
	return s
}

// inlineSVG drops the XML prolog and the generator comment, which an SVG inside HTML
// does not take.
func inlineSVG(s string) string {
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s
}
