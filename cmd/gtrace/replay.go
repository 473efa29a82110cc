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
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
	"github.com/gtrace/gtrace/sweep"
	"github.com/urfave/cli/v2"
)

// loadArch builds the configuration a replay uses: a preset (or --config FILE), then
// every --set override in order.
func loadArch(archName, gpu, configFile string, sets []string) (*arch.Config, error) {
	var cfg *arch.Config
	var err error
	if configFile == "" && archName == "" {
		return nil, usageError("give --arch fermi|kepler|ampere|hopper, or --config FILE")
	}
	if configFile != "" {
		f, err := os.Open(configFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if cfg, err = arch.Load(f); err != nil {
			return nil, fmt.Errorf("%s: %w", configFile, err)
		}
	} else if cfg, err = arch.Preset(archName, gpu); err != nil {
		return nil, usageError("%v", err)
	}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageError("--set %q: want KEY=VALUE", kv)
		}
		if err := cfg.Set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return nil, usageError("--set %s: %v", kv, err)
		}
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
	prog := newProgress("replay on "+cfg.GPU, "CTAs")
	rep, err := run(c.Context, r, cfg, replay.Options{PerPC: c.Bool("per-pc"),
		Progress: func(_, done, total int) { prog.update(done, total) }})
	prog.done()
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

// column is one trace replayed on one arch: a column of the comparison table.
type column struct {
	label string
	rep   *replay.Report
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
	var cols []column
	for _, file := range c.Args().Slice() {
		r, err := format.Open(file)
		if err != nil {
			return err
		}
		for _, cfg := range cfgs {
			prog := newProgress("replay "+filepath.Base(file)+" on "+cfg.GPU, "CTAs")
			rep, err := replay.Memory(c.Context, r, cfg, replay.Options{
				Progress: func(_, done, total int) { prog.update(done, total) }})
			prog.done()
			if err != nil {
				r.Close()
				return err
			}
			label := cfg.Arch + "/" + cfg.GPU
			if c.NArg() > 1 {
				label = strings.TrimSuffix(filepath.Base(file), ".gtrace") + "@" + cfg.Arch
			}
			cols = append(cols, column{label, rep})
		}
		r.Close()
	}
	switch fmtName {
	case "json":
		for _, col := range cols {
			if err := col.rep.WriteJSON(c.App.Writer); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		for _, col := range cols {
			if err := col.rep.WriteCSV(c.App.Writer); err != nil {
				return err
			}
		}
		return nil
	}
	return printComparison(c.App.Writer, cols, c.Bool("all"))
}

// comparedMetrics are the rows `compare` shows by default: the ones that differ between
// architectures for the seed lessons. --all shows every metric.
var comparedMetrics = []string{
	"smsp__inst_executed.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	"gtrace__global_ld_transactions.sum",
	"gtrace__global_ld_bus_utilization.pct",
	"gtrace__global_st_transactions.sum",
	"gtrace__global_st_bus_utilization.pct",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
	"l1tex__t_sector_hit_rate.pct",
	"l1tex__t_sectors_pipe_tex_mem_texture.sum",
	"idc__requests.sum",
	"lts__t_sectors_srcunit_tex_op_read.sum",
	"lts__t_sectors_srcunit_tex_op_write.sum",
	"lts__t_sector_hit_rate.pct",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"gtrace__dram_row_hit_rate.pct",
	"gtrace__dram_burst_utilization.pct",
	"gtrace__dram_channel_imbalance",
	"gtrace__simd_efficiency.pct",
	"gtrace__ctas_per_sm",
}

func printComparison(w io.Writer, cols []column, all bool) error {
	nk := 0
	for _, col := range cols {
		nk = max(nk, len(col.rep.Kernels))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for ki := range nk {
		var names []string
		var first *replay.KernelReport
		for _, col := range cols {
			if ki < len(col.rep.Kernels) {
				k := &col.rep.Kernels[ki]
				if first == nil {
					first = k
				}
				if len(names) == 0 || names[len(names)-1] != k.Name {
					names = append(names, k.Name)
				}
			}
		}
		fmt.Fprintf(w, "%s\n", strings.Join(names, " vs "))
		fmt.Fprintf(tw, "metric\t")
		for _, col := range cols {
			fmt.Fprintf(tw, "%s\t", col.label)
		}
		fmt.Fprintln(tw)
		metrics := comparedMetrics
		if all {
			metrics = nil
			for _, m := range first.Metrics {
				metrics = append(metrics, m.Name)
			}
		}
		for _, name := range metrics {
			fmt.Fprintf(tw, "%s\t", name)
			for _, col := range cols {
				v, ok := 0.0, false
				if ki < len(col.rep.Kernels) {
					v, ok = col.rep.Kernels[ki].Metric(name)
				}
				if ok {
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
	name := c.Args().First()
	a, gpu, _ := strings.Cut(name, "/")
	cfg, err := loadArch(a, gpu, "", c.StringSlice("set"))
	if err != nil {
		// Also accept a bare GPU preset name.
		for _, an := range arch.Archs() {
			for _, g := range arch.GPUs(an) {
				if g == name {
					cfg, err = loadArch(an, g, "", c.StringSlice("set"))
				}
			}
		}
		if err != nil {
			return err
		}
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
