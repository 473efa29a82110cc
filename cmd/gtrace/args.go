package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed lets flags follow positional arguments, as the CLI contract writes them
// (`gtrace replay FILE --arch hopper`): urfave/cli v2 stops reading flags at the first
// positional argument, so the arguments of a subcommand are reordered to put its flags
// first. A flag's value is kept with it; boolean flags take none; "--" ends the flags.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	cmd := subcommand(app, args)
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if cmd.Name == "run" { // the program and its own arguments, untouched
				positional = append(positional, rest[i:]...)
				break
			}
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue[name] && i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// subcommand is the command args[1] names, or nil.
func subcommand(app *cli.App, args []string) *cli.Command {
	if len(args) < 2 {
		return nil
	}
	return app.Command(args[1])
}
