package kernels

import (
	"strings"
	"testing"
)

func TestLaunchNameRoundTrip(t *testing.T) {
	for _, name := range append(append(HeldOut(), Lessons()...), "copy", "transpose_v1@n=512") {
		k, sz, err := ParseLaunch(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := LaunchName(k, sz); got != name {
			t.Errorf("LaunchName(ParseLaunch(%q)) = %q", name, got)
		}
		if strings.ContainsAny(name, "./ \t") {
			t.Errorf("%q: a launch name must not hold a dot, slash or space (it names a job directory)", name)
		}
	}
	k, sz, err := ParseLaunch("copy")
	if err != nil || !maps(sz, k.Defaults()) {
		t.Errorf("ParseLaunch(copy) = %v, %v; want the defaults", sz, err)
	}
}

func TestParseLaunchRejects(t *testing.T) {
	for name, want := range map[string]string{
		"nosuch@n=4":         "nosuch",
		"copy@":              "no sizes after @",
		"copy@m=4":           `unknown size "m"`,
		"copy@n=4,n=8":       "given twice",
		"hist_global@bins=3": "power of two",
		"copy@n":             "want name=value",
	} {
		_, _, err := ParseLaunch(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLaunch(%q) = %v, want an error with %q", name, err, want)
		}
	}
}

// The held-out set is the size the issue asks for, names each launch once, and every
// launch fits Hopper's limits (227 KB of dynamic shared memory per CTA).
func TestHeldOutSet(t *testing.T) {
	names := HeldOut()
	if len(names) < 40 {
		t.Errorf("%d held-out launches, want at least 40", len(names))
	}
	seen := map[string]bool{}
	maxShared := uint32(0)
	for _, name := range names {
		if seen[name] {
			t.Errorf("%s listed twice", name)
		}
		seen[name] = true
		k, sz, err := ParseLaunch(name)
		if err != nil {
			t.Fatal(err)
		}
		maxShared = max(maxShared, k.Launch(sz).DynShared)
	}
	if maxShared != 232448 {
		t.Errorf("largest dynamic shared memory %d B, want Hopper's per-CTA maximum 232448 B", maxShared)
	}
}
