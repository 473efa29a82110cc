package capture

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sort"
)

// DefaultHeapSize is the device heap a CUDA context gives malloc unless the program
// sets cudaLimitMallocHeapSize: 8 MiB (CUDA Runtime API, cudaDeviceSetLimit; the value
// cudaDeviceGetLimit gives on an H100, scripts/hw/printf.sh).
const DefaultHeapSize = 8 << 20

// heapAlign is the alignment of every address malloc returns (CUDA C++ Programming
// Guide, "Dynamic Global Memory Allocation and Operations": "aligned to a 16-byte
// boundary").
const heapAlign = 16

// heap is the device heap the malloc and free system calls share: one allocation in
// global memory, and the blocks live in it. A launch whose kernel calls malloc runs its
// CTAs one after another (parallelSafe), so the blocks, and the addresses malloc
// returns, are the same on every run.
//
// malloc places a block after the last live one while that fits, and otherwise in the
// first gap between live blocks that holds it; it returns 0 (NULL) when none does, as a
// GPU's malloc does when the heap is spent. malloc(0) returns a block of its own, as an
// H100's does (traces/hw/h100-2026-11-27-malloc). The GPU's own allocator is not
// documented, and it gives a program less than the heap's size: on an H100 the largest
// block of a 4 MiB heap is 3837008 bytes, and 1888 blocks of 4 KiB fit in 8 MiB, 4416
// bytes apart (scripts/hw/heap.sh, traces/hw/h100-2026-11-27-heap). gtrace hands out
// all of it: its addresses differ, and a program that allocates until NULL gets more.
type heap struct {
	a      *alloc
	blocks []heapBlock // live blocks, sorted by offset
}

type heapBlock struct{ off, size uint64 }

// malloc returns the address of a new block of n bytes, or 0.
func (h *heap) malloc(n uint64) uint64 {
	if n > h.a.size {
		return 0
	}
	size := max(n+heapAlign-1, heapAlign) / heapAlign * heapAlign
	off, i := uint64(0), len(h.blocks)
	if i > 0 {
		last := h.blocks[i-1]
		off = last.off + last.size
	}
	if off+size > h.a.size {
		off, i = 0, -1
		for j, b := range h.blocks {
			if b.off-off >= size {
				i = j
				break
			}
			off = b.off + b.size
		}
		if i < 0 {
			return 0
		}
	}
	h.blocks = slices.Insert(h.blocks, i, heapBlock{off, size})
	return h.a.base + off
}

// free releases the block at addr; 0 is a no-op, as in C. Any other address that is not
// a live block's start is an error, which a GPU leaves undefined.
func (h *heap) free(addr uint64) error {
	if addr == 0 {
		return nil
	}
	i := sort.Search(len(h.blocks), func(i int) bool { return h.a.base+h.blocks[i].off >= addr })
	if addr < h.a.base || i == len(h.blocks) || h.a.base+h.blocks[i].off != addr {
		return fmt.Errorf("free(%#x): not an address malloc returned and free has not released (the device heap is [%#x, +%d), %d blocks live)",
			addr, h.a.base, h.a.size, len(h.blocks))
	}
	h.blocks = slices.Delete(h.blocks, i, i+1)
	return nil
}

// placeHeap places the device heap of Spec.HeapSize bytes in global memory after
// everything else, for a kernel that calls malloc or free. On a Device the heap is
// placed by the first such launch and kept, with its blocks, for every later one, as a
// CUDA context keeps it; a later launch that asks for another size is refused.
func (k *Kernel) placeHeap() error {
	if !k.callsHeap {
		return nil
	}
	size := k.spec.HeapSize
	if size == 0 {
		size = DefaultHeapSize
	}
	if size > TextureBase-GlobalBase || k.gmemInit.next+size+pageSize > TextureBase {
		return fmt.Errorf("kernel %s calls malloc: a device heap of %d bytes does not fit the device's address space", k.spec.Kernel, size)
	}
	// On a Device, k.gmemInit is the Device's memory: its heap is the program's.
	if h := k.gmemInit.heap; h != nil {
		if h.a.size != size {
			return fmt.Errorf("kernel %s: a device heap of %d bytes was asked for, but an earlier launch that called malloc fixed it at %d (cudaLimitMallocHeapSize cannot change after that)",
				k.spec.Kernel, size, h.a.size)
		}
		return nil
	}
	a := k.gmemInit.add(fmt.Sprintf("the device heap (%d bytes)", size), -1, size, nil)
	k.gmemInit.heap = &heap{a: a}
	return nil
}

// sysMallocFree runs malloc or free on each executing lane, in lane order: malloc
// writes the block's address (0 when the heap has no room) as its result.
func (w *warpState) sysMallocFree(in *instr, pc int32, exec uint32) error {
	h := w.c.gmem.heap
	ps := int(w.c.k.fparamSize)
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		arg := w.sysArg(in, l, 0)
		if in.target == sysFree {
			if err := h.free(arg); err != nil {
				return w.fault(FaultOutOfBounds, pc, l, arg, "", err.Error())
			}
			continue
		}
		addr := h.malloc(arg)
		for _, r := range in.rcopies {
			binary.LittleEndian.PutUint64(w.fparam[l*ps+int(r.to):], addr)
		}
	}
	return nil
}
