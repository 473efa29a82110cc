package report

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
)

// buildPage captures reference kernels at their Small sizes and builds the report on
// archs (each at its default GPU).
func buildPage(t testing.TB, opts Options, archs []string, names ...string) *Page {
	t.Helper()
	var ins []Input
	for _, name := range names {
		k, err := kernels.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := kernels.TraceOf(context.Background(), name, k.Small, nil)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Name: name, Trace: r})
	}
	var cfgs []*arch.Config
	for _, a := range archs {
		cfg, err := arch.Preset(a, "")
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg)
	}
	pg, err := Build(context.Background(), ins, cfgs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

func writePage(t testing.TB, pg *Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := pg.WriteHTML(&buf, "test report"); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// selfContained lists what in an HTML page would make a browser fetch something:
// scripts, stylesheets, images, fonts or frames from an address, and CSS imports.
var fetches = regexp.MustCompile(`(?i)<script[^>]*\bsrc=|<link\b|<img\b|<iframe\b|@import|url\(|\bhref="(https?:)?//`)

// TestReportPage: the page has every section, a summary table per kernel with one column
// per arch and the ncu name of each row on hover, a chart per metric, the advisor's
// findings, and nothing it would fetch.
func TestReportPage(t *testing.T) {
	archs := []string{"fermi", "hopper"}
	pg := buildPage(t, Options{}, archs, "transpose_v1", "transpose_v2")
	page := writePage(t, pg)
	for _, want := range []string{
		`<section id="summary">`, `<section id="source">`, `<section id="archs">`, `<section id="stalls">`,
		`<section id="memory">`, `<section id="advice">`, `<section id="roofline">`, `title="gtrace__dram_burst_utilization.pct">`,
		`title="gtrace__l2_slice_imbalance">`,
		`<th>fermi/gtx480</th><th>hopper/h100</th>`,
		`title="sm__cycles_elapsed.avg">cycles</td>`,
		`title="gtrace__global_ld_sectors_per_request">global load sectors/request</td>`,
		`<span class="rule">uncoalesced</span>`, `<span class="rule">bank-conflicts</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg"); n != len(chartMetrics)+len(archs) {
		t.Errorf("page has %d charts, want %d (one per chart metric, a roofline per arch)", n, len(chartMetrics)+len(archs))
	}
	if n := strings.Count(page, `<table class="summary">`); n != 2 {
		t.Errorf("page has %d summary tables, want one per kernel (2)", n)
	}
	if m := fetches.FindAllString(page, -1); m != nil {
		t.Errorf("page would fetch: %q", m)
	}
	// Without the timing engine there are no cycles, and the page says so.
	page = writePage(t, buildPage(t, Options{NoTiming: true}, archs, "transpose_v1"))
	if strings.Contains(page, `>cycles</td>`) || !strings.Contains(page, "No timing replay (--no-timing): cycles") ||
		!strings.Contains(page, "No timing replay (--no-timing): no stall reasons") {
		t.Errorf("a page without timing shows cycles, or does not say why it has none")
	}
	if n := strings.Count(page, "<svg"); n != len(chartMetrics)-1 {
		t.Errorf("page without timing has %d charts, want %d", n, len(chartMetrics)-1)
	}
}
