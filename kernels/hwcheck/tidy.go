package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/internal/ncucsv"
	"github.com/gtrace/gtrace/kernels"
)

// launched is one line of DIR/out/launches.txt: runner.cu writes one per successful
// cuLaunchKernel, in launch order, which is the order of ncu's result IDs.
type launched struct {
	job, entry, grid, block string
}

func readLaunches(path string) ([]launched, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ls []launched
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] != strconv.Itoa(n) {
			return nil, fmt.Errorf("%s:%d: want INDEX JOB ENTRY GX,GY,GZ BX,BY,BZ with INDEX %d", path, n+1, n)
		}
		ls = append(ls, launched{f[1], f[2], f[3], f[4]})
	}
	return ls, nil
}

// dim3 turns ncu's "(4096, 1, 1)" into runner.cu's "4096,1,1".
func dim3(s string) string {
	return strings.ReplaceAll(strings.Trim(strings.TrimSpace(s), "()"), " ", "")
}

type key struct{ job, metric string }
type val struct{ unit, value string }

// baseUnit undoes ncu's automatic scaling (Kbyte, Msector, usecond...) for a run
// where --print-units base was not honoured: counts to their base unit, times to
// nanoseconds (ncu 2025.3 spells the base unit ns). ncu's prefixes are decimal.
func baseUnit(unit string, v float64) (string, float64) {
	for _, base := range []string{"byte", "sector", "inst", "cycle", "request", "warp"} {
		if pre, ok := strings.CutSuffix(unit, base); ok && len(pre) == 1 {
			if i := strings.Index("KMGT", pre); i >= 0 {
				return base, v * math.Pow(1000, float64(i+1))
			}
		}
	}
	switch unit {
	case "second", "s":
		return "ns", v * 1e9
	case "msecond", "ms":
		return "ns", v * 1e6
	case "usecond", "us":
		return "ns", v * 1e3
	case "nsecond":
		return "ns", v
	}
	return unit, v
}

// tidy writes the ground-truth CSV: a # header (the env file's KEY: VALUE lines, what
// was verified), then kernel,producer,metric,unit,value rows in the set's order (kernel is the
// launch name).
// Each DIR is one profiled runner process: DIR/out/launches.txt, DIR/verify.txt and
// DIR/ncu.csv. Launches whose output failed verify are left out and named in the
// header: their counters describe a wrong run.
func tidy(dirs []string, set []setLaunch, envPath string, stdout io.Writer) error {
	got := map[key]val{}
	seen := map[string]bool{}
	verified := map[string]bool{}
	var bad []string
	for _, dir := range dirs {
		if err := tidyDir(dir, got, seen, verified, &bad); err != nil {
			return err
		}
	}
	var w bytes.Buffer
	fmt.Fprintln(&w, "# gtrace hardware ground truth: Nsight Compute counters of the reference kernels (docs/VALIDATION.md).")
	if envPath != "" {
		b, err := os.ReadFile(envPath)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				fmt.Fprintln(&w, "# "+line)
			}
		}
	}
	var unverified, missing []string
	var jobs []string
	for _, sl := range set {
		for _, p := range producers {
			name := jobName(sl.name, p)
			switch {
			case !seen[name]:
				if _, err := kernels.PTXOf(sl.kernel, p); err == nil {
					missing = append(missing, name)
				}
			case !verified[name]:
				unverified = append(unverified, name)
			default:
				jobs = append(jobs, name)
			}
		}
	}
	fmt.Fprintf(&w, "# launches: %d profiled and verified against the Go references\n", len(jobs))
	if len(unverified) > 0 {
		fmt.Fprintf(&w, "# unverified (left out): %s\n", strings.Join(unverified, " "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&w, "# not profiled: %s\n", strings.Join(missing, " "))
	}
	if len(bad) > 0 {
		fmt.Fprintf(&w, "# not a number (left out): %s\n", strings.Join(bad, "; "))
	}
	cw := csv.NewWriter(&w)
	cw.Write([]string{"kernel", "producer", "metric", "unit", "value"})
	for _, name := range jobs {
		var metrics []string
		for k := range got {
			if k.job == name {
				metrics = append(metrics, k.metric)
			}
		}
		slices.Sort(metrics)
		kernel, producer := splitJob(name)
		for _, m := range metrics {
			v := got[key{name, m}]
			n, _ := ncucsv.Number(v.value)
			unit, n := baseUnit(v.unit, n)
			cw.Write([]string{kernel, producer, m, unit, strconv.FormatFloat(n, 'f', -1, 64)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := stdout.Write(w.Bytes())
	return err
}

// tidyDir adds one runner process's counters to got.
func tidyDir(dir string, got map[key]val, seen, verified map[string]bool, bad *[]string) error {
	ls, err := readLaunches(filepath.Join(dir, "out", "launches.txt"))
	if err != nil {
		return err
	}
	ncuPath := filepath.Join(dir, "ncu.csv")
	rows, err := ncucsv.ReadFile(ncuPath)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "verify.txt"))
	if err != nil {
		return fmt.Errorf("run hwcheck verify %s first: %w", dir, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "ok" {
			verified[f[1]] = true
		}
	}
	for _, r := range rows {
		if r.ID < 0 || r.ID >= len(ls) {
			return fmt.Errorf("%s: result ID %d (%s) but runner launched %d kernels", ncuPath, r.ID, r.Kernel, len(ls))
		}
		l := ls[r.ID]
		if r.Kernel != l.entry || dim3(r.Grid) != l.grid || dim3(r.Block) != l.block {
			return fmt.Errorf("%s: result ID %d is %s %s×%s, but launch %d was %s (%s) %s×%s",
				ncuPath, r.ID, r.Kernel, r.Grid, r.Block, r.ID, l.job, l.entry, l.grid, l.block)
		}
		seen[l.job] = true
		if !verified[l.job] {
			continue
		}
		if _, err := ncucsv.Number(r.Value); err != nil {
			*bad = append(*bad, l.job+" "+r.Metric+"="+r.Value)
			continue
		}
		got[key{l.job, r.Metric}] = val{r.Unit, r.Value}
	}
	return nil
}
