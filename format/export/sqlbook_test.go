package export

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	_ "github.com/marcboeker/go-duckdb"
)

// The synthetic trace: three kernels of 2 CTAs × 2 warps, each warp running 4 iterations
// of an 8-instruction loop with a global load (pc 0), a shared load (pc 3) and a global
// store (pc 5) of 4-byte elements.
//   - coalesced: lane l touches element tid+l: 4 sectors per request, no bank conflict;
//   - strided32: elements 32 apart (128 B): 32 sectors per request; the shared load hits
//     bank 0 at 32 different words, a 32-way conflict;
//   - divergent: as coalesced, with only lanes 0-15 active: 2 sectors per request.
const (
	ctas  = 2
	warps = 2
	iters = 4
)

var opcodes = []string{"ld.global.f32", "add.s64", "fma.rn.f32", "ld.shared.f32", "mul.f32", "st.global.f32", "setp.lt.s32", "bra"}

func program() format.Program {
	cls := []format.Class{format.ClassMem, format.ClassALU, format.ClassFP32, format.ClassMem, format.ClassFP32, format.ClassMem, format.ClassALU, format.ClassControl}
	var p format.Program
	for i, op := range opcodes {
		in := format.Inst{PC: uint32(i), Opcode: op, Class: cls[i], File: "k.cu", Line: uint32(10 + i)}
		switch i {
		case 0:
			in.Space, in.MemOp, in.Width = format.SpaceGlobal, format.MemLoad, 4
		case 3:
			in.Space, in.MemOp, in.Width = format.SpaceShared, format.MemLoad, 4
		case 5:
			in.Space, in.MemOp, in.Width = format.SpaceGlobal, format.MemStore, 4
		}
		p.Insts = append(p.Insts, in)
	}
	return p
}

type kernel struct {
	name   string
	stride uint64
	mask   uint32
}

var kernels = []kernel{{"coalesced", 1, 0xFFFFFFFF}, {"strided32", 32, 0xFFFFFFFF}, {"divergent", 1, 0x0000FFFF}}

func writeTrace(t testing.TB, path string) {
	meta := format.Meta{Producer: "sqlbook"}
	for _, k := range kernels {
		meta.Launches = append(meta.Launches, format.Launch{
			Kernel: k.name, Grid: format.Dim3{X: ctas, Y: 1, Z: 1}, Block: format.Dim3{X: 32 * warps, Y: 1, Z: 1},
			Program: program(),
		})
	}
	w, err := format.Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	const a, c = 0x10000000, 0x20000000
	grid := uint64(ctas * warps * 32)
	var lanes [32]uint64
	for ki, k := range kernels {
		for cta := 0; cta < ctas; cta++ {
			ws := make([]*format.Warp, warps)
			for wi := range ws {
				wp := &format.Warp{Kernel: ki, CTA: cta, Warp: wi}
				tid0 := uint64((cta*warps + wi) * 32)
				for it := uint64(0); it < iters; it++ {
					elem := func(base uint64) {
						for l := range lanes {
							lanes[l] = base + (tid0+uint64(l)+it*grid)*k.stride*4
						}
					}
					elem(a)
					wp.AppendMem(0, k.mask, 0, 0, &lanes)
					wp.Append(1, k.mask, 0, 0)
					wp.Append(2, k.mask, 0, 0)
					for l := range lanes {
						lanes[l] = uint64(l) * 4 * k.stride % 4096
					}
					wp.AppendMem(3, k.mask, 0, 0, &lanes)
					wp.Append(4, k.mask, 0, 0)
					elem(c)
					wp.AppendMem(5, k.mask, 0, 0, &lanes)
					wp.Append(6, k.mask, 0, 0)
					wp.Append(7, k.mask, 0, 0)
				}
				ws[wi] = wp
			}
			if err := w.WriteCTA(ki, cta, ws); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func export(t *testing.T, r *format.Reader, path string, opts Options) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Parquet(r, f, opts); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// expected holds each cookbook query's exact result, rows joined by "|".
func expected() map[string][]string {
	var div, foot []string
	for pc, op := range opcodes {
		div = append(div, fmt.Sprintf("divergent|%d|%s|16|16|0", pc, op))
	}
	for _, k := range []struct {
		name           string
		addrs, sectors int
	}{{"coalesced", 256, 32}, {"divergent", 128, 16}, {"strided32", 256, 256}} {
		for cta := 0; cta < ctas; cta++ {
			for w := 0; w < warps; w++ {
				foot = append(foot, fmt.Sprintf("%s|%d|%d|%d|%d", k.name, cta, w, k.addrs, k.sectors))
			}
		}
	}
	return map[string][]string{
		"by_class": {"mem|144", "alu|96", "fp32|96", "control|48"},
		"sectors_per_request": {
			"coalesced|0|ld.global.f32|4|16", "coalesced|5|st.global.f32|4|16",
			"divergent|0|ld.global.f32|2|16", "divergent|5|st.global.f32|2|16",
			"strided32|0|ld.global.f32|32|16", "strided32|5|st.global.f32|32|16",
		},
		"top_pcs_by_sectors": {
			"strided32|0|ld.global.f32|512", "strided32|5|st.global.f32|512",
			"coalesced|0|ld.global.f32|64", "coalesced|5|st.global.f32|64",
			"divergent|0|ld.global.f32|32", "divergent|5|st.global.f32|32",
		},
		"bank_conflicts":     {"strided32|3|16|32|32"},
		"divergent":          div,
		"per_warp_footprint": foot,
		"simd_efficiency":    {"coalesced|128|1", "divergent|128|0.5", "strided32|128|1"},
		"lanes_global":       {"coalesced|32|1024", "divergent|16|512", "strided32|32|1024"},
	}
}

var sqlBlock = regexp.MustCompile("(?s)```sql\n(.*?)```")

func TestCookbook(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "sql.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "t.gtrace")
	writeTrace(t, tracePath)
	r, err := format.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	export(t, r, filepath.Join(dir, "trace.parquet"), Options{RowGroupRows: 100})
	export(t, r, filepath.Join(dir, "lanes.parquet"), Options{PerLane: true})
	t.Chdir(dir) // the cookbook names its files relative to the working directory

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := expected()
	blocks := sqlBlock.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 6 {
		t.Fatalf("docs/sql.md has %d sql blocks, want at least 6", len(blocks))
	}
	seen := map[string]bool{}
	for _, b := range blocks {
		query := b[1]
		name, _, _ := strings.Cut(strings.TrimPrefix(query, "-- name: "), "\n")
		if !strings.HasPrefix(query, "-- name: ") {
			t.Fatalf("sql block does not start with '-- name: ': %.60q", query)
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			exp, ok := want[name]
			if !ok {
				t.Fatalf("no expected result for cookbook query %q", name)
			}
			got := run(t, db, query)
			if strings.Join(got, "\n") != strings.Join(exp, "\n") {
				t.Fatalf("query %s:\n got:\n%s\nwant:\n%s", name, strings.Join(got, "\n"), strings.Join(exp, "\n"))
			}
		})
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("expected result for %q, but docs/sql.md has no such query", name)
		}
	}
}

func run(t *testing.T, db *sql.DB, query string) []string {
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fields := make([]string, len(vals))
		for i, v := range vals {
			if f, ok := v.(float64); ok {
				fields[i] = strconv.FormatFloat(f, 'g', -1, 64)
			} else {
				fields[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(fields, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Replay statistics written by Metrics read back in DuckDB with kernel totals as null pcs.
func TestMetricsParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := []MetricRow{
		{"hopper", "h100", "k", -1, "", "dram__bytes_read.sum", 4096},
		{"hopper", "h100", "k", 3, "ld.global.f32 %f1, [%rd1];", "dram__bytes_read.sum", 4096},
		{"hopper", "h100", "k", 4, "st.global.f32 [%rd2], %f1;", "dram__bytes_read.sum", 0},
	}
	err = Metrics(f, func(emit func(MetricRow) error) error {
		for _, r := range rows {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := run(t, db, "SELECT count(*) FILTER (WHERE pc IS NULL), sum(value) FILTER (WHERE pc IS NOT NULL), max(pc) FROM '"+path+"'")
	if len(got) != 1 || got[0] != "1|4096|4" {
		t.Errorf("stats.parquet: %v, want [1|4096|4]", got)
	}
	// ReadMetrics gives back the rows written, in order.
	var back []MetricRow
	if err := ReadMetrics(context.Background(), path, func(r MetricRow) error { back = append(back, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rows) {
		t.Errorf("ReadMetrics: %v, want %v", back, rows)
	}
	stop := errors.New("stop")
	n := 0
	if err := ReadMetrics(context.Background(), path, func(MetricRow) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("ReadMetrics with a callback that stops: %v after %d rows", err, n)
	}
	// Damaged or foreign files are errors naming the file, never a panic.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	for name, b := range map[string][]byte{
		"text":      []byte("not parquet at all"),
		"truncated": data[:len(data)/2],
		"no footer": data[:len(data)-8],
	} {
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := ReadMetrics(context.Background(), bad, func(MetricRow) error { return nil })
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: ReadMetrics says %v, want an error naming the file", name, err)
		}
	}
	// A chunk length arrow's reader panicked on ("makeslice: cap out of range"): read on
	// the caller's goroutine, the panic is an error.
	if err := ReadMetrics(context.Background(), "testdata/damaged-chunk.parquet", func(MetricRow) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "testdata/damaged-chunk.parquet: not a readable Parquet file") {
		t.Errorf("a damaged column chunk: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other.parquet")
	run(t, db, "COPY (SELECT 1 AS x) TO '"+other+"' (FORMAT parquet)")
	if err := ReadMetrics(context.Background(), other, func(MetricRow) error { return nil }); err == nil || !strings.Contains(err.Error(), "not a metrics file") {
		t.Errorf("a Parquet file of other columns: %v", err)
	}
}

// failingWriter refuses every write, as a cancelled atomic file does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("refused") }

// A sink that refuses writes is an error from Metrics, not a panic in arrow's writer
// (which panics when its first write fails: a sweep cancelled mid-write did).
func TestMetricsToFailingWriter(t *testing.T) {
	err := Metrics(failingWriter{}, func(emit func(MetricRow) error) error {
		return emit(MetricRow{"hopper", "h100", "k", -1, "", "m", 1})
	})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Metrics into a refusing writer: %v", err)
	}
}
