package host

import (
	"math"
)

// pitchAlign is what cudaMallocPitch rounds a row up to: 512 bytes on an H100 with
// CUDA 13, for every width from 1 to 70000 bytes (examples/cuda/pitch.cu,
// traces/hw/h100-2026-11-26-pitch), though the device's texture pitch alignment is 32.
const pitchAlign = 512

// MallocPitch is cudaMallocPitch: height rows of width bytes, each starting pitch bytes
// after the one before. A zero width or height allocates nothing and gives pitch 0, as
// on an H100.
func (r *Runtime) MallocPitch(width, height uint64) (addr, pitch uint64, err error) {
	if width == 0 || height == 0 {
		return 0, 0, nil
	}
	pitch = (width + pitchAlign - 1) &^ (pitchAlign - 1)
	if pitch < width || height > math.MaxUint64/pitch {
		return 0, 0, fail(MemoryAllocation, "cudaMallocPitch(%d, %d): %d rows of %d bytes overflow 64 bits", width, height, height, width)
	}
	addr, err = r.alloc("cudaMallocPitch", pitch*height)
	return addr, pitch, err
}

// Span2D is how many bytes height rows of width bytes, pitch apart, reach from the
// first (what the C shim makes Memcpy2D's views of the host's rows): 0 when there are
// none, or when they reach past the 64-bit address space.
func Span2D(pitch, width, height uint64) uint64 {
	if width == 0 || height == 0 || height > 1 && pitch > (math.MaxUint64-width)/(height-1) {
		return 0
	}
	return (height-1)*pitch + width
}

// Memcpy2D is cudaMemcpy2D: height rows of width bytes from src, rows spitch bytes
// apart, to dst, rows dpitch apart, made by c. dstHost and srcHost are the host's
// memory over each side's rows (Span2D bytes), touched only where that side is the
// host's and only in the rows. As on an H100, a width over either pitch is
// cudaErrorInvalidPitchValue, a copy of no rows or no width does nothing, and rows
// outside an allocation are cudaErrorInvalidValue before any byte is copied. The trace
// records one copy of width*height bytes.
func (r *Runtime) Memcpy2D(c Copy, dst, dpitch, src, spitch, width, height uint64, dstHost, srcHost []byte, kind MemcpyKind) error {
	if err := r.CheckStream(c.Call, c.Stream); err != nil {
		return err
	}
	if width > dpitch || width > spitch {
		return fail(InvalidPitchValue, "%s: a row of %d bytes is wider than the destination's pitch %d or the source's %d", c.Call, width, dpitch, spitch)
	}
	if width == 0 || height == 0 {
		return nil
	}
	dspan, sspan := Span2D(dpitch, width, height), Span2D(spitch, width, height)
	if dspan == 0 || sspan == 0 {
		return fail(InvalidValue, "%s: %d rows %d and %d bytes apart reach past the address space", c.Call, height, dpitch, spitch)
	}
	kind, err := r.direction(c, kind, dst, src)
	if err != nil {
		return err
	}
	devSrc, devDst := kind == DeviceToHost || kind == DeviceToDevice, kind == HostToDevice || kind == DeviceToDevice
	if !devDst && uint64(len(dstHost)) < dspan || !devSrc && uint64(len(srcHost)) < sspan {
		return fail(InvalidValue, "%s: %d rows %d and %d bytes apart do not fit the host's address space", c.Call, height, dpitch, spitch)
	}
	if devSrc {
		if err := r.dev.Check(src, sspan); err != nil {
			return fail(InvalidValue, "%s %s of %d rows of %d bytes, %d apart: %v", c.Call, kind, height, width, spitch, err)
		}
	}
	if devDst {
		if err := r.dev.Check(dst, dspan); err != nil {
			return fail(InvalidValue, "%s %s of %d rows of %d bytes, %d apart: %v", c.Call, kind, height, width, dpitch, err)
		}
	}
	for y := range height {
		d, s := dst+y*dpitch, src+y*spitch
		var dh, sh []byte
		if !devDst {
			dh = dstHost[y*dpitch : y*dpitch+width]
		}
		if !devSrc {
			sh = srcHost[y*spitch : y*spitch+width]
		}
		if err := r.copyBytes(kind, d, s, width, dh, sh); err != nil {
			return fail(InvalidValue, "%s %s, row %d: %v", c.Call, kind, y, err)
		}
	}
	hostSide, span := dst, dspan
	if kind == HostToDevice {
		hostSide, span = src, sspan
	}
	r.record(c, kind, width*height, hostSide, span)
	return nil
}

// Memset2D is cudaMemset2D: height rows of width bytes, pitch apart, set to v. A width
// over the pitch is cudaErrorInvalidValue, as on an H100.
func (r *Runtime) Memset2D(addr, pitch uint64, v byte, width, height uint64) error {
	if width > pitch {
		return fail(InvalidValue, "cudaMemset2D: a row of %d bytes is wider than the pitch %d", width, pitch)
	}
	if width == 0 || height == 0 {
		return nil
	}
	span := Span2D(pitch, width, height)
	if span == 0 {
		return fail(InvalidValue, "cudaMemset2D: %d rows %d bytes apart reach past the address space", height, pitch)
	}
	if err := r.dev.Check(addr, span); err != nil {
		return fail(InvalidValue, "cudaMemset2D of %d rows of %d bytes, %d apart: %v", height, width, pitch, err)
	}
	for y := range height {
		if err := r.dev.Fill(addr+y*pitch, v, width); err != nil {
			return fail(InvalidValue, "cudaMemset2D, row %d: %v", y, err)
		}
	}
	return nil
}
