package host

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/models/arch"
)

// A program is told of the GPU preset it runs as: for every preset, each attribute the
// properties hold comes from the preset's own keys, the memory clock and bus width give
// back its DRAM bandwidth, and the limits follow the compute capability.
func TestAttributesFollowThePreset(t *testing.T) {
	for _, a := range arch.Archs() {
		for _, g := range arch.GPUs(a) {
			c, err := arch.Preset(a, g)
			if err != nil {
				t.Fatal(err)
			}
			at := attributes(c)
			for attr, want := range map[int]int{16: c.SM.Count, 13: c.SM.ClockMHz * 1000, 38: c.L2.Size, 97: c.Shared.MaxPerCTA,
				106: c.SM.MaxCTAs, 39: c.SM.MaxThreads, 40: c.PCIe.CopyEngines, 37: c.DRAM.BusBits} {
				if at[attr] != want || want <= 0 {
					t.Errorf("%s/%s: attribute %d = %d, want the preset's %d (above 0)", a, g, attr, at[attr], want)
				}
			}
			if fmt.Sprintf("%d.%d", at[75], at[76]) != c.CC || at[75] < 2 {
				t.Errorf("%s/%s: compute capability %d.%d, preset %s", a, g, at[75], at[76], c.CC)
			}
			// bandwidthTest's peak: 2 x memoryClockRate (kHz) x memoryBusWidth / 8.
			if bw := 2 * float64(at[36]) * 1e3 * float64(at[37]) / 8 / 1e9; math.Abs(bw-c.DRAM.BandwidthGBs) > 0.001*c.DRAM.BandwidthGBs {
				t.Errorf("%s/%s: the reported clock and width give %.1f GB/s, the preset %.1f", a, g, bw, c.DRAM.BandwidthGBs)
			}
			if gridX := at[5]; (a == "fermi") != (gridX == 65535) {
				t.Errorf("%s/%s: grid x limit %d (65535 before cc 3.0, 2^31-1 from it)", a, g, gridX)
			}
			if at[81] < at[97] || at[81] > c.L1.UnifiedSize && c.L1.UnifiedSize > 0 {
				t.Errorf("%s/%s: %d B of shared memory per SM, %d per block: want the largest carve-out", a, g, at[81], at[97])
			}
		}
	}
}

// What the program is told, and what it may allocate, under two presets; and the
// calls' errors.
func TestDeviceCalls(t *testing.T) {
	r, _ := newSaxpy(t)
	if r.GPU().GPU != "h100" {
		t.Fatalf("default GPU %s, want h100 (%s)", r.GPU().GPU, DefaultGPU)
	}
	p, err := r.Properties(0)
	if err != nil || p.Name != "H100 SXM5 (gtrace hopper/h100)" || p.TotalGlobalMem != 85017493504 {
		t.Errorf("Properties(0) = %+v, %v; want the H100's name and the 85017493504 B it reports", p, err)
	}
	free0, total := r.MemInfo()
	if free0 != total || total != p.TotalGlobalMem {
		t.Errorf("MemInfo before any allocation = %d, %d; want all of %d free", free0, total, p.TotalGlobalMem)
	}
	a, err := r.Malloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if free1, _ := r.MemInfo(); free1 != free0-1<<20 {
		t.Errorf("after a 1 MiB cudaMalloc: %d free, want %d", free1, free0-1<<20)
	}
	if _, err := r.Malloc(total); err == nil || !hasCode(err, MemoryAllocation) || !strings.Contains(err.Error(), "dram.size") {
		t.Errorf("cudaMalloc of all the memory after 1 MiB: %v, want cudaErrorMemoryAllocation naming dram.size", err)
	}
	if err := r.Free(a); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Attribute(16, 0); err != nil || v != 132 {
		t.Errorf("multiprocessors: %d, %v", v, err)
	}
	for _, c := range []struct {
		attr, dev int
		code      Code
	}{{16, 1, InvalidDevice}, {21, 0, InvalidValue}, {-1, 0, InvalidValue}, {1000, 0, InvalidValue}} {
		if _, err := r.Attribute(c.attr, c.dev); !hasCode(err, c.code) {
			t.Errorf("Attribute(%d, %d): %v, want code %d", c.attr, c.dev, err, c.code)
		}
	}
	if _, err := r.Properties(1); !hasCode(err, InvalidDevice) {
		t.Errorf("Properties(1): %v, want cudaErrorInvalidDevice", err)
	}
	// The opt-in limit is the preset's: 227 KiB on the H100; 48 KiB on a GTX 480.
	if err := r.FuncSetAttribute(scaleStub, FuncAttrMaxDynamicSharedMemorySize, 227<<10); err != nil {
		t.Errorf("opt-in to 227 KiB on an H100: %v", err)
	}
	if err := r.FuncSetAttribute(scaleStub, FuncAttrMaxDynamicSharedMemorySize, 227<<10+1); !hasCode(err, InvalidValue) {
		t.Errorf("opt-in to 227 KiB + 1 on an H100: %v, want cudaErrorInvalidValue", err)
	}
	fermi, err := arch.Lookup("fermi", "")
	if err != nil {
		t.Fatal(err)
	}
	r.gpu, r.attrs = fermi, attributes(fermi)
	if err := r.FuncSetAttribute(scaleStub, FuncAttrMaxDynamicSharedMemorySize, 48<<10+1); !hasCode(err, InvalidValue) || !strings.Contains(err.Error(), "gtx480") {
		t.Errorf("opt-in past 48 KiB on a GTX 480: %v, want cudaErrorInvalidValue naming the GPU", err)
	}
	if _, err := r.Malloc(1536<<20 + 1); !hasCode(err, MemoryAllocation) {
		t.Errorf("cudaMalloc past a GTX 480's 1536 MB: %v", err)
	}
}

func hasCode(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}
