package layout

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const (
	module  = "github.com/gtrace/gtrace"
	docPath = "../../docs/ARCHITECTURE.md"
)

func readDocTable(t *testing.T) Table {
	t.Helper()
	f, err := os.Open(docPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	table, err := ReadTable(f)
	if err != nil {
		t.Fatalf("%s: %v", docPath, err)
	}
	return table
}

// modulePackages lists the module's packages with `go list -json`, keeping the imports
// that are not the standard library's (whose first path element has no dot), ours made
// relative to the module.
func modulePackages(t *testing.T) []Package {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	keep := func(imps ...[]string) []string {
		var r []string
		for _, imp := range slices.Concat(imps...) {
			first, _, _ := strings.Cut(imp, "/")
			if !strings.Contains(first, ".") {
				continue // the standard library, and cgo's "C"
			}
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				imp = rel
			}
			if !slices.Contains(r, imp) {
				r = append(r, imp)
			}
		}
		return r
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, Package{
			Path:        strings.TrimPrefix(p.ImportPath, module+"/"),
			Imports:     keep(p.Imports),
			TestImports: keep(p.TestImports, p.XTestImports),
		})
	}
	return pkgs
}

// TestModuleKeepsImportRules fails when a package imports against the table in
// docs/ARCHITECTURE.md, or when a package has no row there.
func TestModuleKeepsImportRules(t *testing.T) {
	table := readDocTable(t)
	pkgs := modulePackages(t)
	if !slices.ContainsFunc(pkgs, func(p Package) bool { return p.Path == "replay" }) {
		t.Fatalf("go list found no replay package among %d", len(pkgs))
	}
	for _, line := range table.Check(pkgs) {
		t.Error(line)
	}
}

// TestCheckFindsViolations shows that the check can fail: the import validate.go made
// before it moved out of replay, a third-party module nobody listed, a test fixture
// outside its row, and a package without a row.
func TestCheckFindsViolations(t *testing.T) {
	table := readDocTable(t)
	pkgs := []Package{
		{Path: "replay", Imports: []string{"format", "models/cache", "capture"}},
		{Path: "format", Imports: []string{"github.com/example/json"}},
		{Path: "models/cache", TestImports: []string{"format"}},
		{Path: "gpu/magic"},
		{Path: "models/arch", Imports: []string{"models/cache"}},                // its own folder
		{Path: "replay", TestImports: []string{"capture", "kernels", "replay"}}, // fixtures
	}
	got := table.Check(pkgs)
	want := []string{
		"replay imports capture;",
		"format imports the third-party github.com/example/json",
		"models/cache (tests) imports format;",
		"gpu/magic: no row",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("finding %d = %q, want it to start with %q", i, got[i], w)
		}
	}
}

func TestReadTableErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"no table":      "# x\n## Who may import whom\ntext only\n",
		"four columns":  "## Who may import whom\n| a | b | c | d |\n|---|---|---|---|\n",
		"short row":     "## Who may import whom\n| a | b | c | d | e |\n|---|---|---|---|---|\n| `x/` | y | z |\n",
		"two folders":   "## Who may import whom\n| a | b | c | d | e |\n|---|---|---|---|---|\n| `x/` `y/` | h | — | — | — |\n",
		"other section": "## Something else\n| a | b | c | d | e |\n|---|---|---|---|---|\n| `x/` | h | — | — | — |\n",
	} {
		if _, err := ReadTable(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
