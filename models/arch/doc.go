// Package arch holds architectures as data: one Config per GPU, with every
// parameter the memory engine and a timing engine need, each carrying the
// source it came from.
//
// # Presets
//
//	fermi   gtx480 (default), c2050
//	kepler  k20x (default), titan
//	ampere  a100 (default), rtx3090
//	hopper  h100 (default), h200
//
// Presets are written as tables of key, value and source (presets.go), so
// the source a reader sees in the code is the one `gtrace archs NAME` prints.
// Source tags follow docs/research/hw-facts.md: [V] read in the source
// or measured, [R] recalled from the named source and unverified, [M] a
// gpgpu-sim/Accel-Sim model parameter, "ME" our H200 measurements, and
// "assumed: why" where nothing better exists.
//
// # Keys
//
// Every parameter has a dotted key (l1.size, l1.cache_global,
// shared.bank_width, dram.channels, ...); Keys lists them in order with value
// and source, Set changes one with a typed parse, and an unknown key is an
// error that names the nearest keys. Sizes accept B, KB, MB and GB suffixes
// (binary: 1 KB = 1024 B). Zero values: a cache of size 0 is absent, a
// cache's sets or ways of 0 is derived from its size, l1.unified_size 0
// means L1 and shared memory are separate.
//
// # Config files
//
// Load reads a whole custom arch as plain text, one "key = value" per line,
// "#" starting a comment. The first setting must be "base = ARCH/GPU" (or
// "base = ARCH" for the default GPU); the rest override it, and a comment on
// a value's line becomes its source:
//
//	base = hopper/h100
//	name = H100 with a bigger L2
//	l2.size = 80MB        # what-if
//	l2.slices = 128
//
// # Derived values
//
// L1 and shared memory share one array on every preset: l1.size is
// l1.unified_size minus shared.size, recomputed on every Set (so
// `--set shared.size=16KB` on fermi gives the 48 KB L1). GlobalLoadMode
// turns the coalescer's fermi-128B-lines into fermi-32B-segments when
// l1.cache_global is false (Fermi's -dlcm=cg, Kepler's default).
//
// # Clock domains
//
// The L2 runs at l2.clock_mhz (0: the SM clock), and l2.bytes_per_clk and
// l2.in_bytes_per_clk count in its cycles. An L2 hit takes lat.l2_hit SM cycles
// plus lat.l2_hit_l2clk L2 cycles; with lat.dram_ns set, lat.dram is derived as an
// L2 hit plus that many ns, and a read that misses its near partition and hits at
// home (l2.partitions > 1) adds lat.l2_far_ns, and a DRAM read of a line homed in the
// other partition (l2.partition_bits) lat.dram_far_ns. So `--set sm.clock_mhz=1500`
// moves each part as a GH100
// does when ncu locks its SMs to the base clock (docs/research/hw-facts.md §8):
// L2HitCycles and DRAMCycles give the sums in SM cycles.
package arch
