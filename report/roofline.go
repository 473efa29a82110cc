package report

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// Roof is a launch on one arch as a roofline sees it (seed 004's computational
// intensity): its floating-point work against its DRAM traffic and its time, and the
// preset's roofs.
//
// FLOPs are counted as Nsight Compute's roofline counts them (format.Inst.FLOPs),
// from the arithmetic instructions' thread-instructions (smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}
// and the d* forms): an add, subtract or multiply is one FLOP per lane, a fused
// multiply-add two. gtrace counts PTX instructions, so a division or square root,
// which ptxas expands into several FFMAs that ncu counts, counts nothing here.
type Roof struct {
	FLOP32, FLOP64 float64 // FLOPs of FP32 and FP64 instructions
	DRAMBytes      float64 // dram__bytes_read.sum + dram__bytes_write.sum (memory engine)
	Seconds        float64 // gpu__time_duration.sum (timing engine); NaN without it
	Peak32, Peak64 float64 // the preset's compute roofs, FLOP/s (arch.Config.PeakFLOPs)
	Bandwidth      float64 // the preset's DRAM roof, B/s
}

// FLOP is the launch's floating-point work, both precisions.
func (r Roof) FLOP() float64 { return r.FLOP32 + r.FLOP64 }

// Intensity is FLOP per DRAM byte: +Inf for work with no DRAM traffic.
func (r Roof) Intensity() float64 {
	if r.DRAMBytes == 0 {
		return math.Inf(1)
	}
	return r.FLOP() / r.DRAMBytes
}

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

// Ridge is the intensity where the memory roof meets the compute roof: below it a
// launch can at best be memory-bound.
func (r Roof) Ridge() float64 { return r.Peak() / r.Bandwidth }

// Ceiling is the most the roofs allow at the launch's intensity, FLOP/s.
func (r Roof) Ceiling() float64 { return math.Min(r.Peak(), r.Bandwidth*r.Intensity()) }

// Bound names the roof over the launch: "memory" below the ridge, "compute" above.
func (r Roof) Bound() string {
	if r.Intensity() < r.Ridge() {
		return "memory"
	}
	return "compute"
}

// roofOf counts a launch's FLOPs from the memory replay's per-pc thread-instructions
// (warp-instructions times SIMD efficiency) and takes its DRAM bytes, its time from
// the timing replay (nil: none) and the roofs from cfg.
func roofOf(prog []format.Inst, mem, tim *replay.KernelReport, cfg *arch.Config) Roof {
	r := Roof{Seconds: math.NaN(), Peak32: cfg.PeakFLOPs(false), Peak64: cfg.PeakFLOPs(true),
		Bandwidth: cfg.PeakDRAMBytes()}
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
	rd, _ := mem.Metric("dram__bytes_read.sum")
	wr, _ := mem.Metric("dram__bytes_write.sum")
	r.DRAMBytes = rd + wr
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
			c := htmlRoofCell{Title: fmt.Sprintf("%s FP32 + %s FP64 FLOP, %s DRAM bytes", formatValue(r.FLOP32, ""),
				formatValue(r.FLOP64, ""), formatValue(r.DRAMBytes, ""))}
			switch {
			case r.FLOP() == 0:
				c.Text = "no FP32/FP64 arithmetic"
			case r.DRAMBytes == 0:
				c.Text = "no DRAM traffic"
			default:
				c.Text = sig(r.Intensity()) + " FLOP/B"
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

// rooflineCharts draws one log-log roofline per arch: the DRAM roof rising to the FP32
// roof, the FP64 roof dashed, and each launch with FLOPs, DRAM traffic and a time as a
// point numbered as in the table. Without the timing engine there is nothing to draw.
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
			if r.FLOP() > 0 && r.DRAMBytes > 0 {
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

// roofline draws one arch's chart: roofs from arch (any launch's Roof on it), points.
func roofline(title string, arch Roof, pts []Roof, nums []string, col color.RGBA) (string, error) {
	const giga = 1e9
	ridge32, ridge64 := arch.Peak32/arch.Bandwidth, arch.Peak64/arch.Bandwidth
	xmin, xmax := math.Min(ridge64, ridge32)/100, math.Max(ridge32, ridge64)*10
	ymin := arch.Peak64 / giga / 1000
	for _, r := range pts {
		xmin, xmax = math.Min(xmin, r.Intensity()/2), math.Max(xmax, r.Intensity()*2)
		ymin = math.Min(ymin, r.Achieved()/giga/2)
	}
	xmin = math.Pow(10, math.Floor(math.Log10(xmin)))
	xmax = math.Pow(10, math.Ceil(math.Log10(xmax)))
	ymin = math.Pow(10, math.Floor(math.Log10(ymin)))
	ymax := math.Pow(10, math.Ceil(math.Log10(arch.Peak32/giga*2)))

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "FLOP per DRAM byte"
	p.Y.Label.Text = "GFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decades{}, decades{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	roof := func(peak, ridge float64, dashed bool) error {
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: arch.Bandwidth * xmin / giga},
			{X: ridge, Y: peak / giga}, {X: xmax, Y: peak / giga}})
		if err != nil {
			return err
		}
		l.LineStyle.Width = vg.Points(1.5)
		if dashed {
			l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			l.LineStyle.Color = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xFF}
		}
		p.Add(l)
		return nil
	}
	if err := roof(arch.Peak64, ridge64, true); err != nil {
		return "", err
	}
	if err := roof(arch.Peak32, ridge32, false); err != nil {
		return "", err
	}
	names, err := plotter.NewLabels(plotter.XYLabels{
		XYs: plotter.XYs{{X: ridge32, Y: arch.Peak32 / giga}, {X: ridge64, Y: arch.Peak64 / giga}, {X: xmin * 1.3, Y: arch.Bandwidth * xmin * 1.3 / giga}},
		Labels: []string{"FP32 " + sig(arch.Peak32/giga/1000) + " TFLOP/s", "FP64 " + sig(arch.Peak64/giga/1000) + " TFLOP/s",
			"DRAM " + sig(arch.Bandwidth/giga) + " GB/s"},
	})
	if err != nil {
		return "", err
	}
	for i := range names.TextStyle {
		names.TextStyle[i].Font.Size = vg.Points(8)
		names.TextStyle[i].YAlign = draw.YBottom
	}
	p.Add(names)
	if len(pts) > 0 {
		xy := make(plotter.XYs, len(pts))
		for i, r := range pts {
			xy[i] = plotter.XY{X: r.Intensity(), Y: r.Achieved() / giga}
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return "", err
		}
		s.GlyphStyle.Color = col
		s.GlyphStyle.Radius = vg.Points(3.5)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(s)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: nums})
		if err != nil {
			return "", err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = vg.Points(8)
		}
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(-3)}
		p.Add(lb)
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
