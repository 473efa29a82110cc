package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
)

// The whole flow short of a GPU: prepare the jobs, stand in for runner.cu with the
// emulator (which writes what a correct GPU run writes), verify, and tidy a fake ncu
// CSV shaped like `ncu --csv --page details --print-units base` output.

// fakeRun emulates the named jobs as runner.cu would run them: status, argN.bin and
// launches.txt. It also checks that prepare's initial buffers are byte for byte the
// ones the capture started from: one description drives both sides.
func fakeRun(t *testing.T, dir string, names []string) {
	t.Helper()
	out := filepath.Join(dir, "out")
	var launches strings.Builder
	for i, name := range names {
		j, err := readJob(filepath.Join(dir, "jobs"), name)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := j.kernel.Spec(j.sizes, j.producer)
		if err != nil {
			t.Fatal(err)
		}
		spec.SIMT = format.SIMTITS
		k, err := capture.Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		res, err := k.Capture(context.Background(), &buf, "hwcheck test")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range res.Buffers {
			init, err := os.ReadFile(filepath.Join(dir, "jobs", name, fmt.Sprintf("init%d.bin", b.Arg)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(init, b.Init) {
				t.Fatalf("%s argument %d: prepare's initial bytes differ from the capture's", name, b.Arg)
			}
			if err := write(filepath.Join(out, name, fmt.Sprintf("arg%d.bin", b.Arg)), b.Final); err != nil {
				t.Fatal(err)
			}
		}
		if err := write(filepath.Join(out, name, "status"), []byte("ok")); err != nil {
			t.Fatal(err)
		}
		l := j.launch
		fmt.Fprintf(&launches, "%d %s %s %d,%d,%d %d,%d,%d\n", i, name, j.kernel.Entry, l.Grid.X, l.Grid.Y, l.Grid.Z, l.Block.X, l.Block.Y, l.Block.Z)
	}
	if err := write(filepath.Join(out, "launches.txt"), []byte(launches.String())); err != nil {
		t.Fatal(err)
	}
}

// fakeNCU writes a details-page CSV for the launches, with ncu's chatter around it.
func fakeNCU(t *testing.T, dir string, names []string, entry func(i int, e string) string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("==PROF== Connected to process 712 (runner)\n")
	b.WriteString(`"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n")
	for i, name := range names {
		j, err := readJob(filepath.Join(dir, "jobs"), name)
		if err != nil {
			t.Fatal(err)
		}
		l := j.launch
		pre := fmt.Sprintf(`"%d","712","runner","127.0.0.1","%s","1","7","(%d, %d, %d)","(%d, %d, %d)","0","9.0","Command line profiler metrics",`,
			i, entry(i, j.kernel.Entry), l.Block.X, l.Block.Y, l.Block.Z, l.Grid.X, l.Grid.Y, l.Grid.Z)
		fmt.Fprintf(&b, "%s\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\",\"\",\"%d\"\n", pre, 32768+i)
		fmt.Fprintf(&b, "%s\"dram__bytes_read.sum\",\"byte\",\"4,196,352\"\n", pre)
		fmt.Fprintf(&b, "%s\"lts__t_sector_hit_rate.pct\",\"%%\",\"51.82\"\n", pre)
		fmt.Fprintf(&b, "%s\"dram__bytes_write.sum\",\"Kbyte\",\"2.82\"\n", pre)
		fmt.Fprintf(&b, "%s\"gpu__time_duration.sum\",\"usecond\",\"3.17\"\n", pre)
	}
	b.WriteString("==PROF== Disconnected from process 712\n")
	if err := os.WriteFile(filepath.Join(dir, "ncu.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFlowWithoutGPU(t *testing.T) {
	dir := t.TempDir()
	if err := run([]string{"prepare", dir}, io.Discard); err != nil {
		t.Fatal(err)
	}
	all, err := listJobs(filepath.Join(dir, "jobs"))
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, k := range kernels.All() {
		for _, p := range producers {
			if _, err := kernels.PTXOf(k, p); err == nil {
				want++
			}
		}
	}
	if len(all) != want {
		t.Fatalf("prepare wrote %d jobs, want one per kernel and corpus: %d", len(all), want)
	}
	// A global-memory kernel, a texture (read-only argument), a __constant__ user and
	// an nvcc job.
	names := []string{"add_vectors.clang-14", "constant_access.nvcc", "tex_row_tex.clang-14", "transpose_v2.nvcc"}
	fakeRun(t, dir, names)

	var out bytes.Buffer
	if err := run([]string{"verify", dir}, &out); err != nil {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "4 runs, 0 failed") {
		t.Fatalf("verify:\n%s", out.String())
	}

	// A wrong result must be caught, and its counters left out of the ground truth.
	bad := filepath.Join(dir, "out", "add_vectors.clang-14", "arg2.bin")
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	b[40] ^= 1
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"verify", dir}, &out); err == nil || !strings.Contains(out.String(), "FAIL add_vectors.clang-14") {
		t.Fatalf("verify accepted a flipped bit: %v\n%s", err, out.String())
	}

	fakeNCU(t, dir, names, func(_ int, e string) string { return e })
	env := filepath.Join(dir, "env.txt")
	os.WriteFile(env, []byte("gpu: NVIDIA H100 80GB HBM3\ndriver: 580.159.04\n"), 0o644)
	out.Reset()
	if err := run([]string{"tidy", "-env", env, dir}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, s := range []string{
		"# gpu: NVIDIA H100 80GB HBM3\n",
		"# launches: 3 profiled and verified",
		"# unverified (left out): add_vectors.clang-14\n",
		"kernel,producer,metric,unit,value\n",
		"constant_access,nvcc,dram__bytes_read.sum,byte,4196352\n",
		"constant_access,nvcc,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,,32769\n",
		"tex_row_tex,clang-14,lts__t_sector_hit_rate.pct,%,51.82\n",
		"tex_row_tex,clang-14,dram__bytes_write.sum,byte,2820\n",
		"tex_row_tex,clang-14,gpu__time_duration.sum,ns,3170\n",
		"transpose_v2,nvcc,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,,32771\n",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("tidy output lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "\nadd_vectors,") {
		t.Errorf("tidy kept the counters of a launch that failed verify:\n%s", got)
	}

	// A result that does not match its launch (a job skipped, IDs shifted) is an error,
	// not a silently misattributed row.
	fakeNCU(t, dir, names, func(i int, e string) string {
		if i == 2 {
			return "someOtherKernel"
		}
		return e
	})
	if err := run([]string{"tidy", dir}, io.Discard); err == nil || !strings.Contains(err.Error(), "result ID 2") {
		t.Fatalf("tidy with a mismatched launch: %v", err)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"prepare"}, {"prepare", "-sizes", "huge", "d"}, {"tidy"}, {"frob", "d"},
		{"prepare", "-sizes", "lessons", "-match", "(", "d"}, {"prepare", "-sizes", "lessons", "-match", "^nothing$", "d"}} {
		err := run(args, io.Discard)
		if _, ok := err.(usage); !ok {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// The held-out set runs the same flow under launch names (kernels.LaunchName): the job
// directories, the verify lines and the CSV's kernel column carry the sizes, and a
// launch over 48 KB of dynamic shared memory records what runner.cu must opt in to.
func TestHeldOutFlow(t *testing.T) {
	set, err := launchSet("heldout")
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != len(kernels.HeldOut()) {
		t.Fatalf("launchSet(heldout) has %d launches, kernels.HeldOut %d", len(set), len(kernels.HeldOut()))
	}
	if ls, err := launchSet("lessons"); err != nil || len(ls) != len(kernels.Lessons()) {
		t.Fatalf("launchSet(lessons) has %d launches (%v), kernels.Lessons %d", len(ls), err, len(kernels.Lessons()))
	}
	// -match keeps the launches whose name matches, in the set's order.
	ls, _ := launchSet("lessons")
	hist, err := matching(ls, "^hist_warp@")
	if err != nil || len(hist) != 5 || hist[0].name != "hist_warp@bins=1" || hist[4].name != "hist_warp@hot=90" {
		t.Errorf("matching(lessons, ^hist_warp@) = %v, %v; want the 5 hist_warp launches with sizes", hist, err)
	}
	// Three of them (the whole set writes a gigabyte of inputs).
	var some []setLaunch
	for _, sl := range set {
		switch sl.name {
		case "hist_global@bins=16", "hist_global_ret@bins=16", "shared_sweep@words=58112":
			some = append(some, sl)
		}
	}
	dir := t.TempDir()
	if err := prepare(dir, some, ""); err != nil {
		t.Fatal(err)
	}
	// -nvcc-ptx reads the nvcc corpus from a folder: a PTX file there reaches the job,
	// a file missing there is an error naming the kernel.
	fresh := t.TempDir()
	if err := os.WriteFile(filepath.Join(fresh, "histogram.ptx"), []byte("// fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepare(t.TempDir(), some[:2], fresh); err != nil {
		t.Fatalf("prepare -nvcc-ptx: %v", err)
	}
	freshDir := t.TempDir()
	if err := prepare(freshDir, some[:1], fresh); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(freshDir, "jobs", "ptx", "nvcc", "histogram.ptx")); string(b) != "// fresh\n" {
		t.Errorf("prepare -nvcc-ptx: the job's nvcc PTX is %.40q, not the folder's", b)
	}
	if err := prepare(t.TempDir(), some, fresh); err == nil || !strings.Contains(err.Error(), "shared_sweep") {
		t.Errorf("prepare -nvcc-ptx without access.ptx there: %v; want an error naming shared_sweep", err)
	}
	j, err := readJob(filepath.Join(dir, "jobs"), "shared_sweep@words=58112.nvcc")
	if err != nil {
		t.Fatal(err)
	}
	if j.sizes["words"] != 58112 || j.launch.DynShared != 232448 {
		t.Errorf("shared_sweep@words=58112: sizes %v, %d B of shared memory", j.sizes, j.launch.DynShared)
	}
	names := []string{"hist_global@bins=16.clang-14", "hist_global_ret@bins=16.nvcc"}
	fakeRun(t, dir, names)
	var out bytes.Buffer
	if err := run([]string{"verify", dir}, &out); err != nil || !strings.Contains(out.String(), "2 runs, 0 failed") {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	fakeNCU(t, dir, names, func(_ int, e string) string { return e })
	out.Reset()
	if err := tidy([]string{dir}, some, "", &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, s := range []string{
		"# launches: 2 profiled and verified",
		"# not profiled: hist_global@bins=16.nvcc hist_global_ret@bins=16.clang-14 shared_sweep@words=58112.clang-14 shared_sweep@words=58112.nvcc\n",
		"hist_global@bins=16,clang-14,dram__bytes_read.sum,byte,4196352\n",
		"hist_global_ret@bins=16,nvcc,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,,32769\n",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("tidy output lacks %q:\n%s", s, got)
		}
	}
}
