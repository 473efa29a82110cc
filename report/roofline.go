package report

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// Roof is a launch on one arch as a hierarchical roofline sees it (seed 004's
// computational intensity, and Nsight Compute's hierarchical roofline): its
// floating-point work against the bytes each level of the memory hierarchy moved for
// it and its time, and the preset's roofs.
//
// FLOPs are counted as Nsight Compute's roofline counts them (format.Inst.FLOPs),
// from the arithmetic instructions' thread-instructions (smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}
// and the d* forms): an add, subtract or multiply is one FLOP per lane, a fused
// multiply-add two. gtrace counts PTX instructions, so a division or square root,
// which ptxas expands into several FFMAs that ncu counts, counts nothing here.
//
// The levels' bytes are those of ncu's hierarchical roofline chart
// (SpeedOfLight_HierarchicalSingleRooflineChart): L1 is 128 bytes a cycle of the L1
// handing global and local data to the SM (the memory engine's estimate,
// gtrace__lsu_writeback_wavefronts), L2 is the sectors the L2 returns to the SMs'
// reads and atomics, and DRAM is what DRAM read and wrote.
type Roof struct {
	FLOP32, FLOP64 float64 // FLOPs of FP32 and FP64 instructions
	L1Bytes        float64 // gtrace__lsu_writeback_wavefronts.sum x 128 (memory engine)
	L2Bytes        float64 // lts__t_sectors_srcunit_tex_op_{read,atom}.sum x 32 (memory engine)
	DRAMBytes      float64 // dram__bytes_read.sum + dram__bytes_write.sum (memory engine)
	Seconds        float64 // gpu__time_duration.sum (timing engine); NaN without it
	Peak32, Peak64 float64 // the preset's compute roofs, FLOP/s (arch.Config.PeakFLOPs)
	Bandwidth      float64 // the preset's DRAM roof, B/s
	L1Bandwidth    float64 // the preset's L1 roof, B/s (arch.Config.PeakL1Bytes)
	L2Bandwidth    float64 // the preset's L2 roof, B/s (arch.Config.PeakL2Bytes)
}

// RoofLevel is one level of the memory hierarchy on a roofline: the bytes it moved
// for the launch and its roof.
type RoofLevel struct {
	Name             string // L1, L2 or DRAM
	Bytes, Bandwidth float64
}

// Levels are the launch's memory levels, nearest the SM first.
func (r Roof) Levels() []RoofLevel {
	return []RoofLevel{{"L1", r.L1Bytes, r.L1Bandwidth}, {"L2", r.L2Bytes, r.L2Bandwidth}, {"DRAM", r.DRAMBytes, r.Bandwidth}}
}

// FLOP is the launch's floating-point work, both precisions.
func (r Roof) FLOP() float64 { return r.FLOP32 + r.FLOP64 }

// IntensityOf is FLOP per byte of one level: +Inf for work with no traffic there.
func (r Roof) IntensityOf(l RoofLevel) float64 {
	if l.Bytes == 0 {
		return math.Inf(1)
	}
	return r.FLOP() / l.Bytes
}

// Intensity is FLOP per DRAM byte: +Inf for work with no DRAM traffic.
func (r Roof) Intensity() float64 { return r.IntensityOf(RoofLevel{Bytes: r.DRAMBytes}) }

// Achieved is the FLOP rate the timing engine gives, FLOP/s (NaN without it).
func (r Roof) Achieved() float64 { return r.FLOP() / r.Seconds }

// FP64 reports whether double precision is most of the work: its roof applies.
func (r Roof) FP64() bool { return r.FLOP64 > r.FLOP32 }

// Peak is the compute roof of the launch's main precision.
func (r Roof) Peak() float64 {
	if r.FP64() {
		return r.Peak64
	}
	return r.Peak32
}

// Ridge is the DRAM intensity where the DRAM roof meets the compute roof: below it a
// launch can at best be memory-bound.
func (r Roof) Ridge() float64 { return r.Peak() / r.Bandwidth }

// Ceiling is the most the roofs allow at the launch's intensities, FLOP/s: the
// compute roof or the lowest of the levels' bandwidth times intensity.
func (r Roof) Ceiling() float64 {
	c, _ := r.limit()
	return c
}

// Bound names the roof over the launch: the level whose bandwidth limits it most
// (L1, L2 or DRAM), or "compute" where every level's ridge is below its intensity.
func (r Roof) Bound() string {
	_, name := r.limit()
	return name
}

func (r Roof) limit() (float64, string) {
	c, name := r.Peak(), "compute"
	for _, l := range r.Levels() {
		if l.Bandwidth <= 0 {
			continue
		}
		if v := l.Bandwidth * r.IntensityOf(l); v < c {
			c, name = v, l.Name
		}
	}
	return c, name
}

// roofOf counts a launch's FLOPs from the memory replay's per-pc thread-instructions
// (warp-instructions times SIMD efficiency) and takes its levels' bytes, its time from
// the timing replay (nil: none) and the roofs from cfg.
func roofOf(prog []format.Inst, mem, tim *replay.KernelReport, cfg *arch.Config) Roof {
	r := Roof{Seconds: math.NaN(), Peak32: cfg.PeakFLOPs(false), Peak64: cfg.PeakFLOPs(true),
		Bandwidth: cfg.PeakDRAMBytes(), L1Bandwidth: cfg.PeakL1Bytes(), L2Bandwidth: cfg.PeakL2Bytes()}
	for i := range mem.PerPC {
		p := &mem.PerPC[i]
		if int(p.PC) >= len(prog) {
			continue
		}
		f, fp64 := prog[p.PC].FLOPs()
		if f == 0 {
			continue
		}
		lanes := threadInsts(p.Metric)
		if fp64 {
			r.FLOP64 += float64(f) * lanes
		} else {
			r.FLOP32 += float64(f) * lanes
		}
	}
	metric := func(name string) float64 {
		v, _ := mem.Metric(name)
		return v
	}
	r.L1Bytes = 128 * metric("gtrace__lsu_writeback_wavefronts.sum")
	r.L2Bytes = 32 * (metric("lts__t_sectors_srcunit_tex_op_read.sum") + metric("lts__t_sectors_srcunit_tex_op_atom.sum"))
	r.DRAMBytes = metric("dram__bytes_read.sum") + metric("dram__bytes_write.sum")
	if tim != nil {
		if ns, ok := tim.Metric("gpu__time_duration.sum"); ok && ns > 0 {
			r.Seconds = ns * 1e-9
		}
	}
	return r
}

// htmlRoofCell is one launch on one arch in the roofline table.
type htmlRoofCell struct {
	Text, Title string
}

// htmlRoofRow is a launch's row of the roofline table: its number on the charts.
type htmlRoofRow struct {
	Num         int
	Name, Trace string
	Cells       []htmlRoofCell
}

// rooflineRows are the roofline table: per launch and arch its intensity, achieved
// rate, share of the roof over it and which roof that is.
func (pg *Page) rooflineRows() []htmlRoofRow {
	var rows []htmlRoofRow
	for i := range pg.Kernels {
		kp := &pg.Kernels[i]
		row := htmlRoofRow{Num: i + 1, Name: kp.Name, Trace: kp.Trace}
		for _, run := range kp.Runs {
			r := run.Roof
			c := htmlRoofCell{Title: fmt.Sprintf("%s FP32 + %s FP64 FLOP; %s L1, %s L2 and %s DRAM bytes", formatValue(r.FLOP32, ""),
				formatValue(r.FLOP64, ""), formatValue(r.L1Bytes, ""), formatValue(r.L2Bytes, ""), formatValue(r.DRAMBytes, ""))}
			var levels []string
			for _, l := range r.Levels() {
				if l.Bytes > 0 {
					levels = append(levels, l.Name+" "+sig(r.IntensityOf(l)))
				}
			}
			switch {
			case r.FLOP() == 0:
				c.Text = "no FP32/FP64 arithmetic"
			case len(levels) == 0:
				c.Text = "no memory traffic"
			default:
				c.Text = strings.Join(levels, " · ") + " FLOP/B"
				if !math.IsNaN(r.Seconds) {
					c.Text += fmt.Sprintf(", %s GFLOP/s, %.0f%% of the %s roof", sig(r.Achieved()/1e9),
						100*r.Achieved()/r.Ceiling(), r.Bound())
					c.Title += fmt.Sprintf(" in %s µs", sig(r.Seconds*1e6))
				} else {
					c.Text += fmt.Sprintf(" (%s-bound)", r.Bound())
				}
			}
			row.Cells = append(row.Cells, c)
		}
		rows = append(rows, row)
	}
	return rows
}

// sig prints v with three significant digits, without an exponent.
func sig(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 2-int(math.Floor(math.Log10(a))), 64)
}

// rooflineCharts draws one log-log hierarchical roofline per arch: the L1, L2 and DRAM
// roofs rising to the FP32 roof, the FP64 roof dashed, and each launch with FLOPs, a
// time and traffic at a level as a point per level (the same height: its FLOP rate),
// numbered as in the table. Without the timing engine there is nothing to draw.
func (pg *Page) rooflineCharts() ([]template.HTML, error) {
	var out []template.HTML
	for a, name := range pg.Archs {
		var roofs []Roof
		var nums []string
		var ref Roof // any launch's: the arch's roofs
		for i := range pg.Kernels {
			if a >= len(pg.Kernels[i].Runs) {
				continue
			}
			r := pg.Kernels[i].Runs[a].Roof
			ref = r
			if math.IsNaN(r.Seconds) {
				return nil, nil
			}
			if r.FLOP() > 0 {
				roofs = append(roofs, r)
				nums = append(nums, strconv.Itoa(i+1))
			}
		}
		if ref.Bandwidth == 0 {
			continue
		}
		svg, err := roofline(name, ref, roofs, nums, archColors[a%len(archColors)])
		if err != nil {
			return nil, err
		}
		out = append(out, template.HTML(svg))
	}
	return out, nil
}

// levelGlyphs mark a launch's point at each level: L1, L2, DRAM.
var levelGlyphs = []draw.GlyphDrawer{draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CircleGlyph{}}

// roofline draws one arch's chart: roofs from arch (any launch's Roof on it), points.
func roofline(title string, arch Roof, pts []Roof, nums []string, col color.RGBA) (string, error) {
	const giga = 1e9
	levels := arch.Levels()
	xmin, xmax := math.Inf(1), 0.0 // two decades below the lowest ridge, one above the highest
	for _, l := range levels {
		if l.Bandwidth > 0 {
			xmin = math.Min(xmin, math.Min(arch.Peak64, arch.Peak32)/l.Bandwidth/100)
			xmax = math.Max(xmax, math.Max(arch.Peak64, arch.Peak32)/l.Bandwidth*10)
		}
	}
	ymin := arch.Peak64 / giga / 1000
	for _, r := range pts {
		for _, l := range r.Levels() {
			if l.Bytes > 0 {
				xmin, xmax = math.Min(xmin, r.IntensityOf(l)/2), math.Max(xmax, r.IntensityOf(l)*2)
			}
		}
		ymin = math.Min(ymin, r.Achieved()/giga/2)
	}
	xmin = math.Pow(10, math.Floor(math.Log10(xmin)))
	xmax = math.Pow(10, math.Ceil(math.Log10(xmax)))
	ymin = math.Pow(10, math.Floor(math.Log10(ymin)))
	ymax := math.Pow(10, math.Ceil(math.Log10(arch.Peak32/giga*2)))

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "FLOP per byte (L1 ▲, L2 ■, DRAM ●)"
	p.Y.Label.Text = "GFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decades{}, decades{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	grey := color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xFF}
	roof := func(peak, bw float64, width float64, dashes []vg.Length, c color.Color) error {
		ridge := peak / bw
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: bw * xmin / giga},
			{X: ridge, Y: peak / giga}, {X: xmax, Y: peak / giga}})
		if err != nil {
			return err
		}
		l.LineStyle.Width = vg.Points(width)
		l.LineStyle.Dashes = dashes
		if c != nil {
			l.LineStyle.Color = c
		}
		p.Add(l)
		return nil
	}
	if err := roof(arch.Peak64, arch.Bandwidth, 1.5, []vg.Length{vg.Points(4), vg.Points(3)}, grey); err != nil {
		return "", err
	}
	var xy plotter.XYs
	var labels []string
	for _, l := range levels {
		if l.Bandwidth <= 0 {
			continue
		}
		width, c := 0.8, color.Color(grey)
		if l.Name == "DRAM" {
			width, c = 1.5, nil
		}
		if err := roof(arch.Peak32, l.Bandwidth, width, nil, c); err != nil {
			return "", err
		}
		xy = append(xy, plotter.XY{X: xmin * 1.3, Y: l.Bandwidth * xmin * 1.3 / giga})
		labels = append(labels, l.Name+" "+sig(l.Bandwidth/giga)+" GB/s")
	}
	xy = append(xy, plotter.XY{X: arch.Peak32 / arch.Bandwidth, Y: arch.Peak32 / giga}, plotter.XY{X: arch.Peak64 / arch.Bandwidth, Y: arch.Peak64 / giga})
	labels = append(labels, "FP32 "+sig(arch.Peak32/giga/1000)+" TFLOP/s", "FP64 "+sig(arch.Peak64/giga/1000)+" TFLOP/s")
	names, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return "", err
	}
	for i := range names.TextStyle {
		names.TextStyle[i].Font.Size = vg.Points(8)
		names.TextStyle[i].YAlign = draw.YBottom
	}
	p.Add(names)
	for li := range levels {
		var xy plotter.XYs
		var lb []string
		for i, r := range pts {
			l := r.Levels()[li]
			if l.Bytes > 0 {
				xy = append(xy, plotter.XY{X: r.IntensityOf(l), Y: r.Achieved() / giga})
				lb = append(lb, nums[i])
			}
		}
		if len(xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return "", err
		}
		s.GlyphStyle.Color = col
		s.GlyphStyle.Radius = vg.Points(3.5)
		s.GlyphStyle.Shape = levelGlyphs[li]
		p.Add(s)
		lbs, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: lb})
		if err != nil {
			return "", err
		}
		for i := range lbs.TextStyle {
			lbs.TextStyle[i].Font.Size = vg.Points(8)
		}
		lbs.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(-3)}
		p.Add(lbs)
	}
	return svgOf(p, vg.Points(420), vg.Points(300))
}

// decades are a log axis's ticks, labelled without exponents: 0.01, 1, 100, 10k, 1M.
type decades struct{}

func (decades) Ticks(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = decade(ts[i].Value)
		}
	}
	return ts
}

func decade(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.f {
			return strconv.FormatFloat(v/u.f, 'f', -1, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
