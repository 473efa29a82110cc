package main

import (
	"fmt"
	"os"

	"github.com/gtrace/gtrace/format/accelsim"
	"github.com/gtrace/gtrace/internal/progress"
	"github.com/urfave/cli/v2"
)

// importAction converts an Accel-Sim trace directory (kernelslist.g and its
// kernel-N.traceg[.xz] files) into one gtrace trace.
func importAction(c *cli.Context) error {
	if c.NArg() != 2 || c.Args().Get(0) != "accelsim" {
		return usageError("import: want `gtrace import accelsim DIR -o FILE`")
	}
	opt := accelsim.Options{Producer: "gtrace " + version}
	switch u := c.String("unknown-opcode"); u {
	case "error":
	case "alu":
		opt.UnknownAsALU = true
	default:
		return usageError("import --unknown-opcode %q: want error or alu", u)
	}
	dir := c.Args().Get(1)
	if fi, err := os.Stat(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return usageError("import accelsim %s: not a directory (give the folder that holds %s)", dir, accelsim.ListFile)
	}
	prog := progress.New("import "+dir, "warp-instructions")
	opt.Progress = func(done, total uint64) { prog.Update(int(done), int(total)) }
	rep, err := accelsim.Import(c.Context, dir, c.String("output"), opt)
	prog.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s: %s\n", c.String("output"), rep.Summary())
	return nil
}
