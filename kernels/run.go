package kernels

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// Spec is the capture spec that runs k at sizes sz from producer p's PTX corpus. The
// caller sets the SIMT model, budget, workers and progress.
func (k *Kernel) Spec(sz map[string]int, p Producer) (capture.Spec, error) {
	ptx, err := PTXOf(k, p)
	if err != nil {
		return capture.Spec{}, err
	}
	dir := "ptx/"
	if p == NVCC {
		dir = "ptx-nvcc/"
	}
	l := k.Launch(sz)
	return capture.Spec{
		PTX: ptx, PTXName: "kernels/" + dir + k.PTXFile, Kernel: k.Entry, PTXProducer: string(p),
		Grid: l.Grid, Block: l.Block, DynShared: l.DynShared, Args: l.Args, Consts: l.Consts,
	}, nil
}

// Verify compares what a capture of spec (made by Spec) computed with k's Go reference.
func (k *Kernel) Verify(sz map[string]int, spec capture.Spec, res *capture.Result) error {
	init, final := make([][]byte, len(spec.Args)), make([][]byte, len(spec.Args))
	for _, b := range res.Buffers {
		init[b.Arg], final[b.Arg] = b.Init, b.Final
	}
	// Textures are read-only and not among the buffers: their texels are the spec's.
	for i, s := range spec.Args {
		if strings.HasPrefix(s, "tex2d:") {
			a, err := capture.ParseArg(s)
			if err != nil {
				return err
			}
			init[i] = a.InitBytes()
		}
	}
	if err := k.Check(sz, init, final); err != nil {
		return fmt.Errorf("%s: emulated output differs from the Go reference: %w", k.Name, err)
	}
	return nil
}

// CaptureInMemory captures spec into memory, the way tests, examples and a library user
// get a trace of a reference kernel without a file, and returns the trace and what the
// kernel left in its buffers.
func CaptureInMemory(ctx context.Context, spec capture.Spec) (*format.Reader, *capture.Result, error) {
	k, err := capture.Load(spec)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	res, err := k.Capture(ctx, &buf, "in memory")
	if err != nil {
		return nil, nil, err
	}
	r, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	return r, res, err
}

// SpecOf is the capture spec of reference kernel name at sizes (NAME=VALUE; those not
// given keep their defaults) from clang-14's PTX, with the kernel and the sizes its
// Verify takes.
func SpecOf(name string, sizes []string) (*Kernel, map[string]int, capture.Spec, error) {
	k, err := Lookup(name)
	if err != nil {
		return nil, nil, capture.Spec{}, err
	}
	sz, err := ParseSizes(k, sizes)
	if err != nil {
		return nil, nil, capture.Spec{}, err
	}
	spec, err := k.Spec(sz, Clang14)
	return k, sz, spec, err
}

// TraceOf captures reference kernel name at sizes (NAME=VALUE; those not given keep their
// defaults, so pass k.Small for the quick sizes) from clang-14's PTX after edit (if not
// nil) has changed the spec, and checks the emulated output against the kernel's Go
// reference.
func TraceOf(ctx context.Context, name string, sizes []string, edit func(*capture.Spec)) (*format.Reader, error) {
	k, sz, spec, err := SpecOf(name, sizes)
	if err != nil {
		return nil, err
	}
	if edit != nil {
		edit(&spec)
	}
	r, res, err := CaptureInMemory(ctx, spec)
	if err != nil {
		return nil, err
	}
	return r, k.Verify(sz, spec, res)
}

// SmallTrace captures reference kernel name at its Small sizes under stack-based SIMT
// where the kernel completes under it, else under ITS (a kernel that needs Independent
// Thread Scheduling, such as a spin lock), and checks its output.
func SmallTrace(ctx context.Context, name string) (*format.Reader, error) {
	k, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return TraceOf(ctx, name, k.Small, func(s *capture.Spec) {
		if !slices.Contains(k.SIMT, SIMTStack) {
			s.SIMT = format.SIMTITS
		}
	})
}
