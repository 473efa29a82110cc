// Package scripttest reads the data-driven test scripts of the model components
// (models/cache/testdata, models/dram/testdata, models/sched/testdata): one command per line, "#" starts a
// comment, and an arrow ("->" or "→") separates a command from what it must give.
package scripttest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Line is one command of a script.
type Line struct {
	Pos    string   // FILE:LINE, for messages
	Fields []string // the command and its arguments
	Want   string   // what follows the arrow, trimmed
	Arrow  bool     // the line has an arrow
}

// Run runs every file that glob matches as a subtest: start is called once per file
// and returns the function that runs each of its lines, so a file's state lives in
// start's closure.
func Run(t *testing.T, glob string, start func(t *testing.T) func(Line)) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts match %s: %v", glob, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			lines, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}
			run := start(t)
			for _, l := range lines {
				run(l)
			}
		})
	}
}

// Read returns the command lines of one script.
func Read(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []Line
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.ReplaceAll(text, "→", "->")
		cmd, want, arrow := strings.Cut(text, "->")
		fields := strings.Fields(cmd)
		if len(fields) == 0 {
			continue
		}
		lines = append(lines, Line{Pos: fmt.Sprintf("%s:%d", path, n), Fields: fields, Want: strings.TrimSpace(want), Arrow: arrow})
	}
	return lines, sc.Err()
}

// Check reports an error unless got is the answer after l's arrow; a line with no
// arrow is a mistake in the script and stops the test.
func (l Line) Check(t testing.TB, got string) {
	t.Helper()
	if !l.Arrow {
		t.Fatalf("%s: want -> and the answer", l.Pos)
	}
	if got != l.Want {
		t.Errorf("%s: %s gives %q, want %q", l.Pos, strings.Join(l.Fields, " "), got, l.Want)
	}
}

// Need returns c, or stops the test when it is nil: a script's command that needs a
// component made by an earlier command (name) came first.
func Need[T any](t testing.TB, l Line, c *T, name string) *T {
	t.Helper()
	if c == nil {
		t.Fatalf("%s: want %s first", l.Pos, name)
	}
	return c
}

// KeyValues reads a line's key=value fields; a field with no "=" (an address, a cycle)
// is left out. A key given twice is an error.
func KeyValues(fields []string) (map[string]string, error) {
	kv := map[string]string{}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			if _, dup := kv[k]; dup {
				return nil, fmt.Errorf("%s given twice", k)
			}
			kv[k] = v
		}
	}
	return kv, nil
}
