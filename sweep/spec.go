// Package sweep runs design-space sweeps: the cross product of traces, architectures,
// engines and config values that a SPEC names, each replay one task whose result is one
// Parquet file in a hive-partitioned folder, so DuckDB reads a whole sweep with
// read_parquet('RESULTS/**/*.parquet', hive_partitioning=true). A sweep is resumable:
// a task whose file exists is done; a failed task is recorded and run again next time.
//
// The SPEC's schema is in docs/sweeps.md. Reference kernels are captured by the caller
// (Options.Capture): this package does not import the emulator.
package sweep

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/gtrace/gtrace/models/arch"
)

// Spec is a sweep as its SPEC file gives it, checked.
type Spec struct {
	Traces  []string // trace files, absolute
	Kernels []Kernel // reference kernels, captured into RESULTS/traces/
	Archs   []Arch
	Engines []string // memory, timing
	Set     []Axis   // config keys and their values, in the SPEC's order
	Exclude []map[string]string
	PerPC   bool
}

// Kernel is a reference kernel and how it is captured: its sizes and divergence model.
type Kernel struct {
	Name  string
	Sizes []KV   // in the SPEC's order
	SIMT  string // its (the default, as gtrace capture's) or stack
}

// KV is one key and value.
type KV struct{ Key, Value string }

// Label names a kernel's trace: its name, then each size as key-value, with characters
// a folder or a hive partition could not hold left out.
func (k Kernel) Label() string {
	s := k.Name
	for _, kv := range k.Sizes {
		s += "." + kv.Key + "-" + kv.Value
	}
	if k.SIMT == "stack" {
		s += ".stack"
	}
	return s
}

// SizeArgs are the kernel's sizes as NAME=VALUE, as gtrace capture --size takes them.
func (k Kernel) SizeArgs() []string {
	var out []string
	for _, kv := range k.Sizes {
		out = append(out, kv.Key+"="+kv.Value)
	}
	return out
}

// Arch is one preset: an arch and a GPU of it.
type Arch struct{ Arch, GPU string }

func (a Arch) String() string { return a.Arch + "/" + a.GPU }

// Axis is one config key and the values the sweep gives it.
type Axis struct {
	Key    string
	Values []string
}

// wireSpec is the SPEC as YAML gives it (and TOML, through decodeTOML); ParseSpec
// checks it and builds a Spec.
type wireSpec struct {
	Traces  []string        `yaml:"traces"`
	Kernels []any           `yaml:"kernels"`
	Archs   []string        `yaml:"archs"`
	Engines []string        `yaml:"engines"`
	Set     yaml.MapSlice   `yaml:"set"`
	Exclude []yaml.MapSlice `yaml:"exclude"`
	PerPC   bool            `yaml:"per_pc"`
}

// maxValues bounds one axis: a range that would give more is a mistake, not a sweep.
const maxValues = 10000

// folderSafe is what a value may hold to name a hive partition folder.
var folderSafe = regexp.MustCompile(`^[A-Za-z0-9._+-]+$`)

// SpecError is a SPEC that cannot be run: Key names where (kernels[2].size, set.l1.size).
type SpecError struct {
	File, Key, Msg string
}

func (e *SpecError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// ParseSpec reads a SPEC: TOML if file ends in .toml, YAML otherwise. Relative trace paths are taken from dir (the SPEC's folder).
// Every key is checked: an unknown one, a value of the wrong kind, an arch, engine or
// config key that does not exist, and a config value the preset refuses are errors
// naming the key.
func ParseSpec(file string, data []byte, dir string) (*Spec, error) {
	bad := func(key, format string, a ...any) error {
		return &SpecError{file, key, fmt.Sprintf(format, a...)}
	}
	var w wireSpec
	if strings.EqualFold(filepath.Ext(file), ".toml") {
		var err error
		if w, err = decodeTOML(file, data); err != nil {
			return nil, err
		}
	} else if err := decodeYAML(data, &w); err != nil {
		return nil, &SpecError{file, "", err.Error()}
	}
	s := &Spec{PerPC: w.PerPC}
	for i, t := range w.Traces {
		if t == "" {
			return nil, bad(fmt.Sprintf("traces[%d]", i), "empty path")
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		s.Traces = append(s.Traces, t)
	}
	for i, k := range w.Kernels {
		kk, err := parseKernel(k)
		if err != nil {
			return nil, bad(fmt.Sprintf("kernels[%d]", i), "%v", err)
		}
		s.Kernels = append(s.Kernels, kk)
	}
	if len(s.Traces)+len(s.Kernels) == 0 {
		return nil, bad("", "give traces (files) or kernels (reference kernels) to sweep over")
	}
	if len(w.Archs) == 0 {
		return nil, bad("archs", "give at least one arch (%s), or arch/gpu", strings.Join(arch.Archs(), ", "))
	}
	for i, a := range w.Archs {
		cfg, err := arch.Lookup(a, "")
		if err != nil {
			return nil, bad(fmt.Sprintf("archs[%d]", i), "%v", err)
		}
		if slices.Contains(s.Archs, Arch{cfg.Arch, cfg.GPU}) {
			return nil, bad(fmt.Sprintf("archs[%d]", i), "%s given twice", a)
		}
		s.Archs = append(s.Archs, Arch{cfg.Arch, cfg.GPU})
	}
	s.Engines = w.Engines
	if len(s.Engines) == 0 {
		s.Engines = []string{"memory"}
	}
	for i, e := range s.Engines {
		if e != "memory" && e != "timing" {
			return nil, bad(fmt.Sprintf("engines[%d]", i), "%q: want memory or timing", e)
		}
		if slices.Contains(s.Engines[:i], e) {
			return nil, bad(fmt.Sprintf("engines[%d]", i), "%s given twice", e)
		}
	}
	for _, item := range w.Set {
		key, ok := item.Key.(string)
		if !ok {
			return nil, bad("set", "key %v is not a config key name", item.Key)
		}
		vals, err := axisValues(item.Value)
		if err != nil {
			return nil, bad("set."+key, "%v", err)
		}
		for _, v := range vals {
			if !folderSafe.MatchString(v) {
				return nil, bad("set."+key, "value %q cannot name a results folder: use letters, digits and . _ + -", v)
			}
		}
		if slices.ContainsFunc(s.Set, func(a Axis) bool { return a.Key == key }) {
			return nil, bad("set."+key, "given twice")
		}
		if !folderSafe.MatchString(key) {
			return nil, bad("set."+key, "not a config key (see gtrace archs NAME)")
		}
		s.Set = append(s.Set, Axis{key, vals})
	}
	// Every value on every arch: a key the arch lacks or a value it refuses is the
	// SPEC's error, found before any task runs.
	for _, a := range s.Archs {
		for _, ax := range s.Set {
			for _, v := range ax.Values {
				cfg, _ := arch.Preset(a.Arch, a.GPU)
				if err := cfg.Set(ax.Key, v); err != nil {
					return nil, bad("set."+ax.Key, "on %s: %v", a, err)
				}
			}
		}
	}
	known := []string{"arch", "gpu", "engine", "trace"}
	for _, ax := range s.Set {
		known = append(known, ax.Key)
	}
	for i, ex := range w.Exclude {
		m := map[string]string{}
		for _, item := range ex {
			key, _ := item.Key.(string)
			if !slices.Contains(known, key) {
				return nil, bad(fmt.Sprintf("exclude[%d].%v", i, item.Key), "not a sweep key (want one of %s)", strings.Join(known, ", "))
			}
			v, err := scalar(item.Value)
			if err != nil {
				return nil, bad(fmt.Sprintf("exclude[%d].%s", i, key), "%v", err)
			}
			m[key] = v
		}
		if len(m) == 0 {
			return nil, bad(fmt.Sprintf("exclude[%d]", i), "empty: it would exclude everything")
		}
		s.Exclude = append(s.Exclude, m)
	}
	// The cross product is planned in memory and kept in sweep.json: bound it before
	// anything is expanded (three axes of 10000 values would be 10^12 tasks).
	n := float64(len(s.Traces) + len(s.Kernels))
	dims := fmt.Sprintf("%d traces and kernels × %d archs × %d engines", len(s.Traces)+len(s.Kernels), len(s.Archs), len(s.Engines))
	n *= float64(len(s.Archs) * len(s.Engines))
	for _, ax := range s.Set {
		n *= float64(len(ax.Values))
		dims += fmt.Sprintf(" × %d %s", len(ax.Values), ax.Key)
	}
	if n > maxTasks {
		return nil, bad("set", "%.0f tasks before exclusions (%s); a sweep holds at most %d: split it", n, dims, maxTasks)
	}
	return s, nil
}

// maxTasks bounds a sweep's cross product.
const maxTasks = 1000000

// decodeYAML decodes a YAML SPEC into w. goccy/go-yaml v1.19.2 (the newest) can panic
// on malformed input (a nil node in decodeSlice: FuzzParseSpec's
// testdata/fuzz/FuzzParseSpec/a878e260421847bc); that is a malformed SPEC, not a crash.
func decodeYAML(data []byte, w *wireSpec) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("not a SPEC the YAML parser can read (it failed: %v)", p)
		}
	}()
	if err := yaml.UnmarshalWithOptions(data, w, yaml.DisallowUnknownField(), yaml.UseOrderedMap()); err != nil {
		return errors.New(yaml.FormatError(err, false, true))
	}
	return nil
}

// parseKernel reads a kernels entry: a name, or {name: NAME, size: {KEY: VALUE, ...}}.
func parseKernel(v any) (Kernel, error) {
	if name, ok := v.(string); ok {
		if !folderSafe.MatchString(name) {
			return Kernel{}, fmt.Errorf("%q is not a reference kernel name", name)
		}
		return Kernel{Name: name, SIMT: "its"}, nil
	}
	m, ok := v.(yaml.MapSlice)
	if !ok {
		return Kernel{}, errors.New("want a kernel name, or {name: NAME, size: {KEY: VALUE}, simt: its|stack}")
	}
	k := Kernel{SIMT: "its"}
	for _, item := range m {
		switch item.Key {
		case "name":
			name, ok := item.Value.(string)
			if !ok || !folderSafe.MatchString(name) {
				return Kernel{}, fmt.Errorf("name: %v is not a reference kernel name", item.Value)
			}
			k.Name = name
		case "size":
			sizes, ok := item.Value.(yaml.MapSlice)
			if !ok {
				return Kernel{}, errors.New("size: want a mapping of size names to values")
			}
			for _, s := range sizes {
				key, _ := s.Key.(string)
				val, err := scalar(s.Value)
				if err != nil || !folderSafe.MatchString(key) || !folderSafe.MatchString(val) {
					return Kernel{}, fmt.Errorf("size.%v: want a name and a number", s.Key)
				}
				k.Sizes = append(k.Sizes, KV{key, val})
			}
		case "simt":
			if item.Value != "its" && item.Value != "stack" {
				return Kernel{}, fmt.Errorf("simt: %v: want its or stack", item.Value)
			}
			k.SIMT = item.Value.(string)
		default:
			return Kernel{}, fmt.Errorf("unknown key %v (want name, size, simt)", item.Key)
		}
	}
	if k.Name == "" {
		return Kernel{}, errors.New("name: missing")
	}
	return k, nil
}

// axisValues reads a set entry: one value, a list, or a range {from, to, step} or
// {from, to, factor} of integers, to included when the steps reach it.
func axisValues(v any) ([]string, error) {
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			return nil, errors.New("an empty list: give at least one value")
		}
		out := make([]string, len(v))
		for i, x := range v {
			s, err := scalar(x)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %v", i, err)
			}
			out[i] = s
		}
		if i := firstRepeat(out); i >= 0 {
			return nil, fmt.Errorf("value %q given twice", out[i])
		}
		return out, nil
	case yaml.MapSlice:
		return rangeValues(v)
	}
	s, err := scalar(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

func firstRepeat(s []string) int {
	for i := range s {
		if slices.Contains(s[:i], s[i]) {
			return i
		}
	}
	return -1
}

func rangeValues(m yaml.MapSlice) ([]string, error) {
	var from, to, step, factor *int64
	for _, item := range m {
		n, ok := asInt(item.Value)
		if !ok {
			return nil, fmt.Errorf("%v: want an integer, got %v", item.Key, item.Value)
		}
		switch item.Key {
		case "from":
			from = &n
		case "to":
			to = &n
		case "step":
			step = &n
		case "factor":
			factor = &n
		default:
			return nil, fmt.Errorf("unknown range key %v (want from, to, and step or factor)", item.Key)
		}
	}
	switch {
	case from == nil || to == nil:
		return nil, errors.New("a range needs from and to")
	case *to < *from:
		return nil, fmt.Errorf("to (%d) is below from (%d)", *to, *from)
	case (step == nil) == (factor == nil):
		return nil, errors.New("a range needs step or factor, one of them")
	case step != nil && *step <= 0:
		return nil, fmt.Errorf("step %d: want above 0", *step)
	case factor != nil && (*factor < 2 || *from <= 0):
		return nil, errors.New("factor: want 2 or more, from above 0")
	}
	var out []string
	for x := *from; x <= *to; {
		if len(out) == maxValues {
			return nil, fmt.Errorf("more than %d values", maxValues)
		}
		out = append(out, strconv.FormatInt(x, 10))
		if step != nil {
			if x > math.MaxInt64-*step {
				break // the next value would overflow, so it is past to
			}
			x += *step
		} else {
			if x > math.MaxInt64 / *factor {
				break
			}
			x *= *factor
		}
	}
	return out, nil
}

func asInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case uint64:
		return int64(v), v <= math.MaxInt64
	case int:
		return int64(v), true
	}
	return 0, false
}

// scalar is a YAML scalar as the string a config key parses.
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case nil:
		return "", errors.New("a value is missing")
	}
	if n, ok := asInt(v); ok {
		return strconv.FormatInt(n, 10), nil
	}
	return "", fmt.Errorf("want a single value, got %v", v)
}
