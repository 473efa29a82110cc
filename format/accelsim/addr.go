package accelsim

import (
	"fmt"

	"github.com/gtrace/gtrace/format"
)

// The tracer records what NVBit reports for each lane: a global address as the GPU saw
// it, and for shared and local memory either an offset or an address in the generic
// window whose start the header gives (-shmem base_addr, -local mem base_addr). gtrace's
// trace places each space at its own fixed addresses (format/addrmap.go), so the
// importer moves each address there:
//
//	global            as traced
//	shared (LDS ...)  the offset in the CTA's shared memory, as capture records it
//	local (LDL ...)   capture's layout of local memory (format.LocalAddr), localSize
//	                  bytes per thread: the exporter's header key, or else the highest
//	                  offset (plus width) the kernel's trace touches
//	generic (LD ...)  by the window its address falls in, as Accel-Sim resolves them
//	                  (trace_driven.cc): shared -> format.SharedWindow + offset, local ->
//	                  the local layout above, anything else global. A global address
//	                  inside one of gtrace's own windows is refused: replay would take
//	                  it for shared, local or constant memory.

// offsetIn returns a's offset in the window that starts at base (when the header gives
// one), or a itself when a is already an offset: shared and local windows are far
// smaller than format.WindowSize.
func offsetIn(a, base uint64, what string) (uint64, error) {
	switch {
	case base != 0 && a >= base && a-base < format.WindowSize:
		return a - base, nil
	case a < format.WindowSize:
		return a, nil
	}
	if base == 0 {
		return 0, fmt.Errorf("%s address %#x is not an offset, and the header gives no %s window base", what, a, what)
	}
	return 0, fmt.Errorf("%s address %#x is neither an offset nor inside the %s window at %#x", what, a, what, base)
}

// resolve returns the space a lane's traced address a reaches for an instruction of
// space sp, with its offset in that space (the address itself for global).
func (kf *kernelFile) resolve(sp format.Space, a uint64) (format.Space, uint64, error) {
	h := &kf.hdr
	switch sp {
	case format.SpaceShared:
		off, err := offsetIn(a, h.shmemBase, "shared")
		return sp, off, err
	case format.SpaceLocal:
		off, err := offsetIn(a, h.localBase, "local")
		return sp, off, err
	case format.SpaceGeneric:
		if h.gtraceMap {
			// An export of a gtrace trace: the address is where capture placed it, and
			// replay resolves it by format.SpaceOfGeneric as it does for a capture.
			return format.SpaceGeneric, a, nil
		}
		inShared := a >= h.shmemBase && a-h.shmemBase < format.WindowSize && (h.localBase <= h.shmemBase || a < h.localBase)
		switch {
		case inShared:
			return format.SpaceShared, a - h.shmemBase, nil
		case a >= h.localBase && a-h.localBase < format.WindowSize:
			return format.SpaceLocal, a - h.localBase, nil
		}
		if s := format.SpaceOfGeneric(a); s != format.SpaceGlobal {
			return 0, 0, fmt.Errorf("global address %#x falls in gtrace's generic %s window [%#x, +%#x), so replay would read it as %s memory", a, s, windowOf(s), format.WindowSize, s)
		}
	}
	return format.SpaceGlobal, a, nil
}

func windowOf(s format.Space) uint64 {
	switch s {
	case format.SpaceShared:
		return format.SharedWindow
	case format.SpaceLocal:
		return format.LocalWindow
	}
	return format.ConstWindow
}

// place is the address the gtrace record carries for lane l of global warp gw.
func (kf *kernelFile) place(sp format.Space, a, gw uint64, l int) (uint64, error) {
	got, off, err := kf.resolve(sp, a)
	if err != nil {
		return 0, err
	}
	switch got {
	case format.SpaceShared:
		if sp == format.SpaceGeneric {
			return format.SharedWindow + off, nil
		}
		return off, nil
	case format.SpaceGeneric:
		return off, nil
	case format.SpaceLocal:
		return format.LocalAddr(gw, kf.localSize, l, off), nil
	}
	return off, nil
}
