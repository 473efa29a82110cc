package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/gtrace/gtrace/report"
	"github.com/urfave/cli/v2"
)

func reportAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError("report: give one or more trace FILEs")
	}
	out := c.String("output")
	if !strings.HasSuffix(out, ".html") && !strings.HasSuffix(out, ".htm") {
		return usageError("-o %q: the report is an HTML file; give a name ending in .html", out)
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
	prog := newProgress("report", "replays")
	pg, err := report.Build(c.Context, ins, cfgs, report.Options{NoTiming: c.Bool("no-timing"),
		SourceArch: c.String("source-arch"), SourceDir: c.String("source-dir"),
		Progress: func(_ string, done, total int) { prog.update(done, total) }})
	prog.done()
	if err != nil {
		return err
	}
	title := "gtrace report: " + strings.Join(c.Args().Slice(), ", ")
	return atomicfile.WriteFile(c.Context, out, func(w io.Writer) error { return pg.WriteHTML(w, title) })
}
