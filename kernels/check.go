package kernels

import (
	"encoding/binary"
	"fmt"
	"github.com/gtrace/gtrace/capture"
	"math"
	"strconv"
	"strings"
)

// elemType is an argument's element type, as the spec grammar spells it.
type elemType string

func (t elemType) size() int { return capture.Arg{Type: string(t)}.ElemBytes() }

// argLayout is what a Check needs to know about one kernel argument: whether it is
// memory (a buf or a tex2d), its element type and its element count.
type argLayout struct {
	spec   string
	memory bool
	tex    bool
	typ    elemType
	count  int
}

// layoutOf reads the argument layout from a launch's specs. It understands as much
// of the grammar as a Check needs; capture validates specs in full.
func layoutOf(l Launch) ([]argLayout, error) {
	out := make([]argLayout, len(l.Args))
	for i, spec := range l.Args {
		f := strings.Split(spec, ":")
		a := argLayout{spec: spec, typ: elemType(f[0])}
		switch f[0] {
		case "buf", "tex2d":
			a.memory, a.tex = true, f[0] == "tex2d"
			if len(f) < 3 || (a.tex && len(f) < 4) {
				return nil, fmt.Errorf("argument %d %q: too few fields", i, spec)
			}
			a.typ = elemType(f[1])
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return nil, fmt.Errorf("argument %d %q: bad count", i, spec)
			}
			if a.tex {
				h, err := strconv.Atoi(f[3])
				if err != nil {
					return nil, fmt.Errorf("argument %d %q: bad height", i, spec)
				}
				n *= h
			}
			a.count = n
		}
		if a.typ.size() == 0 {
			return nil, fmt.Errorf("argument %d %q: unknown type %q", i, spec, a.typ)
		}
		out[i] = a
	}
	return out, nil
}

// mem gives typed views of the initial contents of a launch's memory arguments.
// The accessors are only called for arguments whose size checkAgainst has already
// verified.
type mem [][]byte

func (m mem) f32(i int) []float32 { return f32s(m[i]) }
func (m mem) f64(i int) []float64 { return f64s(m[i]) }
func (m mem) i32(i int) []int32   { return i32s(m[i]) }

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func f64s(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// expectFunc computes, from the initial contents, the expected final contents of
// the arguments a kernel writes: a []float32, []float64 or []int32 per argument
// index. Memory arguments it leaves out must come back unchanged.
type expectFunc func(sz map[string]int, init mem) (map[int]any, error)

// withCheck sets k.Check to compare a run's buffers with expect.
func withCheck(k *Kernel, expect expectFunc) *Kernel {
	k.Check = func(sz map[string]int, init, final [][]byte) error {
		if err := checkAgainst(k, sz, init, final, expect); err != nil {
			return fmt.Errorf("kernels: %s: %w", k.Name, err)
		}
		return nil
	}
	return k
}

func checkAgainst(k *Kernel, sz map[string]int, init, final [][]byte, expect expectFunc) error {
	lay, err := layoutOf(k.Launch(sz))
	if err != nil {
		return err
	}
	if len(init) != len(lay) || len(final) != len(lay) {
		return fmt.Errorf("got %d initial and %d final argument contents for %d arguments", len(init), len(final), len(lay))
	}
	for i, a := range lay {
		if !a.memory {
			continue
		}
		want := a.count * a.typ.size()
		if len(init[i]) != want {
			return fmt.Errorf("argument %d (%s): initial contents are %d bytes, want %d", i, a.spec, len(init[i]), want)
		}
		// A texture is read-only: a capture need not hand back its final texels.
		if a.tex && final[i] == nil {
			continue
		}
		if len(final[i]) != want {
			return fmt.Errorf("argument %d (%s): final contents are %d bytes, want %d", i, a.spec, len(final[i]), want)
		}
	}
	exp, err := expect(sz, mem(init))
	if err != nil {
		return err
	}
	for i, a := range lay {
		if !a.memory || final[i] == nil {
			continue
		}
		w, written := exp[i]
		if !written {
			if err := compareUnchanged(init[i], final[i], a.typ.size()); err != nil {
				return fmt.Errorf("argument %d (%s) is not written by the kernel but changed: %w", i, a.spec, err)
			}
			continue
		}
		var err error
		switch w := w.(type) {
		case []float32:
			err = compare(w, f32s(final[i]), eqF32)
		case []float64:
			err = compare(w, f64s(final[i]), eqF64)
		case []int32:
			err = compare(w, i32s(final[i]), func(a, b int32) bool { return a == b })
		default:
			err = fmt.Errorf("reference returned %T", w)
		}
		if err != nil {
			return fmt.Errorf("argument %d (%s): %w", i, a.spec, err)
		}
	}
	return nil
}

// Floats compare exactly: the references evaluate in the kernels' own order. Two
// NaNs are equal (a copy of a NaN is right whatever its payload), and so are +0 and
// -0 (x + 0 and x differ only in the sign of a zero).
func eqF32(a, b float32) bool { return a == b || (a != a && b != b) }
func eqF64(a, b float64) bool { return a == b || (a != a && b != b) }

func compare[T any](want, got []T, eq func(a, b T) bool) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d elements, want %d", len(got), len(want))
	}
	bad, first := 0, -1
	for i := range want {
		if !eq(want[i], got[i]) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d elements differ; first at [%d]: got %v, want %v", bad, len(want), first, got[first], want[first])
}

func compareUnchanged(init, final []byte, size int) error {
	for i := range init {
		if init[i] != final[i] {
			e := i / size
			return fmt.Errorf("element [%d] was % x, is % x", e, init[e*size:(e+1)*size], final[e*size:(e+1)*size])
		}
	}
	return nil
}

// Spec helpers for the topic files.

func buf(typ string, count int, init string) string {
	return fmt.Sprintf("buf:%s:%d:%s", typ, count, init)
}

func tex2d(typ string, w, h int, init string) string {
	return fmt.Sprintf("tex2d:%s:%d:%d:%s", typ, w, h, init)
}

func i32(v int) string { return "i32:" + strconv.Itoa(v) }

func f32(v float32) string { return "f32:" + strconv.FormatFloat(float64(v), 'g', -1, 32) }
