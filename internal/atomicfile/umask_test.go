//go:build unix

package atomicfile

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestModeFollowsUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	if got := writeString(t, filepath.Join(t.TempDir(), "out.txt"), "hello"); got != 0o640 {
		t.Errorf("mode %v, want 0640 (0666 less umask 027)", got)
	}
}
