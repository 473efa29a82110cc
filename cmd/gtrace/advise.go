package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gtrace/gtrace/internal/progress"
	"github.com/gtrace/gtrace/replay"
	"github.com/gtrace/gtrace/report"
	"github.com/urfave/cli/v2"
)

func adviseAction(c *cli.Context) error {
	fmtName := c.String("format")
	if fmtName != "text" && fmtName != "json" {
		return usageError("--format %q: want text or json", fmtName)
	}
	cfg, r, err := archAndTrace(c)
	if err != nil {
		return err
	}
	defer r.Close()
	prog := progress.New("advise on "+cfg.GPU, "CTAs")
	adv, err := report.Advise(c.Context, r, cfg, report.AdviseOptions{NoTiming: c.Bool("no-timing"),
		Replay: replay.Options{Progress: func(_, done, total int) { prog.Update(done, total) }}})
	prog.Done()
	if err != nil {
		return err
	}
	if fmtName == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(adv)
	}
	return printAdvice(c.App.Writer, adv)
}

// printAdvice writes the findings for a person: one paragraph per rule and fix, naming
// every pc it covers (an unrolled loop fires the same rule at many), largest share first.
func printAdvice(w io.Writer, adv *report.Advice) error {
	for _, k := range adv.Kernels {
		fmt.Fprintf(w, "%s on %s (%s): ", k.Name, adv.GPU, adv.Arch)
		if len(k.Findings) == 0 {
			fmt.Fprintln(w, "no rule fires.")
			continue
		}
		fmt.Fprintf(w, "%d finding%s\n", len(k.Findings), map[bool]string{true: "s"}[len(k.Findings) > 1])
		for i, g := range report.Groups(k.Findings) {
			f := g.First
			where := "pc " + pcList(g.PCs)
			if len(g.PCs) > 1 {
				where = fmt.Sprintf("%d pcs (%s)", len(g.PCs), pcList(g.PCs))
			}
			if f.Line > 0 {
				where = fmt.Sprintf("%s:%d, %s", f.File, f.Line, where)
			}
			fmt.Fprintf(w, "\n%d. %s at %s: %.0f%% of the kernel's %s\n", i+1, f.Rule, where, 100*g.Share, f.ShareOf)
			fmt.Fprintf(w, "   ptx:    %s\n", f.PTX)
			fmt.Fprintf(w, "   saw:    %s\n", f.Saw)
			fmt.Fprintf(w, "   lesson: %s\n", f.Lesson)
			fmt.Fprintf(w, "   fix:    %s\n", f.Fix)
			for _, x := range g.Gains {
				var change string
				switch {
				case x.After == 0:
					change = "all of it"
				case x.After > x.Before:
					change = fmt.Sprintf("%.1f× more", x.After/x.Before)
				default:
					change = fmt.Sprintf("%.1f× less", x.Before/x.After)
				}
				after := ""
				if x.Into != "" {
					after = x.Into + " "
				}
				fmt.Fprintf(w, "   gain:   %s %s → %s%s (%s)\n", x.Metric, fmtValue(x.Before), after, fmtEstimate(x.After), change)
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

// pcList names pcs, the first three and the last of a long list.
func pcList(pcs []uint32) string {
	var s []string
	for _, pc := range pcs {
		s = append(s, fmt.Sprint(pc))
	}
	if n := len(s); n > 5 {
		return fmt.Sprintf("%s, … %s", strings.Join(s[:3], ", "), s[n-1])
	}
	return strings.Join(s, ", ")
}

// fmtEstimate prints a predicted count: whole, with "≈" where the prediction is not (a
// ratio measured on a sample of the trace's CTAs).
func fmtEstimate(v float64) string {
	if r := math.Round(v); r != v && math.Abs(v) >= 10 {
		return "≈" + fmtValue(r)
	}
	return fmtValue(v)
}
