package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	"github.com/urfave/cli/v2"
)

func kernelsAction(c *cli.Context) error {
	type row struct {
		Name   string         `json:"name"`
		Entry  string         `json:"entry"`
		PTX    string         `json:"ptx"`
		Topic  string         `json:"topic"`
		Grid   [3]uint32      `json:"grid"`
		Block  [3]uint32      `json:"block"`
		Shared uint32         `json:"dyn_shared"`
		Args   []string       `json:"args"`
		Consts []string       `json:"consts,omitempty"`
		Sizes  map[string]int `json:"sizes"`
		SIMT   []string       `json:"simt"`
	}
	var rows []row
	for _, k := range kernels.All() {
		sz := k.Defaults()
		if c.Bool("small") {
			var err error
			if sz, err = kernels.ParseSizes(k, k.Small); err != nil {
				return err
			}
		}
		l := k.Launch(sz)
		rows = append(rows, row{k.Name, k.Entry, k.PTXFile, k.Topic,
			[3]uint32{l.Grid.X, l.Grid.Y, l.Grid.Z}, [3]uint32{l.Block.X, l.Block.Y, l.Block.Z},
			l.DynShared, l.Args, l.Consts, sz, k.SIMT})
	}
	if c.String("format") == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"kernels": rows})
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTOPIC\tGRID\tBLOCK\tSIZES")
	for _, r := range rows {
		var sizes []string
		for _, s := range kernelByName(r.Name).Sizes {
			sizes = append(sizes, fmt.Sprintf("%s=%d", s.Name, r.Sizes[s.Name]))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d,%d,%d\t%d,%d,%d\t%s\n", r.Name, r.Topic,
			r.Grid[0], r.Grid[1], r.Grid[2], r.Block[0], r.Block[1], r.Block[2], strings.Join(sizes, " "))
	}
	return tw.Flush()
}

func kernelByName(name string) *kernels.Kernel {
	k, _ := kernels.Lookup(name)
	return k
}

func openTrace(c *cli.Context) (*format.Reader, error) {
	if c.NArg() != 1 {
		return nil, usageError("%s: give exactly one trace FILE", c.Command.Name)
	}
	return format.Open(c.Args().First())
}

func inspectAction(c *cli.Context) error {
	r, err := openTrace(c)
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := format.Summarize(r)
	if err != nil {
		return err
	}
	printSummary(c.App.Writer, c.Args().First(), s, r.Meta())
	return nil
}

func pct(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func printSummary(w io.Writer, name string, s *format.Summary, m *format.Meta) {
	integrity := "metadata checksum verified"
	if !s.Version.Checked() {
		integrity = "unchecked: written before metadata checksums, a flipped bit in its metadata can go unseen"
	}
	fmt.Fprintf(w, "%s: gtrace format v%d (%s), written by %s\n", name, s.Version, integrity, s.Producer)
	copiesAfter := map[int][]format.Transfer{} // by how many launches came before them
	for _, t := range m.Transfers {
		copiesAfter[t.After] = append(copiesAfter[t.After], t)
	}
	for i, k := range s.Kernels {
		regs := "unknown"
		if k.RegsPerThread > 0 {
			regs = fmt.Sprint(k.RegsPerThread)
		}
		fmt.Fprintf(w, "\nkernel %d: %s\n", i, k.Kernel)
		if ts := copiesAfter[i]; len(ts) > 0 {
			fmt.Fprintf(w, "  copies before it   %s\n", copySummary(ts))
		}
		if st := m.Launches[i].Stream; st != 0 {
			fmt.Fprintf(w, "  stream             %#x\n", st)
		}
		fmt.Fprintf(w, "  launch             grid (%s)  block (%s)  shared %d B  registers/thread %s  SIMT %s\n",
			k.Grid, k.Block, k.SharedBytes, regs, k.SIMT)
		switch {
		case strings.HasPrefix(k.Code, format.SASSProducer): // imported (format/accelsim)
			fmt.Fprintf(w, "  code               %s\n", k.Code)
		case k.Code != "":
			fmt.Fprintf(w, "  code               PTX, %s\n", k.Code)
		}
		fmt.Fprintf(w, "  CTAs               %d\n", k.CTAs)
		fmt.Fprintf(w, "  warps              %d\n", k.Warps)
		fmt.Fprintf(w, "  warp-instructions  %d  (SIMD efficiency %.1f%%)\n", k.WarpInsts, pct(k.ActiveLanes, 32*k.WarpInsts))
		fmt.Fprintf(w, "  by class          ")
		for _, cc := range k.ByClass {
			fmt.Fprintf(w, " %s %d (%.1f%%)", cc.Class, cc.N, pct(cc.N, k.WarpInsts))
		}
		fmt.Fprintf(w, "\n  memory by space   ")
		if len(k.MemBySpace) == 0 {
			fmt.Fprintf(w, " none")
		}
		for _, sc := range k.MemBySpace {
			fmt.Fprintf(w, " %s %d", sc.Space, sc.N)
		}
		fmt.Fprintln(w)
		if k.OOBWarn {
			printOOB(w, &k, &m.Launches[i].Program)
		}
	}
	if ts := copiesAfter[len(s.Kernels)]; len(ts) > 0 {
		fmt.Fprintf(w, "\ncopies after the last kernel: %s\n", copySummary(ts))
	}
	fmt.Fprintf(w, "\nwarps %d, warp-instructions %d\n", s.Warps, s.WarpInsts)
	if len(m.Transfers) > 0 {
		fmt.Fprintf(w, "copies %s\n", copySummary(m.Transfers))
	}
	if len(m.Syncs) > 0 {
		fmt.Fprintf(w, "stream calls %s\n", syncSummary(m.Syncs))
	}
	fmt.Fprintf(w, "bytes on disk %d  (%.3f bytes per warp-instruction)\n", s.FileBytes, s.BytesPerWarpInst)
	groups := "groups"
	if s.Groups == 1 {
		groups = "group"
	}
	fmt.Fprintf(w, "record batches %d  (%d %s of CTAs", s.Batches, s.Groups, groups)
	if s.Windowed > 0 {
		fmt.Fprintf(w, ", %d of them cut into row windows", s.Windowed)
	}
	fmt.Fprintln(w, ")")
}

// copySummary is copies by direction: count, bytes and how many were page-locked, e.g.
// "2 h2d of 8000 B (1 pinned), 1 d2h of 4000 B".
func copySummary(ts []format.Transfer) string {
	type sum struct{ n, pinned, bytes uint64 }
	var by [4]sum
	for _, t := range ts {
		s := &by[t.Kind]
		s.n++
		s.bytes += t.Bytes
		if t.Pinned {
			s.pinned++
		}
	}
	var parts []string
	for k, s := range by {
		if s.n == 0 {
			continue
		}
		p := fmt.Sprintf("%d %s of %d B", s.n, format.TransferKind(k), s.bytes)
		if s.pinned > 0 {
			p += fmt.Sprintf(" (%d pinned)", s.pinned)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// syncSummary is the calls that order streams by name, in the order of format.SyncCall,
// e.g. "4 cudaEventRecord, 3 cudaStreamSynchronize".
func syncSummary(ys []format.Sync) string {
	n := map[format.SyncCall]int{}
	for _, y := range ys {
		n[y.Call]++
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%d %s", n[c], c))
	}
	return strings.Join(parts, ", ")
}

// printOOB says that a launch was captured under --oob=warn and which of its
// warp-instructions had lanes out of bounds, by pc.
func printOOB(w io.Writer, k *format.KernelSummary, prog *format.Program) {
	var n uint64
	for _, c := range k.OOB {
		n += c.N
	}
	fmt.Fprintf(w, "  out of bounds      captured under --oob=warn: ")
	if n == 0 {
		fmt.Fprintf(w, "no access went out of bounds\n")
		return
	}
	pcs := "pcs"
	if len(k.OOB) == 1 {
		pcs = "pc"
	}
	fmt.Fprintf(w, "%d warp-instructions at %d %s had lanes outside every buffer (their reads gave zeros, their writes were dropped)\n",
		n, len(k.OOB), pcs)
	for _, c := range k.OOB {
		at := prog.SourceAt(int(c.PC))
		if at != "" {
			at = " at " + at
		}
		fmt.Fprintf(w, "                     pc %d (%s)%s: %d\n", c.PC, prog.Insts[c.PC].PTX, at, c.N)
	}
}
