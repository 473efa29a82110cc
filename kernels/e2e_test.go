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
			if _, err := PTXOf(k, p); errors.Is(err, ErrNoCorpus) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			for _, m := range k.SIMT {
				t.Run(k.Name+"/"+string(p)+"/"+m, func(t *testing.T) {
					sz, err := ParseSizes(k, k.Small)
					if err != nil {
						t.Fatal(err)
					}
					res, err := emulate(k, sz, p, models[m])
					if err != nil {
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
	_, err := emulate(k, sz, Clang14, format.SIMTStack)
	var f *capture.Fault
	if !errors.As(err, &f) || f.Kind != capture.FaultLivelock || !strings.Contains(err.Error(), "--simt its") {
		t.Fatalf("spinlock under stack SIMT: %v; want a livelock fault that says to capture with --simt its", err)
	}
}

// emulate captures k once from producer p's corpus and checks it with its Go reference.
func emulate(k *Kernel, sz map[string]int, p Producer, simt format.SIMTModel) (*capture.Result, error) {
	spec, err := k.Spec(sz, p)
	if err != nil {
		return nil, err
	}
	spec.SIMT = simt
	kk, err := capture.Load(spec)
	if err != nil {
		return nil, err
	}
	res, err := kk.Run(context.Background(), 0, nil)
	if err != nil {
		return nil, err
	}
	return res, k.Verify(sz, spec, res)
}
