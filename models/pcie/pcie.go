// Package pcie models copies between host memory and a GPU over PCI Express: how
// long one cudaMemcpy takes, from pinned (page-locked) or pageable host memory, and
// which copies can run at once on the GPU's copy engines.
//
// A copy of B bytes takes a fixed latency plus B over the rate it streams at:
//
//	t = Latency + B / Rate
//
// A pinned copy streams at the link's bandwidth: its raw rate per direction (PCIe
// generation × lanes, after the line code: RawGBps) times an efficiency for the
// protocol's packet overheads (measured). Latency is the time an empty copy costs a
// program: the driver call, the DMA set-up and the completion it waits for
// (measured). Below Latency × Rate bytes (KneeBytes) the latency is more than half
// of the time: seed 000's "if the data < 80KB, the latency dominates" is this knee on
// a PCIe 2.0 x16 GPU.
//
// Pageable memory cannot be read by the GPU's DMA engines: the driver copies it
// through a pinned staging buffer in chunks, the CPU's copy of one chunk overlapping
// the DMA of the last (CUDA C++ Best Practices Guide, "Pinned Memory"), so a pageable
// copy streams at the slower of the link and the host's staging rate.
//
// Copy engines: with two or more, a host-to-device and a device-to-host copy run at
// once, each at the full rate of its direction; two copies in one direction share
// it (one after the other). With one, every copy waits for the last. Kernels run
// beside copies on other streams either way.
package pcie

import (
	"errors"
	"fmt"
)

// Link is one GPU's host connection.
type Link struct {
	Gen         int     // PCIe generation, 1 to 6
	Lanes       int     // link width: 1, 2, 4, 8 or 16
	Efficiency  float64 // measured bandwidth over RawGBps × Lanes, in (0, 1]
	LatencyUS   float64 // a copy's fixed cost, µs
	StagingGBps float64 // the host's rate of copying pageable memory to the staging buffer, GB/s
	CopyEngines int     // DMA engines (cudaDeviceProp::asyncEngineCount)
}

// RawGBps is the data rate of one lane in one direction of PCIe generation gen, in
// GB/s (10^9 B/s), after the line code: 2.5 and 5 GT/s with 8b/10b (Gen1, Gen2), 8,
// 16 and 32 GT/s with 128b/130b (Gen3 to Gen5), 64 GT/s with FLIT mode's 242/256
// (Gen6). PCI-SIG, PCI Express Base Specification revisions 1.1 to 6.0.
func RawGBps(gen int) (float64, error) {
	switch gen {
	case 1:
		return 2.5 * 8 / 10 / 8, nil
	case 2:
		return 5.0 * 8 / 10 / 8, nil
	case 3, 4, 5:
		return float64(int(8)<<(gen-3)) * 128 / 130 / 8, nil
	case 6:
		return 64.0 * 242 / 256 / 8, nil
	}
	return 0, fmt.Errorf("PCIe generation %d: want 1 to 6", gen)
}

// Validate reports every field out of range, each named by its config key.
func (l Link) Validate() error {
	var errs []error
	bad := func(key, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, a...)))
	}
	if _, err := RawGBps(l.Gen); err != nil {
		bad("pcie.gen", "%v", err)
	}
	switch l.Lanes {
	case 1, 2, 4, 8, 16:
	default:
		bad("pcie.lanes", "want 1, 2, 4, 8 or 16, is %d", l.Lanes)
	}
	if !(l.Efficiency > 0 && l.Efficiency <= 1) {
		bad("pcie.efficiency", "want a fraction in (0, 1], is %g", l.Efficiency)
	}
	if !(l.LatencyUS >= 0 && l.LatencyUS < 1e6) {
		bad("pcie.latency_us", "want 0 to 10^6 us, is %g", l.LatencyUS)
	}
	if !(l.StagingGBps > 0 && l.StagingGBps < 1e6) {
		bad("pcie.staging_gbps", "want a positive rate below 10^6 GB/s, is %g", l.StagingGBps)
	}
	if l.CopyEngines < 1 || l.CopyEngines > 64 {
		bad("pcie.copy_engines", "want 1 to 64, is %d", l.CopyEngines)
	}
	return errors.Join(errs...)
}

// Bandwidth is the rate of a pinned copy in one direction, GB/s (= bytes per ns).
func (l Link) Bandwidth() float64 {
	raw, _ := RawGBps(l.Gen)
	return raw * float64(l.Lanes) * l.Efficiency
}

// Rate is the rate a copy streams at, GB/s: the link's for pinned memory, the
// slower of the link and the host's staging for pageable memory.
func (l Link) Rate(pinned bool) float64 {
	if pinned {
		return l.Bandwidth()
	}
	return min(l.Bandwidth(), l.StagingGBps)
}

// CopyNS is the time of one copy of bytes, in ns.
func (l Link) CopyNS(bytes int64, pinned bool) float64 {
	return 1000*l.LatencyUS + float64(bytes)/l.Rate(pinned)
}

// KneeBytes is the size at which a copy's latency equals its streaming time: below
// it the latency is most of the time and the time per byte over twice the
// large-copy value; above it the time per byte flattens.
func (l Link) KneeBytes(pinned bool) float64 {
	return 1000 * l.LatencyUS * l.Rate(pinned)
}

// Concurrent reports whether two copies, to the device or from it, can move data at
// the same time: opposite directions with two or more copy engines.
func (l Link) Concurrent(aToDevice, bToDevice bool) bool {
	return l.CopyEngines >= 2 && aToDevice != bToDevice
}
