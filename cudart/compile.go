package cudart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoCompiler is wrapped by Compile's error when neither clang-14 nor nvcc is on PATH.
var ErrNoCompiler = errors.New("neither clang-14 nor nvcc is on PATH. Install Debian's clang-14 " +
	"(apt-get install clang-14), or compile to PTX elsewhere")

// Compile turns the CUDA file cu into PTX for sm_80 with line information (.loc), so
// that errors, faults and the program table can name its lines. It prefers clang-14
// with the header folder, which needs no CUDA SDK, and falls back to nvcc with the SDK's
// own headers. producer is the compiler's name. clang-14 reads the headers from
// IncludeDir(""), which it writes once per header version.
func Compile(ctx context.Context, cu string) (ptx []byte, producer string, err error) {
	tmp, err := os.MkdirTemp("", "gtrace-cu-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "out.ptx")
	var cmd *exec.Cmd
	if path, err := exec.LookPath("clang-14"); err == nil {
		// The PTX's .file names the header folder, and so do the faults inside a header
		// function: the folder gtrace cuda-include prints, which stays, when it can be
		// written, the temporary one otherwise.
		inc, err := IncludeDir("")
		if err != nil {
			if inc, err = tmp, WriteInclude(tmp); err != nil {
				return nil, "", err
			}
		}
		// -gline-tables-only adds .loc line information and no other debug data.
		args := append(ClangArgs(inc), "-O3", "-gline-tables-only", "-S", "-o", out, cu)
		cmd, producer = exec.CommandContext(ctx, path, args...), "clang-14"
	} else if path, err := exec.LookPath("nvcc"); err == nil {
		cmd, producer = exec.CommandContext(ctx, path, "-ptx", "-O3", "-lineinfo", "-arch=sm_80", "-o", out, cu), "nvcc"
	} else {
		return nil, "", fmt.Errorf("compiling %s: %w", cu, ErrNoCompiler)
	}
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("compiling %s with %s: %v\n%s", cu, producer, err, msg)
	}
	ptx, err = os.ReadFile(out)
	return ptx, producer, err
}
