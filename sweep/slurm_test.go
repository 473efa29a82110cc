//go:build unix

package sweep

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The tasks to run become --array ranges relative to a base, a new job whenever an
// index would reach the cluster's MaxArraySize.
func TestArrayChunks(t *testing.T) {
	var tasks []Task
	for _, i := range []int{0, 1, 2, 4, 6, 7, 1500, 1501, 2999, 3000} {
		tasks = append(tasks, Task{Index: i})
	}
	got := arrayChunks(tasks, 1001)
	want := []arrayChunk{{0, "0-2,4,6-7"}, {1500, "0-1"}, {2999, "0-1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("arrayChunks = %v, want %v", got, want)
	}
	got = arrayChunks(tasks[:6], 3)
	want = []arrayChunk{{0, "0-2"}, {4, "0,2"}, {7, "0"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("arrayChunks with MaxArraySize 3 = %v, want %v", got, want)
	}
}

// fakeSlurm puts sbatch, squeue and scancel scripts first on PATH: each appends its
// arguments to DIR/NAME.log; sbatch prints job ids from 41 on ("ID;cluster", as
// --parsable does) and squeue prints what DIR/queue holds.
func fakeSlurm(t *testing.T) string {
	dir := t.TempDir()
	scripts := map[string]string{
		"sbatch": `n=$(wc -l < "$D/sbatch.log" 2>/dev/null || echo 0)
echo "$@" >> "$D/sbatch.log"; echo "$((41 + n));cluster"`,
		"squeue":  `echo "$@" >> "$D/squeue.log"; cat "$D/queue" 2>/dev/null; true`,
		"scancel": `echo "$@" >> "$D/scancel.log"`,
	}
	for name, body := range scripts {
		script := "#!/bin/sh\nD=" + shellQuote(dir) + "\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// stubSpec parses a SPEC of one trace, t.gtrace (not a trace: these tasks never run),
// and the rest; it returns the SPEC's folder.
func stubSpec(t *testing.T, rest string) (*Spec, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.gtrace"), []byte("any"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec("s.yaml", []byte("traces: [t.gtrace]\n"+rest), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func readLog(t *testing.T, dir, name string) []string {
	b, _ := os.ReadFile(filepath.Join(dir, name+".log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// Submit sends only the tasks not done, with the options passed through, as job arrays
// of a script that runs `gtrace sweep run-task RESULTS INDEX`; it waits until squeue no
// longer lists the jobs; cancelled while waiting it cancels them; an sbatch error names
// the jobs already submitted.
func TestSubmitToFakeSlurm(t *testing.T) {
	fake := fakeSlurm(t)
	s, dir := stubSpec(t, "archs: [fermi, hopper, ampere]\nset:\n  l1.replacement: [lru, fifo]\n")
	results := filepath.Join(dir, "res")
	m, err := s.Plan(results)
	if err != nil {
		t.Fatal(err)
	}
	// Task 3 is done already.
	done := filepath.Join(results, m.Tasks[3].Path)
	if err := os.MkdirAll(filepath.Dir(done), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(done, []byte("done"), 0o644); err != nil {
		t.Fatal(err)
	}
	gt := filepath.Join(dir, "gtrace")
	if err := os.WriteFile(gt, []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var ticks int
	sl := Slurm{Gtrace: gt, Partition: "short", Time: "0:10:00", Mem: "2G", Throttle: 2,
		Args: []string{"--account=lab"}, Poll: time.Millisecond, MaxArraySize: 1001}
	sub, err := Submit(context.Background(), s, results, Options{Progress: func(Summary) { ticks++ }}, sl)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sub.Jobs, []Job{{"41", "0-2,4-5%2"}}) || sub.Tasks != 5 ||
		sub.Summary.Total != 6 || sub.Summary.Done != 1 || sub.Summary.Pending != 5 || ticks != 1 {
		t.Fatalf("Submit = %+v, %d progress calls", sub, ticks)
	}
	abs, _ := filepath.Abs(results)
	wd, _ := os.Getwd()
	script := filepath.Join(abs, SlurmDir, slurmScript)
	want := "--parsable --job-name=gtrace-sweep --array=0-2,4-5%2 --chdir=" + wd +
		" --output=" + filepath.Join(abs, SlurmDir, "%A_%a.out") +
		" --partition=short --time=0:10:00 --mem=2G --account=lab " + script + " 0"
	if got := readLog(t, fake, "sbatch"); len(got) != 1 || got[0] != want {
		t.Errorf("sbatch got\n%q\nwant\n%q", got, want)
	}
	if got := readLog(t, fake, "squeue"); len(got) != 1 || got[0] != "--noheader --array --format=%i --jobs=41" {
		t.Errorf("squeue got %q", got)
	}
	// The script runs task base + SLURM_ARRAY_TASK_ID of this results folder.
	cmd := exec.Command("sh", script, "4")
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1")
	if out, err := cmd.Output(); err != nil || string(out) != "sweep run-task "+abs+" 5\n" {
		t.Errorf("the array script ran %q, %v", out, err)
	}

	// MaxArraySize 3: indices 0-2 in one job, 4 and 5 (base 4) in another; --no-wait
	// submits and returns.
	os.Remove(filepath.Join(fake, "sbatch.log"))
	sl.MaxArraySize, sl.Throttle, sl.NoWait = 3, 0, true
	sub, err = Submit(context.Background(), s, results, Options{}, sl)
	if err != nil || !reflect.DeepEqual(sub.Jobs, []Job{{"41", "0-2"}, {"42", "0-1"}}) {
		t.Errorf("Submit with MaxArraySize 3 = %+v, %v", sub, err)
	}
	if got := readLog(t, fake, "sbatch"); len(got) != 2 || !strings.Contains(got[1], " --array=0-1 ") || !strings.HasSuffix(got[1], script+" 4") {
		t.Errorf("second job's sbatch: %q", got)
	}
	if got := readLog(t, fake, "squeue"); len(got) != 1 {
		t.Errorf("--no-wait asked squeue: %q", got)
	}

	// Waiting, cancelled: the jobs are cancelled with scancel.
	if err := os.WriteFile(filepath.Join(fake, "queue"), []byte("41_0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(fake, "sbatch.log"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	sl.NoWait, sl.MaxArraySize = false, 1001
	_, err = Submit(ctx, s, results, Options{}, sl)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Submit cancelled while waiting: %v", err)
	}
	if got := readLog(t, fake, "scancel"); len(got) != 1 || got[0] != "41" {
		t.Errorf("scancel got %q, want the job", got)
	}
}

// An sbatch that refuses a job: the error carries sbatch's message and names the jobs
// submitted before it, which run on.
func TestSubmitRefused(t *testing.T) {
	fake := fakeSlurm(t)
	s, dir := stubSpec(t, "archs: [fermi, hopper]\n")
	results := filepath.Join(dir, "res")
	// The second sbatch fails, as a cluster's submit limit makes it.
	if err := os.WriteFile(filepath.Join(fake, "sbatch"), []byte("#!/bin/sh\nD="+shellQuote(fake)+`
if [ -e "$D/sbatch.log" ]; then echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2; exit 1; fi
echo "$@" >> "$D/sbatch.log"; echo 41
`), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Submit(context.Background(), s, results, Options{}, Slurm{Gtrace: "/bin/true", MaxArraySize: 1, NoWait: true})
	if err == nil || !strings.Contains(err.Error(), "QOSMaxSubmitJobPerUserLimit") ||
		!strings.Contains(err.Error(), "jobs 41 were submitted and run on (scancel 41 stops them)") {
		t.Errorf("sbatch refusing the second job: %v", err)
	}
}
