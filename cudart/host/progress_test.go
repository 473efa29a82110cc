package host

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

// recorder is a Progress that writes down what it is told.
type recorder struct{ events []string }

func (r *recorder) Start(n int, kernel string, c Config) {
	r.events = append(r.events, fmt.Sprintf("start %d %s %v", n, kernel, c.Grid))
}
func (r *recorder) CTAs(done, total int) {
	r.events = append(r.events, fmt.Sprintf("ctas %d/%d", done, total))
}
func (r *recorder) End(warpInsts uint64, err error) {
	r.events = append(r.events, fmt.Sprintf("end %v %v", warpInsts > 0, err != nil))
}

// Progress hears of each launch that reaches the emulator: its start, its CTAs as
// they finish (the last says all are done), and its end with its warp-instructions, or
// its failure; a launch refused before it runs (a bad configuration) is not told.
// LaunchLog turns that into the lines gtrace run shows.
func TestProgress(t *testing.T) {
	rec := &recorder{}
	var buf bytes.Buffer
	log := NewLaunchLog(&buf, false, 1) // a summary after every launch
	out := filepath.Join(t.TempDir(), "p.gtrace")
	r, h := newRuntime(t, out, "lz4.fatbin")
	r.opts.Progress = both{rec, log}
	if err := r.RegisterFunction(h, scaleStub, "_Z5scalePff"); err != nil {
		t.Fatal(err)
	}
	dy, _ := r.Malloc(4 * 64)
	dim := func(x uint32) format.Dim3 { return format.Dim3{X: x, Y: 1, Z: 1} }
	launch := func(grid, block uint32, p uint64) error {
		return r.Launch(context.Background(), scaleStub, Config{Grid: dim(grid), Block: dim(block)}, [][]byte{le64(p), le32(0)})
	}
	if err := launch(2, 32, dy); err != nil {
		t.Fatal(err)
	}
	if err := launch(1, 4096, dy); err == nil {
		t.Fatal("a block of 4096 threads ran")
	}
	if err := launch(1, 32, 0x10); err == nil {
		t.Fatal("a launch that stores to 0x10 ran")
	}
	got := strings.Join(rec.events, "; ")
	if !regexp.MustCompile(`^start 1 _Z5scalePff 2,1,1; (ctas [12]/2; )*ctas 2/2; end true false; start 2 _Z5scalePff 1,1,1; end false true$`).MatchString(got) {
		t.Errorf("Progress was told: %s", got)
	}
	want := regexp.MustCompile(`^gtrace run: 1 launch, \d+ warp-instructions in 0s\ngtrace run: 2 launches \(1 failed\), \d+ warp-instructions in 0s\n$`)
	if !want.MatchString(buf.String()) {
		t.Errorf("LaunchLog wrote %q", buf.String())
	}
	r.Close(context.Background())
}

// both tells two Progresses.
type both [2]Progress

func (b both) Start(n int, k string, c Config) { b[0].Start(n, k, c); b[1].Start(n, k, c) }
func (b both) CTAs(done, total int)            { b[0].CTAs(done, total); b[1].CTAs(done, total) }
func (b both) End(w uint64, err error)         { b[0].End(w, err); b[1].End(w, err) }
