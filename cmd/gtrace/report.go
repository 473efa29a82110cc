package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/report"
	"github.com/gtrace/gtrace/sweep"
	"github.com/urfave/cli/v2"
)

// sweepPageFlags is the help category of the options only report --sweep takes.
const sweepPageFlags = "Sweep page"

func reportAction(c *cli.Context) error {
	out := c.String("output")
	if !strings.HasSuffix(out, ".html") && !strings.HasSuffix(out, ".htm") {
		return usageError("-o %q: the report is an HTML file; give a name ending in .html", out)
	}
	if c.IsSet("sweep") {
		return sweepPage(c, out)
	}
	if name := firstSet(c, func(_, cat string) bool { return cat == sweepPageFlags }); name != "" {
		return usageError("report: --%s is for --sweep RESULTS/", name)
	}
	if c.NArg() == 0 {
		return usageError("report: give one or more trace FILEs, or --sweep RESULTS/")
	}
	cfgs, err := loadArchList(c)
	if err != nil {
		return err
	}
	var ins []report.Input
	defer func() {
		for _, in := range ins {
			in.Trace.Close()
		}
	}()
	for _, file := range c.Args().Slice() {
		r, err := format.Open(file)
		if err != nil {
			return err
		}
		ins = append(ins, report.Input{Name: strings.TrimSuffix(filepath.Base(file), ".gtrace"), Trace: r})
	}
	prog := progress.New("report", "replays")
	pg, err := report.Build(c.Context, ins, cfgs, report.Options{NoTiming: c.Bool("no-timing"),
		SourceArch: c.String("source-arch"), SourceDir: c.String("source-dir"),
		Progress: func(_ string, done, total int) { prog.Update(done, total) }})
	prog.Done()
	if err != nil {
		return err
	}
	title := "gtrace report: " + strings.Join(c.Args().Slice(), ", ")
	return atomicfile.WriteFile(c.Context, out, func(w io.Writer) error { return pg.WriteHTML(w, title) })
}

// sweepPage draws the results of a sweep: each metric along one key, a bar per trace.
func sweepPage(c *cli.Context, out string) error {
	if c.NArg() > 0 {
		return usageError("report --sweep: give the results folder alone, not trace FILEs (%s)", c.Args().First())
	}
	if name := firstSet(c, func(name, cat string) bool { return cat != sweepPageFlags && name != "output" }); name != "" {
		return usageError("report --sweep: --%s is for reports of traces; a sweep's results hold their archs and values", name)
	}
	dir := c.String("sweep")
	res, err := sweep.Load(c.Context, dir)
	if err != nil {
		return err
	}
	var metrics []string
	if c.IsSet("metric") {
		metrics = c.StringSlice("metric")
	}
	charts, err := res.Charts(c.String("x"), metrics)
	if err != nil {
		return usageError("report --sweep: %v", err)
	}
	sp := &report.SweepPage{Title: "gtrace sweep: " + dir, Results: dir, Summary: res.Summary.String()}
	for _, ch := range charts {
		var fixed []string
		for _, kv := range ch.Fixed {
			fixed = append(fixed, kv.Key+" = "+kv.Value)
		}
		sc := report.SweepChart{Metric: ch.Metric, Engine: ch.Engine, Fixed: strings.Join(fixed, ", "), XKey: ch.XKey, X: ch.X}
		for _, s := range ch.Series {
			sc.Series = append(sc.Series, report.SweepSeries{Name: s.Name, Y: s.Y})
		}
		sp.Charts = append(sp.Charts, sc)
	}
	return atomicfile.WriteFile(c.Context, out, sp.WriteHTML)
}
