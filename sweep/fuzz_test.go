package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseSpec feeds arbitrary SPECs, as YAML and as TOML, to ParseSpec: it returns a
// spec or an error, never panics; a spec it accepts plans (when small enough to plan in a
// fuzzer) into tasks with distinct result paths, none of them excluded.
func FuzzParseSpec(f *testing.F) {
	for _, name := range []string{"../examples/sweep-l1.yaml", "../examples/sweep-l1.toml"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, strings.HasSuffix(name, ".toml"))
		}
	}
	f.Add([]byte(runSpec), false)
	f.Add([]byte("traces: [a.gtrace]\narchs: [hopper, fermi/gtx480]\nengines: [timing]\nset:\n  l2.ways: {from: 4, to: 32, factor: 2}\n  dram.banks: {from: 8, to: 16, step: 4}\nexclude: [{arch: fermi, l2.ways: 4}]\nper_pc: true\n"), false)
	f.Add([]byte("traces = [\"a.gtrace\"]\narchs = [\"hopper\"]\n[set]\n\"l1.replacement\" = [\"lru\", \"fifo\"]\n[[exclude]]\narch = \"hopper\"\n\"l1.replacement\" = \"lru\"\n"), true)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, toml bool) {
		if len(data) > 16<<10 {
			return
		}
		name := "s.yaml"
		if toml {
			name = "s.toml"
		}
		s, err := ParseSpec(name, data, dir)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) && !strings.Contains(err.Error(), name) {
				t.Errorf("error %q names neither a key nor the file", err)
			}
			return
		}
		n := len(s.Traces) + len(s.Kernels)
		n *= len(s.Archs) * len(s.Engines)
		for _, ax := range s.Set {
			n *= len(ax.Values)
		}
		if n > maxTasks {
			t.Fatalf("a spec of %d tasks was accepted", n)
		}
		if n > 256 {
			return
		}
		m, err := s.Plan(filepath.Join(dir, "res"))
		if err != nil {
			return
		}
		paths := map[string]bool{}
		for i, task := range m.Tasks {
			if task.Index != i || paths[task.Path] || s.excluded(&task) {
				t.Fatalf("task %d: %+v (index, a repeated path, or excluded)", i, task)
			}
			paths[task.Path] = true
		}
	})
}
