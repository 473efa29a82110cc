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
		Usage: "lay out a launch plan, or a program gtrace run traced, in time on one GPU (host copies, kernels, streams, events): a timeline, and the time with and without overlap",
		Description: "PLAN.yaml names host buffers (pinned or pageable), kernels (a trace, a reference launch or a fixed time)\n" +
			"and the steps the host issues on its streams: copy BUFFER to device|host, run KERNEL, record EVENT, wait EVENT,\n" +
			"sync STREAM|device, sync_event EVENT. Copies take the preset's PCIe model (pcie.* keys); kernels the timing\n" +
			"engine's time. See examples/double-buffer.yaml. Given a trace of gtrace run instead, the plan is the program's:\n" +
			"its copies, launches (each timed by the timing engine) and stream calls, in its order, on its streams.",
		ArgsUsage: "PLAN.yaml | RUN.gtrace",
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
	if format.IsTraceFile(path) {
		return planTrace(c, path)
	}
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
	if err := planFormat(c); err != nil {
		return err
	}
	times, from, err := kernelTimes(c.Context, p, cfg, filepath.Dir(path), c.App.ErrWriter)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return showPlan(c, path, cfg, p, times, from)
}

func planFormat(c *cli.Context) error {
	switch c.String("format") {
	case "text", "json":
		return nil
	}
	return usageError("plan: --format %q: want text or json", c.String("format"))
}

// showPlan lays p out and prints its timeline.
func showPlan(c *cli.Context, path string, cfg *arch.Config, p *plan.Plan, times map[string]float64, from map[string]string) error {
	tl, err := p.Layout(cfg.PCIe, cfg.SM.Count, times)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if c.String("format") == "json" {
		return writePlanJSON(c.App.Writer, cfg, times, from, p.Notes, tl)
	}
	printPlan(c.App.Writer, path, cfg, p, times, from, tl)
	return nil
}

// planTrace lays out the program a gtrace run trace holds: each launch timed by the
// timing engine on --arch.
func planTrace(c *cli.Context, path string) error {
	if c.String("arch") == "" && c.String("config") == "" {
		return usageError("plan: give --arch for the trace %s", path)
	}
	cfg, err := loadArch(c.String("arch"), c.String("gpu"), c.String("config"), c.StringSlice("set"))
	if err != nil {
		return err
	}
	if err := planFormat(c); err != nil {
		return err
	}
	t, err := traceTime(c.Context, path, cfg)
	if err != nil {
		return err
	}
	p, err := plan.FromTrace(t.meta, t.ns, cfg.PeakDRAMBytes())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	times, from := map[string]float64{}, map[string]string{}
	for _, k := range p.Kernels {
		times[k.Name], from[k.Name] = k.NS, "timing engine"
		if k.CopyBytes > 0 {
			from[k.Name] = fmt.Sprintf("2 x bytes at dram.bandwidth_gbs %g", cfg.DRAM.BandwidthGBs)
		}
	}
	return showPlan(c, path, cfg, p, times, from)
}

// kernelTimes gives each kernel of the plan its time in ns and where it came from: a
// fixed time, or the timing engine on the trace (relative to the plan's folder) or on
// a reference launch captured for it. A timed kernel occupies as many SMs as its
// largest launch has CTAs, unless the plan says.
func kernelTimes(ctx context.Context, p *plan.Plan, cfg *arch.Config, dir string, stderr io.Writer) (map[string]float64, map[string]string, error) {
	times, from := map[string]float64{}, map[string]string{}
	for i := range p.Kernels {
		k := &p.Kernels[i]
		var t traced
		var err error
		switch {
		case k.Trace != "":
			path := k.Trace
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			t, err = traceTime(ctx, path, cfg)
			from[k.Name] = k.Trace + " (timing engine)"
		case k.Launch != "":
			t, err = launchTime(ctx, k.Launch, cfg, stderr)
			from[k.Name] = k.Launch + " (captured, timing engine)"
		default:
			times[k.Name], from[k.Name] = k.NS, "given"
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("kernels.%s: %w", k.Name, err)
		}
		for _, ns := range t.ns {
			times[k.Name] += ns
		}
		if k.SMs == 0 {
			k.SMs = t.ctas
		}
	}
	return times, from, nil
}

// traced is what the timing engine says of a trace's launches: each one's time, and
// the most CTAs one has; with the trace's metadata.
type traced struct {
	ns   []float64
	ctas int
	meta *format.Meta
}

// traceTime times every launch of a trace with the timing engine.
func traceTime(ctx context.Context, path string, cfg *arch.Config) (traced, error) {
	r, err := format.Open(path)
	if err != nil {
		return traced{}, err
	}
	defer r.Close()
	rep, err := replay.Timing(ctx, r, cfg, replay.Options{})
	if err != nil {
		return traced{}, err
	}
	t := traced{ns: make([]float64, len(rep.Kernels)), meta: r.Meta()}
	for i := range rep.Kernels {
		var ok bool
		if t.ns[i], ok = rep.Kernels[i].Metric("gpu__time_duration.sum"); !ok {
			return traced{}, fmt.Errorf("%s: the timing engine gave no gpu__time_duration.sum for launch %d", path, i)
		}
		t.ctas = max(t.ctas, t.meta.Launches[i].NumCTAs())
	}
	if len(t.ns) == 0 {
		return traced{}, fmt.Errorf("%s: no launch", path)
	}
	return t, nil
}

// launchTime captures a reference launch (KERNEL@SIZE=VALUE,...) into a temporary
// trace and times it.
func launchTime(ctx context.Context, launch string, cfg *arch.Config, stderr io.Writer) (traced, error) {
	ref, sz, err := kernels.ParseLaunch(launch)
	if err != nil {
		return traced{}, err
	}
	spec, err := ref.Spec(sz, kernels.Clang14)
	if err != nil {
		return traced{}, err
	}
	dir, err := os.MkdirTemp("", "gtrace-plan-")
	if err != nil {
		return traced{}, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "kernel.gtrace")
	if err := runCapture(ctx, captureJob{spec: spec, ref: ref, sizes: sz, out: out}, io.Discard, stderr); err != nil {
		return traced{}, err
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
		stream := s.Step.Stream
		if stream == "" {
			stream = "host"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.1f\t%.1f\t\n", s.Step.Index, stream, s.Step, engine, s.StartNS/1e3, s.EndNS/1e3)
	}
	tw.Flush()
	for _, n := range p.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	hidden := tl.SerialNS - tl.TotalNS
	fmt.Fprintf(w, "\nwith overlap %.1f us; one step after another %.1f us: the streams hide %.1f us (%.1f%%)\n",
		tl.TotalNS/1e3, tl.SerialNS/1e3, hidden/1e3, 100*hidden/max(tl.SerialNS, 1e-9))
}

func writePlanJSON(w io.Writer, cfg *arch.Config, times map[string]float64, from map[string]string, notes []string, tl *plan.Timeline) error {
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
		Notes    []string          `json:"notes,omitempty"`
	}{Arch: cfg.Arch + "/" + cfg.GPU, Kernels: map[string]kernel{}, TotalNS: tl.TotalNS, SerialNS: tl.SerialNS, Notes: notes}
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
