// Package clangtest gives tests clang-14, the CUDA-to-PTX compiler that needs no CUDA
// SDK. Where it is not installed and the test runs as root on Debian (as CI does), it
// installs Debian's clang-14 once; otherwise the test is skipped, saying what it needs.
package clangtest

import (
	"testing"

	"github.com/gtrace/gtrace/internal/debtool"
)

// Clang14 returns clang-14's path, installing it first where it can, or skips t.
func Clang14(t testing.TB) string {
	t.Helper()
	return debtool.Path(t, "clang-14", "clang-14")
}
