package capture

import "math/bits"

// localMem is one warp's local memory: localSize bytes per lane, held in pages that a
// lane's first store to them allocates. A thread may declare up to 512 KiB of local
// memory (the GPUs' limit), 512 MiB for a CTA of 1024 threads, and a worker holds a few
// CTAs: dense, that is gigabytes for a frame a kernel may barely touch (a fuzzed PTX
// line made a 2 MiB local array out of a 64-byte one), and clearing it between CTAs
// costs as much time. Paged, memory and clearing follow the bytes the kernel writes.
type localMem struct {
	page    uint64   // bytes per page: the frame rounded up to a power of two, at most maxLocalPage
	perLane int      // pages per lane
	pages   [][]byte // lane l's page p at l*perLane+p; nil until stored to
	used    []int32  // the pages allocated, to clear between CTAs
}

// maxLocalPage bounds a page; a frame no larger is one page per lane.
const maxLocalPage = 4096

// zeroLocal is what a load from a page never stored to reads (a GPU's local memory
// starts undefined; gtrace's, zero, as it always has). Never written.
var zeroLocal [maxLocalPage]byte

func newLocalMem(size uint32) localMem {
	var m localMem
	if size > 0 {
		m.page = min(uint64(1)<<bits.Len32(size-1), maxLocalPage)
		m.perLane = int((uint64(size) + m.page - 1) / m.page)
		m.pages = make([][]byte, 32*m.perLane)
	}
	return m
}

// bytes are lane l's n bytes at off, where off+n is within the frame and n is a power of two that
// divides off (access faults other accesses first), so that they lie in one page: a
// page is a power of two, and at least n when it is smaller than the frame. A load
// from a page never stored to reads zeros without allocating it.
func (m *localMem) bytes(l int, off uint64, n int, write bool) []byte {
	i := l*m.perLane + int(off/m.page)
	in := off % m.page
	p := m.pages[i]
	if p == nil {
		if !write {
			return zeroLocal[in : in+uint64(n)]
		}
		p = make([]byte, m.page)
		m.pages[i] = p
		m.used = append(m.used, int32(i))
	}
	return p[in : in+uint64(n)]
}

// reset zeroes what the last CTA stored, keeping the pages for the next.
func (m *localMem) reset() {
	for _, i := range m.used {
		clear(m.pages[i])
	}
}
