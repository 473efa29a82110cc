package sweep

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format/export"
)

// Results are a sweep's kernel totals, read back from its folder: what the charts of
// `gtrace report --sweep` are drawn from.
type Results struct {
	Tasks   []Task
	Summary Summary
	Values  []Value // the done tasks' kernel totals, in task order
}

// Value is one kernel total of one task.
type Value struct {
	Task           int // index into Tasks
	Kernel, Metric string
	Value          float64
}

// Load reads the kernel totals of every done task of the sweep in results. Tasks that
// failed or have not run have no values; Summary says how many.
func Load(ctx context.Context, results string) (*Results, error) {
	m, err := readManifest(results)
	if err != nil {
		return nil, err
	}
	r := &Results{Tasks: m.Tasks}
	r.Summary, _ = status(results, m)
	for i, t := range m.Tasks {
		path := filepath.Join(results, t.Path)
		if !exists(path) {
			continue
		}
		err := export.ReadMetrics(ctx, path, func(row export.MetricRow) error {
			if row.PC < 0 {
				r.Values = append(r.Values, Value{Task: i, Kernel: row.Kernel, Metric: row.Metric, Value: row.Value})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", &t, err)
		}
	}
	return r, nil
}

// DefaultMetrics are the charts drawn when none are asked for: the timing engine's
// cycles, then the L1 and L2 hit rates and the DRAM bytes read. Those no result has are
// left out.
var DefaultMetrics = []string{
	"sm__cycles_elapsed.avg",
	"l1tex__t_sector_hit_rate.pct",
	"lts__t_sector_hit_rate.pct",
	"dram__bytes_read.sum",
}

// ArchKey names the preset (arch/gpu) as a dimension of a sweep's charts.
const ArchKey = "arch"

// Chart is one metric over the values of one key (X), a series per trace (per kernel
// of a trace that holds several), at one engine and one value of every other key (Fixed).
type Chart struct {
	Metric, Engine string
	Fixed          []KV // the other keys' values: arch first, then the swept keys
	XKey           string
	X              []string
	Series         []Series
}

// Series is one trace's (or kernel's) values at a chart's X; NaN where no task gave one.
type Series struct {
	Name string
	Y    []float64
}

// Keys are the dimensions a chart's x can take: arch, then the swept keys in the SPEC's
// order.
func (r *Results) Keys() []string {
	keys := []string{ArchKey}
	if len(r.Tasks) > 0 {
		for _, kv := range r.Tasks[0].Set {
			keys = append(keys, kv.Key)
		}
	}
	return keys
}

// valueOf is task t's value of key (a Keys entry).
func (t *Task) valueOf(key string) string {
	if key == ArchKey {
		return t.Arch.String()
	}
	for _, kv := range t.Set {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Charts groups the results into charts of each metric along xKey. An empty xKey picks
// the key with the most values (a swept key on a tie, the first of them); metrics nil means DefaultMetrics. A chart of no value is left out; a metric
// asked for by name that no result holds is an error listing those that do.
func (r *Results) Charts(xKey string, metrics []string) ([]Chart, error) {
	keys := r.Keys()
	distinct := make([][]string, len(keys)) // each key's values in task order
	for _, t := range r.Tasks {
		for k, key := range keys {
			if v := t.valueOf(key); !slices.Contains(distinct[k], v) {
				distinct[k] = append(distinct[k], v)
			}
		}
	}
	x := slices.Index(keys, xKey)
	switch {
	case xKey == "":
		x = -1
		for k := 1; k < len(keys); k++ {
			if x < 0 || len(distinct[k]) > len(distinct[x]) {
				x = k
			}
		}
		if x < 0 || len(distinct[0]) > len(distinct[x]) {
			x = 0
		}
	case x < 0:
		return nil, fmt.Errorf("--x %s: not a key of this sweep; it has %s", xKey, strings.Join(keys, ", "))
	}
	given := metrics != nil
	if !given {
		metrics = DefaultMetrics
	}
	have := map[string]bool{}
	for _, v := range r.Values {
		have[v.Metric] = true
	}
	for _, m := range metrics {
		if given && !have[m] {
			var names []string
			for n := range have {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("metric %s: no result of this sweep has it; they have %s", m, strings.Join(names, ", "))
		}
	}

	// Series are named by trace, and by kernel where a trace holds several.
	kernelsOf := map[string][]string{}
	for _, v := range r.Values {
		l := r.Tasks[v.Task].Label
		if !slices.Contains(kernelsOf[l], v.Kernel) {
			kernelsOf[l] = append(kernelsOf[l], v.Kernel)
		}
	}
	seriesName := func(v *Value) string {
		l := r.Tasks[v.Task].Label
		if len(kernelsOf[l]) > 1 {
			return l + "/" + v.Kernel
		}
		return l
	}
	// A panel is an engine and the values of every key but x.
	panelOf := func(t *Task) string {
		s := t.Engine
		for k, key := range keys {
			if k != x {
				s += "\x00" + t.valueOf(key)
			}
		}
		return s
	}
	type panel struct {
		task   *Task // the first task of the panel: its engine and fixed values
		series map[string][]float64
		names  []string
	}
	var out []Chart
	for _, m := range metrics {
		var panels []*panel
		byKey := map[string]*panel{}
		for i := range r.Values {
			v := &r.Values[i]
			if v.Metric != m {
				continue
			}
			t := &r.Tasks[v.Task]
			p := byKey[panelOf(t)]
			if p == nil {
				p = &panel{task: t, series: map[string][]float64{}}
				byKey[panelOf(t)] = p
				panels = append(panels, p)
			}
			name := seriesName(v)
			ys := p.series[name]
			if ys == nil {
				ys = make([]float64, len(distinct[x]))
				for j := range ys {
					ys[j] = math.NaN()
				}
				p.series[name] = ys
				p.names = append(p.names, name)
			}
			ys[slices.Index(distinct[x], t.valueOf(keys[x]))] = v.Value
		}
		for _, p := range panels {
			c := Chart{Metric: m, Engine: p.task.Engine, XKey: keys[x], X: distinct[x]}
			for k, key := range keys {
				if k != x {
					c.Fixed = append(c.Fixed, KV{key, p.task.valueOf(key)})
				}
			}
			for _, n := range p.names {
				c.Series = append(c.Series, Series{n, p.series[n]})
			}
			out = append(out, c)
		}
	}
	return out, nil
}
