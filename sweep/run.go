package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/format/export"
	"github.com/gtrace/gtrace/internal/atomicfile"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/replay"
)

// Task is one replay of a sweep: a trace on one preset with one engine and one value
// per swept key. Its result is the Parquet file Path, relative to the results folder.
type Task struct {
	Index  int    `json:"index"`
	Trace  string `json:"trace"` // the trace file
	Label  string `json:"label"` // the trace's name in the results
	Arch   Arch   `json:"arch"`
	Engine string `json:"engine"`
	Set    []KV   `json:"set"`
	Path   string `json:"path"`
}

// String names a task as a person reads it.
func (t *Task) String() string {
	s := fmt.Sprintf("task %d: %s on %s, %s", t.Index, t.Label, t.Arch, t.Engine)
	for _, kv := range t.Set {
		s += " " + kv.Key + "=" + kv.Value
	}
	return s
}

// Config is the task's preset with its swept values set, checked.
func (t *Task) Config() (*arch.Config, error) {
	cfg, err := arch.Preset(t.Arch.Arch, t.Arch.GPU)
	if err != nil {
		return nil, err
	}
	for _, kv := range t.Set {
		if err := cfg.Set(kv.Key, kv.Value); err != nil {
			return nil, fmt.Errorf("%s: %v", kv.Key, err)
		}
	}
	return cfg, cfg.Validate()
}

// Manifest is what a results folder holds about its sweep (sweep.json): every task, so
// a runner that has only the folder (a SLURM array task) knows what to run.
type Manifest struct {
	PerPC bool   `json:"per_pc"`
	Tasks []Task `json:"tasks"`
}

// The files of a results folder besides the hive partitions.
const (
	manifestFile = "sweep.json"
	failedDir    = "failed"   // failed/part-NNNN.txt: the error of a task that failed
	tracesDir    = "traces"   // the reference kernels' traces
	partPrefix   = "part-"    // part-NNNN.parquet
	partSuffix   = ".parquet" //
)

// Plan expands a spec into its tasks for a results folder: traces (files, then kernels)
// × archs × engines × the swept values (the last key fastest), less the excluded
// combinations. A combination the preset refuses (Config().Validate) is an error naming
// it: exclude it or change the values.
func (s *Spec) Plan(results string) (*Manifest, error) {
	results, err := filepath.Abs(results)
	if err != nil {
		return nil, err
	}
	type source struct{ path, label string }
	var srcs []source
	for _, t := range s.Traces {
		label := strings.Map(func(r rune) rune {
			if folderSafe.MatchString(string(r)) {
				return r
			}
			return '_'
		}, strings.TrimSuffix(filepath.Base(t), ".gtrace"))
		srcs = append(srcs, source{t, label})
	}
	for _, k := range s.Kernels {
		srcs = append(srcs, source{kernelTrace(results, k), k.Label()})
	}
	for i, src := range srcs {
		for _, o := range srcs[:i] {
			if o.label == src.label {
				return nil, fmt.Errorf("%s and %s would both be named %s in the results: rename one", o.path, src.path, src.label)
			}
		}
	}
	m := &Manifest{PerPC: s.PerPC}
	combos := [][]KV{nil}
	for _, ax := range s.Set {
		var next [][]KV
		for _, c := range combos {
			for _, v := range ax.Values {
				next = append(next, append(slices.Clip(c), KV{ax.Key, v}))
			}
		}
		combos = next
	}
	for _, src := range srcs {
		for _, a := range s.Archs {
			for _, e := range s.Engines {
				for _, set := range combos {
					t := Task{Index: len(m.Tasks), Trace: src.path, Label: src.label, Arch: a, Engine: e, Set: set}
					if s.excluded(&t) {
						continue
					}
					if _, err := t.Config(); err != nil {
						return nil, fmt.Errorf("%s: %v (exclude the combination, or change its values)", &t, err)
					}
					parts := []string{"arch=" + a.Arch, "gpu=" + a.GPU, "engine=" + e}
					for _, kv := range set {
						parts = append(parts, kv.Key+"="+kv.Value)
					}
					parts = append(parts, "trace="+src.label, fmt.Sprintf("%s%04d%s", partPrefix, t.Index, partSuffix))
					t.Path = filepath.Join(parts...)
					m.Tasks = append(m.Tasks, t)
				}
			}
		}
	}
	if len(m.Tasks) == 0 {
		return nil, errors.New("every combination is excluded: the sweep has no task")
	}
	return m, nil
}

// kernelTrace is where a sweep keeps the capture of kernel k.
func kernelTrace(results string, k Kernel) string {
	return filepath.Join(results, tracesDir, k.Label()+".gtrace")
}

func (s *Spec) excluded(t *Task) bool {
	val := map[string]string{"arch": t.Arch.Arch, "gpu": t.Arch.GPU, "engine": t.Engine, "trace": t.Label}
	for _, kv := range t.Set {
		val[kv.Key] = kv.Value
	}
	return slices.ContainsFunc(s.Exclude, func(ex map[string]string) bool {
		for k, v := range ex {
			if val[k] != v {
				return false
			}
		}
		return true
	})
}

// Summary is where a sweep stands.
type Summary struct {
	Total, Done, Failed, Pending int
	Failures                     []Failure // in task order
}

// String is the summary's counts: "24 tasks: 23 done, 1 failed, 0 pending".
func (s Summary) String() string {
	return fmt.Sprintf("%d tasks: %d done, %d failed, %d pending", s.Total, s.Done, s.Failed, s.Pending)
}

// Failure is a task that failed and its error.
type Failure struct {
	Task Task
	Err  string
}

// Options steer Run.
type Options struct {
	// Workers is how many tasks run at once; 0 means GOMAXPROCS. Each replay runs on
	// one goroutine, so results do not depend on it.
	Workers int
	// Capture writes the trace of a reference kernel to path (atomically). Run calls it
	// for every kernel of the spec whose trace is not in the results folder yet.
	Capture func(ctx context.Context, k Kernel, path string) error
	// Progress, if set, is called after every task with the sweep's counts (Failures
	// is left as it was when Run started).
	Progress func(Summary)
}

// prepare readies a results folder for a runner: it captures the spec's kernels that
// have no trace there yet, writes sweep.json, and says where the sweep stands and which
// tasks are still to run (failed or pending, in task order).
func prepare(ctx context.Context, s *Spec, results string, opts Options) (*Manifest, Summary, []Task, error) {
	m, err := s.Plan(results)
	if err != nil {
		return nil, Summary{}, nil, err
	}
	data, err := manifestBytes(results, m)
	if err != nil {
		return nil, Summary{}, nil, err
	}
	// The kernels are captured before the manifest is written: a SPEC whose capture
	// fails (a kernel name misspelt) leaves no sweep.json that its mended SPEC would
	// have to match.
	for _, k := range s.Kernels {
		path := kernelTrace(results, k)
		if exists(path) {
			continue
		}
		if opts.Capture == nil {
			return nil, Summary{}, nil, fmt.Errorf("kernel %s: no capture given to make its trace", k.Label())
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return nil, Summary{}, nil, err
		}
		if err := opts.Capture(ctx, k, path); err != nil {
			return nil, Summary{}, nil, fmt.Errorf("capturing kernel %s: %w", k.Label(), err)
		}
	}
	if err := writeManifest(results, data); err != nil {
		return nil, Summary{}, nil, err
	}
	sum, todo := status(results, m)
	return m, sum, todo, nil
}

// Run runs every task of the spec whose result is not in results yet, and returns where
// the sweep stands. A failed task is recorded (failed/part-NNNN.txt) and does not stop
// the others; run again, it is retried. A results folder keeps the tasks of the sweep
// that made it: a different spec there is an error. Run returns an error only when it
// cannot go on (the folder, a capture, a cancelled ctx).
func Run(ctx context.Context, s *Spec, results string, opts Options) (Summary, error) {
	m, sum, pending, err := prepare(ctx, s, results, opts)
	if err != nil {
		return Summary{}, err
	}
	failedBefore := map[int]bool{}
	for _, f := range sum.Failures {
		failedBefore[f.Task.Index] = true
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range min(workers, len(pending)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				if next == len(pending) {
					mu.Unlock()
					return
				}
				t := pending[next]
				next++
				mu.Unlock()
				err := runTask(ctx, results, m.PerPC, &t) // recorded in failed/
				if ctx.Err() != nil {
					return // cancelled: the task is pending, not failed
				}
				mu.Lock()
				if failedBefore[t.Index] {
					sum.Failed--
				} else {
					sum.Pending--
				}
				if err == nil {
					sum.Done++
				} else {
					sum.Failed++
				}
				if opts.Progress != nil {
					opts.Progress(sum)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sum, _ = status(results, m)
	return sum, ctx.Err()
}

// RunTask runs task index of the sweep in results, as Run would: one array task of a
// cluster job. Its error is also recorded in failed/.
func RunTask(ctx context.Context, results string, index int) error {
	m, err := readManifest(results)
	if err != nil {
		return err
	}
	if index < 0 || index >= len(m.Tasks) {
		return fmt.Errorf("%s has tasks 0 to %d, not %d", results, len(m.Tasks)-1, index)
	}
	return runTask(ctx, results, m.PerPC, &m.Tasks[index])
}

// Status reads where the sweep in results stands.
func Status(results string) (Summary, error) {
	m, err := readManifest(results)
	if err != nil {
		return Summary{}, err
	}
	sum, _ := status(results, m)
	return sum, nil
}

// status reads where the sweep stands, and which tasks are not done (failed or pending).
func status(results string, m *Manifest) (s Summary, todo []Task) {
	s.Total = len(m.Tasks)
	for _, t := range m.Tasks {
		if exists(filepath.Join(results, t.Path)) {
			s.Done++
			continue
		}
		todo = append(todo, t)
		if msg, err := os.ReadFile(failedPath(results, t.Index)); err == nil {
			s.Failed++
			s.Failures = append(s.Failures, Failure{t, strings.TrimSpace(string(msg))})
			continue
		}
		s.Pending++
	}
	return s, todo
}

func failedPath(results string, index int) string {
	return filepath.Join(results, failedDir, fmt.Sprintf("%s%04d.txt", partPrefix, index))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runTask replays one task and writes its Parquet file atomically; on an error it
// writes the error to failed/ instead, and on success removes an earlier failure.
func runTask(ctx context.Context, results string, perPC bool, t *Task) error {
	err := replayTask(ctx, results, perPC, t)
	fail := failedPath(results, t.Index)
	if err == nil {
		if err := os.Remove(fail); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if merr := os.MkdirAll(filepath.Dir(fail), 0o777); merr != nil {
		return errors.Join(err, merr)
	}
	msg := t.String() + ": " + err.Error() + "\n"
	if werr := atomicfile.WriteFile(context.Background(), fail, func(w io.Writer) error {
		_, err := io.WriteString(w, msg)
		return err
	}); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

func replayTask(ctx context.Context, results string, perPC bool, t *Task) error {
	cfg, err := t.Config()
	if err != nil {
		return err
	}
	r, err := format.Open(t.Trace)
	if err != nil {
		return err
	}
	defer r.Close()
	engine := replay.Memory
	if t.Engine == "timing" {
		engine = replay.Timing
	}
	rep, err := engine(ctx, r, cfg, replay.Options{Workers: 1, PerPC: perPC})
	if err != nil {
		return err
	}
	path := filepath.Join(results, t.Path)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(ctx, path, func(w io.Writer) error { return WriteReport(w, rep) })
}

// WriteReport writes a replay's metrics as Parquet (export.Metrics's columns): a sweep
// task's result, and `gtrace replay -o`'s file.
func WriteReport(w io.Writer, rep *replay.Report) error {
	return export.Metrics(w, func(emit func(export.MetricRow) error) error {
		return rep.Rows(func(k *replay.KernelReport, pc int, ptx string, m replay.Metric) error {
			return emit(export.MetricRow{Arch: rep.Arch, GPU: rep.GPU, Kernel: k.Name, PC: pc, PTX: ptx, Metric: m.Name, Value: m.Value})
		})
	})
}

// manifestBytes is m as results/sweep.json holds it, after checking that the one there,
// if any, is the same sweep: resuming into a folder of another sweep would mix their
// results.
func manifestBytes(results string, m *Manifest) ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	old, err := os.ReadFile(filepath.Join(results, manifestFile))
	switch {
	case err == nil && !bytes.Equal(old, data):
		return nil, fmt.Errorf("%s holds another sweep (its %s differs from this SPEC's tasks): give a new results folder, or remove it", results, manifestFile)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return data, nil
}

// writeManifest writes results/sweep.json (data from manifestBytes) unless it is there.
func writeManifest(results string, data []byte) error {
	path := filepath.Join(results, manifestFile)
	if exists(path) {
		return nil
	}
	if err := os.MkdirAll(results, 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(context.Background(), path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func readManifest(results string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(results, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a sweep's results folder (no %s)", results, manifestFile)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(results, manifestFile), err)
	}
	return &m, nil
}
