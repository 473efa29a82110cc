package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/validate"
	"github.com/urfave/cli/v2"
)

func validateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "hw", Usage: "ground-truth CSV under traces/hw/; repeat it to report several sets (the tuning set and the held-out set), each on its GPU's preset", Required: true},
		&cli.StringFlag{Name: "arch", Value: "hopper"},
		&cli.StringFlag{Name: "gpu", Usage: "preset matching the GPU, e.g. h100 or h200 (default: from the CSV's GPU name)"},
		&cli.StringFlag{Name: "producer", Value: "clang-14", Usage: "PTX corpus: clang-14, nvcc or all"},
		&cli.StringSliceFlag{Name: "kernel", Usage: "validate only this kernel (repeatable)"},
		&cli.StringFlag{Name: "skip", Usage: "leave out the launches whose name matches this regular expression (e.g. 'width=1024' for the lessons' big matmuls)"},
		&cli.StringFlag{Name: "cache", Usage: "keep captured traces in DIR and reuse them"},
		&cli.StringFlag{Name: "markdown", Usage: "also rewrite the generated part of FILE (docs/VALIDATION.md)"},
		&cli.BoolFlag{Name: "summary", Usage: "print only the per-metric summary"},
		&cli.BoolFlag{Name: "tsv", Usage: "print the per-metric summary as tab-separated lines for scripts (set, file, producer, metric, ..., pass = within/total), and nothing else"},
		&cli.IntFlag{Name: "workers", Usage: "goroutines for capture and replay (0: all cores)"},
		&cli.StringSliceFlag{Name: "set", Usage: "override a config key of the model: KEY=VALUE (what-if against the same ground truth)"},
		&cli.BoolFlag{Name: "at-preset-clock", Usage: "replay at the configuration's clocks (preset or --set), not at the SM and L2 clocks each launch was measured at"},
	}
}

func validateAction(c *cli.Context) error {
	files := c.StringSlice("hw")
	if len(files) > 1 && len(c.StringSlice("kernel")) > 0 {
		return usageError("--kernel takes one --hw file")
	}
	switch p := c.String("producer"); p {
	case "all", "clang-14", "nvcc":
	default:
		return usageError("--producer %q: want clang-14, nvcc or all", p)
	}
	skip, err := skipOf(c)
	if err != nil {
		return err
	}
	var results []validate.Report
	for _, file := range files {
		gt, v, err := validateFile(c, file, skip)
		if err != nil {
			return err
		}
		results = append(results, validate.Report{File: file, GT: gt, V: v})
	}
	w := c.App.Writer
	for i, r := range results {
		if c.Bool("tsv") {
			if err := r.V.WriteSummaryTSV(w, r.GT.Set(), r.File, i == 0); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		if !c.Bool("summary") {
			if err := r.V.WriteTable(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s set) on %s/%s (%s), replayed at %s\n", r.File, r.GT.Set(), r.V.Arch, r.V.Preset, r.V.GPU, r.V.Clock)
		if err := r.V.WriteSummary(w); err != nil {
			return err
		}
	}
	var failed []string
	for _, r := range results {
		for _, e := range r.V.Stale {
			fmt.Fprintf(c.App.ErrWriter, "validate: %s: exception %s %s %s no longer needed: the metric now passes\n", r.File, e.Kernel, e.Producer, e.Metric)
		}
		for _, f := range r.V.Failures() {
			failed = append(failed, f.Kernel+"/"+f.Producer+" "+f.Band.Name())
		}
	}
	if md := c.String("markdown"); md != "" {
		if err := rewriteGenerated(c.Context, md, func(b *strings.Builder) error {
			return validate.WriteMarkdownReports(b, results)
		}); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return cli.Exit(fmt.Sprintf("validate: %d exact-class metrics miss without an explanation: %s", len(failed), strings.Join(failed, "; ")), 1)
	}
	return nil
}

// validateFile compares one ground-truth file with the model, on the preset of the GPU
// it names (or --gpu).
func validateFile(c *cli.Context, file string, skip *regexp.Regexp) (*validate.GroundTruth, *validate.Validation, error) {
	gt, err := validate.ReadGroundTruthFile(file)
	if err != nil {
		return nil, nil, err
	}
	gpu := c.String("gpu")
	if gpu == "" {
		if gpu, err = validate.PresetGPU(c.String("arch"), gt.Get("gpu")); err != nil {
			return nil, nil, usageError("%s: %v", file, err)
		}
	}
	cfg, err := loadArch(c.String("arch"), gpu, "", c.StringSlice("set"))
	if err != nil {
		return nil, nil, err
	}
	producers := []string{c.String("producer")}
	if producers[0] == "all" {
		producers = gt.Producers()
	}
	prog := progress.New("validate "+file, "kernels")
	v, err := validate.Run(c.Context, gt, cfg, validate.Options{
		Producers: producers, Kernels: c.StringSlice("kernel"), Skip: skip, Exceptions: validate.KnownDifferences,
		CacheDir: c.String("cache"), Workers: c.Int("workers"), AtPresetClock: c.Bool("at-preset-clock"),
		Progress: func(_, _ string, i, n int) { prog.Update(i, n) },
	})
	prog.Done()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return gt, v, nil
}

// The generated part of docs/VALIDATION.md lies between these lines; the prose around
// it is written by hand and kept.
const (
	beginGenerated = "<!-- BEGIN GENERATED by `make validate`: do not edit by hand -->"
	endGenerated   = "<!-- END GENERATED -->"
)

// rewriteGenerated replaces the generated part of path (appending one if it has none).
func rewriteGenerated(ctx context.Context, path string, gen func(*strings.Builder) error) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var b strings.Builder
	if err := gen(&b); err != nil {
		return err
	}
	block := beginGenerated + "\n" + b.String() + endGenerated
	text := string(old)
	i, j := strings.Index(text, beginGenerated), strings.Index(text, endGenerated)
	switch {
	case i >= 0 && j > i:
		text = text[:i] + block + text[j+len(endGenerated):]
	case i < 0 && j < 0:
		text += "\n" + block + "\n"
	default:
		return fmt.Errorf("%s: unbalanced generated-block markers", path)
	}
	return atomicfile.WriteFile(ctx, path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

// skipOf is --skip compiled (nil when not given).
func skipOf(c *cli.Context) (*regexp.Regexp, error) {
	if !c.IsSet("skip") {
		return nil, nil
	}
	re, err := regexp.Compile(c.String("skip"))
	if err != nil {
		return nil, usageError("--skip %q: %v", c.String("skip"), err)
	}
	return re, nil
}
