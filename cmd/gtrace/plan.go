package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/plan"
	"github.com/gtrace/gtrace/replay"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "lay out a launch plan (host copies, kernels, streams, events) in time on one GPU: a timeline, and the time with and without overlap",
		Description: "PLAN.yaml names host buffers (pinned or pageable), kernels (a trace, a reference launch or a fixed time)\n" +
			"and the steps the host issues on its streams: copy BUFFER to device|host, run KERNEL, record EVENT, wait EVENT.\n" +
			"Copies take the preset's PCIe model (pcie.* keys); kernels the timing engine's time. See examples/double-buffer.yaml.",
		ArgsUsage: "PLAN.yaml",
		Flags: append(archFlags(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text | json"},
		),
		Action: planAction,
	}
}

func planAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("plan: give exactly one PLAN.yaml")
	}
	path := c.Args().First()
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	p, err := plan.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	archName, gpu := c.String("arch"), c.String("gpu")
	if archName == "" && c.String("config") == "" {
		// The plan's arch: ARCH[/GPU], its GPU before --gpu.
		var fileGPU string
		if archName, fileGPU, _ = strings.Cut(p.Arch, "/"); archName == "" {
			return usageError("plan: give --arch (or arch: in %s)", path)
		}
		if fileGPU != "" {
			gpu = fileGPU
		}
	}
	cfg, err := loadArch(archName, gpu, c.String("config"), c.StringSlice("set"))
	if err != nil {
		return err
	}
	switch c.String("format") {
	case "text", "json":
	default:
		return usageError("plan: --format %q: want text or json", c.String("format"))
	}
	times, from, err := kernelTimes(c.Context, p, cfg, filepath.Dir(path), c.App.ErrWriter)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tl, err := p.Layout(cfg.PCIe, times)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if c.String("format") == "json" {
		return writePlanJSON(c.App.Writer, cfg, times, from, tl)
	}
	printPlan(c.App.Writer, path, cfg, p, times, from, tl)
	return nil
}

// kernelTimes gives each kernel of the plan its time in ns and where it came from: a
// fixed time, or the timing engine on the trace (relative to the plan's folder) or on
// a reference launch captured for it.
func kernelTimes(ctx context.Context, p *plan.Plan, cfg *arch.Config, dir string, stderr io.Writer) (map[string]float64, map[string]string, error) {
	times, from := map[string]float64{}, map[string]string{}
	for _, k := range p.Kernels {
		switch {
		case k.Trace != "":
			path := k.Trace
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			ns, err := traceTime(ctx, path, cfg)
			if err != nil {
				return nil, nil, fmt.Errorf("kernels.%s: %w", k.Name, err)
			}
			times[k.Name], from[k.Name] = ns, k.Trace+" (timing engine)"
		case k.Launch != "":
			ns, err := launchTime(ctx, k.Launch, cfg, stderr)
			if err != nil {
				return nil, nil, fmt.Errorf("kernels.%s: %w", k.Name, err)
			}
			times[k.Name], from[k.Name] = ns, k.Launch+" (captured, timing engine)"
		default:
			times[k.Name], from[k.Name] = k.NS, "given"
		}
	}
	return times, from, nil
}

// traceTime is the timing engine's time for every launch of a trace, one after another.
func traceTime(ctx context.Context, path string, cfg *arch.Config) (float64, error) {
	r, err := format.Open(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	rep, err := replay.Timing(ctx, r, cfg, replay.Options{})
	if err != nil {
		return 0, err
	}
	var ns float64
	for i := range rep.Kernels {
		t, ok := rep.Kernels[i].Metric("gpu__time_duration.sum")
		if !ok {
			return 0, fmt.Errorf("%s: the timing engine gave no gpu__time_duration.sum", path)
		}
		ns += t
	}
	return ns, nil
}

// launchTime captures a reference launch (KERNEL@SIZE=VALUE,...) into a temporary
// trace and times it.
func launchTime(ctx context.Context, launch string, cfg *arch.Config, stderr io.Writer) (float64, error) {
	ref, sz, err := kernels.ParseLaunch(launch)
	if err != nil {
		return 0, err
	}
	spec, err := ref.Spec(sz, kernels.Clang14)
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "gtrace-plan-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "kernel.gtrace")
	if err := runCapture(ctx, captureJob{spec: spec, ref: ref, sizes: sz, out: out}, io.Discard, stderr); err != nil {
		return 0, err
	}
	return traceTime(ctx, out, cfg)
}

func printPlan(w io.Writer, path string, cfg *arch.Config, p *plan.Plan, times map[string]float64, from map[string]string, tl *plan.Timeline) {
	l := cfg.PCIe
	fmt.Fprintf(w, "%s on %s/%s: PCIe %d.0 x%d, %.1f GB/s pinned, %.1f GB/s pageable, %.1f us a copy, %d copy engine(s)\n\n",
		path, cfg.Arch, cfg.GPU, l.Gen, l.Lanes, l.Rate(true), l.Rate(false), l.LatencyUS, l.CopyEngines)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(p.Kernels) > 0 {
		fmt.Fprintln(tw, "kernel\ttime us\tfrom")
		for _, k := range p.Kernels {
			fmt.Fprintf(tw, "%s\t%.1f\t%s\n", k.Name, times[k.Name]/1e3, from[k.Name])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "step\tstream\twhat\tengine\tstart us\tend us\t")
	for _, s := range tl.Spans {
		engine := s.Engine
		if engine == "" {
			engine = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.1f\t%.1f\t\n", s.Step.Index, s.Step.Stream, s.Step, engine, s.StartNS/1e3, s.EndNS/1e3)
	}
	tw.Flush()
	hidden := tl.SerialNS - tl.TotalNS
	fmt.Fprintf(w, "\nwith overlap %.1f us; one step after another %.1f us: the streams hide %.1f us (%.1f%%)\n",
		tl.TotalNS/1e3, tl.SerialNS/1e3, hidden/1e3, 100*hidden/max(tl.SerialNS, 1e-9))
}

func writePlanJSON(w io.Writer, cfg *arch.Config, times map[string]float64, from map[string]string, tl *plan.Timeline) error {
	type span struct {
		Step    int     `json:"step"`
		Stream  string  `json:"stream"`
		What    string  `json:"what"`
		Engine  string  `json:"engine"`
		StartNS float64 `json:"start_ns"`
		EndNS   float64 `json:"end_ns"`
	}
	type kernel struct {
		NS   float64 `json:"ns"`
		From string  `json:"from"`
	}
	out := struct {
		Arch     string            `json:"arch"`
		Kernels  map[string]kernel `json:"kernels"`
		Spans    []span            `json:"spans"`
		TotalNS  float64           `json:"total_ns"`
		SerialNS float64           `json:"serial_ns"`
	}{Arch: cfg.Arch + "/" + cfg.GPU, Kernels: map[string]kernel{}, TotalNS: tl.TotalNS, SerialNS: tl.SerialNS}
	for name, ns := range times {
		out.Kernels[name] = kernel{ns, from[name]}
	}
	for _, s := range tl.Spans {
		out.Spans = append(out.Spans, span{s.Step.Index, s.Step.Stream, s.Step.String(), s.Engine, s.StartNS, s.EndNS})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
