package replay

import (
	"math"
	"testing"
)

// A lone warp's random DRAM reads on the H200 (scripts/hw/probe.sh streamlat, the
// `#each` histogram, hw-facts section 16) come in two peaks, near and far (about 570
// and 750 cycles a round at 1980 MHz), and 15% of them in a flat tail to about 1300
// cycles: a plateau, a step down near 1100, a second plateau, and a sharp end. That is
// what a blackout gives, a time each channel serves nothing (an all-bank refresh,
// REFab in JESD238 HBM3, is one): a read that comes during one waits for its end,
// uniformly 0 to R, so each peak is copied flat R further on, and the step is where
// the near peak's copy ends. Here the histogram below the tail stands for the reads no
// blackout caught, and R and f (the share of reads caught) are fitted to the whole
// histogram; the blackout must explain the tail (a tenth of the squared error without
// it) and where it ends. The timing engine has no such spread (docs/issue-11.md,
// "Next, in order", item (e)).
func TestDRAMTailProbe(t *testing.T) {
	const bin, tailFrom = eachBin, 830 // cycles; the tail starts past the far peak
	dens := streamlatEachHist(t)
	var n float64
	for _, c := range dens {
		n += c
	}
	base := make([]float64, len(dens)) // the reads no blackout caught, as measured below the tail
	var caught float64
	for b := range dens {
		dens[b] /= n
		if b*bin < tailFrom {
			base[b] = dens[b]
		} else {
			caught += dens[b]
		}
	}
	for b := range base {
		base[b] /= 1 - caught
	}
	// predict: (1-f) of base as it is, f of it spread uniformly over the next R cycles.
	predict := func(rBins int, f float64) []float64 {
		p := make([]float64, len(dens)+rBins)
		for b, d := range base {
			p[b] += (1 - f) * d
			for k := range rBins {
				p[b+k] += f * d / float64(rBins)
			}
		}
		return p
	}
	sqerr := func(p []float64) float64 {
		var e float64
		for b := range p {
			var d float64
			if b < len(dens) {
				d = dens[b]
			}
			e += (p[b] - d) * (p[b] - d)
		}
		return e
	}
	none := sqerr(predict(0, 0))
	best, bestR, bestF := math.Inf(1), 0, 0.0
	for rBins := 300 / bin; rBins <= 900/bin; rBins++ {
		for f := 0.01; f <= 0.40; f += 0.005 {
			if e := sqerr(predict(rBins, f)); e < best {
				best, bestR, bestF = e, rBins, f
			}
		}
	}
	r := float64(bestR * bin)
	t.Logf("%.0f reads, %.1f%% past %d cycles: a blackout of %.0f cycles (%.0f ns at 1980 MHz) catching %.1f%% of reads, one every %.2f µs a channel if they are even; squared error %.3g against %.3g without",
		n, 100*caught, tailFrom, r, r/1.98, 100*bestF, r/1.98/bestF/1000, best, none)
	if best > none/10 {
		t.Errorf("the blackout leaves %.3g of the histogram's squared error, %.3g without it: want a tenth at most", best, none)
	}
	// Its end: the tail stops where the far peak's copy does, R past the far peak
	// (a read the blackout caught waits at most R).
	far := 660 / bin // the far peak: the highest bin from 660 cycles to the tail
	for b := far; b < tailFrom/bin; b++ {
		if dens[b] > dens[far] {
			far = b
		}
	}
	var within, past float64
	for b := (tailFrom + bin - 1) / bin; b < len(dens); b++ {
		if b*bin <= far*bin+int(r)+40 {
			within += dens[b]
		} else {
			past += dens[b]
		}
	}
	t.Logf("far peak %d cycles: %.1f%% of reads from %d to %.0f cycles, %.2f%% past", far*bin, 100*within, tailFrom, float64(far*bin)+r+40, 100*past)
	if within < 0.1 || past > 0.01 {
		t.Errorf("%.1f%% of reads in the tail up to R past the far peak and %.2f%% past it: want 10%% at least and 1%% at most", 100*within, 100*past)
	}
}
