// Package kernels holds gtrace's reference kernels: the CUDA kernels of the seed
// lessons (coalescing, transpose, reduction, bank conflicts, constant and texture
// memory, data layout, divergence, a spin lock that needs Independent Thread
// Scheduling), their PTX, a default launch for each, and a Go reference that checks
// what the emulator computed.
//
// Layout of the directory:
//
//	cu/*.cu          the sources, written from the seeds' code; cu/gtrace_cuda.h includes
//	                 cudart/include/gtrace_cuda_runtime.h, which stands in for the CUDA
//	                 headers so that clang-14 needs no CUDA SDK, and adds a tex2D helper
//	ptx/*.ptx        clang-14 output (committed, embedded in this package)
//	ptx-nvcc/*.ptx   nvcc output, the second corpus (made on a CUDA machine)
//	gen.sh           the command that makes both; `make ptx` runs it
//
// A Kernel says how to launch it (grid, block, dynamic shared memory, one capture
// argument spec per kernel parameter, __constant__ initialisers) for a set of named
// sizes, and how to check the result: Check gets every buffer argument's contents
// before and after the emulated run, computes the expected contents from the former
// and compares. References reproduce the kernel's own floating-point evaluation order
// (a reduction's tree, a loop's sequence of adds), so every comparison is exact;
// where a compiler may fuse a multiply and an add, the kernel is written so that the
// product is exact and fusing cannot change the result.
package kernels
