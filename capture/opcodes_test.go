package capture

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateOpcodes = flag.Bool("update-opcodes", false, "rewrite the opcode table in doc.go from the rules in op_*.go")

// opcodeTable is doc.go's table of opcodes, generated from the rules: one row per
// rule, family after family.
func opcodeTable() []string {
	lines := []string{"opcode                 types / modifiers"}
	for _, f := range opFamilies {
		for _, r := range f.rules {
			for i, doc := range strings.Split(r.doc, "\n") {
				name := ""
				if i == 0 {
					name = strings.Join(r.names, " ")
				}
				lines = append(lines, strings.TrimRight(fmt.Sprintf("%-23s%s", name, doc), " "))
			}
		}
	}
	return lines
}

// TestOpcodeTable checks that doc.go lists exactly the opcodes the rules decode, with
// each rule's types and modifiers; -update-opcodes rewrites it.
func TestOpcodeTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "//\topcode ") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatal("doc.go has no line starting //\\topcode: where does the opcode table go?")
	}
	end := start
	for end < len(lines) && strings.HasPrefix(lines[end], "//\t") {
		end++
	}
	var want []string
	for _, l := range opcodeTable() {
		want = append(want, "//\t"+l)
	}
	got := lines[start:end]
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	if *updateOpcodes {
		out := append(append(append([]string{}, lines[:start]...), want...), lines[end:]...)
		if err := os.WriteFile("doc.go", []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("doc.go's opcode table is not the rules' (go test ./capture -run TestOpcodeTable -update-opcodes rewrites it); want\n%s", strings.Join(want, "\n"))
}

// TestOpRules checks the rule table itself: every opcode has one rule, every rule a
// decoder and a row of documentation whose names fit the table's first column.
func TestOpRules(t *testing.T) {
	seen := map[string]string{}
	n := 0
	for _, f := range opFamilies {
		if len(f.rules) == 0 {
			t.Errorf("family %s has no rules", f.name)
		}
		for _, r := range f.rules {
			if r.decode == nil || r.doc == "" || len(r.names) == 0 {
				t.Errorf("family %s: rule %v lacks a decoder, a doc or a name", f.name, r.names)
			}
			if w := len(strings.Join(r.names, " ")); w > 22 {
				t.Errorf("rule %v: names are %d characters, wider than the table's first column (22)", r.names, w)
			}
			for _, name := range r.names {
				if fam, ok := seen[name]; ok {
					t.Errorf("%s has a rule in %s and in %s", name, fam, f.name)
				}
				seen[name] = f.name
				n++
				if opRules[name] == nil {
					t.Errorf("%s is not in opRules", name)
				}
			}
		}
	}
	if len(opRules) != n {
		t.Errorf("opRules has %d opcodes, the families %d", len(opRules), n)
	}
}
