package kernels

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// TestEndToEnd emulates every reference kernel at its Small sizes, from both PTX
// corpora, under every SIMT model it completes in, and checks the result with its
// Go reference.
func TestEndToEnd(t *testing.T) {
	models := map[string]format.SIMTModel{SIMTStack: format.SIMTStack, SIMTITS: format.SIMTITS}
	for _, k := range All() {
		for _, p := range []Producer{Clang14, NVCC} {
			ptx, err := PTXOf(k, p)
			if errors.Is(err, ErrNoCorpus) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range k.SIMT {
				t.Run(k.Name+"/"+string(p)+"/"+m, func(t *testing.T) {
					sz, err := ParseSizes(k, k.Small)
					if err != nil {
						t.Fatal(err)
					}
					init, final, res, err := emulate(k, sz, ptx, models[m])
					if err != nil {
						t.Fatal(err)
					}
					if err := k.Check(sz, init, final); err != nil {
						t.Fatal(err)
					}
					t.Logf("%d warp-instructions, %d CTAs", res.WarpInsts, res.CTAs)
				})
			}
		}
	}
}

// TestSpinlockNeedsITS: under a reconvergence stack the spin lock must be reported,
// not hang and not pass.
func TestSpinlockNeedsITS(t *testing.T) {
	k, _ := Lookup("spinlock")
	sz, _ := ParseSizes(k, k.Small)
	ptx, _ := PTX(k)
	_, _, _, err := emulate(k, sz, ptx, format.SIMTStack)
	var f *capture.Fault
	if !errors.As(err, &f) || f.Kind != capture.FaultLivelock || !strings.Contains(err.Error(), "--simt its") {
		t.Fatalf("spinlock under stack SIMT: %v; want a livelock fault that says to capture with --simt its", err)
	}
}

// emulate captures k once and returns every argument's contents before and after.
func emulate(k *Kernel, sz map[string]int, ptx []byte, simt format.SIMTModel) (init, final [][]byte, res *capture.Result, err error) {
	l := k.Launch(sz)
	kk, err := capture.Load(capture.Spec{
		PTX: ptx, PTXName: k.PTXFile, Kernel: k.Entry,
		Grid: l.Grid, Block: l.Block, DynShared: l.DynShared,
		Args: l.Args, Consts: l.Consts, SIMT: simt,
	})
	if err != nil {
		return nil, nil, nil, err
	}
	res, err = kk.Run(context.Background(), 0, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	init, final = make([][]byte, len(l.Args)), make([][]byte, len(l.Args))
	for _, b := range res.Buffers {
		init[b.Arg], final[b.Arg] = b.Init, b.Final
	}
	// Textures are read-only and not among the buffers: their texels are the spec's.
	for i, spec := range l.Args {
		if strings.HasPrefix(spec, "tex2d:") {
			a, err := capture.ParseArg(spec)
			if err != nil {
				return nil, nil, nil, err
			}
			init[i] = a.InitBytes()
		}
	}
	return init, final, res, nil
}
