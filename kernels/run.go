package kernels

import (
	"fmt"
	"strings"

	"github.com/gtrace/gtrace/capture"
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
