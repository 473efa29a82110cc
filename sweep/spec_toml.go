package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"
)

// tomlError is a TOML parse error with the line it is on, shown. BurntSushi/toml v1.6.0's
// ErrorWithPosition can panic (index -1: FuzzParseSpec's
// testdata/fuzz/FuzzParseSpec/e1bb12be20be3074); then the error's own text serves.
func tomlError(err error) (msg string) {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	defer func() {
		if recover() != nil {
			msg = pe.Error()
		}
	}()
	return strings.TrimSpace(pe.ErrorWithPosition())
}

// decodeTOML reads a TOML SPEC into the same wireSpec as YAML, tables as ordered
// mappings in the order the file gives their keys (the set keys' order is the tasks'
// order), so one check serves both.
func decodeTOML(file string, data []byte) (wireSpec, error) {
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return wireSpec{}, &SpecError{file, "", tomlError(err)}
	}
	order := map[string]int{}
	for i, k := range md.Keys() {
		order[strings.Join(k, "\x00")] = i
	}
	bad := func(key, format string, a ...any) error {
		return &SpecError{file, key, fmt.Sprintf(format, a...)}
	}
	var w wireSpec
	for _, item := range orderedTOML(raw, nil, order).(yaml.MapSlice) {
		key := item.Key.(string)
		switch v := item.Value; key {
		case "traces", "archs", "engines":
			list, err := tomlStrings(v)
			if err != nil {
				return w, bad(key, "%v", err)
			}
			switch key {
			case "traces":
				w.Traces = list
			case "archs":
				w.Archs = list
			default:
				w.Engines = list
			}
		case "kernels":
			list, ok := v.([]any)
			if !ok {
				return w, bad(key, "want a list of kernels")
			}
			w.Kernels = list
		case "set":
			m, ok := v.(yaml.MapSlice)
			if !ok {
				return w, bad(key, "want a table of config keys and their values")
			}
			w.Set = m
		case "exclude":
			list, ok := v.([]any)
			if !ok {
				return w, bad(key, "want a list of tables ([[exclude]])")
			}
			for i, x := range list {
				m, ok := x.(yaml.MapSlice)
				if !ok {
					return w, bad(fmt.Sprintf("exclude[%d]", i), "want a table of sweep keys and values")
				}
				w.Exclude = append(w.Exclude, m)
			}
		case "per_pc":
			b, ok := v.(bool)
			if !ok {
				return w, bad(key, "want true or false")
			}
			w.PerPC = b
		default:
			return w, bad(key, "unknown key (want traces, kernels, archs, engines, set, exclude, per_pc)")
		}
	}
	return w, nil
}

// orderedTOML turns decoded TOML into what YAML's ordered decoding gives: tables
// become yaml.MapSlice in the file's key order, arrays []any.
func orderedTOML(v any, path []string, order map[string]int) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(yaml.MapSlice, 0, len(v))
		pos := make(map[string]int, len(v))
		for k, x := range v {
			sub := append(slices.Clip(path), k)
			pos[k] = order[strings.Join(sub, "\x00")]
			m = append(m, yaml.MapItem{Key: k, Value: orderedTOML(x, sub, order)})
		}
		slices.SortFunc(m, func(a, b yaml.MapItem) int { return pos[a.Key.(string)] - pos[b.Key.(string)] })
		return m
	case []map[string]any: // an array of tables ([[exclude]])
		return orderedList(v, path, order)
	case []any:
		return orderedList(v, path, order)
	}
	return v
}

func orderedList[T any](v []T, path []string, order map[string]int) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = orderedTOML(x, path, order)
	}
	return out
}

func tomlStrings(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("want a list of strings")
	}
	out := make([]string, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("[%d]: want a string, got %v", i, x)
		}
		out[i] = s
	}
	return out, nil
}
