package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gtrace/gtrace/format/export"
	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/urfave/cli/v2"
)

func exportAction(c *cli.Context) error {
	switch f := c.String("format"); f {
	case "parquet":
	case "accelsim":
		return cli.Exit("export --format accelsim: not implemented yet", exitNotImplemented)
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
