package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"slices"
)

//go:embed sweep.html.tmpl
var sweepTemplate string

// SweepChart is one chart of a sweep page: a metric over the values of one key, a
// series per trace, with what the sweep held fixed for it.
type SweepChart struct {
	Metric string // an ncu metric name; a Headline's gives its label and unit
	Engine string
	Fixed  string // the other keys' values, as a person reads them
	XKey   string
	X      []string
	Series []SweepSeries
}

// SweepSeries is one trace's values at a chart's X, NaN where it has none.
type SweepSeries struct {
	Name string
	Y    []float64
}

// SweepPage is what its WriteHTML draws: a sweep's charts and where it stands.
type SweepPage struct {
	Title   string
	Summary string // "24 tasks: 24 done, 0 failed, 0 pending"
	Results string // the folder, for the DuckDB line
	Charts  []SweepChart
}

type htmlSweepChart struct {
	Title, Fixed, XKey string
	SVG                template.HTML
	X                  []string
	Rows               []htmlSweepRow
}

type htmlSweepRow struct {
	Name, Color string
	Values      []string
}

// WriteHTML writes a sweep's charts as one self-contained page: a grouped bar chart
// per metric and fixed values, a bar per trace in the same colour on every chart, and
// each chart's numbers as a table below it.
func (sp *SweepPage) WriteHTML(w io.Writer) error {
	t, err := parsePage(template.New("sweep"), sweepTemplate)
	if err != nil {
		return err
	}
	var names []string // every series, in the order first met: its colour
	for _, c := range sp.Charts {
		for _, s := range c.Series {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	css := archColorsCSS()
	hp := struct {
		*SweepPage
		Legend []htmlLegend
		Shown  []htmlSweepChart
	}{SweepPage: sp}
	for i, n := range names {
		hp.Legend = append(hp.Legend, htmlLegend{n, css[i%len(css)]})
	}
	for _, c := range sp.Charts {
		h := Headline{Label: c.Metric, Metric: c.Metric, Scale: 1}
		if i := slices.IndexFunc(Headlines, func(h Headline) bool { return h.Metric == c.Metric }); i >= 0 {
			h = Headlines[i]
		}
		h.Unit, h.Scale = sweepUnit(h, c.Series)
		title := fmt.Sprintf("%s by %s (%s engine)", h.Label, c.XKey, c.Engine)
		hc := htmlSweepChart{Title: title, Fixed: c.Fixed, XKey: c.XKey, X: c.X}
		var vals [][]float64
		var colors []color.RGBA
		for _, s := range c.Series {
			i := slices.Index(names, s.Name)
			row := htmlSweepRow{Name: s.Name, Color: css[i%len(css)]}
			ys := make([]float64, len(s.Y))
			for j, y := range s.Y {
				row.Values = append(row.Values, formatValue(y/h.Scale, h.Unit))
				if !math.IsNaN(y) {
					ys[j] = y / h.Scale
				}
			}
			hc.Rows = append(hc.Rows, row)
			vals = append(vals, ys)
			colors = append(colors, archColors[i%len(archColors)])
		}
		svg, err := groupedBars(title, h.Unit, c.X, vals, colors)
		if err != nil {
			return err
		}
		hc.SVG = template.HTML(svg) // our own SVG, drawn from numbers
		hp.Shown = append(hp.Shown, hc)
	}
	return t.Execute(w, hp)
}

// sweepUnit is the unit and scale a chart of h's metric shows its series in: h's own,
// but bytes in the largest of B, KB, MB and GB the biggest value reaches, so that a small
// kernel's reads do not show as 0.01 MB.
func sweepUnit(h Headline, series []SweepSeries) (string, float64) {
	if h.Unit != "MB" {
		return h.Unit, h.Scale
	}
	top := 0.0
	for _, s := range series {
		for _, y := range s.Y {
			if !math.IsNaN(y) {
				top = max(top, y)
			}
		}
	}
	for _, u := range []struct {
		unit  string
		scale float64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if top >= u.scale {
			return u.unit, u.scale
		}
	}
	return "B", 1
}
