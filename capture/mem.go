package capture

import (
	"fmt"

	"github.com/gtrace/gtrace/format"
	"sort"
	"sync"
	"sync/atomic"
)

// Address map. Every device allocation (buf argument, .global variable) lives in the
// global range at a deterministic address; shared, local and const memory are reached
// from generic addresses through fixed 4 GiB windows, as on NVIDIA GPUs.
// The values are the trace's address map, defined in format so that a replay can read
// the space of a generic access from its address.
const (
	// GlobalBase is the address of the first device allocation. Allocations are placed
	// in argument order, each at a 64 KiB boundary, with at least one unmapped 64 KiB
	// guard page between neighbours so that an overrun faults.
	GlobalBase = format.GlobalBase
	// TextureBase is where texture arrays are laid out (one after another, 64 KiB aligned).
	TextureBase = format.TextureBase
	// LocalPhysBase is where the trace places local memory: see localAddr.
	LocalPhysBase = format.LocalPhysBase
	// SharedWindow, LocalWindow and ConstWindow start the generic-address windows:
	// generic address SharedWindow+x is byte x of the CTA's shared memory, and so on.
	SharedWindow = format.SharedWindow
	LocalWindow  = format.LocalWindow
	ConstWindow  = format.ConstWindow
	windowSize   = format.WindowSize

	pageBits = 16
	pageSize = 1 << pageBits
)

type page = [pageSize]byte

var zeroPage page

// alloc is one device allocation in the sparse global memory.
type alloc struct {
	base, size uint64
	name       string // "arg 0 (buf:f32:1024)", ".global gvar"
	arg        int    // argument index, -1 for a .global variable
	init       []byte // initial contents of a buf argument (shared, read-only)
	pages      []atomic.Pointer[page]
}

func (a *alloc) end() uint64 { return a.base + a.size }

// holds says whether the n bytes at addr lie inside a. addr+n > end() would not do: for
// an addr near 2^64 (a computed address gone wild) the sum wraps round below the end.
func (a *alloc) holds(addr uint64, n int) bool {
	return addr >= a.base && addr-a.base <= a.size && a.size-(addr-a.base) >= uint64(n)
}

// globalMem is the sparse, paged device memory shared by all CTAs of a launch. Pages
// are allocated on first write; reading an untouched page reads zeros.
type globalMem struct {
	allocs []*alloc // sorted by base
	next   uint64
	heap   *heap          // malloc's, when the kernel calls it (placeHeap)
	locks  [64]sync.Mutex // atomics when CTAs run in parallel, striped by address
}

func newGlobalMem() *globalMem { return &globalMem{next: GlobalBase} }

func (g *globalMem) add(name string, arg int, size uint64, init []byte) *alloc {
	if size == 0 {
		size = 1
	}
	a := &alloc{base: g.next, size: size, name: name, arg: arg}
	a.pages = make([]atomic.Pointer[page], (size+pageSize-1)/pageSize)
	for off := uint64(0); off < uint64(len(init)); off += pageSize {
		p := new(page)
		copy(p[:], init[off:])
		a.pages[off/pageSize].Store(p)
	}
	g.allocs = append(g.allocs, a)
	g.next = (a.base+size+pageSize-1)/pageSize*pageSize + pageSize // one guard page
	return a
}

// find returns the allocation holding [addr, addr+n), or nil.
func (g *globalMem) find(addr uint64, n int) *alloc {
	i := sort.Search(len(g.allocs), func(i int) bool { return g.allocs[i].end() > addr })
	if i < len(g.allocs) {
		a := g.allocs[i]
		if a.holds(addr, n) {
			return a
		}
	}
	return nil
}

// nearest names the allocation closest to addr, for fault reports.
func (g *globalMem) nearest(addr uint64) string {
	var best *alloc
	var bd uint64
	for _, a := range g.allocs {
		var d uint64
		switch {
		case addr < a.base:
			d = a.base - addr
		case addr >= a.end():
			d = addr - a.end() + 1
		}
		if best == nil || d < bd {
			best, bd = a, d
		}
	}
	if best == nil {
		return "none"
	}
	return fmt.Sprintf("%s [%#x, +%d)", best.name, best.base, best.size)
}

// bytes returns the n bytes at addr inside a (which must hold them; n divides the page
// size and addr is n-aligned, so the range never crosses a page). A read of an
// untouched page returns the shared zero page, which must not be written.
func (a *alloc) bytes(addr uint64, n int, write bool) []byte {
	off := addr - a.base
	pi := off >> pageBits
	p := a.pages[pi].Load()
	if p == nil {
		if !write {
			return zeroPage[off&(pageSize-1):][:n]
		}
		p = new(page)
		if !a.pages[pi].CompareAndSwap(nil, p) {
			p = a.pages[pi].Load()
		}
	}
	return p[off&(pageSize-1):][:n]
}

// contents returns a copy of the allocation's bytes.
func (a *alloc) contents() []byte {
	out := make([]byte, a.size)
	for i := range a.pages {
		if p := a.pages[i].Load(); p != nil {
			copy(out[uint64(i)*pageSize:], p[:])
		}
	}
	return out
}

// texture is one tex2d argument: a W×H array of elem-byte texels in the gob64x8
// layout (see doc.go), stored in its own allocation in the texture range.
type texture struct {
	handle uint64
	w, h   int
	elem   int
	typ    string
	base   uint64
	tilesX int // 64-byte tiles per row of tiles
	data   []byte
	arg    int
}

const texLayout = "gob64x8-swizzled"

// texOffset is the byte offset of texel (x, y) in NVIDIA's block-linear layout with a
// block height of one GOB: the array is cut into GOBs of 64 bytes × 8 rows (512 bytes),
// stored in row-major order of GOBs, and bytes inside a GOB are swizzled so that each
// 32-byte sector holds 16 bytes of two adjacent rows (Tegra X1 TRM, "Block Linear"):
//
//	gob(x, y) = ((x%64)/32)*256 + ((y%8)/2)*64 + ((x%32)/16)*32 + (y%2)*16 + x%16
//
// with x in bytes. A 128-byte line thus covers 32 bytes × 4 rows, which is what makes a
// column walk through a texture cost about what a row walk does.
func (t *texture) texOffset(x, y int) uint64 {
	bx := x * t.elem
	tile := (y>>3)*t.tilesX + bx>>6
	in := (bx&63)/32*256 + (y&7)/2*64 + (bx&31)/16*32 + (y&1)*16 + bx&15
	return uint64(tile)*512 + uint64(in)
}

func newTexture(handle uint64, base uint64, w, h int, typ string, init []byte, arg int) *texture {
	eb := elemBytes(typ)
	t := &texture{handle: handle, w: w, h: h, elem: eb, typ: typ, base: base, arg: arg}
	t.tilesX = (w*eb + 63) / 64
	tilesY := (h + 7) / 8
	t.data = make([]byte, t.tilesX*tilesY*512)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			copy(t.data[t.texOffset(x, y):][:eb], init[(y*w+x)*eb:])
		}
	}
	return t
}

func (t *texture) size() uint64 { return uint64(len(t.data)) }
