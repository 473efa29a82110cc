package kernels

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gtrace/gtrace/format"
)

//go:embed ptx ptx-nvcc
var corpus embed.FS

// Size is a named, overridable launch size (an element count, a matrix side).
type Size struct {
	Name    string
	Default int
	Help    string
	// Min and Max bound the value; Max 0 means no bound beyond maxCount. Min is at
	// least 1 unless Zero is set.
	Min, Max int
	// Zero allows 0 (a size that turns something off, such as a histogram's skew).
	Zero bool
	// Multiple, when above 1, is what the value must be a multiple of: a kernel
	// without bounds tests needs its grid to cover the data exactly.
	Multiple int
	// Pow2 asks for a power of two (a kernel that masks with value-1).
	Pow2 bool
}

// Launch is everything a capture needs to run a kernel.
type Launch struct {
	Grid, Block format.Dim3
	DynShared   uint32 // dynamic shared memory per CTA, in bytes
	// Args holds one capture argument SPEC per kernel parameter, in order:
	//	i32:V u32:V i64:V u64:V f32:V f64:V       a scalar
	//	buf:TYPE:COUNT[:INIT]                      a new allocation; its address is passed
	//	tex2d:TYPE:W:H[:INIT]                      a 2D texture object handle (point
	//	                                           sampling, clamp), texels row-major
	// TYPE is i8 u8 i16 u16 i32 u32 i64 u64 f32 f64 and INIT zero, iota,
	// rand[:SEED], hot:P[:SEED] or const:V.
	Args []string
	// Consts sets __constant__ variables: NAME=TYPE:COUNT[:INIT].
	Consts []string
}

// Kernel is one reference kernel.
type Kernel struct {
	Name    string // CLI name, e.g. "transpose_v1"
	Entry   string // .entry name in the PTX
	PTXFile string // file under kernels/ptx (and kernels/ptx-nvcc)
	Topic   string // seed topic, e.g. "transpose (seed: coalescing, banks)"
	Summary string
	Sizes   []Size
	// Small overrides Sizes for a quick run that still has several blocks, partial
	// blocks and loops that go round more than once: the end-to-end tests and the
	// hardware check use it. ParseSizes(k, k.Small) gives the sizes.
	Small []string
	// SIMT lists the SIMT models under which the kernel completes: "stack" and
	// "its", or only "its" for a kernel that needs Independent Thread Scheduling.
	SIMT []string
	// Launch gives the launch for sizes from Defaults or ParseSizes.
	Launch func(sz map[string]int) Launch
	// Check compares the emulated result with the Go reference. init[i] and
	// final[i] are the contents of argument i before and after the run when it is
	// a buf (little-endian elements) or a tex2d (texels, row-major), nil
	// otherwise. Every buffer the kernel does not write must come back unchanged.
	Check func(sz map[string]int, init, final [][]byte) error
}

// SIMT model names, as the CLI's --simt flag spells them.
const (
	SIMTStack = "stack"
	SIMTITS   = "its"
)

var both = []string{SIMTStack, SIMTITS}

// maxCount bounds every size, so that an override cannot ask for a buffer that
// does not fit in an int32 index (the kernels index with int).
const maxCount = 1 << 28

var registry = sync.OnceValue(func() []*Kernel {
	var all []*Kernel
	for _, topic := range []func() []*Kernel{
		vecaddKernels,
		coalescingKernels,
		copyKernels,
		transposeKernels,
		reductionKernels,
		bankKernels,
		constantKernels,
		textureKernels,
		layoutKernels,
		divergenceKernels,
		spinlockKernels,
		volkovKernels,
		histogramKernels,
		lessonKernels,
		compactionKernels,
		binningKernels,
		intchainKernels,
		accessKernels,
	} {
		all = append(all, topic()...)
	}
	return all
})

// All returns every reference kernel, grouped by topic in the order of the
// lessons. The slice is the caller's; the kernels are shared and must not be
// modified.
func All() []*Kernel { return slices.Clone(registry()) }

// Lookup finds a kernel by its CLI name.
func Lookup(name string) (*Kernel, error) {
	for _, k := range registry() {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, 0, len(registry()))
	for _, k := range registry() {
		names = append(names, k.Name)
	}
	return nil, fmt.Errorf("kernels: unknown kernel %q; known: %s", name, strings.Join(names, ", "))
}

// Producer names the compiler that made a PTX corpus.
type Producer string

const (
	Clang14 Producer = "clang-14" // kernels/ptx, always present
	NVCC    Producer = "nvcc"     // kernels/ptx-nvcc, made on a CUDA machine
)

// ErrNoCorpus reports a producer whose PTX has not been generated and committed.
var ErrNoCorpus = errors.New("PTX corpus not generated")

// PTX returns the clang-14 PTX that holds k's entry.
func PTX(k *Kernel) ([]byte, error) { return PTXOf(k, Clang14) }

// PTXOf returns the PTX of k made by producer p. For the nvcc corpus before it has
// been generated (sh kernels/gen.sh nvcc, on a machine with CUDA) the error wraps
// ErrNoCorpus.
func PTXOf(k *Kernel, p Producer) ([]byte, error) {
	var dir string
	switch p {
	case Clang14:
		dir = "ptx"
	case NVCC:
		dir = "ptx-nvcc"
	default:
		return nil, fmt.Errorf("kernels: unknown PTX producer %q", p)
	}
	b, err := corpus.ReadFile(dir + "/" + k.PTXFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("kernels: %s: %s/%s: %w (run sh kernels/gen.sh %s)", k.Name, dir, k.PTXFile, ErrNoCorpus, strings.TrimSuffix(string(p), "-14"))
	}
	if err != nil {
		return nil, fmt.Errorf("kernels: %s: %w", k.Name, err)
	}
	return b, nil
}

// Defaults returns k's default sizes.
func (k *Kernel) Defaults() map[string]int {
	sz := make(map[string]int, len(k.Sizes))
	for _, s := range k.Sizes {
		sz[s.Name] = s.Default
	}
	return sz
}

// ParseSizes returns k's defaults overridden by kv, each "name=value". A value is
// decimal, 0x hexadecimal, or a power of two written 2^N or 1<<N. Every size is
// checked against its bounds.
func ParseSizes(k *Kernel, kv []string) (map[string]int, error) {
	sz := k.Defaults()
	seen := map[string]bool{}
	for _, item := range kv {
		name, val, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("kernels: %s: size %q: want name=value", k.Name, item)
		}
		if _, known := sz[name]; !known {
			return nil, fmt.Errorf("kernels: %s: unknown size %q; sizes: %s", k.Name, name, k.sizeNames())
		}
		if seen[name] {
			return nil, fmt.Errorf("kernels: %s: size %q given twice", k.Name, name)
		}
		seen[name] = true
		v, err := parseSizeValue(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("kernels: %s: size %s: %w", k.Name, name, err)
		}
		sz[name] = v
	}
	for _, s := range k.Sizes {
		if err := s.check(sz[s.Name]); err != nil {
			return nil, fmt.Errorf("kernels: %s: %w", k.Name, err)
		}
	}
	return sz, nil
}

func (k *Kernel) sizeNames() string {
	var names []string
	for _, s := range k.Sizes {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func parseSizeValue(v string) (int, error) {
	var exp string
	if e, ok := strings.CutPrefix(v, "2^"); ok {
		exp = e
	} else if e, ok := strings.CutPrefix(v, "1<<"); ok {
		exp = e
	}
	if exp != "" {
		n, err := strconv.Atoi(exp)
		if err != nil || n < 0 || n > 30 {
			return 0, fmt.Errorf("%q: want an exponent from 0 to 30", v)
		}
		return 1 << n, nil
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: not a number", v)
	}
	if n < 0 || n > maxCount {
		return 0, fmt.Errorf("%d: out of range [0, %d]", n, maxCount)
	}
	return int(n), nil
}

func (s Size) check(v int) error {
	lo := s.Min
	if !s.Zero {
		lo = max(lo, 1)
	}
	hi := s.Max
	if hi == 0 {
		hi = maxCount
	}
	if v < lo || v > hi {
		return fmt.Errorf("size %s=%d: out of range [%d, %d]", s.Name, v, lo, hi)
	}
	if s.Multiple > 1 && v%s.Multiple != 0 {
		return fmt.Errorf("size %s=%d: must be a multiple of %d", s.Name, v, s.Multiple)
	}
	if s.Pow2 && v&(v-1) != 0 {
		return fmt.Errorf("size %s=%d: must be a power of two", s.Name, v)
	}
	return nil
}

// Helpers for the topic files.

func dim1(x int) format.Dim3    { return format.Dim3{X: uint32(x), Y: 1, Z: 1} }
func dim2(x, y int) format.Dim3 { return format.Dim3{X: uint32(x), Y: uint32(y), Z: 1} }

// ceilDiv is the usual grid size for n elements and b threads per block.
func ceilDiv(n, b int) int { return (n + b - 1) / b }

// count is a size that counts elements, a multiple of mult.
func count(name string, def, mult int, help string) Size {
	return Size{Name: name, Default: def, Help: help, Min: mult, Multiple: mult}
}
