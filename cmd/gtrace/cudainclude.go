package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gtrace/gtrace/cudart"
)

// cudaIncludeAction writes the device-side headers under the user's cache directory
// (once per header version) and prints the folder, or the clang-14 flags that use it.
func cudaIncludeAction(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError("cuda-include takes no arguments")
	}
	dir, err := cudart.IncludeDir("")
	if err != nil {
		return err
	}
	if !c.Bool("flags") {
		fmt.Fprintln(c.App.Writer, dir)
		return nil
	}
	args := cudart.ClangArgs(dir)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	fmt.Fprintln(c.App.Writer, strings.Join(args, " "))
	return nil
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+./:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
