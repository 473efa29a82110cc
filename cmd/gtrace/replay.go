package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
	"github.com/gtrace/gtrace/sweep"
	"github.com/urfave/cli/v2"
)

// loadArch builds the configuration a replay uses: a preset (arch.Lookup's names) or
// --config FILE, then every --set override in order.
func loadArch(archName, gpu, configFile string, sets []string) (*arch.Config, error) {
	var cfg *arch.Config
	var err error
	switch {
	case configFile != "":
		f, err := os.Open(configFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if cfg, err = arch.Load(f); err != nil {
			return nil, fmt.Errorf("%s: %w", configFile, err)
		}
	case archName == "":
		return nil, usageError("give --arch fermi|kepler|ampere|hopper, or --config FILE")
	default:
		if cfg, err = arch.Lookup(archName, gpu); err != nil {
			return nil, usageError("%v", err)
		}
	}
	if err := cfg.SetPairs(sets); err != nil {
		return nil, usageError("--set %v", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// archAndTrace loads the arch that archFlags choose and opens the one trace FILE given.
func archAndTrace(c *cli.Context) (*arch.Config, *format.Reader, error) {
	cfg, err := loadArch(c.String("arch"), c.String("gpu"), c.String("config"), c.StringSlice("set"))
	if err != nil {
		return nil, nil, err
	}
	r, err := openTrace(c)
	return cfg, r, err
}

func replayAction(c *cli.Context) error {
	run := replay.Memory
	switch e := c.String("engine"); e {
	case "memory":
	case "timing":
		run = replay.Timing
	default:
		return usageError("--engine %q: want memory or timing", e)
	}
	fmtName := c.String("format")
	if fmtName != "table" && fmtName != "json" && fmtName != "csv" {
		return usageError("--format %q: want table, json or csv", fmtName)
	}
	cfg, r, err := archAndTrace(c)
	if err != nil {
		return err
	}
	defer r.Close()
	prog := progress.New("replay on "+cfg.GPU, "CTAs")
	rep, err := run(c.Context, r, cfg, replay.Options{PerPC: c.Bool("per-pc"),
		Progress: func(_, done, total int) { prog.Update(done, total) }})
	prog.Done()
	if err != nil {
		return err
	}
	if out := c.String("output"); out != "" {
		if err := atomicfile.WriteFile(c.Context, out, func(w io.Writer) error { return sweep.WriteReport(w, rep) }); err != nil {
			return err
		}
	}
	switch fmtName {
	case "json":
		return rep.WriteJSON(c.App.Writer)
	case "csv":
		return rep.WriteCSV(c.App.Writer)
	}
	return printReport(c.App.Writer, rep)
}

func fmtValue(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

func printReport(w io.Writer, rep *replay.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, k := range rep.Kernels {
		fmt.Fprintf(w, "%s on %s (%s): %s, %d CTAs/SM (limited by %s)\n", k.Name, rep.GPU, rep.Arch,
			rep.Name, k.Occupancy.CTAsPerSM, k.Occupancy.Limiter)
		for _, m := range k.Metrics {
			fmt.Fprintf(tw, "%s\t%s\t\n", m.Name, fmtValue(m.Value))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, p := range k.PerPC {
			fmt.Fprintf(w, "\n  pc %d: %s\n", p.PC, p.PTX)
			for _, m := range p.Metrics {
				if m.Value != 0 {
					fmt.Fprintf(tw, "    %s\t%s\t\n", m.Name, fmtValue(m.Value))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

func compareAction(c *cli.Context) error {
	fmtName := c.String("format")
	if fmtName != "table" && fmtName != "json" && fmtName != "csv" {
		return usageError("--format %q: want table, json or csv", fmtName)
	}
	if c.NArg() == 0 {
		return usageError("compare: give one or more trace FILEs")
	}
	cfgs, err := loadArchList(c)
	if err != nil {
		return err
	}
	var cols []replay.Column
	for _, file := range c.Args().Slice() {
		r, err := format.Open(file)
		if err != nil {
			return err
		}
		for _, cfg := range cfgs {
			prog := progress.New("replay "+filepath.Base(file)+" on "+cfg.GPU, "CTAs")
			rep, err := replay.Memory(c.Context, r, cfg, replay.Options{
				Progress: func(_, done, total int) { prog.Update(done, total) }})
			prog.Done()
			if err != nil {
				r.Close()
				return err
			}
			cols = append(cols, replay.Column{Label: replay.ColumnLabel(file, c.NArg(), cfg, cfgs), Report: rep})
		}
		r.Close()
	}
	switch fmtName {
	case "json":
		for _, col := range cols {
			if err := col.Report.WriteJSON(c.App.Writer); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		for _, col := range cols {
			if err := col.Report.WriteCSV(c.App.Writer); err != nil {
				return err
			}
		}
		return nil
	}
	return printComparison(c.App.Writer, cols, c.Bool("all"))
}

func printComparison(w io.Writer, cols []replay.Column, all bool) error {
	metrics := replay.ComparedMetrics
	if all {
		metrics = nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, cmp := range replay.Compare(cols, metrics) {
		fmt.Fprintf(w, "%s\n", strings.Join(cmp.Names, " vs "))
		fmt.Fprintf(tw, "metric\t")
		for _, col := range cols {
			fmt.Fprintf(tw, "%s\t", col.Label)
		}
		fmt.Fprintln(tw)
		for _, row := range cmp.Rows {
			fmt.Fprintf(tw, "%s\t", row.Metric)
			for i, v := range row.Values {
				if row.Has[i] {
					fmt.Fprintf(tw, "%s\t", fmtValue(v))
				} else {
					fmt.Fprintf(tw, "-\t")
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

func archsAction(c *cli.Context) error {
	if c.NArg() == 0 {
		tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ARCH\tGPU PRESETS (first = default)")
		for _, a := range arch.Archs() {
			gpus := arch.GPUs(a)
			fmt.Fprintf(tw, "%s\t%s\n", a, strings.Join(gpus, ", "))
		}
		return tw.Flush()
	}
	cfg, err := loadArch(c.Args().First(), "", "", c.StringSlice("set"))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "%s/%s: %s (compute capability %s)\n", cfg.Arch, cfg.GPU, cfg.Name, cfg.CC)
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, k := range cfg.Keys() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Key, k.Value, k.Source)
	}
	return tw.Flush()
}

// loadArchList loads the comma-separated --arch list, each with the --set overrides.
func loadArchList(c *cli.Context) ([]*arch.Config, error) {
	var cfgs []*arch.Config
	for _, a := range strings.Split(c.String("arch"), ",") {
		cfg, err := loadArch(strings.TrimSpace(a), "", "", c.StringSlice("set"))
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, nil
}
