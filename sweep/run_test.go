package sweep

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	_ "github.com/marcboeker/go-duckdb"
)

// captureKernel is the Capture a test gives Run: the reference kernel at the SPEC's
// sizes, under its SIMT model, written to path; calls counts them.
func captureKernel(t *testing.T, calls *int) func(ctx context.Context, k Kernel, path string) error {
	var mu sync.Mutex
	return func(ctx context.Context, k Kernel, path string) error {
		mu.Lock()
		*calls++
		mu.Unlock()
		ref, sz, spec, err := kernels.SpecOf(k.Name, k.SizeArgs())
		if err != nil {
			return err
		}
		if k.SIMT == "its" {
			spec.SIMT = format.SIMTITS
		}
		kern, err := capture.Load(spec)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		res, err := kern.Capture(ctx, &buf, path)
		if err != nil {
			return err
		}
		if err := ref.Verify(sz, spec, res); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	}
}

// parts reads every result file of a sweep, by path relative to the folder.
func parts(t *testing.T, results string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(results, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", path)
		}
		if strings.HasSuffix(path, ".parquet") {
			b, err := os.ReadFile(path)
			rel, _ := filepath.Rel(results, path)
			out[rel] = b
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const runSpec = `
traces: [broken.gtrace]
kernels:
  - {name: add_vectors, size: {n: 2048}}
  - {name: transpose_v1, size: {n: 64}}
archs: [fermi, hopper]
engines: [memory, timing]
set:
  l1.replacement: [lru, fifo]
exclude:
  - {arch: fermi, engine: timing}
`

// A sweep records a failed task and finishes the others; run again it retries only what
// is not done, captures nothing twice, and a task run alone (as a cluster's array task
// runs it) writes the same bytes as the local runner. Another SPEC in the same folder is
// refused.
func TestRunResumesAndRetries(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "res")
	broken := filepath.Join(dir, "broken.gtrace")
	if err := os.WriteFile(broken, []byte("not a trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec("s.yaml", []byte(runSpec), dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	var seen []Summary
	opts := Options{Workers: 3, Capture: captureKernel(t, &calls), Progress: func(s Summary) { seen = append(seen, s) }}
	sum, err := Run(context.Background(), s, results, opts)
	if err != nil {
		t.Fatal(err)
	}
	const total = 3 * 3 * 2 // sources × arch-engines × replacements
	perSource := total / 3
	if sum.Total != total || sum.Done != total-perSource || sum.Failed != perSource || sum.Pending != 0 {
		t.Fatalf("first run: %+v, want %d done and the broken trace's %d failed", sum, total-perSource, perSource)
	}
	if calls != 2 || len(seen) != total || seen[len(seen)-1].Done+seen[len(seen)-1].Failed != total {
		t.Errorf("%d captures (want 2), %d progress calls (want %d), last %+v", calls, len(seen), total, seen[len(seen)-1])
	}
	for _, f := range sum.Failures {
		if f.Task.Label != "broken" || !strings.Contains(f.Err, "task ") || !strings.Contains(f.Err, "broken") {
			t.Errorf("failure %q of %s: want the broken trace's, naming its task", f.Err, &f.Task)
		}
	}
	if st, err := Status(results); err != nil || st.Done != sum.Done || st.Failed != sum.Failed {
		t.Errorf("Status = %+v, %v; want Run's %+v", st, err, sum)
	}
	first := parts(t, results)
	if len(first) != total-perSource {
		t.Fatalf("%d result files, want %d", len(first), total-perSource)
	}
	stamp := map[string]time.Time{}
	for p := range first {
		fi, _ := os.Stat(filepath.Join(results, p))
		stamp[p] = fi.ModTime()
	}

	// Mend the broken trace: the rerun runs its tasks only.
	tr, err := os.ReadFile(filepath.Join(results, "traces", "add_vectors.n-2048.gtrace"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, tr, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	seen = nil
	sum, err = Run(context.Background(), s, results, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != total || sum.Failed != 0 || len(seen) != perSource || calls != 2 {
		t.Errorf("rerun: %+v after %d tasks and %d captures in all; want all done, %d tasks run, 2 captures", sum, len(seen), calls, perSource)
	}
	second := parts(t, results)
	for p, b := range first {
		fi, _ := os.Stat(filepath.Join(results, p))
		if !bytes.Equal(second[p], b) || !fi.ModTime().Equal(stamp[p]) {
			t.Errorf("%s was written again", p)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(results, failedDir)); len(ents) != 0 {
		t.Errorf("failed/ still holds %d records after every task succeeded", len(ents))
	}

	// One task alone writes the bytes the runner wrote.
	m, err := readManifest(results)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 7, total - 1} {
		p := m.Tasks[i].Path
		if err := os.Remove(filepath.Join(results, p)); err != nil {
			t.Fatal(err)
		}
		if err := RunTask(context.Background(), results, i); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(results, p)); !bytes.Equal(b, second[p]) {
			t.Errorf("RunTask(%d) wrote %s differently from the local runner", i, p)
		}
	}
	if err := RunTask(context.Background(), results, total); err == nil || !strings.Contains(err.Error(), "not 18") {
		t.Errorf("RunTask past the last task: %v", err)
	}

	other, err := ParseSpec("s.yaml", []byte(strings.Replace(runSpec, "[lru, fifo]", "[lru]", 1)), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), other, results, opts); err == nil || !strings.Contains(err.Error(), "holds another sweep") {
		t.Errorf("another SPEC into the same folder: %v", err)
	}
	if _, err := Status(dir); err == nil || !strings.Contains(err.Error(), "not a sweep's results folder") {
		t.Errorf("Status of a folder with no sweep: %v", err)
	}
}

// A cancelled sweep stops with its finished tasks kept and nothing half-written; run
// again, it completes.
func TestRunCancelledThenCompleted(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "res")
	s, err := ParseSpec("s.yaml", []byte(strings.Replace(runSpec, "traces: [broken.gtrace]\n", "", 1)), dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Run(ctx, s, results, Options{Workers: 2, Capture: captureKernel(t, &calls), Progress: func(s Summary) {
		if s.Done >= 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || sum.Done < 3 || sum.Pending == 0 || sum.Failed != 0 {
		t.Fatalf("cancelled: %+v, %v; want some done, some pending, none failed, context.Canceled", sum, err)
	}
	if n := len(parts(t, results)); n != sum.Done {
		t.Errorf("%d result files for %d tasks done", n, sum.Done)
	}
	sum, err = Run(context.Background(), s, results, Options{Capture: captureKernel(t, &calls)})
	if err != nil || sum.Done != sum.Total {
		t.Errorf("resumed: %+v, %v; want every task done", sum, err)
	}
}

// DuckDB reads a sweep's results as one table with the swept keys as columns: the
// question a sweep asks, "which L1 size minimises cycles per kernel", is one query
// (docs/sweeps.md).
func TestDuckDBReadsASweep(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "res")
	spec := `
kernels:
  - {name: transpose_v1, size: {n: 256}}
  - {name: add_vectors, size: {n: 65536}}
archs: [hopper]
engines: [timing]
set:
  l1.unified_size: [64KB, 128KB, 256KB]
`
	s, err := ParseSpec("s.yaml", []byte(spec), dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	if sum, err := Run(context.Background(), s, results, Options{Capture: captureKernel(t, &calls)}); err != nil || sum.Done != 6 {
		t.Fatalf("%+v, %v", sum, err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Cycles per kernel and L1 size, from the files alone.
	rows, err := db.Query(`
SELECT trace, "l1.unified_size", value
FROM read_parquet('` + results + `/**/*.parquet', hive_partitioning = true)
WHERE metric = 'sm__cycles_elapsed.avg' AND pc IS NULL
ORDER BY trace, "l1.unified_size"`)
	if err != nil {
		t.Fatal(err)
	}
	cycles := map[string]map[string]float64{}
	for rows.Next() {
		var tr, l1 string
		var v float64
		if err := rows.Scan(&tr, &l1, &v); err != nil {
			t.Fatal(err)
		}
		if cycles[tr] == nil {
			cycles[tr] = map[string]float64{}
		}
		cycles[tr][l1] = v
	}
	rows.Close()
	if len(cycles) != 2 || len(cycles["transpose_v1.n-256"]) != 3 {
		t.Fatalf("cycles by trace and L1 size: %v", cycles)
	}
	// Load and Charts (what gtrace report --sweep draws) give DuckDB's numbers.
	res, err := Load(context.Background(), results)
	if err != nil {
		t.Fatal(err)
	}
	charts, err := res.Charts("", []string{"sm__cycles_elapsed.avg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 1 || charts[0].XKey != "l1.unified_size" || len(charts[0].Series) != 2 {
		t.Fatalf("charts of the sweep: %+v", charts)
	}
	for _, sr := range charts[0].Series {
		for i, l1 := range charts[0].X {
			if sr.Y[i] != cycles[sr.Name][l1] {
				t.Errorf("%s at %s: the chart says %v cycles, DuckDB %v", sr.Name, l1, sr.Y[i], cycles[sr.Name][l1])
			}
		}
	}
	// The cookbook's query, against the same numbers picked by hand.
	q, err := os.ReadFile("../docs/sweeps.md")
	if err != nil {
		t.Fatal(err)
	}
	query := sqlBlock(t, string(q), "-- which L1 size minimises cycles per kernel")
	rows, err = db.Query(strings.ReplaceAll(query, "RESULTS", results))
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	n := 0
	for rows.Next() {
		var tr, best string
		var least float64
		if err := rows.Scan(&tr, &best, &least); err != nil {
			t.Fatal(err)
		}
		n++
		kb := func(s string) int { n, _ := strconv.Atoi(strings.TrimSuffix(s, "KB")); return n }
		for l1, v := range cycles[tr] {
			if v < least || v == least && kb(l1) < kb(best) {
				t.Errorf("%s: the query picks %s (%v cycles), but %s gives %v", tr, best, least, l1, v)
			}
		}
		if cycles[tr][best] != least {
			t.Errorf("%s: the query says %s gives %v cycles; the files say %v", tr, best, least, cycles[tr][best])
		}
	}
	if n != 2 {
		t.Errorf("the query gave %d kernels, want 2", n)
	}
	if c := cycles["transpose_v1.n-256"]; !(c["64KB"] > c["256KB"]) {
		t.Errorf("transpose V1 at 256²: %v cycles over L1 sizes; a larger L1 should be faster (its column reads reuse lines)", c)
	}
}

// sqlBlock is the SQL of the fenced block of doc that starts with the comment line first.
func sqlBlock(t *testing.T, doc, first string) string {
	t.Helper()
	i := strings.Index(doc, first)
	if i < 0 {
		t.Fatalf("docs/sweeps.md has no query %q", first)
	}
	end := strings.Index(doc[i:], "```")
	if end < 0 {
		t.Fatalf("docs/sweeps.md: the query %q has no end", first)
	}
	return doc[i : i+end]
}
