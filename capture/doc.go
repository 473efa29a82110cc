// Package capture runs CUDA kernels, given as PTX, on the CPU and records each warp's
// dynamic instruction stream (pc, active mask, divergence path, addresses) for the
// trace format in package format.
//
// # Use
//
//	k, err := capture.Load(capture.Spec{PTX: src, Kernel: "add", Grid: ..., Block: ...,
//		Args: []string{"buf:f32:1024:rand", "buf:f32:1024", "i32:1024"}})
//	launch := k.Launch()                         // metadata + program table for format.Meta
//	res, err := k.Run(ctx, 0, writer)            // writer: a Sink, e.g. *format.Writer
//
// Load parses, resolves and validates everything (an unsupported instruction is a
// *PTXError with file:line:col naming it; nothing is skipped silently); Run executes.
// Run can be called again: every Run starts from the initial memory.
//
// # Pipeline
//
// lex.go → parse.go (syntax tree) → decode.go, decode_inst.go and op_*.go (names
// resolved to register-file slots, opcode and type enums, memory layout; each opcode
// family's rules in its own op_*.go, listed in opcodes.go) → link.go (call
// parameters, arguments, immediate post-dominators) → exec.go (one instruction over
// 32 lanes: control flow and memory itself, computing instructions through the run
// function their op_*.go decoder chose) → simt.go (stack and ITS) → run.go (CTA scheduling, workers, sink order).
//
// A warp's register file is []uint64, slot-major: slot s of lane l is regs[s*32+l].
// Slots 0..22 are the special registers (%tid.x … %gridid), then the PTX registers of
// every function (non-recursive calls allow static frames), then the immediates, each
// filled into all 32 lanes, so every source operand is a slot and the lane loops have
// no operand-kind switch. Predicates are one uint32 lane mask each. Integer values of
// n bits sit in the low n bits of their slot, f32 as its bit pattern.
//
// # Supported PTX
//
// Producers: clang-14 (-nocudainc -nocudalib, sm_80) and nvcc 12/13 (sm_80, sm_90);
// every kernel in kernels/ptx and kernels/ptx-nvcc loads (TestCorpora).
//
// Directives: .version .target .address_size (64 only) .file .loc .pragma .visible
// .extern .weak .entry .func (with return parameters) .param (kernel, function and
// call-site, with .align and .ptr) .reg (%r<N> and lists) .shared (static, and extern
// unsized = dynamic) .const (with initialisers) .global (with initialisers) .local;
// .maxntid and .reqntid bound a launch's block (a block past them is refused, as a GPU
// refuses it); .minnctapersm .maxnreg .noreturn are accepted and ignored. A body whose
// end control can reach (no final ret, exit, trap or bra; a label before the closing
// brace; an empty body) returns there, as ptxas compiles it. Bounds: a .global
// variable 256 MiB, .local 512 KiB per thread, a kernel's parameters 32764 bytes,
// device-function call parameters 32 KiB per thread, shared memory 228 KiB per CTA
// (the largest any GPU gives; replay checks its preset's own).
// Operands: registers, special registers, immediates (decimal, 0x, 0b, octal, U suffix,
// 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, decimal floats), predicates with @p / @!p and !p,
// p|q destinations, {a, b, c, d} vectors, _ sinks, [reg], [reg+imm], [reg+-imm],
// [sym], [sym+imm], [imm], symbols as values (mov/cvta), labels, WARP_SZ, and
// %dynamic_smem_size (the launch's dynamic shared bytes, Spec.DynShared).
//
// One row per rule of opcodes.go, generated from them (TestOpcodeTable):
//
//	opcode                 types / modifiers
//	mov                    b16-b64 u s f32 f64 pred; pack {a,b}→d and unpack d→{a,b};
//	                       %clock %clock_hi %clock64: the warp's instruction count
//	cvta                   .global .shared .local .const, and .to.*; 64-bit
//	isspacep               .global .shared (::cta ::cluster) .local .const; 64-bit
//	cvt                    every int/float pair; .rn .rz .rm .rp; .rni .rzi .rmi .rpi;
//	                       .sat .ftz (float→int saturates; NaN→0 from f32/f16 to ≤32 bits,
//	                       else the sign bit, as an H100 gives it)
//	ld ldu st              .global .shared .local .const .param generic; .v2 .v4; .nc;
//	                       .volatile; .ca .cg .cs .lu .cv .wb .wt; .relaxed/.acquire/
//	                       .release and scopes accepted; 8- to 64-bit and f32/f64
//	cp                     .async.ca/.cg.shared{::cta}.global: 4, 8, 16 bytes (.cg 16), src-size or
//	                       ignore-src, .L2:: hints and cache-policy; copies at issue (below);
//	                       .async.commit_group, .async.wait_group n, .async.wait_all: no effect
//	prefetch prefetchu     recorded, no effect
//	add sub                int (.sat on s32; .cc: see addc), f32 f64 (.rn .ftz .sat)
//	mul                    .lo .hi .wide (int), f32 f64 (.rn .ftz .sat)
//	mad fma                .lo .hi .wide (int; .cc: see madc), f32 f64 (.rn .ftz .sat;
//	                       mad.f = fma)
//	sad                    int: d = c + |a - b|
//	dp4a dp2a              dp4a, dp2a .lo .hi: .u32/.s32 for a and for b
//	mul24 mad24            mul24 .lo .hi, mad24 .lo (u32 s32)
//	div                    int (÷0 gives all ones), f32 f64 (.rn .approx .full)
//	rem                    int (÷0 gives a)
//	abs neg                int, f32 f64 (.ftz)
//	min max                int, f32 f64 (.ftz; a NaN operand is ignored); .f32 also
//	                       .NaN, giving the canonical NaN, and .xorsign.abs; .s32 .relu
//	copysign               f32 f64
//	rcp sqrt rsqrt         f32 f64 (.rn .approx .ftz)
//	sin cos ex2 lg2 tanh   f32 .approx (evaluated in float64, rounded to f32)
//	addc subc              u32 s32 u64 s64, .cc (with add.cc, sub.cc: the carry flag
//	                       CC.CF as a register of each thread; sub's is a borrow)
//	madc                   .lo .hi, u32 s32 u64 s64, .cc (with mad.lo.cc, mad.hi.cc)
//	and or xor not         b16-b64, and pred
//	cnot                   b16-b64
//	shl shr                b/u/s 16-64 (shr.s arithmetic; counts ≥ width clamp)
//	popc clz               b32 b64 (writes a .u32)
//	brev                   b32 b64
//	bfind                  u32 s32 u64 s64, .shiftamt (writes a .u32; 0xffffffff: no bit)
//	bfe                    u32 s32 u64 s64 (position and length .u32)
//	bfi                    b32 b64 (position and length .u32)
//	szext                  u32 s32, .clamp .wrap
//	bmsk                   b32, .clamp .wrap
//	fns                    b32 (offset .s32)
//	prmt                   b32: the default mode, .f4e .b4e .rc8 .ecl .ecr .rc16
//	lop3                   b32, immediate LUT
//	shf                    b32 .l .r, .wrap .clamp
//	setp                   every comparison (eq ne lt le gt ge lo ls hi hs equ neu
//	                       ltu leu gtu geu num nan), .and/.or/.xor with a predicate,
//	                       p|q destinations
//	set                    every comparison, a destination and a source type,
//	                       .and/.or/.xor with a predicate
//	testp                  .finite .infinite .number .notanumber .normal .subnormal;
//	                       f32 f64 (zeros are normal)
//	selp                   one type: d = c ? a : b
//	slct                   a destination type and an .s32 or .f32 selector
//	bra                    (.uni) to a label of the same function
//	call                   (.uni) direct, with .param arguments and results; no recursion; the system calls vprintf (printf), __assertfail, malloc and free
//	ret                    from a .func; in the kernel, as exit
//	exit                   the thread ends
//	trap brkpt             a trap Fault
//	bar barrier            .sync .arrive, .red.popc.u32, .red.and.pred, .red.or.pred (with
//	                       .cta, .aligned): id, thread count; bar.warp.sync
//	membar fence           recorded, no effect (capture is sequentially consistent)
//	nanosleep pmevent      recorded, no effect
//	mbarrier               .init .inval .arrive (.noComplete, a count) .arrive_drop .test_wait
//	                       .try_wait (.parity) .pending_count; .b64; .shared{::cta} or generic;
//	                       no .expect_tx, .complete_tx or .shared::cluster; and
//	                       cp.async.mbarrier.arrive{.noinc} (a cp.async form)
//	atom red               .global .shared generic; add min max exch cas and or xor
//	                       inc dec; b32 b64 u32 u64 s32 s64 f32 f64 (add/exch/min/max);
//	                       cas.b16; a global or generic atom whose result no instruction reads,
//	                       of an operation red has, is recorded as red (MemReduce), as
//	                       ptxas emits SASS RED for it and ncu counts it under op_red
//	shfl                   (.sync) .up .down .bfly .idx .b32, optional predicate destination
//	vote                   (.sync) .all .any .uni .ballot; each lane over its own membermask
//	redux                  .sync .add .min .max (u32 s32), .and .or .xor (b32)
//	match                  .sync .any .all (b32 b64; .all with an optional predicate)
//	activemask             b32
//	elect                  .sync d|p, membermask: the lowest lane of the membermask leads
//	tex                    .2d.v4 through a texture object (f32/s32 coordinates); .1d.v4 through
//	                       a texture reference, named or its handle in a register (s32 coordinates:
//	                       tex1Dfetch); f32/s32/u32 results
//	add sub mul            f16 bf16 f16x2 bf16x2 (.rn .ftz .sat)
//	fma                    f16 bf16 f16x2 bf16x2 .rn (.ftz .sat .relu)
//	neg abs                f16 bf16 f16x2 bf16x2 (.ftz; a NaN gives the canonical NaN)
//	min max                f16 bf16 f16x2 bf16x2 (.ftz; a NaN operand is ignored; .NaN,
//	                       .xorsign.abs, .relu)
//	ex2 tanh               f16 bf16 f16x2 bf16x2 .approx (.ftz; the value rounded to f32,
//	                       then toward zero: within an ulp of the H100's)
//	setp                   f16 bf16 (.ftz), every comparison; f16x2 bf16x2: p|q are the
//	                       low and the high halves' results; .and/.or/.xor with a predicate
//	atom red               .add.noftz: f16 bf16 f16x2 bf16x2 (.global .shared generic;
//	                       rounded to nearest, subnormals kept)
//	cvt                    f16 bf16 to and from f32 f64, integers and each other: .rn .rz
//	                       .rm .rp, .rni .rzi .rmi .rpi, .relu, .satfinite; f16x2 bf16x2
//	                       from two f32 (cvt.rn.f16x2.f32 d, a, b puts a in the high half)
//	ldmatrix               .sync.aligned.m8n8 .x1 .x2 .x4, .trans; .shared{::cta} or generic; .b16
//	mma                    .sync.aligned .row.col: .m16n8k16 .m16n8k8 .f16 into .f32 or .f16, .bf16
//	                       into .f32; .m16n8k8 .tf32 into .f32; .m16n8k32 .m16n8k16 .s8 .u8 into .s32
//	                       (.satfinite); .m8n8k4 .f64; summed as an H100's tensor cores do (op_mma.go)
//	vadd vsub vabsdiff     u32 s32 for d, a and b (.sat); .add .min .max with c;
//	                       selectors .b0-.b3 .h0 .h1 on a and b (no d.dsel)
//	vmin vmax              as vadd
//	vshl vshr              u32 s32 for d and a, b u32; .clamp or .wrap;
//	                       as vadd otherwise (vshr only: .sat)
//	vset                   u32 s32 for a and b; .eq .ne .lt .le .gt .ge; as vadd
//	vadd2 vsub2 vavrg2     u32 s32 for d, a and b (.sat, or .add); d.mask a.asel b.bsel
//	                       (.h10, .h10, .h32 by default)
//	vabsdiff2 vmin2 vmax2  as vadd2
//	vadd4 vsub4 vavrg4     u32 s32 for d, a and b (.sat, or .add); d.mask a.asel b.bsel
//	                       (.b3210, .b3210, .b7654 by default)
//	vabsdiff4 vmin4 vmax4  as vadd4
//	vset2 vset4            u32 s32 for a and b; .eq .ne .lt .le .gt .ge (.add); d.mask
//	                       a.asel b.bsel
//
// Not supported (a *PTXError naming the instruction, modifier or type): half
// precision other than the rows above, .tf32 and the fp8 types, indirect calls,
// recursion, surfaces, sampler references, texture references read other than by
// tex.1d with s32 coordinates, tex.1d through a texture object, mma shapes and types
// other than the rows above, wmma, bulk copies, mbarrier transaction counts and
// cluster barriers, %globaltimer and the other timing registers but the clock. mov from %clock, %clock_hi
// or %clock64 gives the warp's count of executed instructions, not cycles (the timing
// engine models time); Kernel.ClockNote says so, and capture and gtrace run print it.
// Approximate instructions (.approx) are computed at full precision.
// docs/ptx-coverage.md lists 438 PTX ISA 8.x forms and what capture does with each; it
// is generated by loading each form (TestPTXCoverage), so it cannot drift from the
// decoder. Qualified modifiers (.L1::evict_last, .L2::128B, .shared::cta) are lexed as
// one modifier; the cache-eviction and prefetch-size hints are accepted and ignored.
//
// # Memory
//
// Global memory is sparse and paged (64 KiB pages, allocated on first write). Each
// buf argument is its own allocation, in argument order from GlobalBase, 64 KiB
// aligned with a guard page in between; .global variables follow. An access outside
// every allocation is a Fault naming the nearest allocation. Shared memory is per CTA:
// static variables (in order of first use) then, 16-byte aligned, the dynamic extern
// area of Spec.DynShared bytes. Local memory is per thread. Const is one 64 KiB bank
// of the module's .const variables, in declaration order, settable through
// Spec.Consts. Every access must be aligned to its full width (vectors included).
//
// Generic addresses: the shared, local and const windows start at SharedWindow,
// LocalWindow and ConstWindow (4 GiB each); anything else is global. cvta adds or
// subtracts the window base.
//
// Addresses in the trace, per state space of the program-table row:
//
//	global   the device address
//	shared   the byte offset in the CTA's shared memory
//	local    LocalPhysBase + globalWarp*localBytes*32 + (off/4)*128 + lane*4 + off%4:
//	         local memory interleaved by 4-byte words across the lanes, as NVIDIA lays
//	         it out, so one offset read by a warp is one 128-byte line
//	const    the byte offset in the constant bank
//	param    the byte offset in the parameter buffer (kernel) or frame (.func)
//	generic  the generic address as resolved per lane: global addresses as they are,
//	         shared as SharedWindow+offset, const as ConstWindow+offset, local as the
//	         interleaved local address above. The row's Space stays SpaceGeneric: a
//	         replay classifies each address by these ranges.
//	texture  the texel's address in the texture's own range (below), plus the integer
//	         texel coordinates in the record's Coords; through a texture reference,
//	         the texel's device address (the nearest texel's for an index past
//	         either end) and coordinates (x, 0)
//	cp.async a global load's row: each lane's source address, plus in Coords its
//	         destination (the byte offset in the CTA's shared memory) and the bytes it
//	         reads from the source (src-size, 0 with ignore-src)
//
// Textures (tex2d:TYPE:W:H[:INIT] arguments): point sampling, clamp addressing,
// unnormalised coordinates (f32 coordinates are floored). The handle is the texture's
// index + 1. Texels are laid out as "gob64x8-swizzled", NVIDIA's block-linear layout
// with a block height of one GOB: the array is cut into GOBs of 64 bytes × 8 rows (512
// bytes) stored in row-major order of GOBs, and inside a GOB each 32-byte sector holds
// 16 bytes of two adjacent rows (Tegra X1 TRM). Texel (x, y) of E-byte elements, with
// b = x*E, is at
//
//	Base + ((y/8)*ceil(W*E/64) + b/64)*512
//	     + (b%64)/32*256 + (y%8)/2*64 + (b%32)/16*32 + (y%2)*16 + b%16
//
// with Base from TextureBase, one texture after another at 64 KiB boundaries
// (format.Texture carries Base, size and the layout name). A one-channel texture
// returns (texel, 0, 0, 1).
//
// Texture references (Spec.TexRefs, LinearTexture; cudaBindTexture under gtrace run;
// Spec.TexBinds, capture --texref NAME=ARG, to a buf argument) read linear device
// memory in place: texel x of E bytes at Addr + x*E, its channels
// as the binding's format and read mode say, zeros for channels the format lacks and
// for an index past either end, as an H100 returns them (examples/cuda/texref.cu,
// scripts/hw/tex1d.cu). format.Texture names each reference the launch reads, with
// layout "linear".
//
// # Divergence and the trace's Path and Flags
//
// Each record's Mask is the lanes for which the instruction took effect (active lanes
// whose guard predicate held), except for bra/ret/exit records, whose Mask is every
// active lane that evaluated the branch. A record with Mask 0 is an issued instruction
// whose guard was false everywhere.
//
// Stack mode (format.SIMTStack) is a reconvergence stack at the immediate
// post-dominator, computed per function from the CFG (Cooper–Harvey–Kennedy on the
// reverse graph, with a pseudo exit node). A divergent branch turns the top entry into
// the reconvergence entry, then pushes the not-taken and the taken path, each with a
// new path id; the taken path runs first. Path ids come from a per-warp counter
// starting at 1 (0 is the warp's initial path) and wrap modulo 65536, skipping 0.
//
// ITS mode (format.SIMTITS) keeps per-thread pcs grouped into paths. A divergent
// branch splits the path and opens a convergence frame at the branch's IPDOM; a path
// that reaches its frame's pc parks; when every path of the frame is parked there they
// merge back into the frame's parent path (and its id). The scheduler runs a path for
// up to 64 instructions, then moves round-robin to the next runnable one. A parked
// path waits at most 4096 warp-instructions, or until nothing else can run; then it
// leaves the frame and goes on alone. That is what lets an intra-warp spin lock finish
// (the lock holder waits at the loop exit while the others spin). bar.warp.sync,
// shfl.sync and vote.sync wait until every non-exited lane of their member mask is at
// a warp-synchronous instruction; those at the same pc merge.
//
// Flags, in both modes: FlagSplit on the branch record that diverged; FlagSwitch on
// the first record of a path the scheduler moved to without reconverging (a stack pop
// to a sibling, an ITS interleave); FlagReconverge on the first record after paths
// rejoined. Records between a split and its reconvergence that share a Path id form
// one path's stream: a timing replay can serialise the paths (as the stack did) or
// interleave them.
//
// A stack-mode warp that spins while a diverged path waits (an intra-warp lock) is
// detected when its state (pcs, masks, registers, predicates, and the CTA's memory
// write epoch) repeats at a taken branch after 4096 instructions without a pop, exit
// or barrier; Run then fails with the Fault whose Error is exactly
// "no forward progress under stack-based SIMT at pc N (<ptx>); capture with --simt its".
//
// # Barriers and atomics
//
// Warps of a CTA run round-robin, each until it blocks at a barrier, exits, or has run
// 32 instructions, so that warps which race on memory see each other's accesses about
// as a GPU's interleaved warps do (ctaQuantum says why). bar.sync counts threads: it completes when the expected number
// (the thread count operand, or every non-exited thread of the CTA) has arrived;
// exiting threads release a barrier they were holding up (PTX ISA, exit). A CTA in
// which no warp can run is a barrier-deadlock Fault naming a thread that never arrives
// (under the stack, a __syncthreads inside divergent code; under ITS the other path
// may exit, which completes the barrier, as on Volta and later). Atomics run lane by
// lane in ascending lane order, warps in the scheduler's order.
//
// CTAs run on Spec.Workers goroutines and reach the Sink in CTA order through a
// reorder window of 4×workers CTAs, so memory stays bounded and the trace is
// byte-identical whatever the worker count. Parallel CTAs could observe each other
// through global atomics, so a kernel runs CTAs in parallel only if every global or
// generic atomic is an integer add/and/or/xor/min/max whose result is never read
// (these commute, so memory ends the same in any order); any other global atomic
// (cas, exch, inc, dec, a float add, or an atom whose old value is used) makes Run
// emulate CTAs one at a time, in CTA order: trace and final memory stay deterministic
// and Result.Workers says 1. Plain loads and stores racing between CTAs are not
// ordered (as in CUDA); a kernel whose CTAs communicate through them is outside what
// capture promises to reproduce deterministically.
//
// # Faults and budgets
//
// Every Fault has Kind, kernel, CTA, thread (linear in the CTA), pc and the PTX text:
// out-of-bounds (with the address and nearest allocation), misaligned, barrier
// deadlock, warp-sync deadlock, livelock, trap, and an exhausted per-warp instruction
// budget (Spec.MaxInst, default DefaultMaxInst) or of the per-CTA trace bound
// (Spec.MaxCTATrace, default DefaultMaxCTATrace: a loop that never exits ends there, in
// bounded memory, at a pc inside the loop; see memgate.go for the three bounds on the
// memory traces hold). On a fault, the CTAs before the faulting one have been written
// to the sink and later ones are abandoned.
//
// Under Spec.OOB = OOBWarn (capture --oob=warn) an address outside its space's
// allocations is not a fault: the read gives zeros, the write or atomic is dropped, the
// trace records the address, and Result.OOB reports each such pc once with its lane
// count and its first access (see OOBWarn for why zeros). Stores to constant memory or
// kernel parameters, misaligned accesses and bad texture handles still fault.
package capture
