package format

import (
	"encoding/binary"
	"errors"
	"unsafe"
)

// Arrow IPC buffers are little-endian and this package moves them in and out of typed
// slices without a per-value loop, so it runs only on little-endian hosts (every platform
// gtrace targets: amd64, arm64).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

var errBigEndian = errors.New("gtrace/format: big-endian hosts are not supported")

type integer interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int32 | ~int64
}

// asBytes views s's memory as bytes.
func asBytes[T integer](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// resize returns s with length n, reusing its storage when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/8)
	}
	return s[:n]
}

// zstdSlack is spare capacity past a decompression target. With it the zstd decoder uses
// its fast copy loops, which may write up to 16 bytes past a match; without it, it falls
// back to exact copies, about a third slower. A block is at most 128 KiB.
const zstdSlack = 128<<10 + 16

// carve takes n elements of T from b at *at, aligned to T's size, and advances *at past
// them. b must be 8-byte aligned (any allocation of 8 bytes or more is) and hold them.
func carve[T integer](b []byte, at *int, n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	*at = (*at + size - 1) &^ (size - 1)
	lo := *at
	*at += n * size
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[lo])), n)
}

// resizeSlack is resize with zstdSlack bytes of spare capacity; it returns the byte view
// of the n elements, with the spare capacity.
func resizeSlack[T integer](s *[]T, n int) []byte {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if need := n + (zstdSlack+size-1)/size; cap(*s) < need {
		*s = make([]T, n, need+n/8)
	}
	*s = (*s)[:n]
	full := (*s)[:cap(*s)]
	return asBytes(full)[:n*size]
}
