package report

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gtrace/gtrace/internal/debtool"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
)

// The budgets for a report of 50 kernels on 4 archs.
const (
	budgetKernels = 50
	budgetBytes   = 5 << 20
	budgetRender  = 2 * time.Second
)

// TestReportBudget builds the report of 50 reference kernels (at their test sizes, each
// under the SIMT model it completes in) on fermi, kepler, ampere and hopper with both
// engines, and checks the budgets: the file under 5 MB, and rendered in
// Chromium in under 2 s: the time to the first screen, since sections and kernels
// off screen are laid out when scrolled to. The render time is the page's own clock: a copy of the page
// ends with a script that forces layout and writes performance.now() (milliseconds
// since navigation began) into the DOM, which --dump-dom prints; the report itself
// has no script.
func TestReportBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200-replay report (-short)")
	}
	all := kernels.All()
	if len(all) < budgetKernels {
		t.Fatalf("%d reference kernels, the budget is for %d", len(all), budgetKernels)
	}
	var ins []Input
	for _, k := range all[:budgetKernels] {
		r, err := kernels.SmallTrace(context.Background(), k.Name)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		ins = append(ins, Input{Name: k.Name, Trace: r})
	}
	var cfgs []*arch.Config
	for _, a := range []string{"fermi", "kepler", "ampere", "hopper"} {
		cfg, err := arch.Preset(a, "")
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg)
	}
	start := time.Now()
	pg, err := Build(context.Background(), ins, cfgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := writePage(t, pg)
	t.Logf("%d kernels × %d archs: built in %v, %d bytes (%.1f%% of the budget)",
		len(ins), len(cfgs), time.Since(start).Round(time.Millisecond), len(html), 100*float64(len(html))/budgetBytes)
	if len(html) > budgetBytes {
		t.Errorf("the report is %d bytes, over the %d budget", len(html), budgetBytes)
	}
	if n := strings.Count(html, `<table class="summary">`); n < budgetKernels {
		t.Errorf("the page shows %d kernel summaries, want %d", n, budgetKernels)
	}
	// No launch runs above its roofs: the timing engine keeps DRAM traffic under the
	// preset's bandwidth and arithmetic under its lanes' peak.
	points := 0
	for _, kp := range pg.Kernels {
		for _, run := range kp.Runs {
			r := run.Roof
			if r.FLOP() == 0 || r.DRAMBytes == 0 {
				continue
			}
			points++
			if r.Achieved() > r.Ceiling()*(1+1e-9) {
				t.Errorf("%s on %s: %.4g GFLOP/s above the roofs' %.4g at %.3g FLOP/B", kp.Name, run.Arch,
					r.Achieved()/1e9, r.Ceiling()/1e9, r.Intensity())
			}
		}
	}
	t.Logf("%d roofline points, none above its roofs", points)

	bin := debtool.Path(t, "chromium", "chromium")
	// The best of up to eight renders, stopping at the first within the budget: the
	// budget is the page's, not the load of the packages that make test runs beside
	// this one. When every section was laid out on load, the page took 1.6 s alone and
	// the best of eight 2.42 s once in CI beside replay and validate; with offscreen
	// sections and kernels laid out only when scrolled to (content-visibility), it
	// takes about 0.45 s alone.
	rendered, tries := renderTime(t, bin, html), 1
	for ; rendered > budgetRender && tries < 8; tries++ {
		rendered = min(rendered, renderTime(t, bin, html))
	}
	t.Logf("rendered in %v, the best of %d (budget %v)", rendered.Round(time.Millisecond), tries, budgetRender)
	if rendered > budgetRender {
		t.Errorf("the report took %v to parse and lay out, over the %v budget", rendered, budgetRender)
	}
	// The clock sees the work: the same page with its main section three times over
	// takes longer.
	a, b := strings.Index(html, "<main>"), strings.Index(html, "</main>")
	if a < 0 || b < a {
		t.Fatal("the page has no <main>")
	}
	// Each the best of three, taken in turn: one render of the heavy page took 800 ms
	// against the page's 834 once while other work ran on both cores beside make test.
	heavy := html[:b] + strings.Repeat(html[a+len("<main>"):b], 2) + html[b:]
	slow := renderTime(t, bin, heavy)
	for range 2 {
		rendered = min(rendered, renderTime(t, bin, html))
		slow = min(slow, renderTime(t, bin, heavy))
	}
	t.Logf("three times the page: %v, the page %v (each the best of three or more)", slow.Round(time.Millisecond), rendered.Round(time.Millisecond))
	if slow <= rendered {
		t.Errorf("three times the page renders in %v, the page in %v: the clock does not see the layout", slow, rendered)
	}
}

// renderTime opens a copy of html that ends with a script forcing layout and writing
// performance.now() into the DOM, and returns that time.
func renderTime(t *testing.T, bin, html string) time.Duration {
	t.Helper()
	const clock = `<script>document.body.offsetHeight;document.body.setAttribute("data-rendered-ms",performance.now().toFixed(1))</script>`
	i := strings.LastIndex(html, "</body>")
	if i < 0 {
		t.Fatal("the page has no </body>")
	}
	page := filepath.Join(t.TempDir(), "timed.html")
	if err := os.WriteFile(page, []byte(html[:i]+clock+html[i:]), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := chromium(t, bin, page, "--dump-dom")
	_, after, ok := strings.Cut(dom, `data-rendered-ms="`)
	ms, err := strconv.ParseFloat(strings.SplitN(after, `"`, 2)[0], 64)
	if !ok || err != nil {
		t.Fatalf("the timed page wrote no render time into its DOM (%v)", err)
	}
	return time.Duration(ms * float64(time.Millisecond))
}
