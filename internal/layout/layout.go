// Package layout holds the import rules of docs/ARCHITECTURE.md as data and checks a
// module's packages against them, so that the rule "replay imports only format and
// models" holds from now on instead of by good intentions. Its test runs `go list` over
// the module; the table it reads is the one a reader sees in the document.
package layout

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Rule is one row of the import table: the folder it governs and what the packages in
// it may import. Imports and TestImports hold patterns: "format" is that package only,
// "models/..." is models and everything under it. A package may always import another
// package of its own row.
type Rule struct {
	Path        string   // the folder, without the trailing slash: "replay", "models"
	Imports     []string // our packages the package itself may import; "all" for any
	ThirdParty  []string // module path prefixes outside the standard library
	TestImports []string // what its tests may import besides: fixtures such as capture
}

// Table is the import table of docs/ARCHITECTURE.md.
type Table []Rule

// tableHeading starts the section whose first Markdown table is the import table.
const tableHeading = "## Who may import whom"

// ReadTable reads the first Markdown table after tableHeading. Its columns are: the
// folder, what it holds, our imports, third-party modules, and what tests may also
// import; a cell lists backquoted items, or "—" for none.
func ReadTable(r io.Reader) (Table, error) {
	sc := bufio.NewScanner(r)
	var t Table
	inSection, inTable := false, false
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(s, "## "):
			if inTable {
				return t, nil
			}
			inSection = s == tableHeading
			continue
		case !inSection:
			continue
		case !strings.HasPrefix(s, "|"):
			if inTable {
				return t, nil
			}
			continue
		}
		cells := strings.Split(strings.Trim(s, "|"), "|")
		if !inTable {
			inTable = true // the header row
			if len(cells) != 5 {
				return nil, fmt.Errorf("line %d: the import table has %d columns, want 5 (folder, holds, imports, third-party, tests also import)", line, len(cells))
			}
			continue
		}
		if strings.Trim(s, "|- ") == "" {
			continue // the separator row
		}
		if len(cells) != 5 {
			return nil, fmt.Errorf("line %d: %d cells, want 5", line, len(cells))
		}
		path := items(cells[0])
		if len(path) != 1 {
			return nil, fmt.Errorf("line %d: the first cell names %d folders, want one in backquotes", line, len(path))
		}
		t = append(t, Rule{
			Path:        strings.TrimSuffix(path[0], "/"),
			Imports:     items(cells[2]),
			ThirdParty:  items(cells[3]),
			TestImports: items(cells[4]),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("no table under %q", tableHeading)
	}
	return t, nil
}

// items returns the backquoted words of a table cell.
func items(cell string) []string {
	var out []string
	for i, part := range strings.Split(cell, "`") {
		if i%2 == 1 && part != "" {
			out = append(out, part)
		}
	}
	return out
}

// Package is what the check needs to know of one package, as `go list -json` prints it
// (paths relative to the module; standard-library imports left out).
type Package struct {
	Path        string   // "replay", "models/cache"
	Imports     []string // ours relative to the module, others in full
	TestImports []string // of its _test.go files, both packages
}

// rule returns the row governing a package: the longest folder that holds it.
func (t Table) rule(pkg string) (Rule, bool) {
	best, found := Rule{}, false
	for _, r := range t {
		if within(r.Path, pkg) && len(r.Path) >= len(best.Path) {
			best, found = r, true
		}
	}
	return best, found
}

// matches reports whether pattern admits our package pkg.
func matches(pattern, pkg string) bool {
	if pattern == "all" || pattern == pkg {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return within(base, pkg)
	}
	return false
}

// within reports whether path is dir or lies under it.
func within(dir, path string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// ours reports whether an import path (ours relative to the module, as Package holds
// them) is the module's: its first element, unlike a module host's, has no dot.
func ours(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// Check returns one line per import against the table, and per package the table does
// not govern; none means the module keeps the rules.
func (t Table) Check(pkgs []Package) []string {
	var bad []string
	for _, p := range pkgs {
		r, ok := t.rule(p.Path)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: no row of the import table governs it; add one to docs/ARCHITECTURE.md", p.Path))
			continue
		}
		check := func(imps []string, test bool) {
			for _, imp := range imps {
				if imp == p.Path {
					continue // an external test package imports the package it tests
				}
				// Ours match a pattern; a third-party import lies under a listed module.
				admits := func(item string) bool { return matches(item, imp) }
				if !ours(imp) {
					admits = func(mod string) bool { return within(mod, imp) }
				}
				allowed := slices.ContainsFunc(r.Imports, admits) || slices.ContainsFunc(r.ThirdParty, admits) ||
					test && slices.ContainsFunc(r.TestImports, admits)
				switch {
				case allowed:
				case ours(imp):
					if own, _ := t.rule(imp); own.Path != r.Path {
						bad = append(bad, fmt.Sprintf("%s%s imports %s; docs/ARCHITECTURE.md allows %s", p.Path, testSuffix(test), imp, allowedString(r, test)))
					}
				default:
					bad = append(bad, fmt.Sprintf("%s%s imports the third-party %s, which its row of docs/ARCHITECTURE.md does not list", p.Path, testSuffix(test), imp))
				}
			}
		}
		check(p.Imports, false)
		check(p.TestImports, true)
	}
	return bad
}

func testSuffix(test bool) string {
	if test {
		return " (tests)"
	}
	return ""
}

func allowedString(r Rule, test bool) string {
	list := slices.Clone(r.Imports)
	if test {
		list = append(list, r.TestImports...)
	}
	list = append(list, r.Path+"/... (its own folder)")
	return strings.Join(list, ", ")
}
