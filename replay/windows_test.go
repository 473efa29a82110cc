package replay

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// rewindow writes r's trace again with the writer cut into row windows of at least
// minRows rows a warp once a group passes batchRows rows (format.Writer.SetWindows),
// and opens the copy.
func rewindow(t *testing.T, r *format.Reader, batchRows, minRows int) *format.Reader {
	t.Helper()
	var buf bytes.Buffer
	w, err := format.NewWriter(&buf, *r.Meta())
	if err != nil {
		t.Fatal(err)
	}
	w.SetWindows(batchRows, minRows)
	for k := range r.Meta().Launches {
		for c := range r.NumCTAs(k) {
			ws, err := r.ReadCTA(k, c)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteCTA(k, c, ws); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A trace cut into row windows replays exactly as the same trace in whole batches, in
// both engines with any number of workers: each engine steps each warp from one window
// to the next, holding only the windows its live warps are in (the timing engine's
// in-block order reads across a window's end; it joins a CTA with a warp that diverges
// under ITS). Barriers (transpose_v2, reduce_v3) make warps wait for each other across
// window boundaries; divergence_nested splits paths (joined on hopper, windows on
// fermi's SIMT stack). Every view is given back.
func TestWindowsReplayTheSame(t *testing.T) {
	for _, k := range []struct{ name, size string }{
		{"transpose_v2", "n=256"}, {"reduce_v3", "n=65536"}, {"matmul_naive", "width=96"}, {"divergence_nested", ""},
	} {
		var sizes []string
		if k.size != "" {
			sizes = append(sizes, k.size)
		}
		whole := traceOf(t, k.name, sizes...)
		cut := rewindow(t, whole, 64, 4)
		windowed := 0
		for c := range cut.NumCTAs(0) {
			if cut.Windows(0, c) > 1 {
				windowed++
			}
		}
		if windowed == 0 {
			t.Fatalf("%s: no CTA was cut into windows", k.name)
		}
		for _, a := range []string{"fermi", "hopper"} {
			cfg := preset(t, a)
			for _, eng := range engines {
				want, err := eng.run(context.Background(), whole, cfg, Options{Workers: 1, PerPC: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, workers := range eng.workers {
					got, err := eng.run(context.Background(), cut, cfg, Options{Workers: workers, PerPC: true})
					if err != nil {
						t.Fatal(err)
					}
					g, w := &got.Kernels[0], &want.Kernels[0]
					if !reflect.DeepEqual(g.Metrics, w.Metrics) || !reflect.DeepEqual(g.PerPC, w.PerPC) {
						t.Fatalf("%s on %s, %s engine, %d workers: the windowed trace (%d of %d CTAs cut) replays differently", k.name, a, eng.name, workers, windowed, cut.NumCTAs(0))
					}
					if n := cut.Held(); n != 0 {
						t.Fatalf("%s on %s, %s engine: %d views still held", k.name, a, eng.name, n)
					}
				}
			}
		}
	}
}
