package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every kind of bad SPEC is an error that names its key.
func TestParseSpecErrors(t *testing.T) {
	const ok = "traces: [a.gtrace]\narchs: [hopper]\n"
	for _, tc := range []struct{ spec, want string }{
		{"archs: [hopper]\n", "give traces (files) or kernels"},
		{"traces: [a.gtrace]\n", "archs: give at least one arch"},
		{"traces: [a.gtrace]\narchs: [volta]\n", `archs[0]: unknown arch "volta"`},
		{"traces: [a.gtrace]\narchs: [hopper/h300]\n", `archs[0]: unknown hopper GPU "h300"`},
		{"traces: [a.gtrace]\narchs: [hopper, hopper/h100]\n", "archs[1]: hopper/h100 given twice"},
		{"traces: ['']\narchs: [hopper]\n", "traces[0]: empty path"},
		{ok + "engines: [memory, cycle]\n", `engines[1]: "cycle": want memory or timing`},
		{ok + "engines: [timing, timing]\n", "engines[1]: timing given twice"},
		{ok + "colour: red\n", `unknown field "colour"`},
		{ok + "set: {l1.nonsense: [1]}\n", "set.l1.nonsense: on hopper/h100"},
		{ok + "set: {l1.replacement: [lru, random9]}\n", "set.l1.replacement: on hopper/h100"},
		{ok + "set: {l1.replacement: []}\n", "set.l1.replacement: an empty list"},
		{ok + "set: {l1.replacement: [lru, lru]}\n", `set.l1.replacement: value "lru" given twice`},
		{ok + "set: {l2.ways: [8/2]}\n", `set.l2.ways: value "8/2" cannot name a results folder`},
		{ok + "set: {l2.ways: {from: 8}}\n", "set.l2.ways: a range needs from and to"},
		{ok + "set: {l2.ways: {from: 8, to: 4, step: 1}}\n", "set.l2.ways: to (4) is below from (8)"},
		{ok + "set: {l2.ways: {from: 4, to: 8}}\n", "set.l2.ways: a range needs step or factor"},
		{ok + "set: {l2.ways: {from: 4, to: 8, step: 1, factor: 2}}\n", "set.l2.ways: a range needs step or factor"},
		{ok + "set: {l2.ways: {from: 4, to: 8, step: 0}}\n", "set.l2.ways: step 0: want above 0"},
		{ok + "set: {l2.ways: {from: 4, to: 8, factor: 1}}\n", "set.l2.ways: factor: want 2 or more"},
		{ok + "set: {l2.ways: {from: 4, to: 8, by: 2}}\n", "set.l2.ways: unknown range key by"},
		{ok + "set: {l2.ways: {from: a, to: 8, step: 2}}\n", "set.l2.ways: from: want an integer"},
		{ok + "set: {l2.ways: {from: 1, to: 1000000, step: 1}}\n", "set.l2.ways: more than 10000 values"},
		{ok + "set: {l2.ways: [[1]]}\n", "set.l2.ways: [0]: want a single value"},
		{ok + "set: {l2.ways: {from: 1, to: 2000, step: 1}, dram.banks: {from: 1, to: 1000, step: 1}}\n",
			"set: 2000000 tasks before exclusions (1 traces and kernels × 1 archs × 1 engines × 2000 l2.ways × 1000 dram.banks); a sweep holds at most 1000000: split it"},
		{ok + "exclude: [{arch: fermi, l9: 3}]\n", "exclude[0].l9: not a sweep key"},
		{ok + "exclude: [{}]\n", "exclude[0]: empty"},
		{"kernels: [{name: add_vectors, size: 3}]\narchs: [hopper]\n", "kernels[0]: size: want a mapping"},
		{"kernels: [{size: {n: 4}}]\narchs: [hopper]\n", "kernels[0]: name: missing"},
		{"kernels: [{name: k, simt: warp}]\narchs: [hopper]\n", "kernels[0]: simt: warp: want its or stack"},
		{"kernels: [{name: k, sizes: {n: 4}}]\narchs: [hopper]\n", "kernels[0]: unknown key sizes"},
		{"kernels: [[k]]\narchs: [hopper]\n", "kernels[0]: want a kernel name"},
		{"kernels: ['a/b']\narchs: [hopper]\n", `kernels[0]: "a/b" is not a reference kernel name`},
	} {
		_, err := ParseSpec("s.yaml", []byte(tc.spec), "/d")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.spec, err, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "s.yaml: ") {
			t.Errorf("%q: error %q does not name the SPEC file", tc.spec, err)
		}
	}
}

// The tasks are the cross product less the exclusions, indexed densely in a stated order
// (sources, archs, engines, then the swept keys with the last fastest), each with its own
// hive path; ranges expand as written.
func TestPlanCrossProduct(t *testing.T) {
	spec := `
traces: [x.gtrace, /abs/y.gtrace]
kernels: [{name: add_vectors, size: {n: 4096}}]
archs: [fermi, hopper/h200]
engines: [memory, timing]
set:
  l1.replacement: [lru, fifo]
  l2.ways: {from: 4, to: 16, factor: 2}
exclude:
  - {arch: fermi, engine: timing}
  - {trace: y, l2.ways: 16}
`
	s, err := ParseSpec("s.yaml", []byte(spec), "/specs")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Set[1].Values; !slices.Equal(got, []string{"4", "8", "16"}) {
		t.Errorf("l2.ways range = %v, want [4 8 16]", got)
	}
	m, err := s.Plan("/res")
	if err != nil {
		t.Fatal(err)
	}
	// 3 sources × (fermi memory + hopper memory + hopper timing) × 2 × 3, less y's
	// l2.ways=16 on those 3 arch-engines × 2 replacements.
	if want := 3*3*2*3 - 3*2; len(m.Tasks) != want {
		t.Fatalf("%d tasks, want %d", len(m.Tasks), want)
	}
	paths := map[string]bool{}
	for i, tk := range m.Tasks {
		if tk.Index != i {
			t.Errorf("task %d has index %d", i, tk.Index)
		}
		if tk.Arch.Arch == "fermi" && tk.Engine == "timing" || tk.Label == "y" && tk.Set[1].Value == "16" {
			t.Errorf("%s is excluded", &tk)
		}
		want := filepath.Join(fmt.Sprintf("arch=%s/gpu=%s/engine=%s/l1.replacement=%s/l2.ways=%s/trace=%s",
			tk.Arch.Arch, tk.Arch.GPU, tk.Engine, tk.Set[0].Value, tk.Set[1].Value, tk.Label), fmt.Sprintf("part-%04d.parquet", i))
		if tk.Path != want || paths[tk.Path] {
			t.Errorf("task %d path %q, want %q once", i, tk.Path, want)
		}
		paths[tk.Path] = true
	}
	first := m.Tasks[:3]
	for i, want := range []string{"lru/4", "lru/8", "lru/16"} {
		if got := first[i].Set[0].Value + "/" + first[i].Set[1].Value; got != want || first[i].Trace != "/specs/x.gtrace" || first[i].Arch != (Arch{"fermi", "gtx480"}) {
			t.Errorf("task %d: %s, want x on fermi with %s (the last key fastest)", i, &first[i], want)
		}
	}
	last := m.Tasks[len(m.Tasks)-1]
	if last.Trace != "/res/traces/add_vectors.n-4096.gtrace" || last.Label != "add_vectors.n-4096" || last.Arch.GPU != "h200" || last.Engine != "timing" {
		t.Errorf("last task %s (%s), want the kernel's trace in the results on hopper/h200, timing", &last, last.Trace)
	}
}

// A combination a preset refuses is named with what to do; so are two traces the results
// would give one name, and a sweep whose every task is excluded.
func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"traces: [x.gtrace]\narchs: [fermi]\nset: {l1.ways: [4, 8]}\n", "task 1: x on fermi/gtx480, memory l1.ways=8"},
		{"traces: [a/x.gtrace, b/x.gtrace]\narchs: [fermi]\n", "would both be named x"},
		{"traces: [x.gtrace]\narchs: [fermi]\nexclude: [{arch: fermi}]\n", "every combination is excluded"},
	} {
		s, err := ParseSpec("s.yaml", []byte(tc.spec), "/d")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Plan("/res"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}

// The example SPECs that docs/sweeps.md runs, in YAML and in TOML, parse to the same
// sweep and plan to the 24 tasks it shows.
func TestExampleSpec(t *testing.T) {
	var specs []*Spec
	for _, file := range []string{"sweep-l1.yaml", "sweep-l1.toml"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", file))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSpec(file, data, "../examples")
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.Plan(t.TempDir())
		if err != nil || len(m.Tasks) != 24 {
			t.Fatalf("%s: %v; %d tasks, want 24", file, err, len(m.Tasks))
		}
		specs = append(specs, s)
	}
	if !reflect.DeepEqual(specs[0], specs[1]) {
		t.Errorf("the TOML example differs from the YAML one:\n%+v\n%+v", specs[1], specs[0])
	}
}

// A TOML SPEC is read into the same checks as YAML: every key, ranges, kernels with
// sizes in the file's order, [[exclude]] tables, and the set keys in the order written
// (the last fastest). Its own errors name the key, and a syntax error its line.
func TestTOMLSpec(t *testing.T) {
	s, err := ParseSpec("s.toml", []byte(`
traces = ["a.gtrace"]
kernels = ["add_vectors", {name = "saxpy_gridstride", size = {n = 4096, blocks = 8}, simt = "stack"}]
archs = ["fermi", "hopper/h200"]
engines = ["timing"]
per_pc = true

[set]
"l2.ways" = {from = 4, to = 16, factor = 2}
"l1.replacement" = ["lru", "fifo"]

[[exclude]]
arch = "fermi"
"l2.ways" = 16
`), "/d")
	if err != nil {
		t.Fatal(err)
	}
	want := &Spec{
		Traces:  []string{"/d/a.gtrace"},
		Kernels: []Kernel{{Name: "add_vectors", SIMT: "its"}, {Name: "saxpy_gridstride", Sizes: []KV{{"n", "4096"}, {"blocks", "8"}}, SIMT: "stack"}},
		Archs:   []Arch{{"fermi", "gtx480"}, {"hopper", "h200"}},
		Engines: []string{"timing"},
		Set:     []Axis{{"l2.ways", []string{"4", "8", "16"}}, {"l1.replacement", []string{"lru", "fifo"}}},
		Exclude: []map[string]string{{"arch": "fermi", "l2.ways": "16"}},
		PerPC:   true,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("TOML SPEC parsed to\n%+v\nwant\n%+v", s, want)
	}
	const ok = "traces = [\"a.gtrace\"]\narchs = [\"hopper\"]\n"
	for _, tc := range []struct{ spec, want string }{
		{ok + "colour = \"red\"\n", "s.toml: colour: unknown key (want traces, kernels"},
		{"traces = \"a.gtrace\"\narchs = [\"hopper\"]\n", "s.toml: traces: want a list of strings"},
		{"traces = [\"a\"]\narchs = [\"hopper\", 3]\n", "s.toml: archs: [1]: want a string, got 3"},
		{ok + "kernels = \"k\"\n", "s.toml: kernels: want a list of kernels"},
		{ok + "set = 3\n", "s.toml: set: want a table"},
		{ok + "exclude = [1]\n", "s.toml: exclude[0]: want a table"},
		{ok + "exclude = 1\n", "s.toml: exclude: want a list of tables"},
		{ok + "per_pc = \"yes\"\n", "s.toml: per_pc: want true or false"},
		{ok + "[set]\n\"l1.replacement\" = []\n", "s.toml: set.l1.replacement: an empty list"},
		{ok + "[set]\n\"l2.ways\" = {from = 8}\n", "s.toml: set.l2.ways: a range needs from and to"},
		{ok + "kernels = [{name = \"k\", sizes = {n = 4}}]\n", "s.toml: kernels[0]: unknown key sizes"},
		{ok + "archs = [\"fermi\"]\n", "s.toml: toml: error: Key 'archs' has already been defined.\n\nAt line 3"},
		{ok + "set = {\n", "s.toml: toml: "},
	} {
		_, err := ParseSpec("s.toml", []byte(tc.spec), "/d")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}
