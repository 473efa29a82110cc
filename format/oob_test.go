package format

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// oobTrace is one CTA of one warp of loopLaunch: a load of pc 0 with lanes out of
// bounds (FlagOOB), then the add, in a launch captured under --oob=warn.
func oobTrace(t *testing.T) []byte {
	l := loopLaunch("k", 1, 1)
	l.OOBWarn = true
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{Producer: "p", Launches: []Launch{l}})
	if err != nil {
		t.Fatal(err)
	}
	wp := &Warp{}
	var lanes [32]uint64
	for i := range lanes {
		lanes[i] = 0x1000 + 4*uint64(i)
	}
	wp.AppendMem(0, 0xFFFFFFFF, 0, FlagOOB, &lanes)
	wp.Append(1, 0xFFFFFFFF, 0, 0)
	wp.AppendMem(0, 0xFFFFFFFF, 0, 0, &lanes)
	if err := w.WriteCTA(0, 0, []*Warp{wp}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A launch captured under --oob=warn says so in its metadata, its flagged records keep
// FlagOOB, and Summarize counts them by pc.
func TestOOBFlagRoundTrip(t *testing.T) {
	b := oobTrace(t)
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Meta().Launches[0].OOBWarn {
		t.Error("OOBWarn lost in the metadata")
	}
	wp, err := r.ReadWarp(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Flags{FlagOOB, 0, 0}; !reflect.DeepEqual(wp.Flags, want) {
		t.Errorf("flags %v, want %v", wp.Flags, want)
	}
	s, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	if k := s.Kernels[0]; !k.OOBWarn || !reflect.DeepEqual(k.OOB, []PCCount{{0, 1}}) {
		t.Errorf("summary: OOBWarn %v, OOB %v; want true and pc 0 once", k.OOBWarn, k.OOB)
	}
	// A launch without the policy says nothing and has no counts.
	tr := groupedTrace(1, 1)
	plain := tr.write(t)
	r2, err := NewReader(bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Summarize(r2); err != nil || s.Kernels[0].OOBWarn || s.Kernels[0].OOB != nil {
		t.Errorf("summary of a plain trace: %+v, %v", s.Kernels[0], err)
	}
}

// The flag where the launch does not allow it is corruption: the reader refuses the
// batch. (The writer refuses to write it: TestWriterRejects.)
func TestOOBFlagOutsideOOBWarn(t *testing.T) {
	b := oobTrace(t)
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	r.meta.Launches[0].OOBWarn = false // as if a flipped bit had set the flag
	if _, err := r.ReadWarp(0, 0, 0); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "--oob=warn") {
		t.Errorf("flag outside an OOBWarn launch: %v, want ErrCorrupt naming --oob=warn", err)
	}
}

// An unknown policy name in the metadata is a MetaError on "oob".
func TestOOBPolicyName(t *testing.T) {
	good := validMetaJSON(t)
	bad := strings.Replace(good, `"ptx_producer":"synthetic",`, `"ptx_producer":"synthetic","oob":"ignore",`, 1)
	if bad == good {
		t.Fatal("no ptx_producer in the metadata")
	}
	b := rawTrace(t, "2", bad, metaCRC([]byte(bad)))
	var me *MetaError
	if _, err := NewReader(bytes.NewReader(b), int64(len(b))); !errors.As(err, &me) || me.Field != "oob" {
		t.Errorf("oob \"ignore\": %v, want a MetaError on oob", err)
	}
	warn := strings.Replace(good, `"ptx_producer":"synthetic",`, `"ptx_producer":"synthetic","oob":"warn",`, 1)
	b = rawTrace(t, "2", warn, metaCRC([]byte(warn)))
	if _, err := NewReader(bytes.NewReader(b), int64(len(b))); err == nil || !strings.Contains(err.Error(), "footer lists 0 record batches") {
		t.Errorf("oob \"warn\": %v, want it accepted and the missing batch found", err)
	}
}

// SourceAt walks up to the nearest instruction with a line: code under ".loc F 0" has
// none of its own.
func TestSourceAt(t *testing.T) {
	p := loopProgram()
	p.Insts[2].Line = 0
	for _, tc := range []struct {
		pc   int
		want string
	}{{0, "k.cu:7"}, {2, "k.cu:7"}, {3, "k.cu:8"}, {7, "k.cu:6"}, {8, ""}, {-1, ""}} {
		if got := p.SourceAt(tc.pc); got != tc.want {
			t.Errorf("SourceAt(%d) = %q, want %q", tc.pc, got, tc.want)
		}
	}
	p.Insts[0].File = ""
	if got := p.SourceAt(0); got != "" {
		t.Errorf("SourceAt(0) with no file = %q, want \"\"", got)
	}
}
