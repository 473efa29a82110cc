package capture

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Spec describes one kernel launch to capture. The zero value of each optional field is
// documented next to it.
type Spec struct {
	PTX       []byte // PTX text
	PTXName   string // file name for error positions; "" = "input.ptx"
	Kernel    string // .entry name
	Grid      format.Dim3
	Block     format.Dim3
	DynShared uint32   // dynamic shared bytes (--shared)
	Args      []string // one SPEC per kernel parameter, in order (see ParseArg)
	Consts    []string // NAME=TYPE:COUNT[:INIT]: overwrite a .const variable from the launch
	// TexBinds binds texture references to buf arguments (NAME=ARG[:FORMAT][:norm],
	// ParseTexBind), as cudaBindTexture would bind them to the buffers; not with Device.
	TexBinds []string
	// Data gives buf arguments their initial contents by argument index, in place of
	// their INIT (a program's real data, or a test's chosen inputs); each must be
	// exactly the buffer's COUNT times its element size in bytes.
	Data map[int][]byte
	// Device, when set, is the device memory the launch reads and writes in place (a
	// program's, under gtrace run): the kernel's pointers are addresses in it, and the
	// module's .global variables live in it across launches. Args, Data and Consts must
	// then be empty, and Params gives the parameters.
	Device *Device
	// Params is, with Device, each kernel parameter's bytes in order, each exactly the
	// size the .entry declares (what cudaLaunchKernel's args point at).
	Params [][]byte
	// TexRefs binds the module's texture references (.global .texref) by name to linear
	// device memory, as cudaBindTexture does; with Device. A tex through a reference
	// that is not here faults.
	TexRefs map[string]LinearTexture
	SIMT    format.SIMTModel
	MaxInst uint64 // per-warp instruction budget; 0 = DefaultMaxInst
	// MaxCTATrace bounds the bytes of trace one CTA holds in memory before it ends
	// (format.Warp.Bytes summed over its warps); 0 = DefaultMaxCTATrace.
	MaxCTATrace uint64
	OOB         OOBPolicy // what an out-of-bounds access does; the zero value faults
	Workers     int       // CTAs emulated in parallel; 0 = GOMAXPROCS
	// RegsPerThread is copied into the Launch; 0 = unknown.
	RegsPerThread uint32
	// PTXProducer is copied into the Launch; "" = guessed from the PTX header comment.
	PTXProducer string
	Progress    func(ctasDone, ctasTotal int) // may be nil; called from Run's goroutine
	// Printf receives what the kernel's printf calls print (the vprintf system call),
	// CTA by CTA in CTA order, each CTA's in the order its warps ran them, lane by lane:
	// the same bytes for any worker count. It is called from Run's goroutine as CTAs are
	// written, so what came before a fault is printed too. nil: printf output is only
	// counted (Result.PrintfBytes).
	Printf func([]byte)
	// PrintfLimit bounds the bytes of printf output a launch prints (0: no bound);
	// the calls past it print nothing and are counted in Result.PrintfDropped. A GPU
	// has no such bound while the host waits for the kernel: an H100 printed all
	// 38 MB of one launch through its 8 MiB printf buffer (scripts/hw/printf.sh).
	// What a CTA prints is held until the CTA is written, and counts towards
	// MaxCTATrace with its trace, so a loop that prints forever ends there.
	PrintfLimit int
	// HeapSize is the bytes of the device heap malloc allocates from
	// (cudaLimitMallocHeapSize), for a kernel that calls it; 0 = DefaultHeapSize. On a
	// Device the first such launch fixes it.
	HeapSize uint64
}

// DefaultMaxInst is the per-warp instruction budget when Spec.MaxInst is 0: large enough
// for every reference kernel by three orders of magnitude, small enough that a livelock
// under ITS ends in seconds rather than hours.
const DefaultMaxInst = 1 << 26

// ArgKind is the kind of a kernel argument.
type ArgKind uint8

const (
	ArgScalar ArgKind = iota + 1 // i32:V etc.
	ArgBuf                       // buf:TYPE:COUNT[:INIT]
	ArgTex2D                     // tex2d:TYPE:W:H[:INIT]
)

// Arg is a parsed argument SPEC.
type Arg struct {
	Kind   ArgKind
	Type   string // i8 u8 i16 u16 i32 u32 i64 u64 f32 f64
	Value  uint64 // ArgScalar: the value's bits in Type's width (floats as IEEE bits)
	Count  int    // ArgBuf: elements; ArgTex2D: W*H
	W, H   int    // ArgTex2D
	Init   string // zero, iota, rand, hot, const
	Seed   uint64 // rand and hot seed (default 1)
	Hot    int    // hot: the percentage of elements that are 0
	Const  string // the V of const:V
	Source string // the SPEC as written
}

// ElemBytes is the size of one element of the argument's type.
func (a Arg) ElemBytes() int { return elemBytes(a.Type) }

func elemBytes(t string) int {
	switch t {
	case "i8", "u8":
		return 1
	case "i16", "u16":
		return 2
	case "i32", "u32", "f32":
		return 4
	case "i64", "u64", "f64":
		return 8
	}
	return 0
}

// ParseArg parses one argument SPEC:
//
//	i32:V u32:V i64:V u64:V f32:V f64:V        a scalar
//	buf:TYPE:COUNT[:INIT]                       a device buffer; its address is the argument
//	tex2d:TYPE:W:H[:INIT]                       a 2D texture object over a W×H array
//	TYPE: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64
//	INIT: zero | iota | rand[:SEED] | hot:P[:SEED] | const:V   (default zero)
//
// See InitBytes for the exact contents each INIT produces.
func ParseArg(s string) (Arg, error) {
	parts := strings.Split(s, ":")
	a := Arg{Source: s}
	bad := func(format string, args ...any) (Arg, error) {
		return Arg{}, fmt.Errorf("argument %q: %s", s, fmt.Sprintf(format, args...))
	}
	switch parts[0] {
	case "buf", "tex2d":
		a.Kind = ArgBuf
		n := 3
		if parts[0] == "tex2d" {
			a.Kind, n = ArgTex2D, 4
		}
		if len(parts) < n {
			if a.Kind == ArgBuf {
				return bad("want buf:TYPE:COUNT[:INIT]")
			}
			return bad("want tex2d:TYPE:W:H[:INIT]")
		}
		a.Type = parts[1]
		if elemBytes(a.Type) == 0 {
			return bad("unknown element type %q (want i8 u8 i16 u16 i32 u32 i64 u64 f32 f64)", a.Type)
		}
		if a.Kind == ArgBuf {
			c, err := strconv.ParseUint(parts[2], 0, 40)
			if err != nil || c == 0 {
				return bad("bad COUNT %q", parts[2])
			}
			a.Count = int(c)
		} else {
			w, err1 := strconv.ParseUint(parts[2], 0, 16)
			h, err2 := strconv.ParseUint(parts[3], 0, 16)
			if err1 != nil || err2 != nil || w == 0 || h == 0 {
				return bad("bad texture size %s×%s (1..65535 each)", parts[2], parts[3])
			}
			a.W, a.H, a.Count = int(w), int(h), int(w*h)
		}
		if uint64(a.Count)*uint64(elemBytes(a.Type)) > 1<<36 {
			return bad("buffer larger than 64 GiB")
		}
		a.Init, a.Seed = "zero", 1
		rest := parts[n:]
		if len(rest) > 0 {
			var err error
			switch rest[0] {
			case "zero", "iota":
				a.Init = rest[0]
				if len(rest) > 1 {
					return bad("%s takes no value", rest[0])
				}
			case "rand":
				a.Init = "rand"
				if len(rest) > 2 {
					return bad("want rand[:SEED]")
				}
				if len(rest) == 2 {
					if a.Seed, err = parseSeed(rest[1]); err != nil {
						return bad("%v", err)
					}
				}
			case "hot":
				a.Init = "hot"
				if len(rest) < 2 || len(rest) > 3 {
					return bad("want hot:P[:SEED], P the percentage of elements that are 0")
				}
				p, err := strconv.ParseUint(rest[1], 10, 8)
				if err != nil || p > 100 {
					return bad("bad percentage %q (want 0 to 100)", rest[1])
				}
				a.Hot = int(p)
				if len(rest) == 3 {
					if a.Seed, err = parseSeed(rest[2]); err != nil {
						return bad("%v", err)
					}
				}
			case "const":
				if len(rest) != 2 {
					return bad("want const:V")
				}
				if _, err := scalarBits(a.Type, rest[1]); err != nil {
					return bad("%v", err)
				}
				a.Init, a.Const = "const", rest[1]
			default:
				return bad("unknown INIT %q (want zero, iota, rand[:SEED], hot:P[:SEED] or const:V)", rest[0])
			}
		}
		return a, nil
	case "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64":
		if len(parts) != 2 {
			return bad("want %s:VALUE", parts[0])
		}
		v, err := scalarBits(parts[0], parts[1])
		if err != nil {
			return bad("%v", err)
		}
		a.Kind, a.Type, a.Value = ArgScalar, parts[0], v
		return a, nil
	}
	return bad("unknown kind %q (want a scalar type, buf: or tex2d:)", parts[0])
}

// parseSeed reads the SEED of rand:SEED and hot:P:SEED.
func parseSeed(v string) (uint64, error) {
	seed, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("bad seed %q", v)
	}
	return seed, nil
}

// scalarBits parses V as a value of type t and returns its bits.
func scalarBits(t, v string) (uint64, error) {
	switch t {
	case "f32":
		f, err := strconv.ParseFloat(v, 32)
		if err != nil {
			return 0, fmt.Errorf("bad f32 %q", v)
		}
		return uint64(math.Float32bits(float32(f))), nil
	case "f64":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("bad f64 %q", v)
		}
		return math.Float64bits(f), nil
	}
	bits := elemBytes(t) * 8
	if t[0] == 'i' {
		x, err := strconv.ParseInt(v, 0, bits)
		if err != nil {
			return 0, fmt.Errorf("bad %s %q", t, v)
		}
		return uint64(x) & (^uint64(0) >> (64 - bits)), nil
	}
	x, err := strconv.ParseUint(v, 0, bits)
	if err != nil {
		return 0, fmt.Errorf("bad %s %q", t, v)
	}
	return x, nil
}

// splitmix64 is the generator behind rand: Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators" (OOPSLA 2014), the constants of java.util.SplittableRandom.
type splitmix64 struct{ s uint64 }

func (g *splitmix64) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// InitBytes returns the initial contents of a buf or tex2d argument, little-endian,
// Count elements of Type in index order:
//
//	zero      every byte 0
//	iota      element i holds i (converted to Type; integers wrap to its width)
//	const:V   every element holds V
//	rand:S    a splitmix64 generator seeded with S (default 1): state += 0x9e3779b97f4a7c15,
//	          then the standard mix; one draw x per element, in index order:
//	            f32: float32(x>>40) / 2^24        uniform in [0,1), 24 random bits
//	            f64: float64(x>>11) / 2^53        uniform in [0,1), 53 random bits
//	            i8:  x % 128    u8: x % 256       (so every value fits the type)
//	            other integers: x % 1000          (small, so that sums do not overflow)
//	hot:P:S   skewed data, a histogram's worst case: rand:S's draws, except that an
//	          element is 0 where its draw's top 32 bits, modulo 100, are below P (about
//	          P% of the elements; the others keep rand's value, which may also be 0)
//
// A scalar Arg returns its value's bytes.
func (a Arg) InitBytes() []byte {
	eb := a.ElemBytes()
	if a.Kind == ArgScalar {
		b := make([]byte, eb)
		storeN(b[:eb], a.Value)
		return b
	}
	out := make([]byte, a.Count*eb)
	switch a.Init {
	case "iota":
		for i := 0; i < a.Count; i++ {
			storeN(out[i*eb:][:eb], valueBits(a.Type, uint64(i), float64(i)))
		}
	case "const":
		v, _ := scalarBits(a.Type, a.Const)
		for i := 0; i < a.Count; i++ {
			storeN(out[i*eb:][:eb], v)
		}
	case "rand", "hot":
		g := splitmix64{a.Seed}
		for i := 0; i < a.Count; i++ {
			x := g.next()
			if a.Init == "hot" && int((x>>32)%100) < a.Hot {
				continue // the element stays 0
			}
			var v uint64
			switch a.Type {
			case "f32":
				v = uint64(math.Float32bits(float32(x>>40) / (1 << 24)))
			case "f64":
				v = math.Float64bits(float64(x>>11) / (1 << 53))
			case "i8":
				v = x % 128
			case "u8":
				v = x % 256
			default:
				v = x % 1000
			}
			storeN(out[i*eb:][:eb], v)
		}
	}
	return out
}

func valueBits(t string, i uint64, f float64) uint64 {
	switch t {
	case "f32":
		return uint64(math.Float32bits(float32(f)))
	case "f64":
		return math.Float64bits(f)
	}
	return i
}

// TexBind is a parsed Spec.TexBinds entry: texture reference Name reads buf argument
// Arg, all of it, as texels of Format.
type TexBind struct {
	Name       string
	Arg        int
	Format     ChannelFormat // zero: from the buffer's element type
	Normalized bool
	Source     string
}

// texelTypes are CUDA's texel type names without their channel count.
var texelTypes = map[string]ChannelFormat{
	"float": {Bits: 32, Kind: ChannelFloat}, "int": {Bits: 32, Kind: ChannelSigned}, "uint": {Bits: 32, Kind: ChannelUnsigned},
	"short": {Bits: 16, Kind: ChannelSigned}, "ushort": {Bits: 16, Kind: ChannelUnsigned},
	"char": {Bits: 8, Kind: ChannelSigned}, "uchar": {Bits: 8, Kind: ChannelUnsigned},
}

// bufTexel is the one-channel texel of a buf argument's element type (f32 a float, i16
// a short, u8 an unsigned char, ...), for a TexBind that names no format; false for
// 8-byte elements, which no texel channel has.
func bufTexel(a Arg) (ChannelFormat, bool) {
	kind := map[byte]ChannelKind{'i': ChannelSigned, 'u': ChannelUnsigned, 'f': ChannelFloat}[a.Type[0]]
	return ChannelFormat{Channels: 1, Bits: 8 * a.ElemBytes(), Kind: kind}, a.ElemBytes() <= 4
}

// ParseTexBind parses NAME=ARG[:FORMAT][:norm]: texture reference NAME (its name in the
// PTX) reads the buf argument of index ARG (0 for the first --arg); FORMAT is the
// texel as CUDA names it (float, float2, float4, int, int2, int4, uint..., short...,
// ushort..., char..., uchar...), by default the buffer's element type; norm reads 8-
// and 16-bit integers as normalised floats (cudaReadModeNormalizedFloat).
func ParseTexBind(s string) (TexBind, error) {
	bad := func(f string, a ...any) (TexBind, error) {
		return TexBind{}, fmt.Errorf("texref %q: %s", s, fmt.Sprintf(f, a...))
	}
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return bad("want NAME=ARG[:FORMAT][:norm]")
	}
	parts := strings.Split(rest, ":")
	arg, err := strconv.Atoi(parts[0])
	if err != nil || arg < 0 {
		return bad("ARG %q is not an argument's index (0 for the first --arg)", parts[0])
	}
	b := TexBind{Name: name, Arg: arg, Source: s}
	parts = parts[1:]
	if n := len(parts); n > 0 && parts[n-1] == "norm" {
		b.Normalized, parts = true, parts[:n-1]
	}
	switch len(parts) {
	case 0:
	case 1:
		f, err := parseTexel(parts[0])
		if err != nil {
			return bad("%v", err)
		}
		b.Format = f
	default:
		return bad("want NAME=ARG[:FORMAT][:norm]")
	}
	return b, nil
}

// parseTexel parses a CUDA texel type name: float, float2, uchar4, ...
func parseTexel(s string) (ChannelFormat, error) {
	base := strings.TrimRight(s, "0123456789")
	n := map[string]int{"": 1, "1": 1, "2": 2, "4": 4}[s[len(base):]]
	f, ok := texelTypes[base]
	if !ok || n == 0 {
		return f, fmt.Errorf("FORMAT %q is not a texel type (float, float2, float4, int..., uint..., short..., ushort..., char..., uchar...)", s)
	}
	f.Channels = n
	return f, nil
}

// constSpec is a parsed Spec.Consts entry.
type constSpec struct {
	name string
	arg  Arg
}

func parseConst(s string) (constSpec, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return constSpec{}, fmt.Errorf("const %q: want NAME=TYPE:COUNT[:INIT]", s)
	}
	a, err := ParseArg("buf:" + rest)
	if err != nil {
		return constSpec{}, fmt.Errorf("const %q: %w", s, err)
	}
	a.Source = s
	return constSpec{name, a}, nil
}
