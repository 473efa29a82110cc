package accelsim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"

	"github.com/gtrace/gtrace/format"
)

// SyntaxError is a malformed line of a trace file: the file, the line and the column
// (both from 1; column 0 when the whole line is at fault, line 0 when the whole file is) and what was wrong.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxLine bounds one line: 32 listed addresses are about 600 bytes.
const maxLine = 1 << 16

// lineReader reads a text file line by line, counting lines, with no allocation per line.
type lineReader struct {
	r    *bufio.Reader
	name string
	n    int
	long []byte
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<18), name: name}
}

// next returns the next line without its end ("\n" or "\r\n"); ok is false at the end of
// the input. The line is valid until the next call.
func (lr *lineReader) next() (line []byte, ok bool, err error) {
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
			if len(lr.long) > maxLine {
				return nil, false, &SyntaxError{lr.name, lr.n + 1, 0, fmt.Sprintf("line longer than %d bytes", maxLine)}
			}
		}
		b = lr.long
	}
	if err == io.EOF {
		if len(b) == 0 {
			return nil, false, nil
		}
	} else if err != nil {
		return nil, false, fmt.Errorf("%s: after line %d: %w", lr.name, lr.n, err)
	}
	lr.n++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, true, nil
}

// fields walks the space-separated tokens of one line.
type fields struct {
	s    []byte
	pos  int
	file string
	line int
	col  int // 1-based column of the last token returned
}

func (f *fields) reset(s []byte, file string, line int) {
	f.s, f.pos, f.file, f.line, f.col = s, 0, file, line, 0
}

// next returns the next token, or nil at the end of the line.
func (f *fields) next() []byte {
	for f.pos < len(f.s) && (f.s[f.pos] == ' ' || f.s[f.pos] == '\t') {
		f.pos++
	}
	if f.pos == len(f.s) {
		f.col = f.pos + 1
		return nil
	}
	start := f.pos
	for f.pos < len(f.s) && f.s[f.pos] != ' ' && f.s[f.pos] != '\t' {
		f.pos++
	}
	f.col = start + 1
	return f.s[start:f.pos]
}

func (f *fields) errorf(format string, args ...any) error {
	return &SyntaxError{f.file, f.line, f.col, fmt.Sprintf(format, args...)}
}

// want returns the next token, or an error naming what was expected.
func (f *fields) want(what string) ([]byte, error) {
	t := f.next()
	if t == nil {
		return nil, f.errorf("line ends where %s was expected", what)
	}
	return t, nil
}

func (f *fields) hex(what string, bitSize int) (uint64, error) {
	return f.hexLane(what, -1, bitSize)
}

// hexDigit is each byte's value as a hexadecimal digit, 0xff for a byte that is none.
var hexDigit = func() (t [256]uint8) {
	for c := range t {
		t[c] = 0xff
		switch {
		case c >= '0' && c <= '9':
			t[c] = uint8(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = uint8(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			t[c] = uint8(c - 'A' + 10)
		}
	}
	return t
}()

// hexLane is hex for a value of lane l, as decLane.
func (f *fields) hexLane(what string, l int, bitSize int) (uint64, error) {
	// The common case in one loop over the bytes: blanks, an optional 0x, digits that fit,
	// then a blank or the end. Anything else is parsed again below, to say what is wrong.
	i := f.pos
	for i < len(f.s) && (f.s[i] == ' ' || f.s[i] == '\t') {
		i++
	}
	start := i
	if i+2 < len(f.s) && f.s[i] == '0' && (f.s[i+1] == 'x' || f.s[i+1] == 'X') {
		i += 2
	}
	v, first := uint64(0), i
	for ; i < len(f.s) && v>>(bitSize-4) == 0; i++ {
		d := hexDigit[f.s[i]]
		if d == 0xff {
			break
		}
		v = v<<4 | uint64(d)
	}
	if i > first && (i == len(f.s) || f.s[i] == ' ' || f.s[i] == '\t') {
		f.pos, f.col = i, start+1
		return v, nil
	}
	t := f.next()
	s := t
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	v, err := parseHex(s, bitSize)
	if t == nil || err != nil {
		if l >= 0 {
			what = fmt.Sprintf("%s of lane %d", what, l)
		}
		if t == nil {
			return 0, f.errorf("line ends where %s was expected", what)
		}
		return 0, f.errorf("%s %q: want a hexadecimal number of at most %d bits", what, t, bitSize)
	}
	return v, nil
}

func parseHex(s []byte, bitSize int) (uint64, error) {
	if len(s) == 0 {
		return 0, strconv.ErrSyntax
	}
	var v uint64
	for _, c := range s {
		d := hexDigit[c]
		if d == 0xff {
			return 0, strconv.ErrSyntax
		}
		if v>>(bitSize-4) != 0 {
			return 0, strconv.ErrRange
		}
		v = v<<4 | uint64(d)
	}
	return v, nil
}

func (f *fields) dec(what string, lo, hi int64) (int64, error) {
	return f.decLane(what, -1, lo, hi)
}

// decLane is dec for a value of lane l ("delta of lane 3"); l < 0 names no lane. The
// name is only built for an error: this runs for every address of every line.
func (f *fields) decLane(what string, l int, lo, hi int64) (int64, error) {
	t := f.next()
	v, ok := parseDec(t)
	if t == nil || !ok || v < lo || v > hi {
		if l >= 0 {
			what = fmt.Sprintf("%s of lane %d", what, l)
		}
		if t == nil {
			return 0, f.errorf("line ends where %s was expected", what)
		}
		return 0, f.errorf("%s %q: want a decimal number in %d..%d", what, t, lo, hi)
	}
	return v, nil
}

// parseDec parses an optionally signed decimal int64 with no allocation.
func parseDec(s []byte) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true
	case !neg && v < 1<<63:
		return int64(v), true
	}
	return 0, false
}

// end checks that nothing follows on the line.
func (f *fields) end() error {
	if t := f.next(); t != nil {
		return f.errorf("unexpected %q after the end of the instruction", t)
	}
	return nil
}

// Address modes of a memory instruction's line (tracer_tool.cu, enum address_format).
const (
	modeList       = 0 // one address per active lane
	modeBaseStride = 1 // the first active lane's address and a stride; the active lanes are contiguous
	modeBaseDelta  = 2 // the first active lane's address, then each next active lane's difference to the one before
)

// maxRegs bounds the registers of one line (Accel-Sim's parser takes at most 5 sources).
const maxRegs = 8

// instLine is one parsed instruction line of a .traceg file.
type instLine struct {
	srcLine uint32 // CUDA source line, when the trace has -enable lineinfo = 1
	pc      uint32 // SASS byte offset in the kernel
	mask    uint32 // active and predicate-true lanes
	ndst    int
	dst     [maxRegs]uint16
	opcode  []byte
	opCol   int
	nsrc    int
	src     [maxRegs]uint16
	static  []byte // the text of ndst through the last source register (parseStatic), in the line
	mem     bool
	memCol  int
	lanes   [32]uint64 // the traced address of each lane in mask, when mem
}

// An instruction line, for trace versions before 3, starts with the thread block and
// warp (ignored: the #BEGIN_TB section says them), then
//
//	[line] PC MASK NDST [Rd...] OPCODE NSRC [Rs...] WIDTH [MODE ADDRESSES]
//
// as tracer_tool.cu writes it: parsePC reads it up to its PC, parseRest (or
// parseRestAs) up to its memory width, and parseAddrs the addresses of a memory
// instruction. WIDTH is not used: Accel-Sim's parser takes the width from the opcode
// because NVBit can report it wrongly, and so does gtrace (widthOf).

// parsePC parses an instruction line up to its PC: the fields before it, if any.
func parsePC(f *fields, in *instLine, version int, lineinfo bool) error {
	if version < 3 {
		for _, what := range []string{"thread block x", "thread block y", "thread block z", "warp"} {
			if _, err := f.dec(what, 0, 1<<31-1); err != nil {
				return err
			}
		}
	}
	in.srcLine = 0
	if lineinfo {
		v, err := f.dec("source line", 0, 1<<32-1)
		if err != nil {
			return err
		}
		in.srcLine = uint32(v)
	}
	pc, err := f.hex("PC", 32)
	if err != nil {
		return err
	}
	in.pc = uint32(pc)
	return nil
}

// parseRest parses an instruction line after parsePC, up to its memory width.
func parseRest(f *fields, in *instLine) error {
	if err := parseMask(f, in); err != nil {
		return err
	}
	if err := parseStatic(f, in); err != nil {
		return err
	}
	return parseWidth(f, in)
}

// parseRestAs is parseRest for a line of a pc seen before (st): where the text between
// the line's mask and its memory width is byte for byte st's, the registers and opcode
// are st's and are not parsed again (most of a line's tokens: issue 12's import speed);
// otherwise the line is parsed in full and compared with st.
func parseRestAs(f *fields, in *instLine, st *static) error {
	// A line with no addresses is often the same, mask included, as this pc's last one.
	if st.tail != nil && bytes.Equal(f.s[f.pos:], st.tail) {
		in.mask, in.mem = st.tailMask, false
		f.pos = len(f.s)
		return nil
	}
	tail := f.pos
	if err := parseMask(f, in); err != nil {
		return err
	}
	rest := f.s[f.pos:]
	if n := len(st.text); n > 0 && len(rest) > n && string(rest[:n]) == st.text && (rest[n] == ' ' || rest[n] == '\t') {
		f.pos += n
	} else {
		if err := parseStatic(f, in); err != nil {
			return err
		}
		if err := st.check(in, f); err != nil {
			return err
		}
	}
	if err := parseWidth(f, in); err != nil {
		return err
	}
	if !in.mem && st.info.memop == format.MemNone {
		st.tail, st.tailMask = append(st.tail[:0], f.s[tail:]...), in.mask
	}
	return st.checkMem(in, f)
}

func parseMask(f *fields, in *instLine) error {
	m, err := f.hex("active mask", 32)
	in.mask = uint32(m)
	return err
}

// parseStatic parses what every line of one pc has in common, after the mask:
// destination registers, opcode, source registers. in.static is their text.
func parseStatic(f *fields, in *instLine) error {
	start := f.pos
	var err error
	if in.ndst, err = regs(f, &dstNames, in.dst[:]); err != nil {
		return err
	}
	if in.opcode, err = f.want("opcode"); err != nil {
		return err
	}
	in.opCol = f.col
	if c := in.opcode[0]; c < 'A' || c > 'Z' {
		return f.errorf("opcode %q: a SASS opcode starts with a capital letter", in.opcode)
	}
	if in.nsrc, err = regs(f, &srcNames, in.src[:]); err != nil {
		return err
	}
	in.static = f.s[start:f.pos]
	return nil
}

// parseWidth parses the memory width, and ends a line that has no addresses.
func parseWidth(f *fields, in *instLine) error {
	width, err := f.dec("memory width", 0, 1<<16)
	if err != nil {
		return err
	}
	in.memCol = f.col
	in.mem = width > 0
	if !in.mem {
		return f.end()
	}
	return nil
}

// parseAddrs parses the rest of a memory instruction's line (in.mem), after parseInst:
// the address mode and the addresses, into in.lanes.
func parseAddrs(f *fields, in *instLine) error {
	if !in.mem {
		return nil
	}
	mode, err := f.dec("address mode", 0, 2)
	if err != nil {
		return err
	}
	clear(in.lanes[:])
	switch mode {
	case modeList:
		for ms := in.mask; ms != 0; ms &= ms - 1 {
			l := bits.TrailingZeros32(ms)
			if in.lanes[l], err = f.hexLane("address", l, 64); err != nil {
				return err
			}
		}
	case modeBaseStride:
		base, err := f.hex("base address", 64)
		if err != nil {
			return err
		}
		stride, err := f.dec("stride", -1<<31, 1<<31-1)
		if err != nil {
			return err
		}
		// The tracer uses this mode only when the active lanes are contiguous; Accel-Sim's
		// parser gives any active lane after a gap address 0, which gtrace refuses.
		if ms := in.mask >> bits.TrailingZeros32(in.mask); ms&(ms+1) != 0 {
			return f.errorf("base+stride address mode with active mask %08x: the mode needs contiguous active lanes", in.mask)
		}
		k := uint64(0)
		for ms := in.mask; ms != 0; ms &= ms - 1 {
			in.lanes[bits.TrailingZeros32(ms)] = base + k*uint64(stride)
			k++
		}
	case modeBaseDelta:
		base, err := f.hex("base address", 64)
		if err != nil {
			return err
		}
		a := base
		for ms := in.mask; ms != 0; ms &= ms - 1 {
			l := bits.TrailingZeros32(ms)
			if ms != in.mask {
				d, err := f.decLane("delta", l, -1<<63, 1<<63-1)
				if err != nil {
					return err
				}
				a += uint64(d)
			}
			in.lanes[l] = a
		}
	}
	return f.end()
}

// regNames are the words regs uses in errors, built once.
type regNames struct{ count, reg string }

var (
	dstNames = regNames{"destination register count", "destination register"}
	srcNames = regNames{"source register count", "source register"}
)

// regs parses "N R<a> R<b> ...": a count and that many general registers.
func regs(f *fields, names *regNames, dst []uint16) (int, error) {
	n, err := f.dec(names.count, 0, int64(len(dst)))
	if err != nil {
		return 0, err
	}
	for i := range int(n) {
		t, err := f.want(names.reg)
		if err != nil {
			return 0, err
		}
		// SASS has R0..R255 (R255 is RZ); gtrace's exporter writes PTX registers, which
		// go higher, up to gtrace's limit of 2^15 register ids (format.PredReg).
		v, ok := parseDec(t[min(len(t), 1):])
		if len(t) < 2 || t[0] != 'R' || t[1] == '-' || t[1] == '+' || !ok || v >= format.PredReg {
			return 0, f.errorf("%s %q: want R0..R32767", names.reg, t)
		}
		dst[i] = uint16(v)
	}
	return int(n), nil
}
