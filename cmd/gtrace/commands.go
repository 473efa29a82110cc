package main

import "github.com/urfave/cli/v2"

func kernelsCommand() *cli.Command {
	return &cli.Command{
		Name:      "kernels",
		Usage:     "list the reference kernels: name, seed topic, default launch",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table | json (json carries every launch and argument spec)"},
			&cli.BoolFlag{Name: "small", Usage: "show the quick sizes the tests use instead of the defaults"},
		},
		Action: kernelsAction,
	}
}

func cudaIncludeCommand() *cli.Command {
	return &cli.Command{
		Name:  "cuda-include",
		Usage: "print a folder holding gtrace's device-side CUDA headers (cuda_runtime.h, ...) and how to compile with them",
		Description: "capture --cu compiles with these headers on its own. For a compile by hand, an IDE or a build\n" +
			"system: clang-14 $(gtrace cuda-include --flags) -O3 -S -o k.ptx k.cu",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "flags", Usage: "print clang-14's flags (one line, shell-quoted) instead of the folder"},
		},
		Action: cudaIncludeAction,
	}
}

func captureCommand() *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "run a kernel on the CPU and write its per-warp trace",
		ArgsUsage: "KERNEL | --ptx FILE.ptx|--cu FILE.cu|--exe PROGRAM --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] --arg SPEC...\n\n" +
			"   SPEC: i32:V u32:V i64:V u64:V f32:V f64:V | buf:TYPE:COUNT[:INIT] | tex2d:TYPE:W:H[:INIT]\n" +
			"         TYPE: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64   INIT: zero | iota | rand[:SEED] | hot:P[:SEED] | const:V",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "trace file to write (default KERNEL.gtrace)"},
			&cli.StringFlag{Name: "simt", Value: "its", Usage: "divergence model: stack (pre-Volta) or its (Volta+)"},
			&cli.StringFlag{Name: "ptx", Usage: "PTX file to capture"},
			&cli.StringFlag{Name: "cu", Usage: "CUDA file to compile with clang-14 or nvcc, then capture"},
			&cli.StringFlag{Name: "exe", Usage: "program or shared library built by nvcc: capture --kernel from the PTX in its fat binary"},
			&cli.StringFlag{Name: "kernel", Usage: "entry name in the PTX"},
			&cli.StringFlag{Name: "grid", Usage: "grid extent X[,Y[,Z]]"},
			&cli.StringFlag{Name: "block", Usage: "block extent X[,Y[,Z]]"},
			&cli.UintFlag{Name: "shared", Usage: "dynamic shared memory bytes per CTA"},
			&cli.StringSliceFlag{Name: "arg", Usage: "kernel argument SPEC, one per parameter, in order"},
			&cli.StringSliceFlag{Name: "const", Usage: "set a __constant__ variable: NAME=TYPE:COUNT[:INIT]"},
			&cli.StringSliceFlag{Name: "texref", Usage: "bind a texture reference to a buf argument, as cudaBindTexture does: NAME=ARG[:FORMAT][:norm] (ARG: 0 for the first --arg; FORMAT: float, float2, uchar4, ..., by default the buffer's type; norm: normalised reads)"},
			&cli.StringSliceFlag{Name: "size", Usage: "override a reference kernel's size: NAME=VALUE"},
			&cli.Uint64Flag{Name: "max-inst", Usage: "per-warp instruction budget (0: the default)"},
			&cli.StringFlag{Name: "max-cta-trace", Value: "128MiB", Usage: "bytes of trace one CTA may hold in memory before it ends; a CTA past it faults (a loop that never exits ends here)"},
			&cli.StringFlag{Name: "printf-limit", Value: "0", Usage: "bytes of printf output a launch prints; calls past it print nothing and are counted (0: no limit, as on a GPU)"},
			&cli.StringFlag{Name: "heap", Value: "8MiB", Usage: "the device heap that malloc in a kernel allocates from (cudaLimitMallocHeapSize); malloc returns NULL past it"},
			&cli.StringFlag{Name: "oob", Value: "fault", Usage: "an out-of-bounds access: fault (stop), or warn (read zeros, drop the write, report each pc once)"},
			&cli.IntFlag{Name: "workers", Usage: "CTAs emulated in parallel (0: all cores)"},
			&cli.StringFlag{Name: "regs", Value: "auto", Usage: "registers per thread, recorded for occupancy: N (1 to 255), unknown (replay assumes 32), or auto: what ptxas allocates when it is on PATH, for --ptx/--cu/--exe (a reference kernel stays unknown)"},
		},
		Action: captureAction,
	}
}

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "kernels, warps, instructions by class and space, bytes per warp-instruction",
		ArgsUsage: "FILE",
		Action:    inspectAction,
	}
}

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "push a trace through one architecture's memory hierarchy (or timing model)",
		ArgsUsage: "FILE",
		Flags: append(archFlags(),
			&cli.StringFlag{Name: "engine", Value: "memory", Usage: "memory (counts) or timing (cycles)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table | json | csv"},
			&cli.BoolFlag{Name: "per-pc", Usage: "also report per instruction"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "also write the stats as Parquet"},
		),
		Action: replayAction,
	}
}

// archFlags choose the arch a replay runs on: what loadArch reads.
func archFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "arch", Usage: "fermi | kepler | ampere | hopper, ARCH/GPU, or a GPU preset alone (or give --config)"},
		&cli.StringFlag{Name: "gpu", Usage: "GPU preset of the arch (default: the arch's default)"},
		&cli.StringSliceFlag{Name: "set", Usage: "override a config key: KEY=VALUE"},
		&cli.StringFlag{Name: "config", Usage: "load a whole custom arch from FILE"},
	}
}

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "replay traces on several architectures, side by side (one column per trace and arch)",
		ArgsUsage: "FILE [FILE...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "arch", Value: "fermi,kepler,ampere,hopper", Usage: "comma-separated archs (ARCH, ARCH/GPU or a GPU preset: gtrace archs lists them)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table | json | csv"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a config key on every arch: KEY=VALUE"},
			&cli.BoolFlag{Name: "all", Usage: "show every metric, not only the ones the lessons compare"},
		},
		Action: compareAction,
	}
}

func adviseCommand() *cli.Command {
	return &cli.Command{
		Name:      "advise",
		Usage:     "the seed lessons as rules per instruction: what was measured, the lesson, the fix, the expected gain",
		ArgsUsage: "FILE",
		Flags: append(archFlags(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text | json"},
			&cli.BoolFlag{Name: "no-timing", Usage: "skip the timing engine and the rules on its stalls (latency-bound, memory-latency-bound): faster on big traces"},
		),
		Action: adviseAction,
	}
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "one self-contained HTML page: summary per kernel and arch, charts across archs, advice",
		ArgsUsage: "FILE [FILE...] | --sweep RESULTS/\n\n" +
			"   With --sweep, a page of a sweep's results: each metric along one swept key, a bar per trace (docs/sweeps.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sweep", Category: sweepPageFlags, Usage: "draw the results folder of `gtrace sweep` instead of replaying traces"},
			&cli.StringFlag{Name: "x", Category: sweepPageFlags, Usage: "the swept key (or arch) along each chart's x (default: the key with the most values)"},
			&cli.StringSliceFlag{Name: "metric", Category: sweepPageFlags, Usage: "a metric to chart, by its ncu name (repeatable; default: cycles, L1 and L2 hit rates, DRAM bytes read)"},
			&cli.StringFlag{Name: "arch", Value: "fermi,kepler,ampere,hopper", Usage: "comma-separated archs (ARCH, ARCH/GPU or a GPU preset: gtrace archs lists them)"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a config key on every arch: KEY=VALUE"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "report.html", Usage: "the HTML file to write"},
			&cli.BoolFlag{Name: "no-timing", Usage: "skip the timing engine (no cycles, time or IPC): faster on big traces"},
			&cli.StringFlag{Name: "source-arch", Usage: "the arch whose per-line counters the source view shows (default: the last of --arch)"},
			&cli.StringFlag{Name: "source-dir", Usage: "a folder to look in for the CUDA files the traces' line tables name, when they are not at their paths"},
		},
		Action: reportAction,
	}
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a trace as Parquet (for DuckDB and Python) or Accel-Sim text",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "parquet", Usage: "parquet | accelsim"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (parquet) or folder (accelsim)", Required: true},
			&cli.StringFlag{Name: "sass", Value: "sm_80", Usage: "accelsim: the SASS generation the kernel traces claim (sm_70 ... sm_90)"},
			&cli.BoolFlag{Name: "per-lane", Usage: "parquet: one row per lane access instead of per warp-instruction"},
		},
		Action: exportAction,
	}
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "convert an Accel-Sim/NVBit trace directory into a gtrace file",
		ArgsUsage: "accelsim DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "trace file to write", Required: true},
			&cli.StringFlag{Name: "unknown-opcode", Value: "error", Usage: "a SASS opcode gtrace's table lacks: error | alu (import it as an integer instruction, and count it)"},
		},
		Action: importAction,
	}
}

func archsCommand() *cli.Command {
	return &cli.Command{
		Name:      "archs",
		Usage:     "list arch presets, or every config key of one with its value and source",
		ArgsUsage: "[ARCH[/GPU] | GPU]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "set", Usage: "show the config after KEY=VALUE overrides"},
		},
		Action: archsAction,
	}
}

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "compare a model with counters measured on a real GPU",
		ArgsUsage: " ",
		Flags:     validateFlags(),
		Action:    validateAction,
	}
}
