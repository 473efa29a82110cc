package capture

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
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
	n, nHalf := 0, 0
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
				key, rules := name, opRules
				if f.halfTypes { // the same opcode's half-precision forms have a rule of their own
					key, rules = name+" (half)", halfRules
					nHalf++
				} else {
					n++
				}
				if fam, ok := seen[key]; ok {
					t.Errorf("%s has a rule in %s and in %s", key, fam, f.name)
				}
				seen[key] = f.name
				if rules[name] == nil {
					t.Errorf("%s is not in its family's rule map", key)
				}
			}
		}
	}
	if len(opRules) != n || len(halfRules) != nHalf {
		t.Errorf("opRules has %d opcodes and halfRules %d, the families %d and %d", len(opRules), len(halfRules), n, nHalf)
	}
	for name := range halfRules {
		if opRules[name] == nil {
			t.Errorf("%s has a half-precision rule and no other: decodeOp finds half rules through opRules", name)
		}
	}
}

// corpusKernels loads every entry of the PTX corpora (TestCorpora checks they load).
func corpusKernels(t *testing.T) []*Kernel {
	var ks []*Kernel
	entries, _ := corpusEntries(t)
	for _, e := range entries {
		if k, err := Load(e.spec); err == nil {
			ks = append(ks, k)
		}
	}
	return ks
}

// TestRunMatchesLanes checks every computing instruction of the corpora: it has an
// execution, and where its decoder picked a loop over a full warp instead of
// runLanes, that loop writes what the lane function writes, on random registers
// (full 64-bit values, then values of 32 bits) and on a partial warp.
func TestRunMatchesLanes(t *testing.T) {
	generic := reflect.ValueOf(runFunc(runLanes)).Pointer()
	rng := rand.New(rand.NewPCG(1, 2))
	fast := map[uintptr]int{}
	n := 0
	for _, k := range corpusKernels(t) {
		for pc := range k.prog {
			in := &k.prog[pc]
			if in.op == opCompute && in.run == nil {
				t.Fatalf("%s pc %d (%s): a computing instruction with no run function", k.spec.Kernel, pc, k.insts[pc].Opcode)
			}
			if in.lane == nil {
				continue
			}
			n++
			p := reflect.ValueOf(in.run).Pointer()
			if p == generic {
				continue
			}
			fast[p]++
			for _, width := range []uint64{^uint64(0), 0xffffffff} {
				for _, exec := range []uint32{fullWarp, 0x5a5a0ff1} {
					// The instruction on slots of its own: d in slot 0, sources in 1-3.
					c := *in
					c.d[0], c.s[0], c.s[1], c.s[2] = 0, 1, 2, 3
					regs := make([]uint64, 4*32)
					for i := range regs {
						regs[i] = rng.Uint64() & width
					}
					want := &warpState{regs: slices.Clone(regs)}
					got := &warpState{regs: regs}
					runLanes(want, &c, exec, exec)
					c.run(got, &c, exec, exec)
					if !slices.Equal(got.regs, want.regs) {
						t.Fatalf("%s pc %d (%s), exec %#x: its loop over the warp differs from its lane function", k.spec.Kernel, pc, k.insts[pc].Opcode, exec)
					}
				}
			}
		}
	}
	// 14 loops exist (op_arith.go, op_bits.go); the corpora use most of them.
	if len(fast) < 10 || n == 0 {
		t.Errorf("the corpora exercise %d loops over a full warp in %d lanewise instructions; want at least 10", len(fast), n)
	}
	t.Logf("%d lanewise instructions, %d distinct full-warp loops", n, len(fast))
}
