// Package fatbin reads the GPU code that nvcc embeds in a host program: the fat binary
// of the ELF section .nv_fatbin (and __nv_relfatbin, where nvcc -rdc=true puts it), a
// run of containers each holding PTX and SASS (cubin) entries for some architectures,
// compressed or not. gtrace runs PTX, so this is how a
// kernel of a program built by nvcc reaches capture with no source and no GPU.
//
// The layout is not documented by NVIDIA. What this package reads was checked on
// binaries nvcc 11.8 makes (TestNvccBinaries, testdata/) and agrees with two public
// descriptions: n-eiling/cuda-fatbin-decompression (flags, LZ4 payloads) and
// GrigoryEvko/nvopen-tools fatbin/FORMAT_SPECIFICATION.md (containers, entry sizes,
// ZSTD payloads of CUDA 12.4 on). A container is a 16-byte header (magic 0xBA55ED50,
// version 1, header size 16, then the bytes of its entries) followed by its entries;
// an entry is a header of its own size (64 or more bytes: kind, header size, payload
// size, compressed size, PTX or code version, architecture, flags, uncompressed size)
// and its payload, padded to 8 bytes.
package fatbin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Kind is what an entry holds.
type Kind uint16

const (
	KindPTX Kind = 1 // PTX text
	KindELF Kind = 2 // a cubin: SASS for one architecture
	// Other kinds (nvopen-tools lists 0x10, another cubin form, and 0x40) are kept
	// with their number and never run.
)

func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "ptx"
	case KindELF:
		return "sass"
	}
	return fmt.Sprintf("kind %d", uint16(k))
}

// Entry flags (cuda-fatbin-decompression's FATBIN_FLAG_*; nvopen-tools for ZSTD).
const (
	Flag64Bit    = 0x1
	FlagDebug    = 0x2
	FlagLinux    = 0x10
	FlagLZ4      = 0x2000 // the payload is one LZ4 block (CUDA 11.x to 12.3)
	FlagZstd     = 0x8000 // the payload is a ZSTD frame (CUDA 12.4 on)
	containerHdr = 16
	entryHdrMin  = 64
	magic        = 0xBA55ED50
)

// MaxEntry bounds an entry's uncompressed size: a header that declares more is refused
// before anything is allocated (the largest PTX of a real library is tens of MB).
const MaxEntry = 1 << 30

// An Entry is one code object of a fat binary.
type Entry struct {
	Kind Kind
	// Arch is the architecture: compute_Arch for PTX, sm_Arch for SASS (80: sm_80).
	Arch int
	// Major and Minor are the PTX ISA version of a PTX entry (7.8), the ELF code version
	// of a SASS entry.
	Major, Minor int
	Flags        uint64
	// Section is the ELF section the entry came from (.nv_fatbin or __nv_relfatbin),
	// Container the index of its container there, Offset the entry header's byte
	// offset in it.
	Section   string
	Container int
	Offset    int64
	// Data is a PTX entry's text, decompressed, without its trailing NULs. A SASS
	// entry's stays stored until Payload is called (a library's cubins run to hundreds
	// of MB, and gtrace runs PTX).
	Data []byte

	stored []byte // the payload as stored
	size   int    // its uncompressed size
}

// Payload is the entry's contents, decompressed.
func (e *Entry) Payload() ([]byte, error) {
	if e.Data != nil || e.Kind == KindPTX {
		return e.Data, nil
	}
	return e.decode()
}

func (e *Entry) decode() ([]byte, error) {
	if e.Compression() == "none" {
		return e.stored, nil
	}
	b, err := decompress(e.Compression(), e.stored, e.size)
	if err != nil {
		return nil, formatErr(e.Offset, "%s payload: %v", e.Compression(), err)
	}
	return b, nil
}

// Compression names how the entry was stored: "lz4", "zstd" or "none".
func (e *Entry) Compression() string {
	switch {
	case e.Flags&FlagZstd != 0:
		return "zstd"
	case e.Flags&FlagLZ4 != 0:
		return "lz4"
	}
	return "none"
}

// A FormatError says what is wrong in a fat binary and where.
type FormatError struct {
	Offset int64 // byte offset in the .nv_fatbin section
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("fat binary at byte %d: %s", e.Offset, e.Msg)
}

func formatErr(off int64, f string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(f, args...)}
}

// ErrNoFatbin says that an ELF file holds no fat binary: not a program built by nvcc,
// or one with no device code.
var ErrNoFatbin = errors.New("no .nv_fatbin or __nv_relfatbin section (not a CUDA program built by nvcc, or one without device code)")

// Sections are the ELF sections nvcc puts fat binaries in: .nv_fatbin for whole-program
// compilation, __nv_relfatbin for relocatable device code (-rdc=true, with the device
// runtime's own entries).
var Sections = []string{".nv_fatbin", "__nv_relfatbin"}

// ReadFile reads the fat binary of the ELF program or shared library at path.
func ReadFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := ReadELF(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}

// ReadELF reads the fat binary of an ELF host program.
func ReadELF(r io.ReaderAt) ([]Entry, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("not an ELF program: %w", err)
	}
	var out []Entry
	found := false
	for _, name := range Sections {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			continue
		}
		found = true
		if s.Size > 1<<34 {
			return nil, fmt.Errorf("%s declares %d bytes", name, s.Size)
		}
		data, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		es, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i := range es {
			es[i].Section = name
		}
		out = append(out, es...)
	}
	if !found {
		return nil, ErrNoFatbin
	}
	return out, nil
}

// Parse reads the containers of a .nv_fatbin section, in order. Zero bytes between
// containers (the linker's alignment) are skipped. Entries stored uncompressed keep
// slices of b: b must not change while they are in use.
func Parse(b []byte) ([]Entry, error) {
	var out []Entry
	off, n := 0, 0
	for {
		for off < len(b) && b[off] == 0 {
			off++
		}
		if off >= len(b) {
			return out, nil
		}
		es, size, err := parseContainer(b[off:], int64(off), n)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
		off += size
		n++
	}
}

// parseContainer reads the container at the start of b; it returns its entries and
// its size in bytes.
func parseContainer(b []byte, base int64, idx int) ([]Entry, int, error) {
	if len(b) < containerHdr {
		return nil, 0, formatErr(base, "%d bytes left, a container header needs %d", len(b), containerHdr)
	}
	le := binary.LittleEndian
	if m := le.Uint32(b); m != magic {
		return nil, 0, formatErr(base, "magic %#08x, want %#08x", m, uint32(magic))
	}
	if v, h := le.Uint16(b[4:]), le.Uint16(b[6:]); v != 1 || h != containerHdr {
		return nil, 0, formatErr(base, "container version %d, header size %d; want 1 and %d", v, h, containerHdr)
	}
	size := le.Uint64(b[8:])
	if size > uint64(len(b)-containerHdr) {
		return nil, 0, formatErr(base, "container declares %d bytes of entries, %d are left", size, len(b)-containerHdr)
	}
	body := b[containerHdr : containerHdr+int(size)]
	var out []Entry
	for off := 0; off < len(body); {
		e, next, err := parseEntry(body[off:], base+int64(containerHdr+off))
		if err != nil {
			return nil, 0, err
		}
		e.Container = idx
		out = append(out, e)
		off += next
	}
	return out, containerHdr + int(size), nil
}

// parseEntry reads the entry at the start of b; it returns it and the bytes it takes.
func parseEntry(b []byte, at int64) (Entry, int, error) {
	le := binary.LittleEndian
	if len(b) < entryHdrMin {
		return Entry{}, 0, formatErr(at, "%d bytes left in the container, an entry header needs %d", len(b), entryHdrMin)
	}
	e := Entry{Kind: Kind(le.Uint16(b)), Offset: at}
	hdr := uint64(le.Uint32(b[4:]))
	payload := le.Uint64(b[8:])
	compressed := uint64(le.Uint32(b[16:]))
	e.Minor, e.Major = int(le.Uint16(b[24:])), int(le.Uint16(b[26:]))
	e.Arch = int(le.Uint32(b[28:]))
	e.Flags = le.Uint64(b[40:])
	raw := le.Uint64(b[56:])
	switch {
	case hdr < entryHdrMin || hdr > uint64(len(b)):
		return Entry{}, 0, formatErr(at, "entry header of %d bytes (at least %d, at most the %d left)", hdr, entryHdrMin, len(b))
	case payload > uint64(len(b))-hdr:
		return Entry{}, 0, formatErr(at, "entry payload of %d bytes, %d are left", payload, uint64(len(b))-hdr)
	}
	data := b[hdr : hdr+payload]
	switch e.Compression() {
	case "lz4", "zstd":
		if compressed > payload {
			return Entry{}, 0, formatErr(at, "compressed size %d exceeds the payload's %d bytes", compressed, payload)
		}
		if raw > MaxEntry {
			return Entry{}, 0, formatErr(at, "uncompressed size %d exceeds the limit of %d", raw, MaxEntry)
		}
		e.stored, e.size = data[:compressed], int(raw)
	default:
		if e.Flags&^(Flag64Bit|FlagDebug|FlagLinux|0xfff) != 0 {
			return Entry{}, 0, formatErr(at, "unknown entry flags %#x (a compression this reader does not know?)", e.Flags)
		}
		e.stored = data
		if raw > 0 && raw <= payload {
			e.stored = data[:raw]
		}
		e.size = len(e.stored)
	}
	if e.Kind == KindPTX {
		text, err := e.decode()
		if err != nil {
			return Entry{}, 0, err
		}
		e.Data, e.stored = bytes.TrimRight(text, "\x00"), nil
	}
	return e, int(hdr + payload), nil
}

// decompress inflates one payload to exactly n bytes.
func decompress(how string, src []byte, n int) ([]byte, error) {
	dst := make([]byte, n)
	switch how {
	case "lz4":
		got, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return nil, err
		}
		if got != n {
			return nil, fmt.Errorf("%d bytes, the header says %d", got, n)
		}
		return dst, nil
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(uint64(n)+1), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	out, err := d.DecodeAll(src, dst[:0])
	if err != nil {
		return nil, err
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d bytes, the header says %d", len(out), n)
	}
	return out, nil
}

// EntryName lets a user name a C++ kernel by its source name: when the PTX has no
// .entry of that name but exactly one whose Itanium mangling starts _Z<len><name>, that
// one is meant (nvcc and clang mangle every kernel not declared extern "C").
func EntryName(ptx []byte, name string) string {
	if name == "" || regexp.MustCompile(`\.entry\s+`+regexp.QuoteMeta(name)+`\s*\(`).Match(ptx) {
		return name
	}
	re := regexp.MustCompile(`\.entry\s+(_Z` + strconv.Itoa(len(name)) + regexp.QuoteMeta(name) + `[A-Za-z0-9_]*)\s*\(`)
	if m := re.FindAllSubmatch(ptx, -1); len(m) == 1 {
		return string(m[0][1])
	}
	return name
}

// PTXFor picks the PTX a kernel named name (its .entry name, or its source name as
// EntryName reads it) runs from: among the PTX entries whose text declares it, the one
// of the highest architecture. It says which
// kernels there are when none declares it, and that the program holds SASS only when
// it has no PTX at all.
func PTXFor(entries []Entry, name string) (*Entry, error) {
	best := newestPTX(entries, func(ptx []byte) bool { return slices.Contains(Kernels(ptx), EntryName(ptx, name)) })
	if best != nil {
		return best, nil
	}
	var names []string
	var sass []int
	for _, e := range entries {
		if e.Kind == KindPTX {
			names = append(names, Kernels(e.Data)...)
		} else {
			sass = append(sass, e.Arch)
		}
	}
	switch {
	case len(names) == 0 && len(sass) > 0:
		return nil, fmt.Errorf("the program holds SASS only (for sm_%v) and no PTX; gtrace runs PTX: rebuild with -gencode arch=compute_XX,code=compute_XX (or code=[sm_XX,compute_XX])", sass)
	case len(names) == 0:
		return nil, errors.New("the program's fat binary holds no PTX")
	}
	return nil, fmt.Errorf("no kernel %q in the program's PTX; its kernels: %s", name, joinUnique(names))
}

// PTXForVar picks the PTX that declares the module variable name (a .global or .const,
// by its PTX name, as __cudaRegisterVar gives it): among the PTX entries that declare it,
// the one of the highest architecture, as PTXFor picks a kernel's.
func PTXForVar(entries []Entry, name string) (*Entry, error) {
	re := regexp.MustCompile(`(?m)^[ \t]*(?:\.\w+[ \t]+)*\.(?:global|const)[ \t][^;=\n]*?[ \t]` + regexp.QuoteMeta(name) + `[ \t]*(?:\[|=|;)`)
	if e := newestPTX(entries, re.Match); e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("no .global or .const variable %q in the program's PTX", name)
}

// newestPTX is the PTX entry of the highest architecture whose text has what match
// looks for; nil if none has.
func newestPTX(entries []Entry, match func(ptx []byte) bool) *Entry {
	var best *Entry
	for i := range entries {
		e := &entries[i]
		if e.Kind == KindPTX && (best == nil || e.Arch > best.Arch) && match(e.Data) {
			best = e
		}
	}
	return best
}

// Kernels lists the .entry names a PTX text declares, in order.
func Kernels(ptx []byte) []string {
	var out []string
	for _, line := range bytes.Split(ptx, []byte("\n")) {
		f := bytes.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if string(f[i]) == ".entry" {
				name, _, _ := bytes.Cut(f[i+1], []byte("("))
				out = append(out, string(name))
				break
			}
		}
	}
	return out
}

func joinUnique(l []string) string {
	seen := map[string]bool{}
	var b bytes.Buffer
	for _, s := range l {
		if seen[s] {
			continue
		}
		seen[s] = true
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}
