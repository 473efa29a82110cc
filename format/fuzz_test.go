package format

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the seed files in testdata/")

// seedFiles are small traces for the fuzzer: valid ones, and damaged copies of them.
func seedFiles(t *testing.T) map[string][]byte {
	small := randomTrace(11)
	// Keep the seeds small: one launch, few rows.
	small.meta.Launches = small.meta.Launches[:1]
	small.ctas = small.ctas[:1]
	for _, ws := range small.ctas[0] {
		for _, w := range ws {
			if w.Len() > 12 {
				*w = *cutWarp(w, 12)
			}
		}
	}
	valid := small.write(t)
	loop := benchTraceSmall()
	lb := loop.write(t)
	flip := bytes.Clone(valid)
	flip[len(flip)/2] ^= 0xFF
	return map[string][]byte{
		"random.gtrace":      valid,
		"loop.gtrace":        lb,
		"truncated.gtrace":   valid[:len(valid)*2/3],
		"flipped.gtrace":     flip,
		"empty-trace.gtrace": (&trace{meta: Meta{Producer: "p"}}).write(t),
	}
}

// cutWarp keeps the first n rows of w.
func cutWarp(w *Warp, n int) *Warp {
	c := w.Clone()
	c.PC, c.Mask, c.Path, c.Flags = c.PC[:n], c.Mask[:n], c.Path[:n], c.Flags[:n]
	c.Mode, c.Base, c.Stride = c.Mode[:n], c.Base[:n], c.Stride[:n]
	c.DeltaOff, c.CoordOff = c.DeltaOff[:n+1], c.CoordOff[:n+1]
	c.Deltas, c.Coords = c.Deltas[:c.DeltaOff[n]], c.Coords[:c.CoordOff[n]]
	return c
}

func benchTraceSmall() *trace {
	t := &trace{meta: Meta{Producer: "seed", Launches: []Launch{loopLaunch("loop", 2, 2)}}}
	ctas := make([][]*Warp, 2)
	for c := range ctas {
		ws := []*Warp{{}, {}}
		loopCTA(shapes[0], 0, c, 2, ws, 3, nil)
		ctas[c] = ws
	}
	t.ctas = [][][]*Warp{ctas}
	return t
}

// TestSeedFiles keeps testdata/ in step with the writer: run with -update after a
// format change.
func TestSeedFiles(t *testing.T) {
	for name, want := range seedFiles(t) {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestSeedFiles -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: the writer's output changed (run go test -run TestSeedFiles -update)", path)
		}
	}
}

// FuzzReader feeds arbitrary bytes to the reader and every read path. It must return
// typed errors and never panic; maxBatchBytes keeps each input's memory under 64 MiB.
func FuzzReader(f *testing.F) {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	saved := maxBatchBytes
	maxBatchBytes = 64 << 20
	f.Cleanup(func() { maxBatchBytes = saved })
	f.Fuzz(func(t *testing.T, data []byte) {
		err := readEverything(data)
		if err == nil {
			return
		}
		if !typedReadError(err) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}
