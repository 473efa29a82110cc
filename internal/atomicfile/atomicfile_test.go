package atomicfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists a directory's names, hidden ones included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// writeString writes text to path through WriteFile and returns the file's mode.
func writeString(t *testing.T, path, text string) os.FileMode {
	t.Helper()
	if err := WriteFile(context.Background(), path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestReplaceKeepsModeAndFailureKeepsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o664); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(context.Background(), path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q, want the old contents", b)
	}
	mode := writeString(t, path, "new")
	if b, _ := os.ReadFile(path); string(b) != "new" || mode != 0o664 {
		t.Errorf("replaced file: %q mode %v, want \"new\" mode 0664", b, mode)
	}
	if names := entries(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.txt", names)
	}
}

func TestCancelledWriteStopsAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	ctx, cancel := context.WithCancel(context.Background())
	writes := 0
	err := WriteFile(ctx, path, func(w io.Writer) error {
		for {
			if _, err := io.WriteString(w, "x"); err != nil {
				return err
			}
			writes++
			if writes == 3 {
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) || writes != 3 {
		t.Errorf("err = %v after %d writes, want context.Canceled after 3", err, writes)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v after a cancelled write, want nothing", names)
	}
}

func TestAbortAndCommitOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.gtrace")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(f.TempName()), TempPrefix(path)) {
		t.Errorf("temporary %s does not start with %s", f.TempName(), TempPrefix(path))
	}
	f.Abort()
	f.Abort()
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort: no error")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Abort: stat %s: %v, want not-exist", path, err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v, want nothing", names)
	}
}
