package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/clangtest"
)

// testArgs is a vprintf argument buffer laid out as a compiler lays it out (each
// argument at its natural alignment), with strings at made-up device addresses.
type testArgs struct {
	buf  []byte
	strs map[uint64]string
}

func (a *testArgs) add(v any) {
	put := func(n int, x uint64) {
		for len(a.buf)%n != 0 {
			a.buf = append(a.buf, 0xee)
		}
		a.buf = binary.LittleEndian.AppendUint64(a.buf, x)[:len(a.buf)+n]
	}
	switch x := v.(type) {
	case int32:
		put(4, uint64(uint32(x)))
	case int64:
		put(8, uint64(x))
	case float64:
		put(8, math.Float64bits(x))
	case string:
		if a.strs == nil {
			a.strs = map[uint64]string{}
		}
		addr := uint64(0x7000_0000 + 0x1000*len(a.strs))
		a.strs[addr] = x
		put(8, addr)
	case nil:
		put(8, 0)
	case ptr:
		put(8, uint64(x))
	default:
		panic(fmt.Sprintf("testArgs: %T", v))
	}
}

func (a *testArgs) arg(off, n int) (uint64, error) {
	if off+n > len(a.buf) {
		return 0, fmt.Errorf("read of %d bytes at %d past the %d-byte buffer", n, off, len(a.buf))
	}
	var b [8]byte
	copy(b[:], a.buf[off:off+n])
	return binary.LittleEndian.Uint64(b[:]), nil
}

func (a *testArgs) str(addr uint64, max int) ([]byte, error) {
	s, ok := a.strs[addr]
	if !ok {
		return nil, fmt.Errorf("no string at %#x", addr)
	}
	if max >= 0 && max < len(s) {
		s = s[:max]
	}
	return []byte(s), nil
}

// ptr is a pointer argument printed by %p.
type ptr uint64

// printfCase is one printf call: a format and its arguments (int32 for int, char and
// short; int64 for long and long long; float64; string for a char*; nil for NULL).
type printfCase struct {
	format string
	args   []any
}

// printfCases is every combination of flags, widths, precisions and lengths on each
// conversion, over edge values, and the forms with '*' and several arguments.
func printfCases() []printfCase {
	var cs []printfCase
	flags := []string{"", "-", "+", " ", "#", "0", "-+", "+0", " 0", "#0", "-#0", "+ "}
	widths := []string{"", "1", "9"}
	iprecs := []string{"", ".", ".0", ".3"}
	ints := []int64{0, 1, -1, 42, -42, 255, 65537, math.MinInt32, math.MaxInt32, 1 << 40, math.MinInt64, math.MaxInt64}
	for _, conv := range "diouxX" {
		for _, length := range []string{"", "hh", "h", "l", "ll", "z", "j"} {
			for _, f := range flags {
				for _, w := range widths {
					for _, p := range iprecs {
						format := "%" + f + w + p + length + string(conv)
						for _, v := range ints {
							var a any = int32(v)
							if length != "" && length[0] != 'h' {
								a = v
							}
							cs = append(cs, printfCase{format, []any{a}})
						}
					}
				}
			}
		}
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.5, 1.5, 2.5, 9.9999999, 99999.95, 1e-5, 1e-4, 123456789,
		math.Pi, -math.E, 1e300, 1e-300, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, math.MaxFloat64,
		0x1.fffp0, 0x1.08p0, 0x1.18p0, math.Inf(1), math.Inf(-1), math.NaN()}
	fprecs := []string{"", ".", ".0", ".1", ".3", ".13", ".17", ".20"}
	for _, conv := range "fFeEgGaA" {
		for _, f := range flags {
			for _, w := range []string{"", "12"} {
				for _, p := range fprecs {
					for _, v := range floats {
						cs = append(cs, printfCase{"%" + f + w + p + string(conv), []any{v}})
					}
				}
			}
		}
	}
	for _, f := range []string{"", "-", "0"} {
		for _, w := range widths {
			for _, p := range []string{"", ".0", ".2", ".6", ".10"} {
				for _, s := range []any{"gtrace", "", nil} {
					cs = append(cs, printfCase{"%" + f + w + p + "s", []any{s}})
				}
				for _, c := range []int32{'a', 'Z', 0x1a0, 0} {
					cs = append(cs, printfCase{"%" + f + w + p + "c", []any{c}})
				}
			}
			for _, v := range []any{nil, ptr(0x7f12_3456_abc0)} {
				cs = append(cs, printfCase{"%" + f + w + "p", []any{v}})
			}
		}
	}
	cs = append(cs,
		printfCase{"plain text, no conversion\n", nil},
		printfCase{"", nil},
		printfCase{"100%% %%d %5%|", nil},
		printfCase{"%*d|%-*d|%*d|", []any{int32(6), int32(-42), int32(6), int32(7), int32(-4), int32(3)}},
		printfCase{"%.*f|%*.*e|%.*f|", []any{int32(3), math.Pi, int32(12), int32(2), math.E, int32(-1), 0.5}},
		printfCase{"%d %lld %f %s %c %x %g|", []any{int32(1), int64(-2), 3.5, "four", int32('5'), int32(6), 7e-7}},
		printfCase{"%hhd %hhu %hd %hu", []any{int32(-129), int32(-1), int32(70000), int32(-1)}},
		printfCase{"trailing %", nil},
		printfCase{"%5.3", nil},
	)
	return cs
}

// cLiteral is s as a C string literal.
func cLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// cValue is one argument as a C expression of its type.
func cValue(v any) string {
	switch x := v.(type) {
	case int32:
		return fmt.Sprintf("(int)%d", x)
	case int64:
		if x == math.MinInt64 {
			return "(long long)(-9223372036854775807LL - 1)"
		}
		return fmt.Sprintf("(long long)%dLL", x)
	case float64:
		switch {
		case math.IsNaN(x):
			return "(double)NAN"
		case math.IsInf(x, 1):
			return "(double)INFINITY"
		case math.IsInf(x, -1):
			return "(double)-INFINITY"
		}
		return strconv.FormatFloat(x, 'x', -1, 64)
	case string:
		return cLiteral(x)
	case nil:
		return "(void *)0"
	case ptr:
		return fmt.Sprintf("(void *)%#xULL", uint64(x))
	}
	panic(fmt.Sprintf("cValue: %T", v))
}

// cformat prints what glibc's printf prints for every case of printfCases: the cases
// are compiled into a C program (clang-14, for the host) that prints each snprintf
// result and its value, and each is compared with cformat's bytes and argument count.
// A NaN's sign is the one place the two differ by design (a GPU prints none), so no
// case has a negative NaN.
func TestCFormatMatchesC(t *testing.T) {
	clang := clangtest.Clang14(t)
	cs := printfCases()
	// Cases of one argument go into a table per argument type, walked by a loop
	// (a call per case takes clang minutes); the others are calls of their own.
	var src, calls strings.Builder
	tables := map[string]*strings.Builder{}
	ctype := map[string]string{"int32": "int", "int64": "long long", "float64": "double", "string": "const char *", "<nil>": "const char *", "capture.ptr": "void *"}
	order := []string{"int32", "int64", "float64", "string", "<nil>", "capture.ptr"}
	var seq []string // each case's table, or "" for a call
	for _, c := range cs {
		if len(c.args) != 1 {
			fmt.Fprintf(&calls, "out(snprintf(b, sizeof b, %s", cLiteral(c.format))
			for _, a := range c.args {
				calls.WriteString(", " + cValue(a))
			}
			calls.WriteString("));\n")
			seq = append(seq, "")
			continue
		}
		ty := fmt.Sprintf("%T", c.args[0])
		if tables[ty] == nil {
			tables[ty] = &strings.Builder{}
		}
		fmt.Fprintf(tables[ty], "{%s, %s},\n", cLiteral(c.format), cValue(c.args[0]))
		seq = append(seq, ty)
	}
	src.WriteString("#include <math.h>\n#include <stdio.h>\nstatic char b[1 << 16];\n")
	src.WriteString("static void out(int n) { printf(\"%d\\n\", n); if (n > 0) fwrite(b, 1, n, stdout); }\n")
	for i, ty := range order {
		if tables[ty] != nil {
			fmt.Fprintf(&src, "static const struct { const char *f; %s v; } t%d[] = {\n%s};\n", ctype[ty], i, tables[ty])
		}
	}
	src.WriteString("int main(void) {\n")
	// The cases in printfCases' order: runs of one table, then the calls.
	next := map[string]int{}
	for i := 0; i < len(seq); {
		j := i
		for j < len(seq) && seq[j] == seq[i] {
			j++
		}
		if seq[i] == "" {
			src.WriteString(calls.String())
		} else {
			ti := slices.Index(order, seq[i])
			fmt.Fprintf(&src, "for (int i = %d; i < %d; i++) out(snprintf(b, sizeof b, t%d[i].f, t%d[i].v));\n", next[seq[i]], next[seq[i]]+j-i, ti, ti)
			next[seq[i]] += j - i
		}
		i = j
	}
	src.WriteString("return 0;\n}\n")
	dir := t.TempDir()
	file, exe := filepath.Join(dir, "printf.c"), filepath.Join(dir, "printf")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(clang, "-w", "-O0", "-o", exe, file).CombinedOutput(); err != nil {
		t.Fatalf("clang-14: %v\n%s", err, out)
	}
	want, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	bad, refused := 0, 0
	for i, c := range cs {
		nl := bytes.IndexByte(want, '\n')
		n, err := strconv.Atoi(string(want[:nl]))
		if err != nil || nl+1+max(n, 0) > len(want) {
			t.Fatalf("case %d (%q): the C program's output is cut short", i, c.format)
		}
		if n < 0 { // glibc refuses the format
			refused++
			want = want[nl+1:]
			continue
		}
		exp := want[nl+1 : nl+1+n]
		want = want[nl+1+n:]
		var a testArgs
		for _, v := range c.args {
			a.add(v)
		}
		got, nargs, _, err := cformat(nil, []byte(c.format), &a)
		if err != nil {
			t.Errorf("%q %v: %v", c.format, c.args, err)
		} else if !bytes.Equal(got, exp) {
			if bad++; bad <= 20 {
				t.Errorf("%q %v: %q, C prints %q", c.format, c.args, got, exp)
			}
		} else if nargs != len(c.args) {
			t.Errorf("%q: %d arguments, want %d", c.format, nargs, len(c.args))
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ from C", bad, len(cs))
	}
	t.Logf("%d cases, each as C prints it; %d formats C refuses", len(cs), refused)
}

// What cformat says of the forms a GPU prints differently, and that a read past the
// argument buffer is an error, not a guess.
func TestCFormatNotes(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
		note   string
	}{
		{"%d %s", []any{int32(1), "x"}, ""},
		{"%hhd", []any{int32(1)}, "the hh length"},
		{"%*d", []any{int32(1), int32(2)}, ""},
		{"%.*f", []any{int32(1), 2.0}, "a '*' precision"},
		{"%k", nil, "the unknown conversion %k"},
	} {
		var a testArgs
		for _, v := range c.args {
			a.add(v)
		}
		_, _, note, err := cformat(nil, []byte(c.format), &a)
		if err != nil || note != c.note {
			t.Errorf("%q: note %q, error %v; want the note %q", c.format, note, err, c.note)
		}
	}
	var a testArgs
	a.add(int32(7))
	if _, _, _, err := cformat(nil, []byte("%d %d"), &a); err == nil {
		t.Errorf("two conversions on one argument: no error")
	}
	nan := math.Float64frombits(0xfff8000000000001)
	var b testArgs
	b.add(nan)
	b.add(nan)
	if got, _, _, _ := cformat(nil, []byte("%f %E"), &b); string(got) != "nan NAN" {
		t.Errorf("a negative NaN prints %q; an H100 prints \"nan NAN\"", got)
	}
}

// showSpec launches testdata/kernels.cu's show over 4 CTAs of 64 threads, word
// "gtrace", faulting in CTA fault (-1: none).
func showSpec(simt format.SIMTModel, workers, fault int) Spec {
	return Spec{Kernel: "show", Grid: d3(4, 1, 1), Block: d3(64, 1, 1), SIMT: simt, Workers: workers,
		Args: []string{"buf:i32:256:const:-9", "buf:u8:8", fmt.Sprintf("i32:%d", fault)},
		Data: map[int][]byte{1: []byte("gtrace\x00\x00")}}
}

// printf runs on every lane that calls it, lane by lane and CTA by CTA: each call's
// line as C formats it (with the %hhd noted), its value the number of arguments, and
// the same bytes for any worker count. The SIMT model orders the two branches of a
// warp differently, never the lines within one.
func TestPrintf(t *testing.T) {
	var want []string
	for cta := range 4 {
		for th := 0; th < 64; th += 16 {
			tid := cta*64 + th
			want = append(want, fmt.Sprintf("cta %d thread %d: gtrace %5.2f|%d\n", cta, th, float64(tid)*0.5, int8(tid)), "next one\n")
		}
	}
	for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
		var first []byte
		for _, workers := range []int{1, 2, 4} {
			var out []byte
			spec := showSpec(simt, workers, -1)
			spec.Printf = func(b []byte) { out = append(out, b...) }
			res := run(t, spec, nil)
			if first == nil {
				first = out
				lines := strings.SplitAfter(string(out), "\n")
				lines = lines[:len(lines)-1]
				got, sorted := slices.Clone(lines), slices.Clone(want)
				slices.Sort(got)
				slices.Sort(sorted)
				if !slices.Equal(got, sorted) {
					t.Fatalf("%v: printed\n%s\nwant these lines in some order:\n%s", simt, out, strings.Join(want, ""))
				}
				// Within a warp, lanes print in lane order: thread 0 before 16, 32 before 48.
				for i := 0; i+1 < len(want); i += 4 {
					a, b := strings.Index(string(out), want[i]), strings.Index(string(out), want[i+2])
					if a > b {
						t.Errorf("%v: %q printed after %q", simt, want[i], want[i+2])
					}
				}
				if n := strings.Count(string(out), "next one\n"); n != 16 {
					t.Errorf("%d lines from the second printf, want 16", n)
				}
			} else if !bytes.Equal(out, first) {
				t.Errorf("%v: %d workers printed\n%s\none printed\n%s", simt, workers, out, first)
			}
			if res.PrintfBytes != len(out) || res.PrintfDropped != 0 {
				t.Errorf("Result says %d bytes, %d dropped; %d printed", res.PrintfBytes, res.PrintfDropped, len(out))
			}
			if len(res.PrintfNotes) != 1 || res.PrintfNotes[0].Note != "the hh length" || !strings.Contains(res.PrintfNotes[0].Inst, "vprintf") {
				t.Errorf("notes %+v; want one, of the hh length, naming the call", res.PrintfNotes)
			}
			for i, v := range i32s(res.Buffers[0].Final) {
				want := int32(-9)
				switch i % 16 {
				case 0:
					want = 5
				case 1:
					want = 0
				}
				if v != want {
					t.Fatalf("out[%d] = %d, want %d: printf's value is its number of arguments", i, v, want)
				}
			}
		}
	}
}

// Past Spec.PrintfLimit whole calls are dropped and counted, for any worker count.
// A fault ends the launch with what the CTAs before it printed, and the faulting
// CTA's lines before the fault, already given to Spec.Printf.
func TestPrintfLimitAndFault(t *testing.T) {
	var all []byte
	spec := showSpec(format.SIMTITS, 1, -1)
	spec.Printf = func(b []byte) { all = append(all, b...) }
	run(t, spec, nil)
	for _, workers := range []int{1, 3} {
		limit := 250
		var out []byte
		spec := showSpec(format.SIMTITS, workers, -1)
		spec.Printf = func(b []byte) { out = append(out, b...) }
		spec.PrintfLimit = limit
		res := run(t, spec, nil)
		// The longest prefix of whole lines within the limit (each call prints one).
		cut := bytes.LastIndexByte(all[:limit+1], '\n') + 1
		if !bytes.Equal(out, all[:cut]) || res.PrintfBytes != cut {
			t.Errorf("%d workers, limit %d: printed %q (%d bytes said); want %q", workers, limit, out, res.PrintfBytes, all[:cut])
		}
		if want := strings.Count(string(all[cut:]), "\n"); res.PrintfDropped != want {
			t.Errorf("%d workers: %d calls dropped, want %d", workers, res.PrintfDropped, want)
		}
	}
	// What a CTA prints counts towards MaxCTATrace: a loop that prints without end
	// ends there, naming the printf output, after the lines it printed; one that ends
	// prints every line.
	for _, n := range []int{100, 1 << 30} {
		var lines int
		spec := Spec{Kernel: "chatter", Grid: d3(2, 1, 1), Block: d3(64, 1, 1), Args: []string{fmt.Sprintf("i32:%d", n)}, MaxCTATrace: 1 << 20,
			Printf: func(b []byte) { lines += bytes.Count(b, []byte("\n")) }}
		_, err := load(t, spec).Run(context.Background(), 0, nil)
		var f *Fault
		switch {
		case n == 100 && (err != nil || lines != 2*64*100):
			t.Errorf("chatter 100: %v, %d lines; want 12800", err, lines)
		case n > 100 && (!errors.As(err, &f) || f.Kind != FaultBudget || !strings.Contains(f.Reason, "the CTA's trace and printf output (") || f.CTA != 0 || lines == 0):
			t.Errorf("chatter forever: %v after %d lines; want a budget fault naming the printf output, in CTA 0, after its lines", err, lines)
		}
	}
	var out []byte
	spec = showSpec(format.SIMTITS, 2, 2)
	spec.Printf = func(b []byte) { out = append(out, b...) }
	_, err := load(t, spec).Run(context.Background(), 0, nil)
	var f *Fault
	if !errors.As(err, &f) || f.CTA != 2 {
		t.Fatalf("fault in CTA 2: %v", err)
	}
	// CTAs 0 and 1 print all 8 lines each. CTA 2's two warps take turns (ctaQuantum):
	// warp 1 prints its first 2 lines (threads 32 and 48) between warp 0's two calls,
	// and warp 0 its 4 before its thread 0 faults.
	if lines := strings.SplitAfter(string(all), "\n"); !bytes.HasPrefix(all, out) || strings.Count(string(out), "\n") != 8+8+6 || !strings.HasPrefix(string(out[bytes.LastIndex(out, []byte("cta 2")):]), "cta 2 thread 48") {
		t.Errorf("printed before the fault:\n%s\nwant the first 22 of:\n%s", out, strings.Join(lines, ""))
	}
}

// A failed device-side assert ends the launch with a FaultAssert at the failing
// thread, saying what a GPU prints for it; printf in the same launch printed before.
func TestAssert(t *testing.T) {
	for _, workers := range []int{1, 4} {
		spec := Spec{Kernel: "checked", Grid: d3(8, 1, 1), Block: d3(32, 1, 1), Workers: workers, Args: []string{"buf:i32:256:iota"}}
		_, err := load(t, spec).Run(context.Background(), 0, nil)
		var f *Fault
		want := "checked.cu:12: void checked(int *): block: [1,0,0], thread: [5,0,0] Assertion `v[i] != 37` failed."
		if !errors.As(err, &f) || f.Kind != FaultAssert || f.CTA != 1 || f.Thread != 5 || f.Reason != want {
			t.Errorf("%d workers: %v; want a FaultAssert in CTA 1, thread 5: %q", workers, err, want)
		}
	}
	spec := Spec{Kernel: "checked", Grid: d3(8, 1, 1), Block: d3(32, 1, 1), Args: []string{"buf:i32:256:const:1"}}
	if res := run(t, spec, nil); i32s(res.Buffers[0].Final)[255] != 2 {
		t.Errorf("with no 37 the kernel runs to its end: %v", i32s(res.Buffers[0].Final)[250:])
	}
}
