// Package cudart is gtrace's stand-in for the CUDA runtime. Today it holds the
// device-side header that `gtrace capture --cu` compiles CUDA with when no CUDA SDK is
// installed (include/); the host side behind `gtrace run` comes later (DESIGN.md).
package cudart

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/internal/atomicfile"
)

//go:embed include
var include embed.FS

// Header is the file that the clang flags of ClangArgs force-include; the others in the
// folder carry the CUDA SDK's names and include it.
const Header = "gtrace_cuda_runtime.h"

// ClangArgs are the clang-14 flags that compile CUDA to PTX for sm_80 with the header
// folder dir (as written by WriteInclude) instead of a CUDA SDK. +ptx70 enables the
// builtins of the *_sync warp functions, which clang otherwise ties to a CUDA SDK's
// version; clang writes .version 7.0 for sm_80 either way.
func ClangArgs(dir string) []string {
	return []string{"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib",
		"-Xclang", "-target-feature", "-Xclang", "+ptx70", "-I", dir, "-include", Header}
}

// Files lists the header folder's files, as slash-separated paths inside it
// (cooperative_groups/reduce.h), in lexical order.
func Files() []string {
	var names []string
	err := fs.WalkDir(include, "include", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "include/"))
		}
		return err
	})
	if err != nil {
		panic(err) // embedded at build time
	}
	return names
}

// WriteInclude writes the header folder's files into dir, which must exist, each
// atomically and Header last, so that a folder with Header in it is complete.
func WriteInclude(dir string) error {
	names := slices.DeleteFunc(Files(), func(n string) bool { return n == Header })
	for _, name := range append(names, Header) {
		b, _ := include.ReadFile("include/" + name)
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return err
		}
		err := atomicfile.WriteFile(context.Background(), path, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Version is a digest of the header folder's names and contents: two gtrace builds
// with the same headers give the same one.
func Version() string {
	h := sha256.New()
	for _, name := range Files() {
		b, _ := include.ReadFile("include/" + name)
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// IncludeDir returns a folder holding the headers under the user's cache directory
// (or base, when not empty), named by Version so that each gtrace build's headers have
// their own folder and an existing one is reused, not rewritten.
func IncludeDir(base string) (string, error) {
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("cuda-include: no cache directory: %v (set XDG_CACHE_HOME or HOME)", err)
		}
		base = filepath.Join(c, "gtrace")
	}
	dir := filepath.Join(base, "cuda-include-"+Version())
	if _, err := os.Stat(filepath.Join(dir, Header)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	if err := WriteInclude(dir); err != nil {
		return "", err
	}
	return dir, nil
}
