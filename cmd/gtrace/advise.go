package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

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
	prog := newProgress("advise on "+cfg.GPU, "CTAs")
	adv, err := report.Advise(c.Context, r, cfg, replay.Options{
		Progress: func(_, done, total int) { prog.update(done, total) }})
	prog.done()
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
		type group struct {
			first        report.Finding
			pcs          []string
			share        float64
			before, afte map[string]float64
		}
		var order []string
		groups := map[string]*group{}
		for _, f := range k.Findings {
			key := f.Rule + "\x00" + f.Fix + "\x00" + f.File + fmt.Sprint(f.Line)
			g := groups[key]
			if g == nil {
				g = &group{first: f, before: map[string]float64{}, afte: map[string]float64{}}
				groups[key] = g
				order = append(order, key)
			}
			g.pcs = append(g.pcs, fmt.Sprint(f.PC))
			g.share += f.Share
			g.before[f.Metric] += f.Before
			g.afte[f.Metric] += f.After
		}
		for i, key := range order {
			g := groups[key]
			f := g.first
			where := "pc " + g.pcs[0]
			if n := len(g.pcs); n > 5 {
				where = fmt.Sprintf("%d pcs (%s, … %s)", n, strings.Join(g.pcs[:3], ", "), g.pcs[n-1])
			} else if n > 1 {
				where = fmt.Sprintf("%d pcs (%s)", n, strings.Join(g.pcs, ", "))
			}
			if f.Line > 0 {
				where = fmt.Sprintf("%s:%d, %s", f.File, f.Line, where)
			}
			fmt.Fprintf(w, "\n%d. %s at %s: %.0f%% of the kernel's %s\n", i+1, f.Rule, where, 100*g.share, f.ShareOf)
			fmt.Fprintf(w, "   ptx:    %s\n", f.PTX)
			fmt.Fprintf(w, "   saw:    %s\n", f.Saw)
			fmt.Fprintf(w, "   lesson: %s\n", f.Lesson)
			fmt.Fprintf(w, "   fix:    %s\n", f.Fix)
			for _, m := range slices.Sorted(maps.Keys(g.before)) {
				b := g.before[m]
				fmt.Fprintf(w, "   gain:   %s %s → %s (%.1f× less)\n", m, fmtValue(b), fmtValue(g.afte[m]), b/g.afte[m])
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}
