package replay

import (
	"reflect"
	"testing"

	"github.com/gtrace/gtrace/models/arch"
)

// Launches line up by index; a metric a column lacks, or a launch it lacks, is marked
// absent; nil metrics mean the first column's own list.
func TestCompare(t *testing.T) {
	a := &Report{Kernels: []KernelReport{
		{Name: "k0", Metrics: []Metric{{Name: "x", Value: 1}, {Name: "y", Value: 2}}},
		{Name: "k1", Metrics: []Metric{{Name: "x", Value: 3}}},
	}}
	b := &Report{Kernels: []KernelReport{{Name: "other", Metrics: []Metric{{Name: "x", Value: 5}}}}}
	cols := []Column{{"a", a}, {"a2", a}, {"b", b}}
	got := Compare(cols, nil)
	want := []Comparison{
		{Names: []string{"k0", "other"}, Rows: []ComparedRow{
			{"x", []float64{1, 1, 5}, []bool{true, true, true}},
			{"y", []float64{2, 2, 0}, []bool{true, true, false}},
		}},
		{Names: []string{"k1"}, Rows: []ComparedRow{
			{"x", []float64{3, 3, 0}, []bool{true, true, false}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare(nil) =\n%+v\nwant\n%+v", got, want)
	}
	got = Compare(cols[2:], []string{"y", "x"})
	want = []Comparison{{Names: []string{"other"}, Rows: []ComparedRow{
		{"y", []float64{0}, []bool{false}},
		{"x", []float64{5}, []bool{true}},
	}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare(y, x) =\n%+v\nwant\n%+v", got, want)
	}
}

// One trace: the configuration; several: the trace's name and the arch, with the GPU
// only where two configurations share an arch.
func TestColumnLabel(t *testing.T) {
	f, _ := arch.Preset("fermi", "")
	h1, _ := arch.Preset("hopper", "h100")
	h2, _ := arch.Preset("hopper", "h200")
	for _, tc := range []struct {
		file   string
		nfiles int
		cfg    *arch.Config
		cfgs   []*arch.Config
		want   string
	}{
		{"dir/t.gtrace", 1, h2, []*arch.Config{f, h2}, "hopper/h200"},
		{"dir/t.gtrace", 2, h2, []*arch.Config{f, h2}, "t@hopper"},
		{"dir/t.gtrace", 2, h2, []*arch.Config{f, h1, h2}, "t@hopper/h200"},
		{"t.trace", 3, f, []*arch.Config{f, h1, h2}, "t.trace@fermi"},
	} {
		if got := ColumnLabel(tc.file, tc.nfiles, tc.cfg, tc.cfgs); got != tc.want {
			t.Errorf("ColumnLabel(%q, %d, %s) = %q, want %q", tc.file, tc.nfiles, tc.cfg.GPU, got, tc.want)
		}
	}
}
