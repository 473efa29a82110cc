// Command hwcheck runs the reference kernels on a real GPU from the same descriptions
// that `gtrace capture` emulates, checks the GPU's output against the Go references,
// and turns Nsight Compute's counters for those launches into gtrace's ground-truth
// CSV (traces/hw/, read by validate.ReadGroundTruth).
//
//	hwcheck prepare [-sizes S] [-match RE] DIR  # jobs for both PTX corpora
//	nvcc -O2 -o runner kernels/hwcheck/runner.cu -lcuda
//	./runner DIR/jobs DIR/out                     # on the GPU machine, maybe under ncu
//	hwcheck verify DIR                            # Check every result
//	hwcheck tidy -env ENV.txt DIR... > GPU-DATE.csv         # DIR/ncu.csv: ncu's counters
//
// scripts/hw/collect.sh does all of it on a GPU machine. The tool is pure Go with no
// cgo, so a static build made elsewhere runs there.
//
// One description drives both sides: the launch (grid, block, dynamic shared memory,
// argument specs, __constant__ initialisers) is kernels.Kernel.Launch, and every
// initial buffer is capture.ParseArg(spec).InitBytes(), the bytes a capture starts
// from. The GPU therefore computes on exactly the data the emulator sees.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/kernels"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hwcheck:", err)
		var u usage
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usage string

func (u usage) Error() string { return string(u) }

const usageText = "usage: hwcheck prepare [-sizes small|default|heldout|lessons] [-match REGEXP] [-nvcc-ptx DIR] DIR | verify DIR | tidy [-sizes S] [-match REGEXP] [-env FILE] DIR..."

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usage(usageText)
	}
	fs := flag.NewFlagSet("hwcheck "+args[0], flag.ContinueOnError)
	sizes := fs.String("sizes", "small", "prepare, tidy: small (the tests' quick sizes), default (what `gtrace capture KERNEL` runs), heldout (kernels.HeldOut, the held-out validation set) or lessons (kernels.Lessons, issue 15's seed lessons)")
	env := fs.String("env", "", "tidy: KEY: VALUE lines to copy into the CSV's # header")
	match := fs.String("match", "", "prepare, tidy: keep only the set's launches whose name matches this regular expression")
	nvccPTX := fs.String("nvcc-ptx", "", "prepare: read the nvcc corpus from this folder (gen.sh nvcc's output, compiled where the GPU is) instead of the one built in")
	if err := fs.Parse(args[1:]); err != nil {
		return usage(err.Error())
	}
	if fs.NArg() != 1 && (args[0] != "tidy" || fs.NArg() == 0) {
		return usage(usageText)
	}
	dir := fs.Arg(0)
	set, err := launchSet(*sizes)
	if err != nil {
		return err
	}
	if set, err = matching(set, *match); err != nil {
		return err
	}
	switch args[0] {
	case "prepare":
		return prepare(dir, set, *nvccPTX)
	case "verify":
		return verify(dir, stdout)
	case "tidy":
		return tidy(fs.Args(), set, *env, stdout)
	}
	return usage(usageText)
}

var producers = []kernels.Producer{kernels.Clang14, kernels.NVCC}

// jobName names the job directory of one launch from one corpus: LAUNCH.PRODUCER (a
// launch name holds no dot).
func jobName(launch string, p kernels.Producer) string { return launch + "." + string(p) }

// splitJob undoes jobName.
func splitJob(name string) (launch, producer string) {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return name, ""
	}
	return name[:i], name[i+1:]
}

// setLaunch is one launch of a set: its name (kernels.LaunchName for the held-out set,
// the kernel's name for the others), kernel and sizes.
type setLaunch struct {
	name   string
	kernel *kernels.Kernel
	sizes  map[string]int
}

// launchSet lists the launches of a -sizes set: every kernel at its small or default
// sizes, or the held-out set.
func launchSet(which string) ([]setLaunch, error) {
	var out []setLaunch
	switch which {
	case "small", "default":
		for _, k := range kernels.All() {
			sz := k.Defaults()
			if which == "small" {
				var err error
				if sz, err = kernels.ParseSizes(k, k.Small); err != nil {
					return nil, err
				}
			}
			out = append(out, setLaunch{k.Name, k, sz})
		}
	case "heldout", "lessons":
		names := kernels.HeldOut()
		if which == "lessons" {
			names = kernels.Lessons()
		}
		for _, name := range names {
			k, sz, err := kernels.ParseLaunch(name)
			if err != nil {
				return nil, err
			}
			out = append(out, setLaunch{name, k, sz})
		}
	default:
		return nil, usage("-sizes " + which + ": want small, default, heldout or lessons")
	}
	return out, nil
}

// matching keeps the launches of set whose name matches the regular expression expr
// (all of them when expr is empty); a set left empty is an error.
func matching(set []setLaunch, expr string) ([]setLaunch, error) {
	if expr == "" {
		return set, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, usage(fmt.Sprintf("-match %q: %v", expr, err))
	}
	var out []setLaunch
	for _, l := range set {
		if re.MatchString(l.name) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, usage(fmt.Sprintf("-match %q: no launch of the set matches", expr))
	}
	return out, nil
}

// job is what prepare records about one launch and what verify and tidy read back.
type job struct {
	name     string
	kernel   *kernels.Kernel
	producer kernels.Producer
	sizes    map[string]int
	launch   kernels.Launch
}

// ptxOf is k's PTX from producer p: the built-in corpus, or for nvcc the folder
// nvccDir when it is set (-nvcc-ptx), where every file must be.
func ptxOf(k *kernels.Kernel, p kernels.Producer, nvccDir string) ([]byte, error) {
	if p != kernels.NVCC || nvccDir == "" {
		return kernels.PTXOf(k, p)
	}
	b, err := os.ReadFile(filepath.Join(nvccDir, k.PTXFile))
	if err != nil {
		return nil, fmt.Errorf("-nvcc-ptx: %s: %w", k.Name, err)
	}
	return b, nil
}

// prepare writes DIR/jobs/<kernel>.<producer>/job.txt with its initial buffers, and the
// PTX each job loads, in the format runner.cu documents. Lines the runner does not know
// (kernel, producer, size) are for verify and tidy.
func prepare(dir string, set []setLaunch, nvccDir string) error {
	jobs := filepath.Join(dir, "jobs")
	if err := os.RemoveAll(jobs); err != nil {
		return err
	}
	for _, sl := range set {
		k, sz := sl.kernel, sl.sizes
		l := k.Launch(sz)
		for _, p := range producers {
			ptx, err := ptxOf(k, p, nvccDir)
			if errors.Is(err, kernels.ErrNoCorpus) {
				continue
			}
			if err != nil {
				return err
			}
			ptxPath := filepath.Join("ptx", string(p), k.PTXFile)
			if err := write(filepath.Join(jobs, ptxPath), ptx); err != nil {
				return err
			}
			jd := filepath.Join(jobs, jobName(sl.name, p))
			var b strings.Builder
			fmt.Fprintf(&b, "kernel %s\nproducer %s\n", k.Name, p)
			for _, s := range k.Sizes {
				fmt.Fprintf(&b, "size %s %d\n", s.Name, sz[s.Name])
			}
			fmt.Fprintf(&b, "ptx %s\nentry %s\n", ptxPath, k.Entry)
			fmt.Fprintf(&b, "grid %d %d %d\nblock %d %d %d\nshared %d\n", l.Grid.X, l.Grid.Y, l.Grid.Z, l.Block.X, l.Block.Y, l.Block.Z, l.DynShared)
			for i, spec := range l.Args {
				a, err := capture.ParseArg(spec)
				if err != nil {
					return fmt.Errorf("%s argument %d: %w", k.Name, i, err)
				}
				file := fmt.Sprintf("init%d.bin", i)
				switch a.Kind {
				case capture.ArgBuf:
					fmt.Fprintf(&b, "arg buf %s\n", file)
				case capture.ArgTex2D:
					if a.Type != "f32" {
						return fmt.Errorf("%s argument %d %q: runner.cu makes f32 textures only", k.Name, i, spec)
					}
					fmt.Fprintf(&b, "arg tex2d %d %d %s\n", a.W, a.H, file)
				default:
					fmt.Fprintf(&b, "arg scalar %x\n", a.InitBytes())
					continue
				}
				if err := write(filepath.Join(jd, file), a.InitBytes()); err != nil {
					return err
				}
			}
			for i, c := range l.Consts {
				name, spec, _ := strings.Cut(c, "=")
				a, err := capture.ParseArg("buf:" + spec)
				if err != nil {
					return fmt.Errorf("%s const %q: %w", k.Name, c, err)
				}
				file := fmt.Sprintf("const%d.bin", i)
				fmt.Fprintf(&b, "const %s %s\n", name, file)
				if err := write(filepath.Join(jd, file), a.InitBytes()); err != nil {
					return err
				}
			}
			if err := write(filepath.Join(jd, "job.txt"), []byte(b.String())); err != nil {
				return err
			}
		}
	}
	return nil
}

// readJob reads back the kernel, producer and sizes prepare recorded for job name.
func readJob(jobs, name string) (job, error) {
	b, err := os.ReadFile(filepath.Join(jobs, name, "job.txt"))
	if err != nil {
		return job{}, err
	}
	j := job{name: name}
	var kv []string
	for n, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "kernel", "producer":
			if len(f) != 2 {
				return j, fmt.Errorf("%s/job.txt:%d: want %s NAME", name, n+1, f[0])
			}
			if f[0] == "producer" {
				j.producer = kernels.Producer(f[1])
			} else if j.kernel, err = kernels.Lookup(f[1]); err != nil {
				return j, fmt.Errorf("%s/job.txt:%d: %w", name, n+1, err)
			}
		case "size":
			if len(f) != 3 {
				return j, fmt.Errorf("%s/job.txt:%d: want size NAME VALUE", name, n+1)
			}
			kv = append(kv, f[1]+"="+f[2])
		}
	}
	if j.kernel == nil || j.producer == "" {
		return j, fmt.Errorf("%s/job.txt: no kernel or producer line (made by an older hwcheck?)", name)
	}
	if j.sizes, err = kernels.ParseSizes(j.kernel, kv); err != nil {
		return j, fmt.Errorf("%s/job.txt: %w", name, err)
	}
	j.launch = j.kernel.Launch(j.sizes)
	return j, nil
}

// listJobs returns the job directories under jobs, sorted (the order runner.cu runs them).
func listJobs(jobs string) ([]string, error) {
	ents, err := os.ReadDir(jobs)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(jobs, e.Name(), "job.txt")); err == nil {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// verify checks every job the runner ran against its Go reference, prints one line per
// job, and writes the same lines to DIR/verify.txt for tidy.
func verify(dir string, stdout io.Writer) error {
	jobs, out := filepath.Join(dir, "jobs"), filepath.Join(dir, "out")
	names, err := listJobs(jobs)
	if err != nil {
		return err
	}
	var log strings.Builder
	failed, ran := 0, 0
	for _, name := range names {
		j, err := readJob(jobs, name)
		if err != nil {
			return err
		}
		status, err := os.ReadFile(filepath.Join(out, name, "status"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		ran++
		line := "ok   " + name
		if msg := check(j, jobs, out, string(status)); msg != "" {
			line = "FAIL " + name + " " + msg
			failed++
		}
		fmt.Fprintln(stdout, line)
		log.WriteString(line + "\n")
	}
	fmt.Fprintf(stdout, "%d runs, %d failed\n", ran, failed)
	if err := os.WriteFile(filepath.Join(dir, "verify.txt"), []byte(log.String()), 0o644); err != nil {
		return err
	}
	if ran == 0 {
		return fmt.Errorf("no results under %s", out)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs disagree with their Go reference", failed, ran)
	}
	return nil
}

// check returns "" when job j's output matches its reference, else why not.
func check(j job, jobs, out, status string) string {
	if status != "ok" {
		return "launch: " + strings.ReplaceAll(status, "\n", " ")
	}
	init := make([][]byte, len(j.launch.Args))
	final := make([][]byte, len(j.launch.Args))
	for i, spec := range j.launch.Args {
		a, err := capture.ParseArg(spec)
		if err != nil {
			return err.Error()
		}
		if a.Kind == capture.ArgScalar {
			continue
		}
		init[i] = a.InitBytes()
		if a.Kind == capture.ArgBuf {
			if final[i], err = os.ReadFile(filepath.Join(out, j.name, fmt.Sprintf("arg%d.bin", i))); err != nil {
				return err.Error()
			}
		}
	}
	if err := j.kernel.Check(j.sizes, init, final); err != nil {
		return err.Error()
	}
	return ""
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
