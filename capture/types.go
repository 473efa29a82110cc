package capture

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// vtype is a PTX scalar type.
type vtype uint8

const (
	tNone vtype = iota
	tB8
	tB16
	tB32
	tB64
	tU8
	tU16
	tU32
	tU64
	tS8
	tS16
	tS32
	tS64
	tF32
	tF64
	tPred
	tB128
	tF16    // IEEE binary16 in the low 16 bits (op_half.go)
	tBF16   // bfloat16 in the low 16 bits
	tF16x2  // two .f16 in 32 bits, element 0 in bits 0-15
	tBF16x2 // two .bf16 in 32 bits
	tS16x2  // two .s16 in 32 bits, element 0 in bits 0-15: min and max only
	tU16x2  // two .u16 in 32 bits
)

// unsupportedTypes are PTX types capture does not model, each with the opcodes that do
// take it: an instruction naming one on any other opcode is refused by that name.
var unsupportedTypes = map[string][]string{
	".tf32": {"mma"},
	".e4m3": nil, ".e5m2": nil, ".e4m3x2": nil, ".e5m2x2": nil, ".e2m1x2": nil,
	".b128": nil, ".s16x2": {"min", "max"}, ".u16x2": {"min", "max"},
}

var vtypeNames = map[string]vtype{
	".b8": tB8, ".b16": tB16, ".b32": tB32, ".b64": tB64,
	".u8": tU8, ".u16": tU16, ".u32": tU32, ".u64": tU64,
	".s8": tS8, ".s16": tS16, ".s32": tS32, ".s64": tS64,
	".f32": tF32, ".f64": tF64, ".pred": tPred,
	".f16": tF16, ".bf16": tBF16, ".f16x2": tF16x2, ".bf16x2": tBF16x2,
	".s16x2": tS16x2, ".u16x2": tU16x2,
}

func (t vtype) String() string {
	for k, v := range vtypeNames {
		if v == t {
			return k[1:]
		}
	}
	return "?"
}

var (
	typeSizes  = [...]uint8{tB8: 1, tB16: 2, tB32: 4, tB64: 8, tU8: 1, tU16: 2, tU32: 4, tU64: 8, tS8: 1, tS16: 2, tS32: 4, tS64: 8, tF32: 4, tF64: 8, tPred: 1, tB128: 16, tF16: 2, tBF16: 2, tF16x2: 4, tBF16x2: 4, tS16x2: 4, tU16x2: 4}
	typeMasks  [len(typeSizes)]uint64
	typeSigned = [len(typeSizes)]bool{tS8: true, tS16: true, tS32: true, tS64: true}
)

func init() {
	for t, n := range typeSizes {
		if n >= 8 {
			typeMasks[t] = ^uint64(0)
		} else {
			typeMasks[t] = 1<<(8*uint(n)) - 1
		}
	}
}

// size in bytes.
func (t vtype) size() int    { return int(typeSizes[t]) }
func (t vtype) bits() uint   { return uint(typeSizes[t]) * 8 }
func (t vtype) signed() bool { return typeSigned[t] }
func (t vtype) float() bool  { return t == tF32 || t == tF64 }

// half is true for the half-precision types, which only op_half.go's rules take.
func (t vtype) half() bool { return t >= tF16 && t <= tBF16x2 }

// mask keeps the low size() bytes.
func (t vtype) mask() uint64 { return typeMasks[t] }

// ext sign-extends (signed types) or zero-extends the low bits of v to 64 bits.
func (t vtype) ext(v uint64) uint64 {
	switch typeSizes[t] {
	case 1:
		if typeSigned[t] {
			return uint64(int64(int8(v)))
		}
		return uint64(uint8(v))
	case 2:
		if typeSigned[t] {
			return uint64(int64(int16(v)))
		}
		return uint64(uint16(v))
	case 4:
		if typeSigned[t] {
			return uint64(int64(int32(v)))
		}
		return uint64(uint32(v))
	}
	return v
}

func typeSize(name string) int {
	if t, ok := vtypeNames[name]; ok {
		return t.size()
	}
	return 0
}

// parseInt parses a PTX integer literal: decimal, 0x hex, 0 octal, 0b binary, with an
// optional U suffix.
func parseInt(s string) (int64, error) {
	s = strings.TrimSuffix(s, "U")
	if s == "" {
		return 0, fmt.Errorf("empty integer")
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	u, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, err
	}
	return int64(u), nil
}

// literal decodes an immediate for an operation of type t: integers in the type's
// width; 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX float bit patterns; decimal floats.
func literal(text string, neg bool, t vtype) (uint64, error) {
	switch {
	case len(text) == 10 && (strings.HasPrefix(text, "0f") || strings.HasPrefix(text, "0F")):
		b, err := strconv.ParseUint(text[2:], 16, 32)
		if err != nil {
			return 0, err
		}
		f := math.Float32frombits(uint32(b))
		if neg {
			f = -f
		}
		if t == tF64 {
			return math.Float64bits(float64(f)), nil
		}
		return uint64(math.Float32bits(f)), nil
	case len(text) == 18 && (strings.HasPrefix(text, "0d") || strings.HasPrefix(text, "0D")):
		b, err := strconv.ParseUint(text[2:], 16, 64)
		if err != nil {
			return 0, err
		}
		f := math.Float64frombits(b)
		if neg {
			f = -f
		}
		if t == tF32 {
			return uint64(math.Float32bits(float32(f))), nil
		}
		return math.Float64bits(f), nil
	case strings.ContainsAny(text, ".eE") && !strings.HasPrefix(text, "0x"):
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return 0, err
		}
		if neg {
			f = -f
		}
		if t == tF32 {
			return uint64(math.Float32bits(float32(f))), nil
		}
		return math.Float64bits(f), nil
	}
	v, err := parseInt(text)
	if err != nil {
		return 0, err
	}
	if neg {
		v = -v
	}
	switch t {
	case tF32:
		return uint64(math.Float32bits(float32(v))), nil
	case tF64:
		return math.Float64bits(float64(v)), nil
	}
	return uint64(v), nil
}

// isIntLiteral is true when text is an integer literal rather than one of literal's
// float forms (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, a decimal with a point or exponent).
func isIntLiteral(text string) bool {
	lower := strings.ToLower(text)
	switch {
	case len(text) == 10 && strings.HasPrefix(lower, "0f"), len(text) == 18 && strings.HasPrefix(lower, "0d"):
		return false
	case strings.ContainsAny(text, ".eE") && !strings.HasPrefix(lower, "0x"):
		return false
	}
	return true
}
