package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
	"github.com/gtrace/gtrace/plan"
)

// TestPlanCommand runs the double-buffering example: its reference kernel is captured
// and timed, the copies overlap the kernels on two streams and the copies back overlap
// the copies in (the H200's 3 copy engines), so the plan takes less than its steps
// one after another; with one copy engine it takes longer. JSON carries the same.
// A trace kernel is read relative to the plan; errors name the step and exit 1.
func TestPlanCommand(t *testing.T) {
	three := planJSON(t, "../../examples/double-buffer.yaml")
	if three.Arch != "hopper/h200" || len(three.Spans) != 16 || three.Kernels["saxpy"].NS <= 0 || three.TotalNS >= three.SerialNS {
		t.Errorf("plan: %+v", three)
	}
	code, out, errs := gtrace(t, "plan", "../../examples/double-buffer.yaml", "--set", "pcie.copy_engines=1")
	if code != 0 || !strings.Contains(out, "1 copy engine(s)") || !strings.Contains(out, "with overlap") {
		t.Fatalf("plan with one engine: exit %d\n%s%s", code, out, errs)
	}
	var total, serial float64
	if _, err := fmt.Sscanf(out[strings.Index(out, "with overlap"):], "with overlap %f us; one step after another %f us", &total, &serial); err != nil {
		t.Fatalf("no totals in %q: %v", out, err)
	}
	if total*1e3 <= three.TotalNS {
		t.Errorf("one copy engine: %.1f us, three: %.1f us; want one slower", total, three.TotalNS/1e3)
	}

	dir := t.TempDir()
	if code, _, errs := gtrace(t, "capture", "add_vectors", "--size", "n=4096", "-o", filepath.Join(dir, "add.gtrace")); code != 0 {
		t.Fatalf("capture: %s", errs)
	}
	good := "buffers:\n  a: {bytes: 16KB}\nkernels:\n  add: {trace: add.gtrace}\nsteps:\n  - {stream: 0, copy: a, to: device}\n  - {stream: 0, run: add}\n"
	bad := strings.Replace(good, "run: add", "run: mul", 1)
	for name, text := range map[string]string{"good.yaml": good, "bad.yaml": bad} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := gtrace(t, "plan", filepath.Join(dir, "good.yaml"), "--arch", "fermi"); code != 0 || !strings.Contains(out, "add.gtrace (timing engine)") || !strings.Contains(out, "PCIe 2.0 x16") {
		t.Errorf("plan with a trace on fermi: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := gtrace(t, "plan", filepath.Join(dir, "bad.yaml"), "--arch", "hopper"); code != 1 || !strings.Contains(errs, `steps[1]: run: unknown kernel "mul"`) {
		t.Errorf("plan with an unknown kernel: exit %d %q", code, errs)
	}
	if code, _, errs := gtrace(t, "plan", filepath.Join(dir, "good.yaml")); code != 2 || !strings.Contains(errs, "give --arch") {
		t.Errorf("plan without an arch: exit %d %q", code, errs)
	}
}

// runPlanOnTheH100 runs scripts/hw/streamtime.cu under gtrace run and lays its trace
// out (plan.FromTrace), for the interval between each timed round's two events, which
// traces/hw/h100-2026-11-27-streamtime has from an H100: with the H100's own kernel
// times the plan (copies, streams, events, the default stream, kernels side by side)
// must come within 20% of every case; with the timing engine's (gtrace plan) the
// figures are logged and held within 1.5x, the engine's error on the kernel alone
// included (0.76x to 1.09x since the one lane's store at its end no longer keeps its
// loop in trace order; 1.39x to 2.07x before).
func runPlanOnTheH100(t *testing.T, lib string) {
	gpuLines, order := readStreamtime(t, filepath.Join("..", "..", "traces", "hw", "h100-2026-11-27-streamtime", "streamtime.txt"))
	exe := nvccProgram(t, filepath.Join("..", "..", "scripts", "hw", "streamtime.cu"), "-cudart", "shared")
	trace := filepath.Join(t.TempDir(), "streamtime.gtrace")
	if code, _, errs := gtrace(t, "run", "--cudart", lib, "-o", trace, exe); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	rd, err := format.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	meta := rd.Meta()
	rd.Close()
	// Each line's launches, two rounds each: a kernel line one launch a round, a case
	// line S (its streams); the chain R is each line's last number but its time.
	var gpuNS []float64
	for _, key := range order {
		f := strings.Fields(key)
		launches := 1
		if f[0] == "case" {
			launches, _ = strconv.Atoi(f[1])
		}
		r := "kernel " + f[len(f)-1]
		for range 2 * launches {
			gpuNS = append(gpuNS, gpuLines[r])
		}
	}
	if len(gpuNS) != len(meta.Launches) {
		t.Fatalf("the trace holds %d launches, the H100's lines %d", len(meta.Launches), len(gpuNS))
	}
	cfg, err := arch.Preset("hopper", "h100")
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.FromTrace(meta, gpuNS, cfg.PeakDRAMBytes())
	if err != nil {
		t.Fatal(err)
	}
	times := map[string]float64{}
	for _, k := range p.Kernels {
		times[k.Name] = k.NS
	}
	tl, err := p.Layout(cfg.PCIe, cfg.SM.Count, times)
	if err != nil {
		t.Fatal(err)
	}
	withGPU := eventIntervals(t, tl.Spans, len(order))
	whole := planJSON(t, trace, "--arch", "hopper", "--gpu", "h100")
	var spans []plan.Span
	for _, s := range whole.Spans {
		if ev, ok := strings.CutPrefix(s.What, "record "); ok {
			spans = append(spans, plan.Span{Step: plan.Step{Kind: plan.Record, Event: ev}, EndNS: s.EndNS})
		}
	}
	withEngine := eventIntervals(t, spans, len(order))
	for i, key := range order {
		gpu := gpuLines[key]
		t.Logf("%-28s H100 %7.1f us  plan %7.1f us (%+5.1f%%) with the H100's kernel times, %7.1f us (%.2fx) with the timing engine's",
			key, gpu/1e3, withGPU[i]/1e3, 100*(withGPU[i]/gpu-1), withEngine[i]/1e3, withEngine[i]/gpu)
		if strings.HasPrefix(key, "case") && math.Abs(withGPU[i]/gpu-1) > 0.20 {
			t.Errorf("%s: the plan with the H100's kernel times gives %.1f us, the H100 %.1f (more than 20%% apart)", key, withGPU[i]/1e3, gpu/1e3)
		}
		if r := withEngine[i] / gpu; r > 1.5 || r < 1/1.5 {
			t.Errorf("%s: gtrace plan gives %.1f us, the H100 %.1f (more than 1.5x apart)", key, withEngine[i]/1e3, gpu/1e3)
		}
	}
}

// readStreamtime reads the H100's runs of the streams probe: each line's median over the
// runs in ns, by the line less its time ("kernel R", "case S B R"), and those keys in
// the order of the first run.
func readStreamtime(t *testing.T, path string) (map[string]float64, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string][]float64{}
	var order []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "kernel" && f[0] != "case" {
			continue
		}
		ms, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		key := strings.Join(f[:len(f)-1], " ")
		if _, ok := runs[key]; !ok {
			order = append(order, key)
		}
		runs[key] = append(runs[key], ms*1e6)
	}
	med := map[string]float64{}
	for key, v := range runs {
		slices.Sort(v)
		med[key] = v[len(v)/2]
	}
	if len(order) == 0 {
		t.Fatalf("%s: no lines", path)
	}
	return med, order
}

// eventIntervals is, for each of n lines of the probe, the time between its timed
// round's two events: the program records 4 events a line (two rounds of start and
// stop), FromTrace names them e1, e2, ... in order.
func eventIntervals(t *testing.T, spans []plan.Span, n int) []float64 {
	t.Helper()
	end := map[string]float64{}
	for _, s := range spans {
		if s.Step.Kind == plan.Record {
			end[s.Step.Event] = s.EndNS
		}
	}
	if len(end) != 4*n {
		t.Fatalf("%d events recorded, want 4 for each of %d lines", len(end), n)
	}
	out := make([]float64, n)
	for i := range n {
		out[i] = end[fmt.Sprintf("e%d", 4*i+4)] - end[fmt.Sprintf("e%d", 4*i+3)]
	}
	return out
}

// planOutput is what gtrace plan --format json prints.
type planOutput struct {
	Arch     string  `json:"arch"`
	TotalNS  float64 `json:"total_ns"`
	SerialNS float64 `json:"serial_ns"`
	Spans    []struct {
		What   string  `json:"what"`
		Engine string  `json:"engine"`
		EndNS  float64 `json:"end_ns"`
	} `json:"spans"`
	Kernels map[string]struct {
		NS float64 `json:"ns"`
	} `json:"kernels"`
}

// planJSON runs gtrace plan --format json on a plan or trace with the flags given.
func planJSON(t *testing.T, args ...string) planOutput {
	t.Helper()
	code, out, errs := gtrace(t, append(append([]string{"plan"}, args...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("plan %v: exit %d: %s", args, code, errs)
	}
	var p planOutput
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan %v --format json: %v\n%s", args, err, out)
	}
	return p
}
