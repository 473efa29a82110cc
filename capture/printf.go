package capture

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Device-side printf. CUDA compiles printf(fmt, ...) into a call of the system call
// vprintf(fmt, args) (PTX Writer's Guide to Interoperability, "System Calls"): args
// points at a buffer in local memory holding each argument at its natural alignment
// (int, char and short as 4 bytes, long, long long, pointers and double as 8; float is
// promoted to double). The GPU copies the arguments to a buffer, and the driver formats
// them on the host when the program next waits for the device. cformat formats one
// call as C's printf would; which bytes the format reads follows the conversions, as
// the driver's does.
//
// Measured on an H100 with CUDA 13 (scripts/hw/printf.sh, traces/hw/h100-2026-11-26-printf):
// every well-formed conversion prints what glibc's printf prints, except that a NaN
// prints without its sign. Two forms the GPU gets wrong: an hh length (the device
// counts no argument for it, so later conversions read past the arguments) and a
// '*' precision (what follows it is read from the wrong place; a '*' width is right).
// cformat prints them as C would, and says so in its note.

// A cformatReader reads n bytes at off in the argument buffer, and the string (NUL
// excluded) at a device address, at most max bytes when max >= 0.
type cformatReader interface {
	arg(off, n int) (uint64, error)
	str(addr uint64, max int) ([]byte, error)
}

// cformat appends the output of printf(format, args...) to out, returning it, the
// number of arguments the format takes (printf's value) and a note when the format has
// a form that a GPU prints differently (empty otherwise).
func cformat(out, format []byte, rd cformatReader) ([]byte, int, string, error) {
	off, nargs := 0, 0
	var note string
	next := func(n int) (uint64, error) {
		off = (off + n - 1) &^ (n - 1)
		v, err := rd.arg(off, n)
		off += n
		nargs++
		return v, err
	}
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			j := i + 1
			for j < len(format) && format[j] != '%' {
				j++
			}
			out = append(out, format[i:j]...)
			i = j
			continue
		}
		start := i
		i++
		var s cspec
		s.prec = -1
	flags:
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				s.minus = true
			case '+':
				s.plus = true
			case ' ':
				s.space = true
			case '#':
				s.alt = true
			case '0':
				s.zero = true
			default:
				break flags
			}
		}
		if i < len(format) && format[i] == '*' {
			i++
			v, err := next(4)
			if err != nil {
				return out, nargs, note, err
			}
			if w := int32(v); w < 0 {
				s.minus, s.width = true, -int(w)
			} else {
				s.width = int(w)
			}
		} else {
			for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
				s.width = min(s.width*10+int(format[i]-'0'), 1<<20)
			}
		}
		if i < len(format) && format[i] == '.' {
			i++
			s.prec = 0
			if i < len(format) && format[i] == '*' {
				i++
				v, err := next(4)
				if err != nil {
					return out, nargs, note, err
				}
				if s.prec = int(int32(v)); s.prec < 0 {
					s.prec = -1
				}
				note = "a '*' precision"
			} else {
				for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
					s.prec = min(s.prec*10+int(format[i]-'0'), 1<<20)
				}
			}
		}
		size := 0 // bits an integer conversion keeps: 0 for its default
		wide := false
		for ; i < len(format); i++ {
			switch format[i] {
			case 'h':
				if size == 16 {
					size = 8
					note = "the hh length"
				} else {
					size = 16
				}
				continue
			case 'l', 'L', 'j', 'z', 't', 'q':
				wide = true
				continue
			}
			break
		}
		if i >= len(format) {
			out = append(out, format[start:]...)
			note = "an unfinished conversion at the end of the format"
			break
		}
		conv := format[i]
		i++
		var err error
		var v uint64
		switch conv {
		case '%':
			out = append(out, '%')
		case 'd', 'i':
			if v, err = next(argBytes(wide)); err == nil {
				out = s.integer(out, signExtend(v, size, wide), true, 10, false)
			}
		case 'u', 'o', 'x', 'X':
			if v, err = next(argBytes(wide)); err == nil {
				base := map[byte]int{'u': 10, 'o': 8, 'x': 16, 'X': 16}[conv]
				out = s.integer(out, zeroExtend(v, size, wide), false, base, conv == 'X')
			}
		case 'c':
			if v, err = next(argBytes(wide)); err == nil {
				out = s.pad(out, "", string([]byte{byte(v)}), false)
			}
		case 's':
			if v, err = next(8); err == nil {
				var b []byte
				if v == 0 {
					if s.prec < 0 || s.prec >= 6 {
						b = []byte("(null)")
					}
				} else if b, err = rd.str(v, s.prec); err != nil {
					return out, nargs, note, err
				}
				out = s.pad(out, "", string(b), false)
			}
		case 'p':
			if v, err = next(8); err == nil {
				if v == 0 {
					out = s.pad(out, "", "(nil)", false)
				} else {
					s.alt = true
					out = s.integer(out, v, false, 16, false)
				}
			}
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			if v, err = next(8); err == nil {
				out = s.float(out, math.Float64frombits(v), conv)
			}
		case 'n':
			// A GPU cannot write through the pointer from the host: nothing is written.
			_, err = next(8)
		default:
			out = append(out, format[start:i]...)
			note = fmt.Sprintf("the unknown conversion %%%c", conv)
		}
		if err != nil {
			return out, nargs, note, err
		}
	}
	return out, nargs, note, nil
}

// argBytes is the size of an integer argument in the buffer: 8 with a length of l,
// ll, j, z or t, 4 otherwise (char and short are promoted to int).
func argBytes(wide bool) int {
	if wide {
		return 8
	}
	return 4
}

// signExtend is v as the signed integer of its length's width, as 64 bits.
func signExtend(v uint64, size int, wide bool) uint64 {
	switch {
	case wide:
		return v
	case size == 8:
		return uint64(int64(int8(v)))
	case size == 16:
		return uint64(int64(int16(v)))
	}
	return uint64(int64(int32(v)))
}

func zeroExtend(v uint64, size int, wide bool) uint64 {
	switch {
	case wide:
		return v
	case size == 8:
		return uint64(uint8(v))
	case size == 16:
		return uint64(uint16(v))
	}
	return uint64(uint32(v))
}

// cspec is one conversion's flags, width and precision (-1: none).
type cspec struct {
	minus, plus, space, alt, zero bool
	width, prec                   int
}

// pad places sign+body in the field: left-justified with '-', else right-justified
// with spaces, or zeros between the sign (and prefix) and the digits when zeros is set.
func (s *cspec) pad(out []byte, sign, body string, zeros bool) []byte {
	n := len(sign) + len(body)
	fill := max(s.width-n, 0)
	switch {
	case s.minus:
		out = append(append(out, sign...), body...)
		return append(out, strings.Repeat(" ", fill)...)
	case zeros:
		out = append(out, sign...)
		out = append(out, strings.Repeat("0", fill)...)
		return append(out, body...)
	}
	out = append(out, strings.Repeat(" ", fill)...)
	return append(append(out, sign...), body...)
}

// integer formats v (as int64 when signed) in base with C's rules for precision
// (minimum digits; a zero with precision 0 prints no digits), '#' (0x for a non-zero
// hexadecimal, a leading 0 in octal), the sign flags, and '0' (ignored with a
// precision or '-').
func (s *cspec) integer(out []byte, v uint64, signed bool, base int, upper bool) []byte {
	sign := ""
	mag := v
	if signed {
		switch x := int64(v); {
		case x < 0:
			sign, mag = "-", uint64(-x)
		case s.plus:
			sign = "+"
		case s.space:
			sign = " "
		}
	}
	digits := strconv.FormatUint(mag, base)
	if upper {
		digits = strings.ToUpper(digits)
	}
	if s.prec == 0 && mag == 0 {
		digits = ""
	}
	if len(digits) < s.prec {
		digits = strings.Repeat("0", s.prec-len(digits)) + digits
	}
	if s.alt {
		switch {
		case base == 8 && !strings.HasPrefix(digits, "0"):
			digits = "0" + digits
		case base == 16 && mag != 0 && upper:
			sign += "0X"
		case base == 16 && mag != 0:
			sign += "0x"
		}
	}
	return s.pad(out, sign, digits, s.zero && !s.minus && s.prec < 0)
}

// float formats x for conversion f, e, g or a (upper case for F, E, G, A).
func (s *cspec) float(out []byte, x float64, conv byte) []byte {
	upper := conv >= 'A' && conv <= 'Z'
	lower := conv | 0x20
	sign := ""
	switch {
	case math.Signbit(x) && !math.IsNaN(x):
		sign = "-"
	case s.plus:
		sign = "+"
	case s.space:
		sign = " "
	}
	x = math.Abs(x)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		body := "inf"
		if math.IsNaN(x) {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return s.pad(out, sign, body, false)
	}
	prec := s.prec
	if prec < 0 && lower != 'a' {
		prec = 6
	}
	var body string
	switch lower {
	case 'f':
		body = strconv.FormatFloat(x, 'f', prec, 64)
		if s.alt && prec == 0 {
			body += "."
		}
	case 'e':
		body = cexp(x, prec, s.alt)
	case 'g':
		if prec == 0 {
			prec = 1
		}
		e := strconv.FormatFloat(x, 'e', prec-1, 64)
		exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		if exp < prec && exp >= -4 {
			body = strconv.FormatFloat(x, 'f', prec-1-exp, 64)
			if !s.alt {
				body = trimZeros(body)
			} else if !strings.Contains(body, ".") {
				body += "."
			}
		} else {
			body = cexp(x, prec-1, s.alt)
			if !s.alt {
				k := strings.IndexByte(body, 'e')
				body = trimZeros(body[:k]) + body[k:]
			}
		}
	case 'a':
		var pre string
		pre, body = hexFloat(x, prec, s.alt)
		sign += pre
	}
	if upper {
		body = strings.ToUpper(body)
		sign = strings.ToUpper(sign)
	}
	return s.pad(out, sign, body, s.zero && !s.minus)
}

// cexp is x in C's %e form: at least two exponent digits, '#' keeps the point.
func cexp(x float64, prec int, alt bool) string {
	b := strconv.FormatFloat(x, 'e', prec, 64)
	if alt && prec == 0 {
		k := strings.IndexByte(b, 'e')
		b = b[:k] + "." + b[k:]
	}
	return b
}

// trimZeros drops a fraction's trailing zeros and then a trailing point.
func trimZeros(b string) string {
	if !strings.Contains(b, ".") {
		return b
	}
	b = strings.TrimRight(b, "0")
	return strings.TrimSuffix(b, ".")
}

// hexFloat is x (not negative, finite) in glibc's %a form, as a prefix "0x" and the
// rest: a leading digit 1 (0 for zero and subnormals, whose exponent is -1022), the
// 52 fraction bits in hexadecimal with trailing zeros dropped, or rounded to nearest
// even at prec digits (a carry makes the leading digit 2, as glibc prints it), and a
// binary exponent of as few digits as it needs.
func hexFloat(x float64, prec int, alt bool) (string, string) {
	b := math.Float64bits(x)
	frac := b & (1<<52 - 1)
	exp := int(b>>52) - 1023
	lead := uint64(1)
	switch {
	case b == 0:
		lead, exp = 0, 0
	case b>>52 == 0:
		lead, exp = 0, -1022
	}
	digits := 13
	if prec < 0 {
		for digits > 0 && frac&0xf == 0 {
			frac >>= 4
			digits--
		}
	} else if prec < 13 {
		// Round the digits kept, the leading one included, to nearest even.
		drop := uint(4 * (13 - prec))
		m := lead<<52 | frac
		rem, half := m&(1<<drop-1), uint64(1)<<(drop-1)
		m >>= drop
		if rem > half || rem == half && m&1 == 1 {
			m++
		}
		lead, frac = m>>(4*prec), m&(1<<(4*prec)-1)
		digits = prec
	}
	body := strconv.FormatUint(lead, 16)
	if digits > 0 {
		f := strconv.FormatUint(frac, 16)
		body += "." + strings.Repeat("0", digits-len(f)) + f + strings.Repeat("0", max(prec-13, 0))
	} else if alt {
		body += "."
	}
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	return "0x", body + "p" + es + strconv.Itoa(exp)
}

// The system calls capture runs (PTX Writer's Guide to Interoperability, "System
// Calls"): each one's parameter sizes and result size (0: none).
const (
	sysVprintf = iota
	sysAssertfail
	sysMalloc
	sysFree
)

var syscalls = map[string]struct {
	id     int32
	params []int64
	what   []string
	ret    int64
}{
	"vprintf":      {sysVprintf, []int64{8, 8}, []string{"the format", "the argument buffer"}, 4},
	"__assertfail": {sysAssertfail, []int64{8, 8, 4, 8, 8}, []string{"the message", "the file", "the line", "the function", "the character size"}, 0},
	"malloc":       {sysMalloc, []int64{8}, []string{"the size"}, 8},
	"free":         {sysFree, []int64{8}, []string{"the pointer"}, 0},
}

// syscall reports whether name is a system call capture runs and the module declares
// it as CUDA's headers do: an .extern .func with no body.
func (k *Kernel) syscall(name string) bool {
	if _, ok := syscalls[name]; !ok {
		return false
	}
	for _, f := range k.mod.funcs {
		if f.name == name && f.noBody {
			return true
		}
	}
	return false
}

// decodeSyscall decodes call (ret), vprintf, (format, args) and call __assertfail,
// (message, file, line, function, charSize): each argument a .param of its size.
func decodeSyscall(r *resolver, name string, retOps, argOps []operand) error {
	sc := syscalls[name]
	rets := 0
	if sc.ret > 0 {
		rets = 1
	}
	if len(argOps) != len(sc.params) || len(retOps) > rets {
		return r.fail("call to %s passes %d arguments and %d results; it takes %d (%s) and %d", name, len(argOps), len(retOps), len(sc.params), strings.Join(sc.what, ", "), rets)
	}
	param := func(o operand, size int64, what string) (int32, error) {
		s, ok := r.sc.lookup(o.name)
		if o.kind != oName || !ok || s.kind != symVar || s.space != msParamF || s.size < size {
			return 0, r.fail("%s's %s must be a .param variable of %d bytes", name, what, size)
		}
		return int32(s.addr), nil
	}
	in := r.in
	in.op, in.target = opSyscall, sc.id
	r.k.callsHeap = r.k.callsHeap || sc.id == sysMalloc || sc.id == sysFree
	r.row.Class = format.ClassControl
	for i, size := range sc.params {
		at, err := param(argOps[i], size, sc.what[i])
		if err != nil {
			return err
		}
		in.copies = append(in.copies, paramCopy{from: at, size: int32(size)})
	}
	for _, o := range retOps {
		at, err := param(o, sc.ret, "result")
		if err != nil {
			return err
		}
		in.rcopies = append(in.rcopies, paramCopy{to: at, size: int32(sc.ret)})
	}
	return nil
}

// syscall runs a system call on the executing lanes.
func (w *warpState) syscall(in *instr, pc int32, exec uint32) error {
	switch in.target {
	case sysAssertfail:
		return w.assertfail(in, pc, exec)
	case sysMalloc, sysFree:
		return w.sysMallocFree(in, pc, exec)
	}
	return w.vprintf(in, pc, exec)
}

// sysArg is lane l's system-call argument i.
func (w *warpState) sysArg(in *instr, l, i int) uint64 {
	ps := int(w.c.k.fparamSize)
	c := in.copies[i]
	return loadN(w.fparam[l*ps+int(c.from) : l*ps+int(c.from)+int(c.size)])
}

// printfOut is what one CTA's printf calls printed: their text, where each call's
// text ends in it (Spec.PrintfLimit keeps whole calls), and a note by pc on a format a
// GPU prints differently.
type printfOut struct {
	text  []byte
	ends  []int32
	notes map[int32]string
}

// vprintf runs the system call on each executing lane, in lane order: it formats the
// lane's call into the CTA's printf output and writes the number of arguments as its
// result.
func (w *warpState) vprintf(in *instr, pc int32, exec uint32) error {
	c := w.c
	o := &c.printf
	ps := int(c.k.fparamSize)
	rd := &laneReader{w: w, in: in, pc: pc}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		rd.lane, rd.args = l, w.sysArg(in, l, 1)
		fs, err := rd.str(w.sysArg(in, l, 0), -1)
		if err != nil {
			return err
		}
		start := len(o.text)
		out, n, note, err := cformat(o.text, fs, rd)
		if err != nil {
			return err
		}
		o.text, o.ends = out, append(o.ends, int32(len(out)))
		c.held += len(out) - start + 4 // checked against MaxCTATrace after the quantum
		c.heldCap += len(out) - start + 4
		if note != "" && o.notes[pc] == "" {
			if o.notes == nil {
				o.notes = map[int32]string{}
			}
			o.notes[pc] = note
		}
		for _, r := range in.rcopies {
			binary.LittleEndian.PutUint32(w.fparam[l*ps+int(r.to):], uint32(int32(n)))
		}
	}
	return nil
}

// assertfail ends the kernel with a FaultAssert at the first executing lane, whose
// Reason is the line a GPU prints on stderr for it ("FILE:LINE: FUNCTION: block:
// [x,y,z], thread: [x,y,z] Assertion `MESSAGE` failed.", measured on an H100 by
// scripts/hw/printf.sh).
func (w *warpState) assertfail(in *instr, pc int32, exec uint32) error {
	if exec == 0 {
		return nil
	}
	l := bits.TrailingZeros32(exec)
	rd := &laneReader{w: w, in: in, pc: pc, lane: l}
	var s [3][]byte
	for i, a := range []int{0, 1, 3} {
		var err error
		if s[i], err = rd.str(w.sysArg(in, l, a), -1); err != nil {
			return err
		}
	}
	reg := func(sp int) uint64 { return w.regs[sp*32+l] }
	msg := fmt.Sprintf("%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.", s[1], uint32(w.sysArg(in, l, 2)), s[2],
		reg(spCtaidX), reg(spCtaidY), reg(spCtaidZ), reg(spTidX), reg(spTidY), reg(spTidZ), s[0])
	return w.fault(FaultAssert, pc, l, 0, "", msg)
}

// maxDeviceString bounds a string printf or assert reads (a pointer to memory with no
// NUL for gigabytes): the size of the printf buffer CUDA 13 gives an H100
// (cudaLimitPrintfFifoSize, scripts/hw/printf.sh), which a GPU copies strings into.
const maxDeviceString = 8650752

// laneReader reads one lane's vprintf arguments and strings through its generic
// address space, faulting as a load would.
type laneReader struct {
	w    *warpState
	in   *instr
	pc   int32
	lane int
	args uint64 // the argument buffer's generic address
}

func (r *laneReader) arg(off, n int) (uint64, error) {
	if r.args == 0 {
		return 0, r.w.fault(FaultOutOfBounds, r.pc, r.lane, 0, "", "printf's format has a conversion but the call passes no arguments")
	}
	b, _, err := r.w.access(r.in, r.pc, r.lane, msGeneric, r.args+uint64(off), n, false)
	if err != nil {
		return 0, err
	}
	return loadN(b), nil
}

func (r *laneReader) str(addr uint64, max int) ([]byte, error) {
	if max < 0 || max > maxDeviceString {
		max = maxDeviceString
	}
	var s []byte
	for len(s) < max {
		b, _, err := r.w.access(r.in, r.pc, r.lane, msGeneric, addr+uint64(len(s)), 1, false)
		if err != nil {
			return nil, err
		}
		if b[0] == 0 {
			break
		}
		s = append(s, b[0])
	}
	return s, nil
}

// A PrintfNote is a printf call whose format has a form a GPU prints differently:
// an hh length or a '*' precision (CUDA 13 on an H100 reads the arguments after it
// from the wrong place), an unknown or unfinished conversion (printed as written).
// gtrace prints what C's printf prints.
type PrintfNote struct {
	PC     int
	Source string // "file:line" of the call, when the PTX has line information
	Inst   string // the PTX instruction (the call)
	Note   string // the form, e.g. "the hh length"
}

func (n *PrintfNote) String() string {
	at := fmt.Sprintf("pc %d", n.PC)
	if n.Source != "" {
		at = n.Source + " (" + at + ")"
	}
	return fmt.Sprintf("%s: printf's format has %s, which a GPU prints differently (the arguments after it come from the wrong place on an H100); gtrace prints what C's printf does", at, n.Note)
}

// printfSink takes each CTA's printf output in CTA order (Run's writer loop), passes
// it to Spec.Printf within Spec.PrintfLimit for the launch, and keeps the counts and
// the first note of each pc.
type printfSink struct {
	k     *Kernel
	res   *Result
	notes map[int32]string
}

func (p *printfSink) add(o printfOut) {
	out := o.text
	if room := p.k.printfLimit - p.res.PrintfBytes; len(out) > room {
		// Whole calls only: keep the calls that end within the room.
		n := sort.Search(len(o.ends), func(i int) bool { return int(o.ends[i]) > room })
		p.res.PrintfDropped += len(o.ends) - n
		out = out[:0]
		if n > 0 {
			out = out[:o.ends[n-1]]
		}
	}
	p.res.PrintfBytes += len(out)
	if len(out) > 0 && p.k.spec.Printf != nil {
		p.k.spec.Printf(out)
	}
	for pc, n := range o.notes {
		if p.notes == nil {
			p.notes = map[int32]string{}
		}
		if _, ok := p.notes[pc]; !ok {
			p.notes[pc] = n
		}
	}
}

func (p *printfSink) finish() {
	for pc, n := range p.notes {
		p.res.PrintfNotes = append(p.res.PrintfNotes, PrintfNote{PC: int(pc), Source: p.k.sourceAt(int(pc)), Inst: p.k.insts[pc].PTX, Note: n})
	}
	sort.Slice(p.res.PrintfNotes, func(i, j int) bool { return p.res.PrintfNotes[i].PC < p.res.PrintfNotes[j].PC })
}
