// Package accelsim imports the traces of Accel-Sim's NVBit tracer
// (accel-sim-framework, util/tracer_nvbit) into gtrace traces: SASS recorded on a real
// GPU, for programs no PTX emulator can run (cuBLAS, cuDNN, whole suites).
//
// # Input
//
// A trace directory as Accel-Sim's post-processing leaves it: kernelslist.g, whose lines
// name the kernel traces in launch order ("kernel-1.traceg", or "kernel-1.traceg.xz"
// when the tracer compressed them) between "MemcpyHtoD,ADDR,BYTES" lines (counted, not
// imported: a gtrace trace holds kernels only). Each kernel trace is a header of
// "-key = value" lines (kernel name and id, grid and block dim, shmem, nregs, binary
// version, the shared and local window bases, tracer and NVBit versions, lineinfo),
// then per thread block
//
//	#BEGIN_TB
//	thread block = X,Y,Z
//	warp = W
//	insts = N
//	[line] PC MASK NDST [Rd...] OPCODE NSRC [Rs...] WIDTH [MODE ADDRESSES]   (N lines)
//	...
//	#END_TB
//
// with the addresses of a memory instruction in one of three modes: 0 lists one per
// active lane; 1 gives the first active lane's and a stride (contiguous active lanes);
// 2 gives the first and then each next active lane's difference to the one before.
// Tracer versions before 3 start each line with the thread block and warp, which are
// skipped. The raw per-kernel .trace files (before post-processing) are not read.
//
// # What it makes
//
// One launch per kernel trace, with a program table of one row per SASS pc the trace
// executed (dense gtrace pcs in SASS pc order; the row's text is "/*PC*/ OPCODE Rd, Rs"),
// classes, spaces and widths from the opcode table of the kernel's SASS generation
// (sass.go), registers read and written (RZ left out), the source line when the trace
// has lineinfo, SIMT model ITS (sm_70 and later), and "SASS sm_NN traced on a GPU" as the
// launch's code producer, which `gtrace inspect` prints. Addresses move into gtrace's
// address map (addr.go). Thread blocks the trace lacks become CTAs that executed nothing.
//
// # Passes and memory
//
// The program table sits in the trace's metadata, written before the first record, so
// the importer reads each kernel trace twice: once for the program table (and the local
// memory each thread uses), once to write the records. It holds one thread block at a
// time, so a trace of any length imports in memory bounded by its largest thread block.
//
// # Bad input
//
// A malformed line is a *SyntaxError with file, line and column. An opcode the
// generation's table lacks is an error naming it, unless Options.UnknownAsALU; a memory
// instruction without addresses, a base+stride line whose active lanes have a gap, a
// thread block out of launch order or outside the grid, a warp whose line count differs
// from its "insts = N", a file that ends inside a thread block, a generic access when the
// header gives no window bases, and a global address inside one of gtrace's generic
// windows are errors too; a truncated .xz is an error from the decompressor.
package accelsim
