// Package atomicfile writes an output file so that nobody ever sees it half written: the
// bytes go to a hidden temporary file in the same directory, which is renamed over the
// destination only when everything was written and synced. Until then an earlier file
// of that name is untouched, and a failed or cancelled write removes its temporary.
//
// The file gets the mode a shell's `>` would give it (0666 less the umask), or, when it
// replaces an existing file, that file's permissions: os.CreateTemp's 0600 would lock
// out the group a user shares traces with.
package atomicfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// File is an output being written. Write to it, then Commit or Abort.
type File struct {
	f         *os.File
	tmp, path string
	done      bool
}

// TempPrefix is how the temporary file of path begins: ".NAME.tmp-", followed by
// random digits.
func TempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// Create opens a temporary file beside path.
func Create(path string) (*File, error) {
	mode, replacing := fs.FileMode(0o666), false // less the umask, applied by open(2)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		mode, replacing = fi.Mode().Perm(), true
	}
	dir, prefix := filepath.Dir(path), TempPrefix(path)
	for range 1000 {
		tmp := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if replacing {
			// Replacing a file: take its permissions exactly, not less the umask.
			if err := f.Chmod(mode); err != nil {
				f.Close()
				os.Remove(tmp)
				return nil, err
			}
		}
		return &File{f: f, tmp: tmp, path: path}, nil
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// TempName is the temporary file's path.
func (f *File) TempName() string { return f.tmp }

// Commit syncs and closes the temporary file and renames it to the destination. On an
// error the temporary file is removed and the destination is as it was.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: Commit after Commit or Abort")
	}
	f.done = true
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp, f.path)
	}
	if err != nil {
		os.Remove(f.tmp)
	}
	return err
}

// Abort closes and removes the temporary file; the destination is as it was. It does
// nothing after Commit or Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.tmp)
}

// WriteFile writes path through write, atomically. Once ctx is done every further
// Write fails with ctx's error, so a writer that takes no context (a Parquet encoder)
// still stops, and the temporary file is removed.
func WriteFile(ctx context.Context, path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	// The struct hides Close: Parquet writers close a sink that has one, and Commit
	// needs the file open, once.
	if err := write(ctxWriter{ctx, f}); err != nil {
		f.Abort()
		return err
	}
	if err := ctx.Err(); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
