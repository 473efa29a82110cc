// Package validate compares gtrace's models with counters measured on a real GPU.
//
// A ground-truth file under traces/hw/ (scripts/hw/collect.sh writes one) holds Nsight
// Compute counters of the reference kernels at their default launch. Run captures each
// of those kernels (package capture, with the launch package kernels describes), checks
// the capture against the kernel's Go reference, replays the trace (package replay) and
// compares every metric of Bands with the hardware: exact for address counters, within
// a band for rates and bytes, information only for cycles. KnownDifferences lists the
// misses that have an explanation; anything else fails.
//
// validate sits above capture, kernels and replay in the import graph, so that the
// replay engines depend on the trace format and the models only (docs/ARCHITECTURE.md).
package validate
