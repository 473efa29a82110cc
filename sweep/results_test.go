package sweep

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// synthetic is a sweep's results made by hand: two traces (b.gtrace holds two kernels)
// on two presets and two engines, l1.size and l2.ways swept; task 5 has no result.
func synthetic() *Results {
	r := &Results{}
	for _, label := range []string{"a", "b"} {
		for _, a := range []Arch{{"hopper", "h100"}, {"ampere", "a100"}} {
			for _, e := range []string{"memory", "timing"} {
				for _, l1 := range []string{"16KB", "32KB", "64KB"} {
					for _, ways := range []string{"8", "16"} {
						t := Task{Index: len(r.Tasks), Label: label, Arch: a, Engine: e,
							Set: []KV{{"l1.size", l1}, {"l2.ways", ways}}}
						r.Tasks = append(r.Tasks, t)
						if t.Index == 5 {
							continue
						}
						kernels := []string{"k"}
						if label == "b" {
							kernels = []string{"k1", "k2"}
						}
						for ki, k := range kernels {
							v := float64(1000*t.Index + ki)
							r.Values = append(r.Values, Value{t.Index, k, "dram__bytes_read.sum", v})
							if e == "timing" {
								r.Values = append(r.Values, Value{t.Index, k, "sm__cycles_elapsed.avg", v + 0.5})
							}
						}
					}
				}
			}
		}
	}
	return r
}

// Charts puts each metric along x, one chart per engine and value of the other keys,
// one series per trace (and per kernel of a trace of several), NaN where a task has no
// result; a bad --x or metric is an error saying what the sweep has.
func TestSweepCharts(t *testing.T) {
	r := synthetic()
	if got := r.Keys(); !reflect.DeepEqual(got, []string{"arch", "l1.size", "l2.ways"}) {
		t.Errorf("Keys: %v", got)
	}
	charts, err := r.Charts("", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Cycles: timing only, 2 archs × 2 l2.ways; then DRAM reads for both engines: 8.
	// The hit rates are in no result: left out.
	if len(charts) != 4+8 {
		t.Fatalf("%d charts, want 12", len(charts))
	}
	c := charts[0]
	if c.Metric != "sm__cycles_elapsed.avg" || c.Engine != "timing" || c.XKey != "l1.size" ||
		!reflect.DeepEqual(c.X, []string{"16KB", "32KB", "64KB"}) ||
		!reflect.DeepEqual(c.Fixed, []KV{{"arch", "hopper/h100"}, {"l2.ways", "8"}}) {
		t.Errorf("first chart: %+v", c)
	}
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Name)
	}
	if !reflect.DeepEqual(names, []string{"a", "b/k1", "b/k2"}) {
		t.Errorf("series %v, want a, b/k1, b/k2", names)
	}
	// Trace a, hopper, timing, l2.ways 8: tasks 6, 8, 10 by l1.size.
	if y := c.Series[0].Y; !reflect.DeepEqual(y, []float64{6000.5, 8000.5, 10000.5}) {
		t.Errorf("a's cycles: %v", y)
	}
	if y := c.Series[2].Y; !reflect.DeepEqual(y, []float64{30001.5, 32001.5, 34001.5}) {
		t.Errorf("b/k2's cycles: %v", y)
	}
	// Task 5 (a, hopper, memory, 64KB, ways 16) has no result.
	for _, c := range charts {
		if c.Metric == "dram__bytes_read.sum" && c.Engine == "memory" && fmt.Sprint(c.Fixed) == "[{arch hopper/h100} {l2.ways 16}]" {
			if y := c.Series[0].Y; y[0] != 1000 || y[1] != 3000 || !math.IsNaN(y[2]) {
				t.Errorf("a with a missing task: %v, want [1000 3000 NaN]", y)
			}
		}
	}

	// Along arch, by name; a metric asked for by name.
	charts, err = r.Charts("arch", []string{"dram__bytes_read.sum"})
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2*3*2 || charts[0].XKey != "arch" || !reflect.DeepEqual(charts[0].X, []string{"hopper/h100", "ampere/a100"}) {
		t.Errorf("along arch: %d charts, first %+v", len(charts), charts[0])
	}

	// No swept key: along arch.
	one := &Results{Tasks: []Task{{Label: "a", Arch: Arch{"hopper", "h100"}, Engine: "memory"},
		{Index: 1, Label: "a", Arch: Arch{"fermi", "gtx480"}, Engine: "memory"}},
		Values: []Value{{0, "k", "dram__bytes_read.sum", 1}, {1, "k", "dram__bytes_read.sum", 2}}}
	if charts, err := one.Charts("", nil); err != nil || len(charts) != 1 || charts[0].XKey != "arch" || !reflect.DeepEqual(charts[0].Series[0].Y, []float64{1, 2}) {
		t.Errorf("a sweep of no keys: %+v, %v", charts, err)
	}

	for _, bad := range []struct{ x, metric, want string }{
		{"l1.ways", "", "--x l1.ways: not a key of this sweep; it has arch, l1.size, l2.ways"},
		{"", "l1tex__t_sector_hit_rate.pct", "metric l1tex__t_sector_hit_rate.pct: no result of this sweep has it; they have dram__bytes_read.sum, sm__cycles_elapsed.avg"},
	} {
		var ms []string
		if bad.metric != "" {
			ms = []string{bad.metric}
		}
		if _, err := r.Charts(bad.x, ms); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Charts(%q, %v): %v, want %q", bad.x, ms, err, bad.want)
		}
	}
}
