package replay

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/kernels"
	"github.com/gtrace/gtrace/models/arch"
)

var oracleOut = flag.String("oracle", "", "write every metric of the oracle replays to this file")

// TestOracle replays every reference kernel (small sizes, plus a few larger ones) on every
// preset and some overrides, per pc, and writes all metrics exactly (float bits) to
// -oracle. Compare the file before and after a performance change.
func TestOracle(t *testing.T) {
	if *oracleOut == "" {
		t.Skip("no -oracle file")
	}
	trs := oracleTraces(t, false, [][]string{
		{"transpose_v1", "n=256"}, {"transpose_v2", "n=256"}, {"transpose_v4", "n=256"},
		{"reduce_v3", "n=65536"}, {"reduce_v2", "n=16384"}, {"copy", "n=100000", "blocks=64"},
		{"tex_random_tex", "width=256", "height=128", "samples=8"}, {"tex_column_global", "width=256", "height=256"},
	})
	type cf struct {
		arch, gpu string
		sets      []string
	}
	cfs := []cf{
		{"fermi", "", nil}, {"fermi", "c2050", nil}, {"fermi", "", []string{"l1.cache_global=false"}},
		{"kepler", "", nil}, {"kepler", "titan", []string{"shared.bank_width=8"}},
		{"ampere", "", nil}, {"ampere", "rtx3090", nil},
		{"hopper", "", nil}, {"hopper", "h200", nil},
	}
	var b strings.Builder
	for _, c := range cfs {
		for _, x := range trs {
			cfg, err := arch.Preset(c.arch, c.gpu)
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range c.sets {
				k, v, _ := strings.Cut(kv, "=")
				if err := cfg.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Memory(context.Background(), x.r, cfg, Options{PerPC: true, Workers: 2})
			if err != nil {
				t.Fatalf("%s on %s/%s: %v", x.name, c.arch, c.gpu, err)
			}
			for _, k := range rep.Kernels {
				fmt.Fprintf(&b, "== %s %s/%s %v: %s carve=%d l1=%d occ=%+v\n", x.name, c.arch, c.gpu, c.sets, k.Name, k.SharedCarveout, k.L1Bytes, k.Occupancy)
				for _, m := range k.Metrics {
					fmt.Fprintf(&b, "%s %v %x\n", m.Name, m.Value, math.Float64bits(m.Value))
				}
				for _, p := range k.PerPC {
					fmt.Fprintf(&b, "pc %d line %d %q\n", p.PC, p.Line, p.PTX)
					for _, m := range p.Metrics {
						fmt.Fprintf(&b, " %s %x\n", m.Name, math.Float64bits(m.Value))
					}
				}
			}
		}
	}
	if err := os.WriteFile(*oracleOut, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, sha256 %x", b.Len(), sha256.Sum256([]byte(b.String())))
}

// oracleTrace is one named trace of an oracle run.
type oracleTrace struct {
	name string
	r    *format.Reader
}

// oracleTraces captures every reference kernel at its Small sizes under ITS (and under a
// stack too where the kernel completes under one, with stack set), then the extra
// kernel+sizes lists, for the oracle tests of both engines.
func oracleTraces(t *testing.T, stack bool, extra [][]string) []oracleTrace {
	var trs []oracleTrace
	for _, k := range kernels.All() {
		trs = append(trs, oracleTrace{k.Name + " small", traceOf(t, k.Name, k.Small...)})
		if stack && slices.Contains(k.SIMT, kernels.SIMTStack) {
			trs = append(trs, oracleTrace{k.Name + " small stack", captureSIMT(t, format.SIMTStack, k.Name, k.Small...)})
		}
	}
	for _, x := range extra {
		if _, err := kernels.Lookup(x[0]); err != nil {
			t.Logf("skip %s: %v", x[0], err)
			continue
		}
		trs = append(trs, oracleTrace{strings.Join(x, " "), traceOf(t, x[0], x[1:]...)})
	}
	return trs
}
