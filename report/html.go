package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
)

//go:embed page.html.tmpl
var pageTemplate string

// styleTemplate is the pages' stylesheet ({{template "style"}}), shared by the report and
// the sweep page.
//
//go:embed style.html.tmpl
var styleTemplate string

// chartMetrics are the across-architectures charts: one grouped bar chart each.
var chartMetrics = []Headline{
	Headlines[0], // cycles
	{"global sectors (ld + st)", "", EngineMemory, "", 1},
	Headlines[9],  // L2 hit rate
	Headlines[10], // DRAM read
}

// globalSectors is the second chart's value: load and store sectors together.
func globalSectors(r *Run) float64 {
	ld, _ := r.Memory.Metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
	st, _ := r.Memory.Metric("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
	return ld + st
}

type htmlRow struct {
	Label, Metric string
	Cells         []string
}

type htmlKernel struct {
	ID, Trace, Name, Launch string
	Rows                    []htmlRow
	Runs                    []htmlRun
	Advice                  []htmlAdvice
	Source                  *htmlSource
	Memory                  []htmlRow
	Stalls                  []htmlStallBar
	HotLines                []htmlHotLine
}

// htmlSource is a SourceView ready to print: cells formatted and coloured, rows with
// the ids the advice links to.
type htmlSource struct {
	Arch  string
	ByPTX bool
	Note  string
	Files []htmlSourceFile
	ids   map[string]string // "file:line" or "pc N" to a row's id
}

type htmlSourceFile struct {
	Path string
	Rows []htmlSourceRow
}

type htmlSourceRow struct {
	ID, Num, Text string
	Cells         []htmlCell
	PCs           []htmlSourcePC
	Stalls        string // a view by PTX: its one instruction's top stalls
	Gap           bool   // lines folded away before this one
}

type htmlSourcePC struct {
	PC     uint32
	PTX    string
	Cells  []htmlCell
	Stalls string
}

type htmlCell struct {
	Text  string
	Style template.CSS
}

type htmlRun struct {
	Label string
	Occ   string
}

// htmlAdvice is one group of findings with what each arch expects of it: the same rule
// at the same pcs usually fires on every arch, with gains of each arch's own.
type htmlAdvice struct {
	Group
	Archs []string
	Gains []htmlGain
	Link  string // the source row's id
}

type htmlGain struct {
	Arch string
	Gain
}

type htmlLegend struct{ Arch, Color string }

type htmlPage struct {
	Title    string
	Archs    []string
	Kernels  []htmlKernel
	Charts   []template.HTML
	Legend   []htmlLegend
	Timing   bool
	Cols     []SourceCol
	Reasons  []htmlReason // the stall legend
	Roofs    []template.HTML
	RoofRows []htmlRoofRow
}

// WriteHTML writes the page as one self-contained HTML file: styles inline, charts as
// inline SVG, no script or font fetched from anywhere.
func (pg *Page) WriteHTML(w io.Writer, title string) error {
	t, err := parsePage(template.New("page").Funcs(template.FuncMap{
		"pct": func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
		"num": func(f float64) string { return formatValue(f, "") },
		"pcs": func(pcs []uint32) string {
			s := ""
			for i, pc := range pcs {
				if i > 0 {
					s += ", "
				}
				s += strconv.Itoa(int(pc))
			}
			return s
		},
	}), pageTemplate)
	if err != nil {
		return err
	}
	hp := htmlPage{Title: title, Archs: pg.Archs, Cols: SourceCols[:], Reasons: stallLegend()}
	colors := archColorsCSS()
	for a, name := range pg.Archs {
		hp.Legend = append(hp.Legend, htmlLegend{name, colors[a%len(colors)]})
	}
	for i := range pg.Kernels {
		kp := &pg.Kernels[i]
		hk := htmlKernel{ID: fmt.Sprintf("k%d", i), Trace: kp.Trace, Name: kp.Name,
			Launch: fmt.Sprintf("grid (%s), block (%s), %d B shared, %s registers/thread", kp.Launch.Grid, kp.Launch.Block,
				kp.Launch.SharedBytes, regs(kp.Launch.RegsPerThread))}
		hk.Rows = kp.rows(Headlines)
		hk.Memory = kp.rows(MemoryRows)
		hk.Stalls = kp.stallBars()
		if kp.Source != nil {
			hk.Source = htmlSourceOf(hk.ID, kp.Source, kp.Runs[kp.Source.Run].Arch+"/"+kp.Runs[kp.Source.Run].GPU)
			hk.HotLines = hotLines(kp.Source, hk.Source)
		}
		at := map[string]int{}
		for r := range kp.Runs {
			run := &kp.Runs[r]
			o := run.Memory.Occupancy
			label := run.Arch + "/" + run.GPU
			hk.Runs = append(hk.Runs, htmlRun{Label: label,
				Occ: fmt.Sprintf("%d CTA%s/SM (limited by %s)", o.CTAsPerSM, plural(o.CTAsPerSM), o.Limiter)})
			for _, g := range Groups(run.Findings) {
				key := fmt.Sprint(g.First.Rule, g.PCs)
				i, ok := at[key]
				if !ok {
					i = len(hk.Advice)
					at[key] = i
					hk.Advice = append(hk.Advice, htmlAdvice{Group: g, Link: hk.Source.link(&g.First)})
				}
				ha := &hk.Advice[i]
				ha.Archs = append(ha.Archs, label)
				for _, x := range g.Gains {
					ha.Gains = append(ha.Gains, htmlGain{label, x})
				}
			}
		}
		hp.Kernels = append(hp.Kernels, hk)
		hp.Timing = hp.Timing || len(kp.Runs) > 0 && kp.Runs[0].Timing != nil
	}
	if hp.Charts, err = pg.charts(); err != nil {
		return err
	}
	if hp.Roofs, err = pg.rooflineCharts(); err != nil {
		return err
	}
	hp.RoofRows = pg.rooflineRows()
	return t.Execute(w, hp)
}

// parsePage parses a page's template text into t, with the stylesheet both pages share.
func parsePage(t *template.Template, text string) (*template.Template, error) {
	t, err := t.Parse(text)
	if err != nil {
		return nil, err
	}
	return t.Parse(styleTemplate)
}

// htmlSourceOf formats a source view. Row ids are the kernel's id, the file's index and
// the line (k0-f0-L21), or the pc in a view by PTX (k0-pc17).
func htmlSourceOf(kid string, sv *SourceView, arch string) *htmlSource {
	hs := &htmlSource{Arch: arch, ByPTX: sv.ByPTX, Note: sv.Note, ids: map[string]string{}}
	for fi, f := range sv.Files {
		hf := htmlSourceFile{Path: f.Path}
		prev := uint32(0)
		for _, ln := range f.Lines {
			row := htmlSourceRow{Num: strconv.Itoa(int(ln.Line)), Text: ln.Text, Cells: heatCells(ln.Cells, sv.Max),
				Gap: !sv.ByPTX && prev != 0 && ln.Line != prev+1}
			prev = ln.Line
			if len(ln.PCs) > 0 {
				if sv.ByPTX {
					row.ID = fmt.Sprintf("%s-pc%d", kid, ln.Line)
					hs.ids[fmt.Sprintf("pc %d", ln.Line)] = row.ID
				} else {
					row.ID = fmt.Sprintf("%s-f%d-L%d", kid, fi, ln.Line)
					hs.ids[fmt.Sprintf("%s:%d", f.Path, ln.Line)] = row.ID
				}
			}
			for _, p := range ln.PCs {
				var st []string
				for i, s := range p.Stalls {
					if i == 3 {
						break
					}
					st = append(st, fmt.Sprintf("%s %s", s.Reason, formatValue(s.Cycles, "")))
				}
				row.PCs = append(row.PCs, htmlSourcePC{PC: p.PC, PTX: p.PTX, Cells: heatCells(p.Cells, sv.Max), Stalls: strings.Join(st, ", ")})
			}
			if sv.ByPTX && len(row.PCs) == 1 {
				row.Stalls, row.PCs = row.PCs[0].Stalls, nil // the row is its instruction
			}
			hf.Rows = append(hf.Rows, row)
		}
		hs.Files = append(hs.Files, hf)
	}
	return hs
}

// link is the id of the source row a finding points at, "" if the view has none.
func (hs *htmlSource) link(f *Finding) string {
	if hs == nil {
		return ""
	}
	if hs.ByPTX || f.Line == 0 {
		return hs.ids[fmt.Sprintf("pc %d", f.PC)]
	}
	return hs.ids[fmt.Sprintf("%s:%d", f.File, f.Line)]
}

// heatCells formats a row's cells and colours each by its column's heat.
func heatCells(v, max [numCols]float64) []htmlCell {
	out := make([]htmlCell, numCols)
	for c := range out {
		if math.IsNaN(v[c]) {
			continue
		}
		switch c {
		case colSectors:
			out[c].Text = strconv.FormatFloat(v[c], 'f', 1, 64)
		case colSIMD, colL1, colL2:
			out[c].Text = strconv.FormatFloat(v[c], 'f', 0, 64) + "%"
		default:
			out[c].Text = formatValue(math.Round(v[c]), "")
		}
		if h := min(1, SourceCols[c].heat(v[c], max[c])); h > 0.02 {
			out[c].Style = template.CSS(fmt.Sprintf("background:rgba(213,94,0,%.2f)", 0.08+0.6*h))
		}
	}
	return out
}

// charts draws the across-architectures section: one grouped bar chart per metric,
// kernels along x, one bar per arch.
func (pg *Page) charts() ([]template.HTML, error) {
	var names []string
	for _, kp := range pg.Kernels {
		names = append(names, kp.Label(pg))
	}
	var out []template.HTML
	for ci, h := range chartMetrics {
		vals := make([][]float64, len(pg.Archs))
		drawn := false
		for a := range pg.Archs {
			for k := range pg.Kernels {
				v := math.NaN()
				if a < len(pg.Kernels[k].Runs) {
					run := &pg.Kernels[k].Runs[a]
					if ci == 1 {
						v = globalSectors(run)
					} else {
						v = run.Value(h)
					}
				}
				if math.IsNaN(v) {
					v = 0
				} else {
					drawn = true
				}
				vals[a] = append(vals[a], v)
			}
		}
		if !drawn {
			continue // no timing replay: no cycles chart
		}
		svg, err := groupedBars(h.Label, h.Unit, names, vals, archColors)
		if err != nil {
			return nil, err
		}
		out = append(out, template.HTML(svg)) // our own SVG, drawn from numbers
	}
	return out, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func regs(n uint32) string {
	if n == 0 {
		return "unknown"
	}
	return strconv.Itoa(int(n))
}

func formatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "–"
	}
	var s string
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		s = strconv.FormatInt(int64(v), 10)
	case math.Abs(v) >= 100:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}
