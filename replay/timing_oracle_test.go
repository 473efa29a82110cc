package replay

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

var timingOracleOut = flag.String("timing-oracle", "", "write every metric of the timing oracle replays to this file")

// TestTimingOracle replays every reference kernel (small sizes, plus a few larger ones)
// through the timing engine on every arch and each scheduler policy, per pc, and writes
// all metrics exactly (float bits) to -timing-oracle. Compare the file before and after a
// performance change of the timing engine.
func TestTimingOracle(t *testing.T) {
	if *timingOracleOut == "" {
		t.Skip("no -timing-oracle file")
	}
	trs := oracleTraces(t, true, [][]string{
		{"transpose_v1", "n=256"}, {"transpose_v2", "n=256"}, {"transpose_v4", "n=256"},
		{"reduce_v3", "n=65536"}, {"volkov_ilp1", "threads=1024"}, {"volkov_ilp4", "threads=1024"},
	})
	type cf struct {
		arch string
		sets []string
	}
	cfs := []cf{
		{"fermi", nil}, {"fermi", []string{"sm.scheduler=two-level"}},
		{"kepler", nil}, {"kepler", []string{"sm.scheduler=lrr"}},
		{"ampere", nil}, {"hopper", nil}, {"hopper", []string{"sm.scheduler=two-level"}},
	}
	var b strings.Builder
	n := 0
	for _, c := range cfs {
		cfg := preset(t, c.arch, c.sets...)
		for _, x := range trs {
			rep, err := Timing(context.Background(), x.r, cfg, Options{PerPC: true})
			if err != nil {
				fmt.Fprintf(&b, "== %s %s %v: error %v\n", x.name, c.arch, c.sets, err)
				continue
			}
			for _, k := range rep.Kernels {
				fmt.Fprintf(&b, "== %s %s %v: %s\n", x.name, c.arch, c.sets, k.Name)
				for _, m := range k.Metrics {
					fmt.Fprintf(&b, "%s %v %x\n", m.Name, m.Value, math.Float64bits(m.Value))
					n++
				}
				for _, p := range k.PerPC {
					fmt.Fprintf(&b, "pc %d\n", p.PC)
					for _, m := range p.Metrics {
						fmt.Fprintf(&b, " %s %x\n", m.Name, math.Float64bits(m.Value))
						n++
					}
				}
			}
		}
	}
	if err := os.WriteFile(*timingOracleOut, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d values, %d bytes, sha256 %x", n, b.Len(), sha256.Sum256([]byte(b.String())))
}
