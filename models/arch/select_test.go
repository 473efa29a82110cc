package arch

import (
	"strings"
	"testing"
)

// Every way a user names a preset, and every way to get it wrong.
func TestLookup(t *testing.T) {
	for _, tc := range []struct{ name, gpu, want string }{
		{"hopper", "", "hopper/h100"},
		{"hopper", "h200", "hopper/h200"},
		{" Hopper/H200 ", "", "hopper/h200"},
		{"hopper/h200", "h200", "hopper/h200"},
		{"h200", "", "hopper/h200"},
		{"rtx3090", "", "ampere/rtx3090"},
		{"gtx480", "", "fermi/gtx480"},
	} {
		c, err := Lookup(tc.name, tc.gpu)
		if err != nil || c.Arch+"/"+c.GPU != tc.want {
			t.Errorf("Lookup(%q, %q) = %v, %v; want %s", tc.name, tc.gpu, c, err, tc.want)
			continue
		}
		if want, _ := Preset(c.Arch, c.GPU); c.L2.Size != want.L2.Size || c.Name != want.Name {
			t.Errorf("Lookup(%q, %q) differs from its preset", tc.name, tc.gpu)
		}
	}
	for _, tc := range []struct{ name, gpu, want string }{
		{"volta", "", "fermi, kepler, ampere, hopper"},
		{"hopper/h800", "", "h100, h200"},
		{"hopper/h100", "h200", "give it once"},
		{"h200", "h100", "unknown arch"},
		{"", "", "unknown arch"},
	} {
		if _, err := Lookup(tc.name, tc.gpu); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Lookup(%q, %q) = %v, want an error mentioning %q", tc.name, tc.gpu, err, tc.want)
		}
	}
}

// SetPairs applies in order (the last value wins) and names the pair it refuses.
func TestSetPairs(t *testing.T) {
	c, _ := Preset("ampere", "")
	if err := c.SetPairs([]string{"l2.size = 8MB", "l2.size=4MB"}); err != nil || c.L2.Size != 4<<20 {
		t.Errorf("SetPairs: l2.size %d, %v; want 4 MB", c.L2.Size, err)
	}
	if src := c.sources["l2.size"]; src != "set" {
		t.Errorf("source of l2.size %q, want set", src)
	}
	for _, tc := range []struct {
		pairs []string
		want  string
	}{
		{[]string{"l2.size"}, `"l2.size": want KEY=VALUE`},
		{[]string{"l2.size=1MB", "l1.sise=1"}, "l1.sise=1: unknown"},
		{[]string{"l2.size=big"}, "l2.size=big: "},
	} {
		if err := c.SetPairs(tc.pairs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetPairs(%q) = %v, want an error mentioning %q", tc.pairs, err, tc.want)
		}
	}
}
