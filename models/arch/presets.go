package arch

import (
	"fmt"
	"sort"
	"strings"
)

// A preset is a list of key, value, source rows applied on top of its base.
type preset struct {
	arch, gpu, base string
	rows            []row
}

type row struct{ key, value, src string }

// Source abbreviations (full references in docs/research/hw-facts.md):
//
//	PG   CUDA C++ Programming Guide, Compute Capabilities (§20.x, Table 27)
//	PG4  CUDA C Programming Guide 4.x/5.0, Appendix F.4 (cc 2.x), F.5 (cc 3.x)
//	PG3  Programming Guide section for cc 3.x
//	NCU  Nsight Compute Profiling Guide §2.3.4, §2.3.7
//	ME   our H200 measurements, research/h200-microbench
//	GB   te42kyfo/gpu-benches pointer chase (h100_pcie, a100_80)
//	MCR  Mei & Chu microbenchmarks as reproduced by zhanglx13
//	C&C  chipsandcheese, "Nvidia's H100: funny L2 and tons of bandwidth"
//	SIM  gpgpu-sim tested-cfgs (SM2_GTX480, SM3_KEPLER_TITAN, SM80_A100, SM90_H100, SM86_RTX3070)
//	OCC  CUDA occupancy calculator allocation granularities
//
// common rows are applied before every preset: values that are the same
// everywhere or have no meaning for a read-only cache.
var common = []row{
	{"tex.write", "write-back", "read-only cache: stores never reach it"},
	{"tex.write_allocate", "false", "read-only cache: stores never reach it"},
	{"tex.set_index", "xor", "assumed: a linear index maps a column of tiles of a power-of-two-wide texture to one set (SIM uses L)"},
	{"const.l1.replacement", "lru", "[M] SIM const L"},
	{"const.l1.write", "write-back", "read-only cache: stores never reach it"},
	{"const.l1.write_allocate", "false", "read-only cache: stores never reach it"},
	{"const.l1.set_index", "linear", "[M] SIM const L"},
	{"const.l1.mshrs", "0", "assumed: fills complete at once in the functional model"},
	{"const.l15.size", "0", "no level 1.5 unless the preset sets one"},
	{"const.l15.line", "64", "[M] SIM const lines are 64 B"},
	{"const.l15.sector", "64", "[M] SIM const not sectored"},
	{"const.l15.sets", "0", "derived from size and ways"},
	{"const.l15.ways", "8", "assumed"},
	{"const.l15.replacement", "lru", "[M] SIM const L"},
	{"const.l15.write", "write-back", "read-only cache: stores never reach it"},
	{"const.l15.write_allocate", "false", "read-only cache: stores never reach it"},
	{"const.l15.set_index", "linear", "assumed"},
	{"const.l15.mshrs", "0", "assumed: fills complete at once in the functional model"},
	{"const.address_cycles", "0", "assumed: a distinct constant address takes the memory pipe as a shared-memory wavefront does, unless the preset measured it"},
	{"l2.clock_mhz", "0", "the L2 is modelled at the SM clock unless the preset measured its own"},
	{"l2.slice_map", "lines", "assumed: consecutive lines on consecutive slices, unless the preset measured it"},
	{"l2.atomic_pass_clk", "1", "assumed: an atomic pass holds its slice as a store of its sectors does, unless the preset measured it"},
	{"l2.partitions", "1", "assumed: every SM sees one L2 alike, unless the preset measured it"},
	{"l2.dirty_max", "1", "assumed: a line stays dirty until it is evicted, unless the preset measured it"},
	{"l2.partial_fill", "false", "assumed: a written sector goes to DRAM as written (GDDR has a byte mask), unless the preset measured it"},
	{"sm.int32_lanes", "0", "integer work shares the FP32 pipe unless the preset measured its own pipes"},
	{"lat.int", "0", "as lat.alu unless the preset measured integer latencies by class"},
	{"lat.imad_hi", "0", "as lat.alu unless the preset measured integer latencies by class"},
	{"lat.setp", "0", "as lat.alu unless the preset measured integer latencies by class"},
	{"lat.l2_hit_l2clk", "0", "the L2 hit latency is all in SM cycles unless the preset measured its parts"},
	{"lat.dram_ns", "0", "lat.dram is given in SM cycles unless the preset measured its parts"},
	{"lat.l2_far_ns", "0", "no step for the far L2 partition unless the preset measured it (it matters only with l2.partitions > 1)"},
	{"sm.mma_cycles_k8", "0", "no tensor cores unless the preset has them (Volta on: PG, Warp Matrix Functions)"},
	{"sm.mma_cycles_k16", "0", "no tensor cores unless the preset has them (Volta on: PG, Warp Matrix Functions)"},
	{"lat.mma_k8", "0", "no tensor cores unless the preset has them"},
	{"lat.mma_k16", "0", "no tensor cores unless the preset has them"},
}

// The PCIe link's measured values (scripts/hw/transfers.sh on an H200, docs/research/
// hw-facts.md section 12), which every base preset takes with what is assumed of it.
const (
	transfersH200     = "scripts/hw/transfers.sh, traces/hw/h200-2026-11-26-transfers"
	srcPCIeEfficiency = "[V] ME " + transfersH200 + ": pinned copies of 4 KB-256 MB stream at 55.4 GB/s (h2d 55.6, d2h 55.2) on a PCIe 5.0 x16 link of 63.0 GB/s per direction; assumed the same packet overhead on every generation"
	srcPCIeLatency    = "[V] ME " + transfersH200 + ": a cudaMemcpy and the wait for it, fitted t = latency + bytes/rate over 4 KB-256 MB: 8.4 us h2d, 7.1 d2h (CUDA events see 4.0 and 3.0); assumed the same driver and DMA set-up"
	srcPCIeStaging    = "[V] ME " + transfersH200 + ": pageable copies stream at 12.9 GB/s h2d, 12.4 d2h (noisy: 9-16 GB/s at 128-256 MB): the host's copy into the driver's pinned staging buffer; a property of the host (Xeon, 16 cores), not the GPU"
)

var presets = []preset{
	{arch: "fermi", gpu: "gtx480", rows: []row{
		{"name", "GeForce GTX 480", "GF100"},
		{"cc", "2.0", "PG4 F.4"},
		{"sm.count", "15", "[M] SIM SM2_GTX480 gpgpu_n_clusters"},
		{"sm.clock_mhz", "1401", "[M] SIM: 700 MHz core domain = 1400 MHz shader clock / 2"},
		{"sm.warp_size", "32", "[V] PG"},
		{"sm.schedulers", "2", "[V] PG4 F.4.1: 2 schedulers, 16 lanes each"},
		{"sm.dispatch_per_scheduler", "1", "[V] PG4 F.4.1"},
		{"sm.max_warps", "48", "[M] SIM 1536:32; Volkov GTC'10 slide 58"},
		{"sm.max_threads", "1536", "[M] SIM gpgpu_shader_core_pipeline 1536"},
		{"sm.max_ctas", "8", "[M] SIM gpgpu_shader_cta 8"},
		{"sm.max_threads_per_cta", "1024", "[V] PG technical specifications: 1024 threads per block from cc 2.0 on"},
		{"sm.registers", "32768", "[M] SIM gpgpu_shader_registers"},
		{"sm.max_regs_per_thread", "63", "[R] PG cc 2.x technical specifications"},
		{"sm.reg_alloc_unit", "64", "[R] OCC: cc 2.x allocates 64 registers per warp at a time"},
		{"sm.simt", "stack", "DESIGN.md: pre-Volta SIMT reconvergence stack"},
		{"sm.scheduler", "lrr", "assumed: undocumented; Volkov GTC'10's GTX480 curves rise smoothly to the peak with no tail where old warps starve young ones, as round robin gives and GTO does not"},
		{"sm.fp32_lanes", "32", "[V] PG4 F.4.1: 32 CUDA cores per SM"},
		{"sm.sfu_lanes", "4", "[V] PG4 F.4.1: 4 special function units per SM"},
		{"sm.dp_lanes", "4", "[R] GeForce GF100 runs FP64 at 1/8 of the FP32 rate (Tesla parts at 1/2)"},
		{"sm.lsu_lanes", "16", "[V] PG4 F.4.1: 16 load/store units; Volkov GTC'10: shared memory moves 32 banks x 4 B per 2 clocks"},
		{"sm.launch_cycles", "0", "assumed: unmeasured on this GPU; 0 reports the SMs' own cycles, as the steady-state throughput figures of seeds 001 and 003 (measured over long runs) need"},
		{"sm.reuse_miss_cycles", "0", "not modelled: unmeasured on this GPU (GH100's is measured, see hopper)"},
		{"sm.aggregate_atomics", "false", "[R] CUDA 9 dropped sm_2x; the warp aggregation of atomics came with CUDA 9 (NVIDIA blog \"Optimized filtering with warp-aggregated atomics\", 2017 update), so no toolkit for Fermi does it"},
		{"sm.cta_launch_cycles", "0", "assumed: unmeasured on this GPU; 0 launches a CTA as soon as it fits"},
		{"coalescer", "fermi-128B-lines", "[V] PG4 F.4.2: L1-cached loads use 128 B transactions, L2-only 32 B"},
		{"l1.unified_size", "64KB", "[V] PG4 F.4.1: 64 KB split between L1 and shared"},
		{"l1.line", "128", "[V] PG4 F.4.2: a cache line is 128 bytes"},
		{"l1.sector", "128", "[M] SIM dl1 N (not sectored): misses fill whole lines"},
		{"l1.sets", "32", "[M] SIM dl1 N:32:128:4 (ways follow the carve-out: 4 at 16 KB, 12 at 48 KB)"},
		{"l1.ways", "0", "derived from size and sets"},
		{"l1.replacement", "lru", "[M] SIM dl1 L"},
		{"l1.write", "write-evict", "[R] Fermi global-memory slides: stores invalidate the L1 line (SIM models local WB / global WT)"},
		{"l1.write_allocate", "false", "[M] SIM dl1 wr_alloc N"},
		{"l1.set_index", "fermi", "[M] SIM dl1 H: Fermi hash (Nugteren et al., HPCA 2014)"},
		{"l1.mshrs", "64", "[M] SIM dl1 S:64:8"},
		{"l1.cache_global", "true", "[V] PG4 F.4.2: -dlcm=ca is the default; false = -dlcm=cg"},
		{"shared.size", "48KB", "[V] PG4: 48 KB shared / 16 KB L1 is the default split"},
		{"shared.max_per_cta", "48KB", "[V] PG4 F.4.1"},
		{"shared.banks", "32", "[V] PG4 F.4.3"},
		{"shared.bank_width", "4", "[V] PG4 F.4.3: 32 bits per bank per 2 clocks"},
		{"shared.carveouts", "16KB,48KB", "[V] PG4 F.4.1: 16/48 or 48/16"},
		{"shared.alloc_unit", "128", "[R] OCC cc 2.x shared allocation granularity"},
		{"shared.reserved_per_cta", "0", "[V] PG: the 1 KB reservation starts at cc 8.0"},
		{"tex.size", "12KB", "[M] SIM tex N:4:128:24"},
		{"tex.line", "128", "[M] SIM tex"},
		{"tex.sector", "128", "assumed: texture fills whole 128 B lines (one 2D tile, see models/texcache)"},
		{"tex.sets", "4", "[M] SIM tex N:4:128:24"},
		{"tex.ways", "0", "derived from size and sets"},
		{"tex.replacement", "lru", "[M] SIM tex L"},
		{"tex.mshrs", "0", "assumed: fills complete at once in the functional model (SIM uses a 128-entry fifo)"},
		{"const.size", "64KB", "[V] PG4: 64 KB constant memory"},
		{"const.l1.size", "8KB", "[R] old PG table: 8 KB constant cache working set per SM; [M] SIM N:64:64:2"},
		{"const.l1.line", "64", "[M] SIM const N:64:64:2"},
		{"const.l1.sector", "64", "[M] SIM const not sectored"},
		{"const.l1.ways", "2", "[M] SIM const N:64:64:2"},
		{"const.l1.sets", "0", "derived from size and ways"},
		{"const.l15.size", "0", "[R] a single level before L2 on Fermi"},
		{"l2.size", "768KB", "[V] PG4 / GF100 whitepaper"},
		{"l2.slices", "12", "[M] SIM 6 memory partitions x 2 sub-partitions, 64 KB each"},
		{"l2.bytes_per_clk", "16", "[M] SIM: 32 B per L2 clock per sub-partition at 700 MHz = 16 B per 1401 MHz SM clock"},
		{"l2.in_bytes_per_clk", "16", "[M] SIM: one request or one 32 B store flit per L2 clock per sub-partition, 16 B per SM clock"},
		{"l2.fetch_bytes", "32", "[V] PG4 F.4.2: L2 transactions are 32 B (GDDR5 32 B bursts)"},
		{"l2.line", "128", "[V] PG4; [M] SIM dl2 S:64:128:8"},
		{"l2.sector", "32", "[V] PG4 F.4.2: L2 transactions are 32 B; [M] SIM dl2 S (sectored)"},
		{"l2.ways", "8", "[M] SIM dl2 S:64:128:8"},
		{"l2.sets", "0", "derived from slice size and ways"},
		{"l2.replacement", "lru", "[M] SIM dl2 L"},
		{"l2.write", "write-back", "[V] PG4 / [M] SIM dl2 B"},
		{"l2.write_allocate", "true", "[M] SIM dl2 wr_alloc L (lazy fetch on read): modelled as write-validate"},
		{"l2.set_index", "linear", "[M] SIM dl2 L"},
		{"l2.mshrs", "256", "[M] SIM dl2 A:256:4"},
		{"dram.type", "GDDR5", "[V] hw-facts §3"},
		{"dram.bandwidth_gbs", "177.4", "[M] SIM 924 MHz QDR x 384 bit"},
		{"dram.size", "1536MB", "[R] GeForce GTX 480 specifications (nvidia.com): 1536 MB GDDR5"},
		{"dram.bus_bits", "384", "[R] GeForce GTX 480 specifications: 384-bit memory interface"},
		{"dram.channels", "6", "[M] SIM gpgpu_n_mem 6 (6 x 64-bit)"},
		{"dram.banks", "16", "[M] SIM dram timing nbk=16"},
		{"dram.row_bytes", "4KB", "[M] SIM address map: 12 column+byte bits per partition (2 chips x 2 KB)"},
		{"dram.burst_length", "8", "[M] SIM gpgpu_dram_burst_length 8"},
		{"dram.bus_bytes", "8", "[M] SIM 2 chips x 4 B per partition (n_mem_per_ctrlr 2)"},
		{"dram.interleave", "256", "[M] SIM address map dramid@8"},
		{"dram.hash", "false", "[M] SIM gpgpu_memory_partition_indexing 0"},
		{"dram.row_miss_ns", "26", "[M] SIM SM2_GTX480 dram timing RP=12, RCD=12 memory clocks at 924 MHz"},
		{"dram.rrd_ns", "6.5", "[M] SIM SM2_GTX480 dram timing RRD=6 memory clocks at 924 MHz"},
		{"lat.alu", "18", "[R] Volkov GTC'10: ~18 cycles arithmetic latency on GF100"},
		{"lat.fma", "18", "[R] Volkov GTC'10"},
		{"lat.sfu", "40", "assumed: about twice the ALU latency; unmeasured"},
		{"lat.dp", "36", "assumed: DP issues over both scheduler slots on GF100 (PG4 F.4.1); unmeasured"},
		{"lat.shared", "50", "[V] MCR: 49.6 cycles"},
		{"lat.l1_hit", "35", "[M] SIM gpgpu_l1_latency 35"},
		{"lat.l2_hit", "155", "assumed: SIM l1 35 + l2_rop 120 [M]"},
		{"lat.dram", "600", "assumed: seed 000 gives 400-800 cycles for global memory"},
		{"lat.texture", "220", "assumed: unmeasured; between L2 hit and DRAM"},
		{"lat.const", "24", "assumed: the seed's const-cache hit (24 cycles) on an unnamed GPU"},
		{"lat.const_l15", "0", "no level 1.5"},
		{"pcie.gen", "2", "[R] GeForce GTX 480 specifications: PCI Express 2.0 x16"},
		{"pcie.lanes", "16", "[R] same"},
		{"pcie.efficiency", "0.88", srcPCIeEfficiency + " (a Fermi-era host is unmeasured)"},
		{"pcie.latency_us", "7.7", srcPCIeLatency + " (a Fermi-era host is unmeasured)"},
		{"pcie.staging_gbps", "12.6", srcPCIeStaging + " (a Fermi-era host is unmeasured)"},
		{"pcie.copy_engines", "1", "[R] GeForce Fermi has one copy engine (CUDA C Programming Guide, asyncEngineCount; Tesla boards have two)"},
	}},
	{arch: "fermi", gpu: "c2050", base: "gtx480", rows: []row{
		{"name", "Tesla C2050", "GF100"},
		{"sm.count", "14", "[R] hw-facts §1"},
		{"sm.clock_mhz", "1150", "[R] Tesla C2050 datasheet shader clock"},
		{"dram.bandwidth_gbs", "144", "[R] Tesla C2050 datasheet (seed 000 quotes 156 GB/s)"},
		{"dram.size", "3GB", "[R] Tesla C2050 datasheet: 3 GB GDDR5 (2.625 GB with ECC on)"},
		{"sm.dp_lanes", "16", "[R] Tesla C2050 datasheet: 515 GFLOPS FP64, half its 1030 GFLOPS FP32 (GeForce parts run at 1/8); TestPeaksMatchDatasheets"},
		{"pcie.copy_engines", "2", "[R] Tesla C2050/C2070: two copy engines (dual DMA), one each way"},
	}},
	{arch: "kepler", gpu: "k20x", rows: []row{
		{"name", "Tesla K20X", "GK110"},
		{"cc", "3.5", "PG3"},
		{"sm.count", "14", "[R] hw-facts §1: K20X 14 SMs"},
		{"sm.clock_mhz", "732", "[R] Tesla K20X datasheet"},
		{"sm.warp_size", "32", "[V] PG"},
		{"sm.schedulers", "4", "[V] PG4 F.5.1"},
		{"sm.dispatch_per_scheduler", "2", "[V] PG4 F.5.1: 2 independent instructions per warp per cycle"},
		{"sm.max_warps", "64", "[M] SIM 2048:32"},
		{"sm.max_threads", "2048", "[M] SIM gpgpu_shader_core_pipeline 2048"},
		{"sm.max_ctas", "16", "[M] SIM gpgpu_shader_cta 16"},
		{"sm.max_threads_per_cta", "1024", "[V] PG technical specifications: 1024 threads per block from cc 2.0 on"},
		{"sm.registers", "65536", "[M] SIM; HPCA'15 K20X"},
		{"sm.max_regs_per_thread", "255", "[R] PG cc 3.5 technical specifications"},
		{"sm.reg_alloc_unit", "256", "[R] OCC cc 3.x"},
		{"sm.simt", "stack", "DESIGN.md: pre-Volta SIMT reconvergence stack"},
		{"sm.scheduler", "gto", "[M] SIM SM3_KEPLER_TITAN -gpgpu_scheduler gto (NVIDIA does not document its policy)"},
		{"sm.fp32_lanes", "192", "[V] PG4 F.5.1: 192 CUDA cores per SMX"},
		{"sm.sfu_lanes", "32", "[V] PG4 F.5.1: 32 special function units"},
		{"sm.dp_lanes", "64", "[V] PG4 F.5.1: 64 double-precision units (GK110)"},
		{"sm.lsu_lanes", "32", "[V] PG4 F.5.1: 32 load/store units"},
		{"sm.launch_cycles", "0", "assumed: unmeasured on this GPU; 0 reports the SMs' own cycles, as the steady-state throughput figures of seeds 001 and 003 (measured over long runs) need"},
		{"sm.reuse_miss_cycles", "0", "not modelled: unmeasured on this GPU (GH100's is measured, see hopper)"},
		{"sm.aggregate_atomics", "true", "[R] NVIDIA blog \"Optimized filtering with warp-aggregated atomics\" (2017 update): nvcc aggregates atomics automatically since CUDA 9, which still targets sm_35; not measured on a Kepler"},
		{"sm.cta_launch_cycles", "0", "assumed: unmeasured on this GPU; 0 launches a CTA as soon as it fits"},
		{"coalescer", "fermi-128B-lines", "[V] PG4 F.5.2: 128 B lines when cached in L1, 32 B segments otherwise"},
		{"l1.unified_size", "64KB", "[V] PG4 F.5.1: 64 KB split 48/16, 32/32 or 16/48"},
		{"l1.line", "128", "[V] PG4"},
		{"l1.sector", "32", "[M] SIM dl1 S (sectored)"},
		{"l1.sets", "4", "[M] SIM dl1 S:4:128:32"},
		{"l1.ways", "0", "derived from size and sets"},
		{"l1.replacement", "lru", "[M] SIM dl1 L"},
		{"l1.write", "write-evict", "[R] hw-facts §2: same as Fermi"},
		{"l1.write_allocate", "false", "[M] SIM dl1 wr_alloc N"},
		{"l1.set_index", "linear", "[M] SIM dl1 L"},
		{"l1.mshrs", "256", "[M] SIM dl1 A:256:8"},
		{"l1.cache_global", "false", "[V] PG3: L1 caches local memory only; global loads opt in with -dlcm=ca"},
		{"shared.size", "48KB", "[V] PG4 F.5.1 default; [M] SIM gpgpu_shmem_size 49152"},
		{"shared.max_per_cta", "48KB", "[V] PG4 F.5.1"},
		{"shared.banks", "32", "[V] PG4 F.5.3"},
		{"shared.bank_width", "4", "[V] PG4 F.5.3: 4-byte mode by default; 8 with cudaDeviceSetSharedMemConfig"},
		{"shared.carveouts", "16KB,32KB,48KB", "[V] PG4 F.5.1"},
		{"shared.alloc_unit", "256", "[R] OCC cc 3.x"},
		{"shared.reserved_per_cta", "0", "[V] PG: the 1 KB reservation starts at cc 8.0"},
		{"tex.size", "48KB", "[V] PG3: 48 KB read-only data cache (LDG, __ldg) = the texture cache; [M] SIM tex 48 KB"},
		{"tex.line", "128", "[M] SIM tex N:16:128:24"},
		{"tex.sector", "128", "assumed: texture fills whole 128 B lines (one 2D tile, see models/texcache)"},
		{"tex.sets", "16", "[M] SIM tex N:16:128:24"},
		{"tex.ways", "0", "derived from size and sets"},
		{"tex.replacement", "lru", "[M] SIM tex L"},
		{"tex.mshrs", "0", "assumed: fills complete at once in the functional model"},
		{"const.size", "64KB", "[V] PG: 64 KB constant memory"},
		{"const.l1.size", "8KB", "[R] hw-facts §2: 8 KB working set (SIM models 16 KB)"},
		{"const.l1.line", "64", "[M] SIM const N:128:64:2"},
		{"const.l1.sector", "64", "[M] SIM const not sectored"},
		{"const.l1.ways", "2", "[M] SIM const N:128:64:2"},
		{"const.l1.sets", "0", "derived from size and ways"},
		{"const.l15.size", "0", "[R] a single level before L2"},
		{"l2.size", "1536KB", "[V] PG3: 1.5 MB"},
		{"l2.slices", "24", "[M] SIM 12 partitions x 2 sub-partitions, S:32:128:16 = 64 KB each"},
		{"l2.bytes_per_clk", "32", "[M] SIM: 32 B per clock per sub-partition"},
		{"l2.in_bytes_per_clk", "32", "[M] SIM: one request or one 32 B store flit per clock per sub-partition"},
		{"l2.fetch_bytes", "32", "[V] MCR: 32 B L2 access granularity"},
		{"l2.line", "128", "[M] SIM dl2"},
		{"l2.sector", "32", "[V] MCR: 32 B L2 access granularity"},
		{"l2.ways", "16", "[M] SIM dl2 S:32:128:16"},
		{"l2.sets", "0", "derived from slice size and ways"},
		{"l2.replacement", "lru", "[M] SIM dl2 L"},
		{"l2.write", "write-back", "[M] SIM dl2 B"},
		{"l2.write_allocate", "true", "[M] SIM dl2 wr_alloc L: modelled as write-validate"},
		{"l2.set_index", "linear", "assumed: SIM uses an IPOLY hash (P); partition selection is modelled in dram"},
		{"l2.mshrs", "256", "[M] SIM dl2 A:256:64"},
		{"dram.type", "GDDR5", "[V] hw-facts §3"},
		{"dram.bandwidth_gbs", "250", "[R] hw-facts §3: K20X 250 GB/s"},
		{"dram.size", "6GB", "[R] Tesla K20X datasheet: 6 GB GDDR5"},
		{"dram.bus_bits", "384", "[R] Tesla K20X datasheet: 384-bit memory interface"},
		{"dram.channels", "12", "[M] SIM gpgpu_n_mem 12 (12 x 32-bit chips)"},
		{"dram.banks", "16", "[M] SIM nbk=16"},
		{"dram.row_bytes", "2KB", "[M] SIM address map RBBBCCCC.BCCSSSSS: 11 column+byte bits"},
		{"dram.burst_length", "8", "[M] SIM gpgpu_dram_burst_length 8"},
		{"dram.bus_bytes", "4", "[M] SIM gpgpu_dram_buswidth 4"},
		{"dram.interleave", "256", "[M] SIM address map dramid@8"},
		{"dram.hash", "false", "[M] SIM gpgpu_memory_partition_indexing 0"},
		{"dram.row_miss_ns", "26", "assumed: GDDR5 as GTX480 (SIM RP=12, RCD=12 at 924 MHz)"},
		{"dram.rrd_ns", "5.3", "[M] SIM SM3_KEPLER_TITAN dram timing RRD=8 memory clocks at 1502 MHz"},
		{"lat.alu", "9", "[R] Volkov 2016 thesis: ~9 cycles on Kepler"},
		{"lat.fma", "9", "[R] Volkov 2016 thesis"},
		{"lat.sfu", "18", "assumed: about twice the ALU latency; unmeasured"},
		{"lat.dp", "18", "assumed: about twice the ALU latency; unmeasured"},
		{"lat.shared", "47", "[V] MCR: 46.75 cycles"},
		{"lat.l1_hit", "82", "[M] SIM gpgpu_l1_latency 82 (TITAN)"},
		{"lat.l2_hit", "200", "assumed: SIM l1 82 + l2_rop 120 [M]"},
		{"lat.dram", "500", "assumed: seed 000 gives 400-800 cycles for global memory"},
		{"lat.texture", "110", "assumed: unmeasured read-only/texture hit"},
		{"lat.const", "24", "assumed: the seed's const-cache hit (24 cycles) on an unnamed GPU"},
		{"lat.const_l15", "0", "no level 1.5"},
		{"pcie.gen", "2", "[R] Tesla K20X board specification (BD-06397): PCI Express Gen2 x16"},
		{"pcie.lanes", "16", "[R] same"},
		{"pcie.efficiency", "0.88", srcPCIeEfficiency + " (a Kepler-era host is unmeasured)"},
		{"pcie.latency_us", "7.7", srcPCIeLatency + " (a Kepler-era host is unmeasured)"},
		{"pcie.staging_gbps", "12.6", srcPCIeStaging + " (a Kepler-era host is unmeasured)"},
		{"pcie.copy_engines", "2", "[R] Tesla K20X: two copy engines (deviceQuery asyncEngineCount 2)"},
	}},
	{arch: "kepler", gpu: "titan", base: "k20x", rows: []row{
		{"name", "GeForce GTX TITAN", "GK110"},
		{"sm.count", "14", "[M] SIM SM3_KEPLER_TITAN gpgpu_n_clusters 14"},
		{"sm.clock_mhz", "837", "[M] SIM clock domains 837 MHz"},
		{"dram.bandwidth_gbs", "288", "[M] SIM 1502 MHz QDR x 384 bit"},
		{"dram.size", "6GB", "[R] GeForce GTX TITAN specifications: 6 GB GDDR5"},
		{"pcie.gen", "3", "[R] GeForce GTX TITAN specifications: PCI Express 3.0 x16"},
		{"pcie.copy_engines", "1", "[R] GeForce Kepler: one copy engine"},
	}},
	{arch: "ampere", gpu: "a100", rows: []row{
		{"name", "A100 SXM4 40GB", "GA100"},
		{"cc", "8.0", "PG §20.7"},
		{"sm.count", "108", "[R] A100 whitepaper"},
		{"sm.clock_mhz", "1410", "[V] GB a100_80"},
		{"sm.warp_size", "32", "[V] PG"},
		{"sm.schedulers", "4", "[V] PG §20.7.1: 4 SMSPs"},
		{"sm.dispatch_per_scheduler", "1", "[V] PG §20.7.1"},
		{"sm.max_warps", "64", "[V] PG Table 27 (8.0)"},
		{"sm.max_threads", "2048", "[V] PG Table 27 (8.0)"},
		{"sm.max_ctas", "32", "[R] PG Table 27 (8.0)"},
		{"sm.max_threads_per_cta", "1024", "[V] PG technical specifications: 1024 threads per block from cc 2.0 on"},
		{"sm.registers", "65536", "[V] PG"},
		{"sm.max_regs_per_thread", "255", "[R] PG Table 27"},
		{"sm.reg_alloc_unit", "256", "[R] OCC cc 8.x"},
		{"sm.simt", "its", "[V] PG §20.6.2: independent thread scheduling from Volta on"},
		{"sm.scheduler", "lrr", "[M] SIM SM80_A100 and SM86_RTX3070 -gpgpu_scheduler lrr; as measured on GH100 (hopper)"},
		{"sm.fp32_lanes", "64", "[R] A100 whitepaper: 64 FP32 cores per SM (16 per SMSP)"},
		{"sm.sfu_lanes", "16", "[R] A100 whitepaper: one 4-wide SFU per SMSP"},
		{"sm.dp_lanes", "32", "[R] A100 whitepaper: 32 FP64 cores per SM"},
		{"sm.lsu_lanes", "32", "[R] A100 whitepaper: 8 LD/ST units per SMSP"},
		{"sm.launch_cycles", "0", "assumed: unmeasured on this GPU; 0 reports the SMs' own cycles, as the steady-state throughput figures of seeds 001 and 003 (measured over long runs) need"},
		{"sm.reuse_miss_cycles", "0", "not modelled: unmeasured on this GPU (GH100's is measured, see hopper)"},
		{"sm.aggregate_atomics", "true", "[R] NVIDIA blog \"Optimized filtering with warp-aggregated atomics\" (2017 update): since CUDA 9; measured on sm_90 only (see hopper)"},
		{"sm.cta_launch_cycles", "0", "assumed: unmeasured on this GPU; 0 launches a CTA as soon as it fits"},
		{"coalescer", "sectored-32B", "[V] NCU: 128 B lines of 4 x 32 B sectors"},
		{"l1.unified_size", "192KB", "[V] PG §20.7.3: 192 KB L1 + shared (8.0)"},
		{"l1.line", "128", "[V] NCU"},
		{"l1.sector", "32", "[V] NCU, FGS: a miss fetches only the missing sectors"},
		{"l1.sets", "4", "[M] SIM dl1 S:4:128:64 (ways grow with the carve-out)"},
		{"l1.ways", "0", "derived from size and sets"},
		{"l1.replacement", "lru", "[M] SIM dl1 L"},
		{"l1.write", "write-through", "[V] hw-facts §2: write-through to L2"},
		{"l1.write_allocate", "false", "assumed: stores do not allocate in L1 (SIM uses lazy fetch on read)"},
		{"l1.set_index", "linear", "[M] SIM dl1 L"},
		{"l1.mshrs", "512", "[M] SIM dl1 A:512:64"},
		{"l1.cache_global", "true", "[V] GB: plain loads plateau at 192 KB"},
		{"shared.size", "64KB", "assumed: the smallest carve-out that holds a 48 KB static block (SharedCarveout picks per kernel)"},
		{"shared.max_per_cta", "163KB", "[R] PG Table 27 (8.0): 163 KB opt-in"},
		{"shared.banks", "32", "[V] PG"},
		{"shared.bank_width", "4", "[V] PG"},
		{"shared.carveouts", "0,8KB,16KB,32KB,64KB,100KB,132KB,164KB", "[V] PG §20.7.3"},
		{"shared.alloc_unit", "128", "[R] OCC cc 8.x"},
		{"shared.reserved_per_cta", "1KB", "[V] PG: 1 KB of shared memory reserved per block from cc 8.0"},
		{"tex.size", "128KB", "assumed: texture shares the unified L1 on hardware; modelled as its own cache of the default L1 size"},
		{"tex.line", "128", "[V] NCU"},
		{"tex.sector", "32", "[V] NCU: L1TEX is sectored from Volta on (32 B sectors); a miss fetches only the missing sectors"},
		{"tex.sets", "4", "[M] SIM tex N:4:128:256"},
		{"tex.ways", "0", "derived from size and sets"},
		{"tex.replacement", "lru", "[M] SIM tex L"},
		{"tex.mshrs", "0", "assumed: fills complete at once in the functional model"},
		{"const.size", "64KB", "[V] PG"},
		{"const.address_cycles", "2", "[V] ME scripts/hw/constdiv.cu (traces/hw/h200-2026-11-25-constdiv, H200): with 8 or 64 warps per SM an LDC of D distinct addresses takes 2.0 SM cycles per address per SM for D = 2 to 32, whether they share a line or lie 64 or 256 B apart; assumed the same on an H100, one GH100 SM"},
		{"const.l1.size", "2KB", "assumed: as GH100's IDC (ME: under 4 KB); PG gives an 8 KB working set"},
		{"const.l1.line", "64", "[M] SIM const lines are 64 B"},
		{"const.l1.sector", "64", "[M] SIM const not sectored"},
		{"const.l1.ways", "4", "assumed"},
		{"const.l1.sets", "0", "derived from size and ways"},
		{"const.l15.size", "64KB", "assumed: as GH100's GCC (ME: flat latency up to a 64 KB footprint)"},
		{"const.l15.line", "64", "[M] SIM const lines are 64 B"},
		{"const.l15.sector", "64", "[M] SIM const not sectored"},
		{"const.l15.ways", "8", "assumed"},
		{"const.l15.sets", "0", "derived from size and ways"},
		{"l2.size", "40MB", "[R] A100 whitepaper; [V] GB"},
		{"l2.slices", "160", "[M] SIM 40 channels x 4 sub-partitions, S:128:128:16 = 256 KB each"},
		{"l2.bytes_per_clk", "32", "[R] A100 whitepaper: 5120 B/clk of L2 read bandwidth = 32 B per slice of 160"},
		{"l2.in_bytes_per_clk", "32", "assumed: as GH100 (ME: one request or one 32 B store sector per LTS clock)"},
		{"l2.fetch_bytes", "64", "assumed: as measured on Hopper (cudaLimitMaxL2FetchGranularity default)"},
		{"l2.line", "128", "[V] NCU"},
		{"l2.sector", "32", "[V] NCU"},
		{"l2.ways", "16", "[M] SIM dl2 S:128:128:16"},
		{"l2.sets", "0", "derived from slice size and ways"},
		{"l2.replacement", "lru", "[M] SIM dl2 L"},
		{"l2.write", "write-back", "[M] SIM dl2 B"},
		{"l2.write_allocate", "true", "[M] SIM dl2 wr_alloc L: modelled as write-validate"},
		{"l2.set_index", "linear", "assumed: SIM uses X; partition selection is modelled in dram"},
		{"l2.mshrs", "192", "[M] SIM dl2 A:192:4"},
		{"dram.type", "HBM2", "[R] A100 whitepaper"},
		{"dram.bandwidth_gbs", "1555", "[R] A100-40GB whitepaper"},
		{"dram.size", "40GB", "[R] A100 whitepaper: A100 40 GB HBM2"},
		{"dram.bus_bits", "5120", "[R] A100 whitepaper: five HBM2 stacks, ten 512-bit memory controllers"},
		{"dram.channels", "40", "[M] SIM gpgpu_n_mem 40"},
		{"dram.banks", "16", "[M] SIM nbk=16"},
		{"dram.row_bytes", "2KB", "[M] SIM address map RBBBCCCC.BCCSSSSS"},
		{"dram.burst_length", "2", "[M] SIM gpgpu_dram_burst_length 2"},
		{"dram.bus_bytes", "16", "[M] SIM gpgpu_dram_buswidth 16"},
		{"dram.interleave", "256", "[M] SIM address map dramid@8"},
		{"dram.hash", "true", "assumed: partitions are address-hashed on Ampere (SIM's A100 config does not hash; its H100 config does)"},
		{"dram.row_miss_ns", "28", "[R] JEDEC HBM2 tRP ~14 ns + tRCD ~14 ns"},
		{"dram.rrd_ns", "0", "not binding: each of the 40 channels stands for 2 HBM2 pseudo-channels that activate independently; at SIM SM80_A100's RRD=7 memory clocks at 6048 MHz (1.16 ns) each would sustain 4.4 TB/s of 64 B activations, twice the data bus"},
		{"lat.alu", "4", "[M] SIM fp latency 4; [R] Abdelkhalik"},
		{"lat.fma", "4", "[R] Abdelkhalik: FFMA ~4 cycles"},
		{"lat.sfu", "23", "[M] SIM ptx_opcode_latency_sfu 23"},
		{"lat.dp", "6", "[M] SIM dp latency 6"},
		{"lat.shared", "23", "[R] Abdelkhalik (SIM uses 28)"},
		{"lat.l1_hit", "36", "[V] GB a100_80: ~36 cycles"},
		{"lat.l2_hit", "211", "[V] GB: near partition ~211 (far 400-500)"},
		{"lat.dram", "571", "[V] GB a100_80"},
		{"lat.texture", "36", "assumed: as an L1 hit (same unified array); unmeasured"},
		{"lat.const", "30", "assumed: as GH100's IDC (ME)"},
		{"lat.const_l15", "100", "assumed: as GH100's GCC (ME)"},
		{"pcie.gen", "4", "[R] A100 datasheet: PCIe Gen4, 64 GB/s (x16, both directions)"},
		{"pcie.lanes", "16", "[R] same"},
		{"pcie.efficiency", "0.88", srcPCIeEfficiency + " (an A100 host is unmeasured)"},
		{"pcie.latency_us", "7.7", srcPCIeLatency + " (an A100 host is unmeasured)"},
		{"pcie.staging_gbps", "12.6", srcPCIeStaging + " (an A100 host is unmeasured)"},
		{"pcie.copy_engines", "3", "[R] A100 deviceQuery: 3 copy engines; assumed as the GH100 measured (hopper/h200)"},
		{"sm.mma_cycles_k16", "8", "[R] A100 whitepaper: 312 dense FP16 tensor TFLOPS (FP16 or FP32 accumulate) at 1410 MHz on 108 SMs = 1024 FMA per SM and cycle, 256 per SMSP: an m16n8k16's 2048 FMA every 8 cycles"},
		{"sm.mma_cycles_k8", "4", "[R] A100 whitepaper: as sm.mma_cycles_k16, an m16n8k8's 1024 FMA every 4 cycles"},
		{"lat.mma_k16", "24", "assumed: as measured on GH100 (hopper); unmeasured on A100"},
		{"lat.mma_k8", "17", "assumed: as measured on GH100 (hopper); unmeasured on A100"},
	}},
	{arch: "ampere", gpu: "rtx3090", base: "a100", rows: []row{
		{"name", "GeForce RTX 3090", "GA102"},
		{"sm.mma_cycles_k16", "32", "[R] GA102 whitepaper: RTX 3090 71 dense FP16 tensor TFLOPS with FP32 accumulate at 1695 MHz on 82 SMs = 255 FMA per SM and cycle, 64 per SMSP: 32 cycles an m16n8k16 (FP16 accumulate runs twice as fast, 142 TFLOPS: not modelled apart)"},
		{"sm.mma_cycles_k8", "16", "[R] GA102 whitepaper: as sm.mma_cycles_k16"},
		{"cc", "8.6", "PG §20.7"},
		{"sm.count", "82", "[R] hw-facts §1"},
		{"sm.clock_mhz", "1695", "[R] RTX 3090 boost clock"},
		{"sm.max_warps", "48", "[V] PG Table 27 (8.6)"},
		{"sm.max_threads", "1536", "[V] PG Table 27 (8.6)"},
		{"sm.max_ctas", "16", "[R] PG Table 27 (8.6)"},
		{"sm.fp32_lanes", "128", "[R] GA102 whitepaper: 128 FP32 cores per SM (half shared with INT32)"},
		{"sm.dp_lanes", "2", "[R] GA102 whitepaper: FP64 at 1/64 of the FP32 rate"},
		{"l1.unified_size", "128KB", "[V] PG §20.7.3: 128 KB (8.6)"},
		{"shared.carveouts", "0,8KB,16KB,32KB,64KB,100KB", "[V] PG §20.7.3 (8.6: up to 100 KB)"},
		{"shared.max_per_cta", "99KB", "[R] PG Table 27 (8.6)"},
		{"tex.size", "64KB", "assumed: texture shares the unified L1; modelled as its own cache of the default L1 size"},
		{"l2.size", "6MB", "[V] hw-facts §3: GA102 6 MB, 512 KB per 32-bit controller"},
		{"l2.slices", "12", "assumed: one 512 KB slice per 32-bit controller"},
		{"l2.bytes_per_clk", "64", "assumed: as GH100's measured slice (2 sectors per clock); 12 x 64 B x 1.695 GHz = 1.3 TB/s"},
		{"l2.mshrs", "192", "assumed: as SIM's A100"},
		{"dram.type", "GDDR6X", "[R] hw-facts §3"},
		{"dram.bandwidth_gbs", "936", "[R] hw-facts §3"},
		{"dram.size", "24GB", "[R] GeForce RTX 3090 specifications: 24 GB GDDR6X"},
		{"dram.bus_bits", "384", "[R] hw-facts §3: GA102 384-bit (12 x 32-bit controllers)"},
		{"dram.channels", "24", "assumed: 384 bit as 24 x 16-bit channels, as SIM's RTX3070 models 256 bit as 16"},
		{"dram.burst_length", "16", "[M] SIM RTX3070: BL16 x 2 B"},
		{"dram.bus_bytes", "2", "[M] SIM RTX3070: 2 B per channel"},
		{"dram.row_miss_ns", "14", "[M] SIM SM86_RTX3070 GDDR6 dram timing RP=24, RCD=24 memory clocks at 3500.5 MHz"},
		{"dram.rrd_ns", "3.4", "[M] SIM SM86_RTX3070 GDDR6 dram timing RRD=12 memory clocks at 3500.5 MHz"},
		{"lat.l2_hit", "211", "assumed: as A100 near partition; unmeasured on GA102"},
		{"lat.dram", "571", "assumed: as A100; unmeasured on GA102"},
		{"pcie.copy_engines", "2", "[R] GeForce RTX 3090 deviceQuery: 2 copy engines"},
	}},
	{arch: "hopper", gpu: "h100", rows: []row{
		{"name", "H100 SXM5", "GH100"},
		{"cc", "9.0", "PG §20.8"},
		{"sm.count", "132", "[V] C&C: SXM5 132 SMs"},
		{"sm.clock_mhz", "1980", "[V] ME nvidia-smi max SM clock of an H100 SXM and an H200; ncu sm__cycles_elapsed.avg.per_second 1979-1980 MHz with no clock control (scripts/hw/footprint.sh). Under ncu --clock-control base, as collect.sh runs, 1590 (H100) and 1500 (H200): validate replays at the measured clock"},
		{"sm.warp_size", "32", "[V] PG"},
		{"sm.schedulers", "4", "[V] PG §20.8.1"},
		{"sm.dispatch_per_scheduler", "1", "[V] PG §20.8.1"},
		{"sm.max_warps", "64", "[V] PG; ME"},
		{"sm.max_threads", "2048", "[V] PG; ME"},
		{"sm.max_ctas", "32", "[R] PG Table 27 (9.0)"},
		{"sm.max_threads_per_cta", "1024", "[V] PG technical specifications: 1024 threads per block from cc 2.0 on"},
		{"sm.registers", "65536", "[V] ME"},
		{"sm.max_regs_per_thread", "255", "[R] PG Table 27"},
		{"sm.reg_alloc_unit", "256", "[R] OCC cc 9.0"},
		{"sm.simt", "its", "[V] PG §20.6.2: independent thread scheduling from Volta on"},
		{"sm.scheduler", "gtrr", "[V] ME traces/hw/h200-2026-11-21-volkov-ilp.csv: one block of FMA chains keeps rising with more warps, where GTO lets the oldest warps starve the youngest (0.52 of peak at 576 threads against 0.71 at 512); and at ILP 4 it reaches 94% of peak, which needs a warp to keep the scheduler (and its operand reuse cache, sm.reuse_miss_cycles) while it can issue: greedy, then round robin. (SIM SM90_H100 uses lrr.)"},
		{"sm.fp32_lanes", "128", "[R] H100 whitepaper: 128 FP32 cores per SM (32 per SMSP)"},
		{"sm.sfu_lanes", "16", "[R] H100 whitepaper: one 4-wide SFU per SMSP"},
		{"sm.dp_lanes", "64", "[R] H100 whitepaper: 64 FP64 cores per SM"},
		{"sm.lsu_lanes", "32", "[R] H100 whitepaper: 8 LD/ST units per SMSP"},
		{"sm.int32_lanes", "64", "[R] H100 whitepaper: 64 INT32 cores per SM (16 per SMSP); [V] ME scripts/hw/intchain.sh, traces/hw/h200-2026-11-26-intchain (H100 within 1.3%): per SM and cycle, IMAD 2.00, IMAD.HI 0.99, FFMA 3.91, LOP3 + VIADD 3.95, ISETP + VIADD + LOP3 2.99"},
		{"sm.launch_cycles", "2505", "[V] ME: traces/hw/h200-2026-11-21-launch-overhead.csv, empty kernels at 1 and 132 CTAs take 2544 and 2466 elapsed SM cycles (H200; assumed the same on H100, one GH100 die and driver)"},
		{"sm.mma_cycles_k16", "6", "[V] ME scripts/hw/mma.sh, traces/hw/h100-2026-11-27-mma/mma.csv: one block per SM of 8 or 16 warps, each with 8 independent m16n8k16 chains, completes 0.66 and 0.64 per SM and cycle (every type): 6.1 cycles per SMSP. The whitepaper's 989 dense FP16 TFLOPS (4 cycles an m16n8k16 per SMSP at 1830 MHz) is wgmma's; mma.sync reaches two thirds of it"},
		{"sm.mma_cycles_k8", "4", "[V] ME same run: 0.98 m16n8k8 per SM and cycle with 8 or 16 warps, 4.1 cycles per SMSP"},
		{"sm.reuse_miss_cycles", "1", "[V] ME traces/hw/h200-2026-11-21-volkov-ilp.csv with its SASS (h200-2026-11-21-volkov-sm90.sass.gz): FFMA chains reach 47/65/74/94% of peak at ILP 1-4 however many warps run, k FMAs in k+1 cycles while a warp must yield every k < 4 FFMAs; docs/VALIDATION.md"},
		{"sm.aggregate_atomics", "true", "[V] ME traces/hw/h200-2026-11-26-compaction-sass.tar.gz: compact_atomic's per-lane atomicAdd(count, 1) is VOTEU.ANY, FLO, POPC, one ATOMG by the first lane and SHFL.IDX in both corpora, one atomic sector per warp in ncu"},
		{"sm.cta_launch_cycles", "99", "[V] ME: same file, 1024 empty CTAs of 256 threads (8 per SM, all resident at once) take 3201 cycles: (3201 - 2505) / 7 launches after each SM's first"},
		{"coalescer", "sectored-32B", "[V] NCU; ME: 4 sectors per coalesced 4 B request, 32 at a 128 B stride"},
		{"l1.unified_size", "256KB", "[V] PG §20.8.3"},
		{"l1.line", "128", "[V] NCU"},
		{"l1.sector", "32", "[V] NCU"},
		{"l1.sets", "4", "[M] SIM dl1 S:4:128:64 (ways grow with the carve-out)"},
		{"l1.ways", "0", "derived from size and sets"},
		{"l1.replacement", "lru", "[M] SIM dl1 L"},
		{"l1.write", "write-through", "[V] ME: l1tex store sectors = lts write sectors = 131072"},
		{"l1.write_allocate", "false", "assumed: stores do not allocate in L1 (SIM uses lazy fetch on read)"},
		{"l1.set_index", "linear", "[M] SIM dl1 L"},
		{"l1.mshrs", "512", "[M] SIM dl1 A:512:64"},
		{"l1.cache_global", "true", "[V] ME: ld.ca hit = 32 cycles; GB plain loads"},
		{"shared.size", "64KB", "assumed: the smallest carve-out that holds a 48 KB static block (SharedCarveout picks per kernel)"},
		{"shared.max_per_cta", "227KB", "[V] PG §20.8.3; ME optin 232448 B"},
		{"shared.banks", "32", "[V] PG; ME"},
		{"shared.bank_width", "4", "[V] PG"},
		{"shared.carveouts", "0,8KB,16KB,32KB,64KB,100KB,132KB,164KB,196KB,228KB", "[V] PG §20.8.3"},
		{"shared.alloc_unit", "128", "[R] OCC cc 9.0"},
		{"shared.reserved_per_cta", "1KB", "[V] PG: 1 KB reserved per block from cc 8.0"},
		{"tex.size", "192KB", "assumed: texture shares the unified L1; modelled as its own cache of the default L1 size"},
		{"tex.line", "128", "[V] NCU"},
		{"tex.sector", "32", "[V] NCU: L1TEX is sectored from Volta on (32 B sectors); a miss fetches only the missing sectors"},
		{"tex.sets", "4", "[M] SIM tex N:4:128:256"},
		{"tex.ways", "0", "derived from size and sets"},
		{"tex.replacement", "lru", "[M] SIM tex L"},
		{"tex.mshrs", "0", "assumed: fills complete at once in the functional model"},
		{"const.size", "64KB", "[V] PG"},
		{"const.address_cycles", "2", "[V] ME scripts/hw/constdiv.cu (traces/hw/h200-2026-11-25-constdiv, H200): with 8 or 64 warps per SM an LDC of D distinct addresses takes 2.0 SM cycles per address per SM for D = 2 to 32, whether they share a line or lie 64 or 256 B apart; assumed the same on an H100, one GH100 SM"},
		{"const.l1.size", "2KB", "assumed: ME shows the IDC holds a 256 B footprint (34 cycles) but not 4 KB (104)"},
		{"const.l1.line", "64", "[M] SIM const lines are 64 B"},
		{"const.l1.sector", "64", "[M] SIM const not sectored"},
		{"const.l1.ways", "4", "assumed"},
		{"const.l1.sets", "0", "derived from size and ways"},
		{"const.l15.size", "64KB", "[V] ME: GCC latency flat at 104 cycles from 4 KB to 64 KB footprints"},
		{"const.l15.line", "64", "[M] SIM const lines are 64 B"},
		{"const.l15.sector", "64", "[M] SIM const not sectored"},
		{"const.l15.ways", "8", "assumed"},
		{"const.l15.sets", "0", "derived from size and ways"},
		{"l2.size", "50MB", "[V] C&C"},
		{"l2.slices", "80", "[M] SIM 40 channels x 2 sub-partitions, S:256:128:20 = 640 KB each"},
		{"l2.clock_mhz", "1707", "[V] ME ncu lts__cycles_elapsed.avg.per_second with the SMs at 1980 MHz: 1707 on an H100 and an H200 (scripts/hw/footprint.sh, traces/hw/h100-2026-11-25-footprint, traces/hw/h200-2026-11-25-footprint)"},
		{"l2.bytes_per_clk", "64", "[V] ME ncu (scripts/hw/l2probe.sh, H200): lts__t_sectors_srcunit_tex.sum.peak_sustained = 188 sectors per L2 clock over 94 LTS = 2 x 32 B per slice per L2 clock"},
		{"l2.in_bytes_per_clk", "32", "[V] ME ncu (scripts/hw/l2probe.sh, H200): lts__t_tag_requests peak 1 per LTS per clock; lts__xbar2lts_cycles_active is about one cycle per read request plus one per 32 B store sector (test_coalesced, test_offset_8, test_offset_32)"},
		{"l2.slice_map", "granules", "[V] ME scripts/hw/atomics.sh (traces/hw/h200-2026-11-25-atomics, H200): a grid of RED to two lines k lines apart takes as long as to one line for k = 1, 4, 5 and half as long for k = 2, 3, 6-9, 12, 13, 16-8192 (k = 10, 11, 14, 15 in between, unexplained); 8 consecutive lines reach 2 lines' rate, 16 reach 4, 32 reach 8; assumed the same on an H100, one GH100 die"},
		{"l2.atomic_pass_clk", "1.25", "[V] ME scripts/hw/atomics.sh (traces/hw/h200-2026-11-25-atomics, H200): a grid of RED or ATOM to one to four words of one line takes 1.25 L2 clocks per L2 request (lts__cycles_elapsed over lts__t_requests_srcunit_tex_op_red), 8 to 32 words one clock per sector; assumed the same on an H100, one GH100 die"},
		{"l2.partitions", "2", "[V] ME scripts/hw/probe.sh writeback (traces/hw/h200-2026-11-25-writeback, H200, docs/research/hw-facts.md section 11): all SMs reading their footprint twice find it again in full to 32 MB, 72% at 40, 11% at 48 (1.5 slots of the 60 MB a line, as a near copy of lines homed in the other partition gives); one thread's chase of 44 MB misses near on every hop and finds half far; assumed the same on an H100, one GH100 die"},
		{"l2.dirty_max", "0.425", "[V] ME scripts/hw/probe.sh writeback (traces/hw/h200-2026-11-25-writeback, H200, docs/research/hw-facts.md section 11): whole sectors stored in order are written back past 25.4-25.8 MB at every footprint from 32 to 96 MB: 25.5 of 60 MB; assumed the same fraction on an H100"},
		{"l2.partial_fill", "true", "[V] ME scripts/hw/probe.sh writeback (traces/hw/h200-2026-11-25-writeback, H200, docs/research/hw-facts.md section 11): stores of half of each sector, shuffled, read from DRAM what they write back (8 to 96 MB); HBM3 has no data mask"},
		{"l2.fetch_bytes", "64", "[V] ME: on an H200 a read miss brings 64 B from DRAM: test_offset_32 reads 2.16x its sectors, transpose_v1 hits 75% in L2 (docs/VALIDATION.md)"},
		{"l2.line", "128", "[V] NCU"},
		{"l2.sector", "32", "[V] NCU"},
		{"l2.ways", "20", "[M] SIM dl2 S:256:128:20"},
		{"l2.sets", "0", "derived from slice size and ways"},
		{"l2.replacement", "lru", "[M] SIM dl2 L"},
		{"l2.write", "write-back", "[M] SIM dl2 B"},
		{"l2.write_allocate", "true", "[M] SIM dl2 wr_alloc L: modelled as write-validate"},
		{"l2.set_index", "linear", "assumed: SIM uses X; partition selection is modelled in dram"},
		{"l2.mshrs", "384", "[M] SIM dl2 A:384:4"},
		{"dram.type", "HBM3", "[V] C&C"},
		{"dram.bandwidth_gbs", "3350", "[V] C&C; [R] SXM5 datasheet"},
		{"dram.size", "81079MB", "[V] ME scripts/hw/deviceprops.sh (traces/hw/h100-2026-11-26-deviceprops, H100 SXM5 80GB HBM3): totalGlobalMem and cudaMemGetInfo total 85017493504 B"},
		{"dram.bus_bits", "5120", "[V] ME same: memoryBusWidth 5120 (five HBM3 stacks)"},
		{"dram.channels", "40", "[M] SIM gpgpu_n_mem 40"},
		{"dram.banks", "64", "assumed: 32 banks per HBM3 channel (HBM2E has 8, 16, 32 or 48 by stack, JESD235 as summarised on forum.beyond3d.com) x 2 HBM3 channels per model channel (6144 or 5120 bits over 48 or 40). SIM's nbk=16 made replay chaotic: 2x L2 speed swung reduce_v5_1 by +10% through row conflicts (docs/VALIDATION.md)"},
		{"dram.row_bytes", "2KB", "[M] SIM address map RBBBCCCC.BCCSSSSS"},
		{"dram.burst_length", "4", "[M] SIM gpgpu_dram_burst_length 4"},
		{"dram.bus_bytes", "8", "[M] SIM gpgpu_dram_buswidth 8"},
		{"dram.interleave", "256", "[M] SIM address map dramid@8"},
		{"dram.hash", "true", "[M] SIM gpgpu_memory_partition_indexing 6 (IPOLY)"},
		{"dram.row_miss_ns", "28", "[R] JEDEC HBM3 tRP ~14 ns + tRCD ~14 ns"},
		{"dram.rrd_ns", "0", "not binding: each channel stands for several HBM3 pseudo-channels that activate independently; at SIM SM90_H100's RRD=6 memory clocks at 3106 MHz (1.93 ns) per pseudo-channel, 64 B activations outrun the data bus"},
		{"lat.alu", "4", "[V] ME: dependent FFMA 4.12 cycles; IMAD 4.2 (scripts/hw/intchain.sh, traces/hw/h200-2026-11-26-intchain (H100 within 1.3%))"},
		{"lat.fma", "4", "[V] ME: dependent FFMA 4.12 cycles"},
		{"lat.int", "5", "[V] ME scripts/hw/intchain.sh, traces/hw/h200-2026-11-26-intchain (H100 within 1.3%): a dependent VIADD + LOP3 pair takes 10.2 cycles"},
		{"lat.imad_hi", "9", "[V] ME scripts/hw/intchain.sh, traces/hw/h200-2026-11-26-intchain (H100 within 1.3%): a dependent IMAD.HI (mul.hi + add folded) 9.3 cycles"},
		{"lat.setp", "12", "[V] ME scripts/hw/intchain.sh, traces/hw/h200-2026-11-26-intchain (H100 within 1.3%): ISETP, @P VIADD, LOP3 take 22.2 cycles, 12.0 beyond the two integer ops"},
		{"lat.sfu", "23", "[M] SIM ptx_opcode_latency_sfu 23"},
		{"lat.dp", "8", "[V] ME: dependent DFMA 8.28 cycles"},
		{"lat.mma_k16", "24", "[V] ME scripts/hw/mma.sh, traces/hw/h100-2026-11-27-mma/mma.csv: a warp's chain of 4096 dependent m16n8k16 (D into C) takes 24.1 SM cycles each, for f16 and bf16 inputs and f32 or f16 accumulators alike"},
		{"lat.mma_k8", "17", "[V] ME same run: 17.1 cycles each for m16n8k8"},
		{"lat.shared", "23", "[V] ME: dependent LDS 23.0 cycles"},
		{"lat.l1_hit", "32", "[V] ME: 32.0 cycles (H100 PCIe 34, GB)"},
		{"lat.l2_hit", "130", "[V] ME pointer chase (scripts/hw/footprint.sh, traces/hw/h100-2026-11-25-footprint): an L2 hit is 284.0 cycles with the SMs at 1979 MHz and 253.7 at 1590, the L2 at 1707 both times, so 130.1 SM cycles + 132.7 L2 cycles (hw-facts section 8)"},
		{"lat.l2_hit_l2clk", "133", "[V] ME: same fit"},
		{"lat.dram_ns", "204", "[V] ME: same chase past 56 MB, 204.0 ns more than an L2 hit at both SM clocks (688.0 and 578.1 cycles)"},
		{"lat.l2_far_ns", "124", "[V] ME: same chase from 32 to 44 MB, past what one SM's near partition holds: 528.5 cycles at 1979 MHz and 450.7 at 1590, 124.1 and 123.9 ns more than an L2 hit (hw-facts section 8)"},
		{"lat.texture", "32", "assumed: as an L1 hit (same unified array); unmeasured"},
		{"lat.const", "30", "[V] ME: IDC 34 cycles minus a 4-cycle SHF"},
		{"lat.const_l15", "100", "[V] ME: GCC 104 cycles minus a 4-cycle SHF"},
		{"pcie.gen", "5", "[R] H100 SXM5 datasheet: PCIe Gen5, 128 GB/s (x16, both directions)"},
		{"pcie.lanes", "16", "[R] same"},
		{"pcie.efficiency", "0.88", srcPCIeEfficiency + " (measured on an H200; an H100 is one GH100 die on the same link)"},
		{"pcie.latency_us", "7.7", srcPCIeLatency + " (measured on an H200; an H100 is one GH100 die on the same link)"},
		{"pcie.staging_gbps", "12.6", srcPCIeStaging + " (measured on an H200; an H100 is one GH100 die on the same link)"},
		{"pcie.copy_engines", "3", "assumed: as the H200 reports (" + transfersH200 + "), one GH100 die"},
	}},
	{arch: "hopper", gpu: "h200", base: "h100", rows: []row{
		{"name", "H200", "GH100"},
		{"sm.count", "132", "[V] ME"},
		{"l2.size", "60MB", "[V] ME: 62914560 B"},
		{"l2.slices", "96", "assumed: 48 channels x 2 sub-partitions of 640 KB (ncu's sum/avg gives 94 LTS, uncertain)"},
		{"dram.type", "HBM3e", "[V] hw-facts §3"},
		{"dram.bandwidth_gbs", "4800", "[R] H200 datasheet"},
		{"dram.size", "141GB", "[R] H200 datasheet: 141 GB HBM3e (binary units assumed; the H100 reports 81078 MiB of its 80 GB)"},
		{"dram.bus_bits", "6144", "[R] H200: six HBM3e stacks of 1024 bits (the H100 reports 5120 for its five)"},
		{"dram.channels", "48", "[V] ME: 48 dram instances in ncu"},
		{"lat.l2_hit", "131", "[V] ME pointer chase (scripts/hw/footprint.sh, traces/hw/h200-2026-11-25-footprint): 281.4 cycles at 1980/1707 MHz (SM/L2), 247.0 at 1500/1677, so 131.5 SM cycles + 129.2 L2 cycles (hw-facts section 8)"},
		{"lat.l2_hit_l2clk", "129", "[V] ME: same fit"},
		{"lat.l2_far_ns", "117.4", "[V] ME: same chase from 36 to 52 MB, past what one SM's near partition holds: 512.0 cycles at 1980 MHz and 423.7 at 1500, 116.9 and 117.8 ns more than an L2 hit (hw-facts section 8)"},
		{"lat.dram_ns", "191.4", "[V] ME: same chase past 72 MB, 190.9 and 191.9 ns more than an L2 hit at the two clocks (659.4 and 534.9 cycles; an older chase of 1-4 KB strides over 128 MB-1 GB gave 667-683)"},
		{"pcie.gen", "5", "[V] ME " + transfersH200 + ": nvidia-smi pcie.link.gen 5 (max 5) while copying"},
		{"pcie.lanes", "16", "[V] ME same: pcie.link.width 16"},
		{"pcie.copy_engines", "3", "[V] ME " + transfersH200 + ": asyncEngineCount 3; a 64 MB h2d and a 64 MB d2h on two streams take 1331 us together against 1225 alone, two h2d 2427 (one after the other)"},
	}},
}

var defaultGPU = map[string]string{"fermi": "gtx480", "kepler": "k20x", "ampere": "a100", "hopper": "h100"}

// Archs lists the architecture names.
func Archs() []string { return []string{"fermi", "kepler", "ampere", "hopper"} }

// GPUs lists an architecture's presets, the default first.
func GPUs(arch string) []string {
	var out []string
	for _, p := range presets {
		if p.arch == arch {
			out = append(out, p.gpu)
		}
	}
	return out
}

// DefaultGPU returns an architecture's default preset ("" if unknown).
func DefaultGPU(arch string) string { return defaultGPU[arch] }

// Preset returns a fresh copy of a built-in preset; gpu "" means the
// architecture's default. Errors list the valid names.
func Preset(arch, gpu string) (*Config, error) {
	arch = strings.ToLower(strings.TrimSpace(arch))
	gpu = strings.ToLower(strings.TrimSpace(gpu))
	if _, ok := defaultGPU[arch]; !ok {
		return nil, fmt.Errorf("unknown arch %q (want one of %s)", arch, strings.Join(Archs(), ", "))
	}
	if gpu == "" {
		gpu = defaultGPU[arch]
	}
	p, ok := findPreset(arch, gpu)
	if !ok {
		return nil, fmt.Errorf("unknown %s GPU %q (want one of %s)", arch, gpu, strings.Join(GPUs(arch), ", "))
	}
	c := &Config{Arch: arch, GPU: gpu, sources: map[string]string{}}
	if err := c.apply(preset{arch: arch, rows: common}); err != nil {
		return nil, fmt.Errorf("common rows: %w", err)
	}
	if err := c.apply(p); err != nil {
		return nil, fmt.Errorf("preset %s/%s: %w", arch, gpu, err)
	}
	return c, nil
}

func findPreset(arch, gpu string) (preset, bool) {
	for _, p := range presets {
		if p.arch == arch && p.gpu == gpu {
			return p, true
		}
	}
	return preset{}, false
}

func (c *Config) apply(p preset) error {
	if p.base != "" {
		b, ok := findPreset(p.arch, p.base)
		if !ok {
			return fmt.Errorf("base %q not found", p.base)
		}
		if err := c.apply(b); err != nil {
			return err
		}
	}
	for _, r := range p.rows {
		if err := c.set(r.key, r.value, r.src); err != nil {
			return err
		}
	}
	return nil
}

// Names lists every preset as "arch/gpu", sorted.
func Names() []string {
	var out []string
	for _, p := range presets {
		out = append(out, p.arch+"/"+p.gpu)
	}
	sort.Strings(out)
	return out
}
