package cudart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNoPtxas is wrapped by PtxasRegisters's error when ptxas is not on PATH.
var ErrNoPtxas = errors.New("ptxas is not on PATH (it comes with the CUDA toolkit; Debian's is " +
	"nvidia-cuda-toolkit, in non-free)")

// ptxasTimeout bounds one ptxas run: a kernel of tens of thousands of PTX lines takes
// a few seconds.
const ptxasTimeout = 2 * time.Minute

// Registers is what ptxas allocated for one kernel.
type Registers struct {
	PerThread   int    // registers a thread
	SpillStores int    // bytes a thread spills to local memory (stores; the PTX has none of them)
	SpillLoads  int    // bytes a thread loads back
	Target      string // the sm_XX ptxas compiled for
	Release     string // ptxas's release, "11.8"
}

var (
	ptxTarget    = regexp.MustCompile(`(?m)^\s*\.target\s+(sm_\d+)`)
	ptxasEntry   = regexp.MustCompile(`Compiling entry function '([^']+)' for '(sm_\w+)'`)
	ptxasUsed    = regexp.MustCompile(`Used (\d+) registers`)
	ptxasSpill   = regexp.MustCompile(`(\d+) bytes spill stores, (\d+) bytes spill loads`)
	ptxasRelease = regexp.MustCompile(`release (\d+\.\d+)`)
)

// PtxasRegisters assembles kernel, an .entry of ptx, with ptxas for the sm_XX its
// .target names (sm_80 when it names none) and returns the registers ptxas allocates to
// a thread: the count that bounds occupancy on a GPU, which PTX's virtual registers do
// not give. ptxas honours the kernel's .maxnreg, .maxntid and .minnctapersm.
func PtxasRegisters(ctx context.Context, ptx []byte, kernel string) (Registers, error) {
	target := "sm_80"
	if m := ptxTarget.FindSubmatch(ptx); m != nil {
		target = string(m[1])
	}
	return PtxasRegistersFor(ctx, ptx, kernel, target)
}

// PtxasRegistersFor is PtxasRegisters for the GPU target (sm_90) rather than the
// PTX's .target: what a driver's JIT compiler does with a program's PTX on that GPU.
func PtxasRegistersFor(ctx context.Context, ptx []byte, kernel, target string) (Registers, error) {
	path, err := exec.LookPath("ptxas")
	if err != nil {
		return Registers{}, ErrNoPtxas
	}
	tmp, err := os.MkdirTemp("", "gtrace-ptxas-")
	if err != nil {
		return Registers{}, err
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, "in.ptx")
	if err := os.WriteFile(in, ptx, 0o600); err != nil {
		return Registers{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, ptxasTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-arch="+target, "--verbose", "--entry", kernel,
		"-o", filepath.Join(tmp, "out.cubin"), in).CombinedOutput()
	if ctx.Err() != nil {
		return Registers{}, fmt.Errorf("ptxas %s: %w", target, ctx.Err())
	}
	if err != nil {
		msg := strings.ReplaceAll(string(out), in, "the PTX") // not the temporary file's name
		return Registers{}, fmt.Errorf("ptxas %s: %v: %s", target, err, firstLines(msg, 3))
	}
	r, err := parsePtxas(string(out), kernel)
	if err != nil {
		return Registers{}, err
	}
	r.Release = ptxasReleaseOf(ctx, path)
	return r, nil
}

// ptxasReleases holds each ptxas's release ("11.8"), asked once a process: gtrace run
// asks ptxas for every kernel a program launches.
var ptxasReleases sync.Map // path -> string

// ptxasReleaseOf is the release `ptxas --version` at path names, "" if it names none.
func ptxasReleaseOf(ctx context.Context, path string) string {
	if v, ok := ptxasReleases.Load(path); ok {
		return v.(string)
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "" // not kept: a cancelled run may ask again
	}
	var rel string
	if m := ptxasRelease.FindStringSubmatch(string(out)); m != nil {
		rel = m[1]
	}
	ptxasReleases.Store(path, rel)
	return rel
}

// parsePtxas reads kernel's figures from ptxas --verbose's report: the "Used N
// registers" and spill lines that follow its "Compiling entry function" line.
func parsePtxas(out, kernel string) (Registers, error) {
	var r Registers
	in, found := false, false
	for _, line := range strings.Split(out, "\n") {
		if m := ptxasEntry.FindStringSubmatch(line); m != nil {
			in = m[1] == kernel
			if in {
				r.Target = m[2]
			}
			continue
		}
		if !in {
			continue
		}
		if m := ptxasSpill.FindStringSubmatch(line); m != nil {
			r.SpillStores, _ = strconv.Atoi(m[1])
			r.SpillLoads, _ = strconv.Atoi(m[2])
		}
		if m := ptxasUsed.FindStringSubmatch(line); m != nil {
			r.PerThread, _ = strconv.Atoi(m[1])
			found = true
		}
	}
	if !found {
		return Registers{}, fmt.Errorf("ptxas reported no register count for %s: %s", kernel, firstLines(out, 3))
	}
	return r, nil
}

// firstLines is s's first n lines, trimmed, joined by "; ".
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "; ")
}
