package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format/accelsim"
	"github.com/gtrace/gtrace/format/export"
	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/urfave/cli/v2"
)

func exportAction(c *cli.Context) error {
	switch f := c.String("format"); f {
	case "parquet":
	case "accelsim":
		return exportAccelsim(c)
	default:
		return usageError("export --format %q: want parquet or accelsim", f)
	}
	r, err := openTrace(c)
	if err != nil {
		return err
	}
	defer r.Close()
	out := c.String("output")
	// Written beside the destination and renamed, so a failed export never leaves a file
	// that looks whole, nor destroys an earlier one.
	err = atomicfile.WriteFile(c.Context, out, func(w io.Writer) error {
		return export.Parquet(r, w, export.Options{PerLane: c.Bool("per-lane")})
	})
	if err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s (%d bytes)\n", out, fi.Size())
	return nil
}

// exportAccelsim writes the trace as an Accel-Sim trace directory.
func exportAccelsim(c *cli.Context) error {
	sass := strings.TrimPrefix(c.String("sass"), "sm_")
	v, err := strconv.Atoi(sass)
	if err != nil {
		return usageError("export --sass %q: want sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, ...", c.String("sass"))
	}
	r, err := openTrace(c)
	if err != nil {
		return err
	}
	defer r.Close()
	out := c.String("output")
	prog := progress.New("export "+c.Args().First(), "CTAs")
	rep, err := accelsim.Export(c.Context, r, out, accelsim.ExportOptions{SASS: v,
		Progress: func(done, total uint64) { prog.Update(int(done), int(total)) }})
	prog.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s: %d kernels, %d warp-instructions as SASS sm_%d", out, rep.Kernels, rep.WarpInsts, v)
	if rep.Texture > 0 {
		fmt.Fprintf(c.App.Writer, "; %d texture fetches as TEX, which Accel-Sim and gtrace's import read without memory", rep.Texture)
	}
	fmt.Fprintln(c.App.Writer)
	return nil
}
