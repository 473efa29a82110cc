// Package capture runs CUDA kernels, given as PTX, on the CPU and records per-warp
// instruction and address traces.
package capture
