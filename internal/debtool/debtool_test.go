package debtool

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnableNonFree(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Types: deb\nComponents: main\n\nComponents: main\n", "Types: deb\nComponents: main contrib non-free\n\nComponents: main contrib non-free\n"},
		{"Components: main non-free-firmware\n", "Components: main non-free-firmware contrib non-free\n"},
		{"Components: main contrib non-free\n", "Components: main contrib non-free\n"},
		{"Types: deb\n", "Types: deb\n"},
	} {
		f := filepath.Join(t.TempDir(), "debian.sources")
		if err := os.WriteFile(f, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := enableNonFree(f); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(f); string(got) != c.want {
			t.Errorf("%q became %q, want %q", c.in, got, c.want)
		}
	}
	if err := enableNonFree(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing sources file is no error")
	}
}
