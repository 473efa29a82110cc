package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanCommand runs the double-buffering example: its reference kernel is captured
// and timed, the copies overlap the kernels on two streams and the copies back overlap
// the copies in (the H200's 3 copy engines), so the plan takes less than its steps
// one after another; with one copy engine it takes longer. JSON carries the same.
// A trace kernel is read relative to the plan; errors name the step and exit 1.
func TestPlanCommand(t *testing.T) {
	code, out, errs := gtrace(t, "plan", "../../examples/double-buffer.yaml", "--format", "json")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	var three struct {
		Arch     string  `json:"arch"`
		TotalNS  float64 `json:"total_ns"`
		SerialNS float64 `json:"serial_ns"`
		Spans    []struct {
			Engine string `json:"engine"`
		} `json:"spans"`
		Kernels map[string]struct {
			NS float64 `json:"ns"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &three); err != nil {
		t.Fatalf("plan --format json: %v\n%s", err, out)
	}
	if three.Arch != "hopper/h200" || len(three.Spans) != 16 || three.Kernels["saxpy"].NS <= 0 || three.TotalNS >= three.SerialNS {
		t.Errorf("plan: %+v", three)
	}
	code, out, errs = gtrace(t, "plan", "../../examples/double-buffer.yaml", "--set", "pcie.copy_engines=1")
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
