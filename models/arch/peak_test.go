package arch

import (
	"math"
	"strings"
	"testing"
)

// TestPeaksMatchDatasheets: the peak FP32 and FP64 rates a roofline draws, derived from
// each preset's SM count, clock and lanes (all sourced keys), are the figures the
// vendor's datasheet or whitepaper states for that GPU, within 2%; and the DRAM roof is
// the preset's bandwidth. A preset whose lanes or clock were wrong would miss here.
func TestPeaksMatchDatasheets(t *testing.T) {
	for _, tc := range []struct {
		gpu        string
		fp32, fp64 float64 // GFLOP/s as published; 0: not checked (see why)
		doc        string
	}{
		{"fermi/gtx480", 1345, 168, "GeForce GTX 480 specifications (FP64 at 1/8 on GeForce)"},
		{"fermi/c2050", 1030, 515, "Tesla C2050 datasheet"},
		{"kepler/k20x", 3950, 1310, "Tesla K20X datasheet"},
		// The TITAN's 1.3 TFLOPS FP64 is at the lower clock its full-rate FP64 mode
		// runs at; the preset keeps the 837 MHz of its FP32 figure.
		{"kepler/titan", 4500, 0, "GeForce GTX TITAN specifications"},
		{"ampere/a100", 19500, 9700, "A100 datasheet (non-tensor FP32 and FP64)"},
		{"ampere/rtx3090", 35580, 556, "GA102 whitepaper (RTX 3090 at its 1695 MHz boost; FP64 at 1/64)"},
		{"hopper/h100", 67000, 34000, "H100 SXM5 datasheet (non-tensor)"},
		{"hopper/h200", 67000, 34000, "H200 SXM datasheet (non-tensor)"},
	} {
		a, g, _ := strings.Cut(tc.gpu, "/")
		c, err := Preset(a, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []struct {
			fp64 bool
			want float64
		}{{false, tc.fp32}, {true, tc.fp64}} {
			if x.want == 0 {
				continue
			}
			got := c.PeakFLOPs(x.fp64) / 1e9
			if math.Abs(got-x.want) > 0.02*x.want {
				t.Errorf("%s fp64=%v: peak %.0f GFLOP/s from the preset, %s says %.0f", tc.gpu, x.fp64, got, tc.doc, x.want)
			}
		}
		if got := c.PeakDRAMBytes(); got != c.DRAM.BandwidthGBs*1e9 || got <= 0 {
			t.Errorf("%s: DRAM roof %g B/s, want the preset's %g GB/s", tc.gpu, got, c.DRAM.BandwidthGBs)
		}
	}
}
