package format

import (
	"errors"
	"fmt"
)

// Sentinel errors name the kind of a CorruptError, for errors.Is:
//
//	if errors.Is(err, format.ErrTruncated) { ... }
//
// Use errors.As with *CorruptError to get the position.
var (
	// ErrNotArrow: the input does not start with the Arrow file magic "ARROW1".
	ErrNotArrow = errors.New("not an Arrow IPC file")
	// ErrTruncated: the input starts like an Arrow file but its end (footer, trailing
	// magic, or a record batch the footer points to) is missing. An interrupted write
	// looks like this.
	ErrTruncated = errors.New("truncated trace file")
	// ErrCorruptZstd: a compressed column buffer does not decompress, or decompresses to
	// the wrong size.
	ErrCorruptZstd = errors.New("corrupt zstd buffer")
	// ErrChecksum: the metadata does not match the checksum stored beside it (V2 and
	// later), or the checksum is missing or malformed.
	ErrChecksum = errors.New("metadata checksum mismatch")
	// ErrCorrupt: any other structural damage (bad flatbuffer, offsets out of range, a
	// column whose values contradict each other).
	ErrCorrupt = errors.New("corrupt trace file")
)

// CorruptError reports damage found while reading, with where it was found.
type CorruptError struct {
	Kind   error  // one of ErrNotArrow, ErrTruncated, ErrCorruptZstd, ErrCorrupt
	Offset int64  // byte offset in the file of the damaged structure; -1 if not known
	Batch  int    // record batch index (from 0, over all launches); -1 for file-level structures
	Reason string // what was wrong, for a human
	Err    error  // the underlying error, if any
}

func (e *CorruptError) Error() string {
	s := fmt.Sprintf("gtrace/format: %v", e.Kind)
	if e.Batch >= 0 {
		s += fmt.Sprintf(" in batch %d", e.Batch)
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at offset %d", e.Offset)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrTruncated) and friends work.
func (e *CorruptError) Is(target error) bool { return target == e.Kind }

func (e *CorruptError) Unwrap() error { return e.Err }

// MetaError reports trace metadata that names something that does not exist or
// contradicts itself: an unknown enum name, a load without a state space, a launch whose
// geometry no GPU has. The writer refuses such metadata and the reader rejects it, so
// replay never meets it.
type MetaError struct {
	Launch int    // launch index; -1 for file-level fields
	Kernel string // the launch's kernel name, "" if not known
	PC     int    // program table row; -1 for launch-level fields
	Field  string // the JSON field, e.g. "space", "block", "textures[1].elem_bytes"
	Value  string // the offending value as written
	Reason string
}

func (e *MetaError) Error() string {
	s := "gtrace/format: metadata"
	if e.Launch >= 0 {
		s += fmt.Sprintf(" launch %d", e.Launch)
		if e.Kernel != "" {
			s += fmt.Sprintf(" (%s)", e.Kernel)
		}
	}
	if e.PC >= 0 {
		s += fmt.Sprintf(" pc %d", e.PC)
	}
	return s + fmt.Sprintf(": %s %s: %s", e.Field, e.Value, e.Reason)
}

// VersionError reports a trace written in a format version this package does not read.
type VersionError struct {
	Got string // the version string found in the schema metadata ("" if the key is absent)
}

func (e *VersionError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("gtrace/format: no %s in schema metadata: not a gtrace trace", KeyVersion)
	}
	return fmt.Sprintf("gtrace/format: unknown trace format version %q (this build reads %d to %d)", e.Got, V1, CurrentVersion)
}

// SchemaError reports an Arrow file whose columns are not the ones its version defines.
type SchemaError struct {
	Field  string // the column that differs; "" when the column count differs
	Want   string
	Got    string
	Reason string
}

func (e *SchemaError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("gtrace/format: schema mismatch: %s", e.Reason)
	}
	return fmt.Sprintf("gtrace/format: schema mismatch in column %q: want %s, got %s", e.Field, e.Want, e.Got)
}

// WriteError reports a Writer used against its contract: a CTA out of order, a warp
// whose fields do not match its place, or columns that contradict each other. The file
// being written is not valid after such an error; call Abort.
type WriteError struct {
	Kernel, CTA, Warp int // -1 where not applicable
	Row               int // row within the warp, -1 where not applicable
	Reason            string
}

func (e *WriteError) Error() string {
	s := "gtrace/format: write"
	if e.Kernel >= 0 {
		s += fmt.Sprintf(" kernel %d", e.Kernel)
	}
	if e.CTA >= 0 {
		s += fmt.Sprintf(" cta %d", e.CTA)
	}
	if e.Warp >= 0 {
		s += fmt.Sprintf(" warp %d", e.Warp)
	}
	if e.Row >= 0 {
		s += fmt.Sprintf(" row %d", e.Row)
	}
	return s + ": " + e.Reason
}

func corrupt(kind error, off int64, batch int, format string, args ...any) *CorruptError {
	return &CorruptError{Kind: kind, Offset: off, Batch: batch, Reason: fmt.Sprintf(format, args...)}
}
