package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// subsetCSV writes the header and the rows of one launch of a committed ground truth.
func subsetCSV(t *testing.T, from, launch, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "kernel,") || strings.HasPrefix(line, launch+",clang-14,") {
			keep = append(keep, line)
		}
	}
	if len(keep) < 20 {
		t.Fatalf("%s: %d lines kept for %s", from, len(keep), launch)
	}
	if err := os.WriteFile(to, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// validate reports each --hw file as its set (tuning or held-out) on its own GPU's
// preset, and --tsv gives scripts one line per metric with pass = within/total.
func TestValidateReportsBothSets(t *testing.T) {
	dir := t.TempDir()
	tuning, held := filepath.Join(dir, "tuning.csv"), filepath.Join(dir, "held.csv")
	subsetCSV(t, "../../traces/hw/h200-2026-11-21.csv", "bank_linear", tuning)
	subsetCSV(t, "../../traces/hw/h100-2026-11-25-heldout.csv", "hist_global@bins=16", held)

	code, out, errs := gtrace(t, "validate", "--hw", tuning, "--hw", held, "--summary", "--at-preset-clock")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{tuning + " (tuning set) on hopper/h200", held + " (held-out set) on hopper/h100", "PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = gtrace(t, "validate", "--hw", tuning, "--hw", held, "--tsv", "--at-preset-clock")
	if code != 0 {
		t.Fatalf("--tsv: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "set\tfile\tproducer\tmetric\t") {
		t.Fatalf("--tsv header %q", lines[0])
	}
	sets := map[string]bool{}
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 13 {
			t.Fatalf("--tsv line with %d fields: %q", len(f), line)
		}
		sets[f[0]] = true
		if f[3] == "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum" && f[11] != "1/1" {
			t.Errorf("%s: global load requests pass %s, want 1/1", f[0], f[11])
		}
	}
	if !sets["tuning"] || !sets["held-out"] || len(sets) != 2 {
		t.Errorf("--tsv sets %v, want tuning and held-out", sets)
	}

	if code, _, errs := gtrace(t, "validate", "--hw", tuning, "--hw", held, "--kernel", "bank_linear"); code != 2 || !strings.Contains(errs, "--kernel takes one --hw") {
		t.Errorf("--kernel with two files: exit %d, %q; want a usage error", code, errs)
	}
	if code, _, errs := gtrace(t, "validate", "--hw", tuning, "--skip", "(bank"); code != 2 || !strings.Contains(errs, `--skip "(bank"`) {
		t.Errorf("--skip with a bad expression: exit %d, %q; want a usage error naming it", code, errs)
	}
}
