package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gtrace/gtrace/format"
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
	// Write beside the destination and rename, so a failed export never leaves a file that
	// looks whole, nor destroys an earlier one.
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := format.ExportParquet(r, tmp, format.ExportOptions{PerLane: c.Bool("per-lane")}); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s (%d bytes)\n", out, fi.Size())
	return nil
}
