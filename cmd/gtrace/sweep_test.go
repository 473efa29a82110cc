package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gtrace sweep captures the SPEC's reference kernels, runs every task, says where the
// sweep stands, reruns nothing that is done, and runs one task alone; a failed task
// makes the exit status 1 and is named; bad usage is exit 2.
func TestSweepCommand(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(`
traces: [junk.gtrace]
kernels:
  - {name: add_vectors, size: {n: 1024}}
archs: [fermi, hopper]
set:
  l1.replacement: [lru, fifo]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.gtrace"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "res")
	// A misspelt kernel stops the sweep before any task, and leaves nothing the
	// mended SPEC must match.
	typo := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(typo, []byte("kernels: [add_vectorz]\narchs: [fermi]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := gtrace(t, "sweep", typo, "-o", res); code != 1 || !strings.Contains(errs, "capturing kernel add_vectorz") {
		t.Errorf("sweep of a misspelt kernel: exit %d %q", code, errs)
	}
	code, out, errs := gtrace(t, "sweep", spec, "-o", res, "--workers", "2")
	if code != 1 || !strings.Contains(out, "8 tasks: 4 done, 4 failed, 0 pending") ||
		!strings.Contains(out, "failed: task 0: junk on fermi/gtx480, memory l1.replacement=lru:") ||
		!strings.Contains(errs, "of 8 tasks, 4 failed; run the same command again") {
		t.Errorf("sweep with a junk trace: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := gtrace(t, "sweep", "status", res); code != 0 || !strings.HasPrefix(out, "8 tasks: 4 done, 4 failed, 0 pending\n") {
		t.Errorf("sweep status: exit %d\n%s", code, out)
	}
	parts, _ := filepath.Glob(filepath.Join(res, "arch=hopper", "gpu=h100", "engine=memory", "l1.replacement=fifo", "trace=add_vectors.n-1024", "part-*.parquet"))
	if len(parts) != 1 {
		t.Fatalf("hive layout: %v", parts)
	}
	if err := os.Remove(parts[0]); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := gtrace(t, "sweep", "run-task", res, "7"); code != 0 || out != "" {
		t.Errorf("run-task 7: exit %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(parts[0]); err != nil {
		t.Errorf("run-task 7 did not write %s: %v", parts[0], err)
	}
	// The sweep's page: the memory engine's default metrics along l1.replacement, one
	// chart per arch; the junk trace has no result, so no bars.
	page := filepath.Join(dir, "sweep.html")
	if code, out, errs := gtrace(t, "report", "--sweep", res, "-o", page); code != 0 || out != "" {
		t.Fatalf("report --sweep: exit %d %q %q", code, out, errs)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"8 tasks: 4 done, 4 failed, 0 pending", "<h3>L2 hit rate by l1.replacement (memory engine)</h3>",
		"arch = fermi/gtx480", "arch = hopper/h100", "add_vectors.n-1024"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the sweep page lacks %q", want)
		}
	}
	if n := strings.Count(string(html), "<svg"); n != 6 || strings.Contains(string(html), ">junk<") {
		t.Errorf("the sweep page has %d charts (want 3 metrics × 2 archs) or shows the junk trace", n)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--sweep", res, "--x", "l2.ways"}, "--x l2.ways: not a key of this sweep; it has arch, l1.replacement"},
		{[]string{"report", "--sweep", res, "--metric", "sm__cycles_elapsed.avg"}, "metric sm__cycles_elapsed.avg: no result of this sweep has it"},
		{[]string{"report", "--sweep", res, "junk.gtrace"}, "give the results folder alone"},
		{[]string{"report", "--sweep", res, "--arch", "hopper"}, "--arch is for reports of traces"},
		{[]string{"report", "t.gtrace", "--x", "arch"}, "--x is for --sweep RESULTS/"},
	} {
		if code, _, errs := gtrace(t, append(bad.args, "-o", page)...); code != 2 || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: exit %d %q, want a usage error saying %q", bad.args, code, errs, bad.want)
		}
	}
	if code, _, errs := gtrace(t, "report", "--sweep", dir, "-o", page); code != 1 || !strings.Contains(errs, "not a sweep's results folder") {
		t.Errorf("report --sweep of a plain folder: exit %d %q", code, errs)
	}
	for _, args := range [][]string{
		{"sweep"},
		{"sweep", spec},
		{"sweep", "run-task", res, "x"},
		{"sweep", filepath.Join(dir, "bad.yaml"), "-o", res},
	} {
		if args[len(args)-1] == res {
			os.WriteFile(args[1], []byte("archs: [volta]\n"), 0o644)
		}
		if code, _, errs := gtrace(t, args...); code != 2 || !strings.HasPrefix(errs, "gtrace: ") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, errs)
		}
	}
	if code, _, errs := gtrace(t, "sweep", "status", dir); code != 1 || !strings.Contains(errs, "not a sweep's results folder") {
		t.Errorf("sweep status of a plain folder: exit %d %q", code, errs)
	}
}

// --runner slurm passes its options to sbatch (a fake one here; TestSweepOnSlurm uses a
// real cluster), a repeatable option keeps its commas, --no-wait returns once submitted,
// and options of the other runner are usage errors.
func TestSweepSlurmOptions(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(bin, "sbatch.log")
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte("#!/bin/sh\necho \"$@\" >> "+log+"\necho 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("kernels:\n  - {name: add_vectors, size: {n: 1024}}\narchs: [fermi, hopper]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "res")
	for _, args := range [][]string{
		{"--throttle", "2"},
		{"--no-wait"},
		{"--runner", "pbs"},
		{"--runner", "slurm", "--workers", "2"},
		{"--runner", "slurm", "--throttle", "-1"},
	} {
		if code, _, errs := gtrace(t, append([]string{"sweep", spec, "-o", res}, args...)...); code != 2 {
			t.Errorf("%v: exit %d %q, want a usage error", args, code, errs)
		}
	}
	code, out, errs := gtrace(t, "sweep", spec, "-o", res, "--runner", "slurm", "--no-wait", "--partition", "short",
		"--sbatch-arg=--export=ALL,X=1", "--sbatch-arg", "--qos=low")
	if code != 0 || out != "submitted 2 tasks; gtrace sweep status "+res+" tells where they stand\n" ||
		!strings.Contains(errs, "SLURM job 7, array 0-1; task logs in "+filepath.Join(res, "slurm")) {
		t.Fatalf("--no-wait: exit %d\n%s%s", code, out, errs)
	}
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), " --partition=short --export=ALL,X=1 --qos=low ") {
		t.Errorf("sbatch got %q", b)
	}
	if code, out, _ := gtrace(t, "sweep", "status", res); code != 0 || out != "2 tasks: 0 done, 0 failed, 2 pending\n" {
		t.Errorf("status after --no-wait: exit %d %q", code, out)
	}
}
