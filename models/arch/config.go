package arch

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/coalesce"
	"github.com/gtrace/gtrace/models/dram"
	"github.com/gtrace/gtrace/models/pcie"
	"github.com/gtrace/gtrace/models/sched"
)

// Config is one GPU. Build it with Preset or Load; change it with Set.
type Config struct {
	Arch string // fermi, kepler, ampere or hopper
	GPU  string // preset name, e.g. gtx480
	Name string // marketing name
	CC   string // compute capability, e.g. "2.0"

	SM        SM
	Coalescer coalesce.Mode // global-memory coalescing rule (see GlobalLoadMode)
	L1        L1
	Shared    Shared
	Tex       cache.Config // read-only / texture cache, per SM
	Const     Const
	L2        L2
	DRAM      DRAM
	Latency   Latency
	PCIe      pcie.Link // the host connection: copies between host and device memory

	sources map[string]string
}

// SM is the streaming multiprocessor: counts, limits for occupancy, issue.
type SM struct {
	Count                int    // SMs on the chip
	ClockMHz             int    // SM (shader) clock
	WarpSize             int    // threads per warp
	Schedulers           int    // warp schedulers per SM
	DispatchPerScheduler int    // instructions one scheduler can issue per cycle
	MaxWarps             int    // resident warps per SM
	MaxThreads           int    // resident threads per SM
	MaxCTAs              int    // resident CTAs per SM
	MaxThreadsPerCTA     int    // threads one CTA may have
	Registers            int    // 32-bit registers per SM
	MaxRegsPerThread     int    // per-thread register limit
	RegAllocUnit         int    // registers are allocated per warp in units of this many
	SIMT                 string // divergence model: "stack" (pre-Volta) or "its" (Volta+)
	Scheduler            string // warp scheduler policy: "lrr", "gto", "gtrr", "gtoc" or "two-level"

	// Execution lanes per SM of each pipe, for a timing engine: a warp instruction
	// occupies its scheduler's share of the pipe (lanes / Schedulers) for
	// 32 / share cycles, e.g. 2 cycles on Fermi's 16-lane halves.
	FP32Lanes int // FP32 and integer cores
	SFULanes  int // special-function units
	DPLanes   int // FP64 units
	LSULanes  int // load/store units; shared-memory wavefronts take 32 / LSULanes cycles
	// INT32Lanes, when set, splits integer work off the FP32 pipe as Hopper's SM does:
	// logic, compare and select run on an integer pipe of INT32Lanes per SM; integer
	// multiplies run on the FP32 pipe at INT32Lanes (a half of its lanes on Hopper),
	// a high multiply for two passes; an add or move takes whichever is free first.
	// 0: every integer instruction is an FP32-pipe instruction.
	INT32Lanes int
	// MMACyclesK8 and MMACyclesK16 are how long an SM sub-partition's tensor unit is
	// busy with one warp's mma of depth k = 8 (m16n8k8, SASS HMMA.1688) and k = 16
	// (m16n8k16, HMMA.16816): the least cycles between two on one scheduler. 0: no
	// tensor cores (before Volta); a trace with an mma cannot be timed there. The depth
	// is k times the input's bits over 16: m16n8k8 on tf32 and m16n8k32 on s8 are timed
	// as m16n8k16 on f16, as an H100 runs them (traces/hw/h100-2026-11-27-mma-more).
	MMACyclesK8, MMACyclesK16 int
	// MMACyclesF64 is the same for an m8n8k4 on f64 (SASS DMMA.884). 0: no f64 tensor
	// cores; a trace with one cannot be timed there.
	MMACyclesF64 int

	// LaunchCycles is a kernel's fixed launch-and-drain cost in SM cycles, which ncu's
	// sm__cycles_elapsed.avg includes and no SM spends issuing: a timing engine adds it
	// to elapsed cycles. 0 reports the SMs' own cycles only.
	LaunchCycles int
	// LaunchReadBytes is what a launch reads from DRAM into an empty L2 besides its
	// code and its data (the driver's launch state), and InstBytes the size of one SASS
	// instruction of its code, which the SMs also fetch from DRAM once (every SM after
	// the first finds it in the L2): the engines add both to dram__bytes_read
	// (replay/launchread.go). InstBytes 0: neither.
	LaunchReadBytes, InstBytes int
	// CTALaunchNS is the least time between two CTA launches on one SM, in ns (a fixed
	// time, not SM cycles: the H200 spaces them alike at 1500 and 1980 MHz): the
	// distributor sets up one CTA at a time. 0 launches a CTA as soon as it fits.
	CTALaunchNS float64
	// CTARetireNS is how long an SM's room for a CTA stays taken after the CTA's last
	// warp finishes, in ns: the SM tells the distributor, which sends the next CTA.
	// It holds the room only; the kernel's end is in LaunchCycles. 0: none.
	CTARetireNS float64
	// ReuseMissCycles is what an arithmetic warp instruction with three register
	// sources costs beyond its issue slot when its warp did not issue its scheduler's
	// previous instruction: its operands come from the register banks, not the operand
	// reuse cache, and two of three always share one of two banks. 0: not modelled.
	ReuseMissCycles int
	// The LSU's queue and what each line costs it (the timing engine's sched.LSU).
	// LSUQueueCycles is the cycles of work the queue holds before a memory
	// instruction waits to issue (mio_throttle, lg_throttle); loads, shared and
	// constant accesses and partial-sector stores share it. A load's line that misses
	// the L1 or finds its sectors on their way costs LSUMissLineCycles plus
	// LSUMissSectorCycles a sector it asks for; a hit costs 32 / sm.lsu_lanes (both 0:
	// every line as a hit). LSUStoreLineCycles and LSUStoreSectorCycles, when set, give
	// stores a path of their own: a store's lines reach it when the LSU's queue ahead
	// of them is done, and each takes it for the larger of LSUStoreLineCycles and
	// LSUStoreSectorCycles a sector; a line it writes part of a sector of also takes
	// the LSU's queue for LSUPartialLineCycles. The SM holds LSUStores stores from
	// their issue until their lines have left; one more waits to issue. Both 0: a
	// store takes the LSU as a hit does, a line at a time. All in SM cycles, to a
	// hundredth.
	LSUQueueCycles                                                 int
	LSUMissLineCycles, LSUMissSectorCycles                         float64
	LSUStoreLineCycles, LSUStoreSectorCycles, LSUPartialLineCycles float64
	LSUStores                                                      int
	// LSUStoreRegCycles, where stores have their own path, is what each register of
	// a lane a store reads holds the path at least: one for its address and one for
	// each 4 bytes of its data (scripts/hw/stsmall.cu: on the H200 a store of one
	// sector takes 2.1-2.2 cycles, one lane's 8 bytes 3.1, a whole line the 4 of its
	// sectors). 0: a store holds the path for its lines only.
	LSUStoreRegCycles float64
	// StoreMergeLines, where stores have their own path, lets a store's line join an
	// earlier store's line of the same address that is still on the path when the
	// later store issues, and is one of the last StoreMergeLines lines sent down it,
	// instead of reaching the L2 as a write of its own (scripts/hw/wcombine.cu:
	// on the H200 a warp's stores issued together reach the L2 as one write, and a
	// warp's stores among many warps' hardly ever do). A joined line takes no time of
	// the path, and its sectors count once at the L2 (lts__t_sectors_srcunit_tex_op_write);
	// the L1 counts both stores. 0: every store line is a write of its own.
	StoreMergeLines int
	// LDGSTSCopyCycles and LDGSTSWavefrontCycles are what a cp.async (SASS LDGSTS)
	// holds the SM's fill port, which writes a copy's bytes into shared memory once
	// they arrive: LDGSTSCopyCycles a copy plus LDGSTSWavefrontCycles each of its
	// shared wavefronts; the copy lands when it leaves the port
	// (scripts/hw/ldgstsport.cu). Both 0: a shared access's pass (32 / sm.lsu_lanes)
	// a wavefront. In SM cycles, to a hundredth.
	LDGSTSCopyCycles, LDGSTSWavefrontCycles float64
	// DrainStores: a CTA keeps its room until each of its warps' global stores has
	// read its operands, as ncu's drain stall has a warp wait after its EXIT
	// (scripts/hw/lgdrain.cu: on the H200 a clock read that overwrites a store's data
	// register waits until the shared loads queued before the store are done, not the
	// global line lookups). Where stores have their own path, a store reads its
	// operands once the shared accesses and the stores queued before it are done;
	// otherwise when its LSU work starts. False: a CTA retires when its warps' last
	// results land, whatever its stores still wait for.
	DrainStores bool
	// S2RCycles is how long an S2R (Latency.S2R) holds the SM's unit for them: the
	// next starts that many cycles later. Used only with Latency.S2R > 0.
	S2RCycles int
	// AggregateAtomics: ptxas compiles a global integer atomic add whose address and
	// operand are the same in every lane into one atomic per warp (VOTEU.ANY, FLO,
	// POPC, the first active lane's ATOMG or RED of operand × active lanes, SHFL of its
	// result), so the L2 sees one operation per warp instruction, not one per lane
	// (replay/aggregate.go). A property of the toolkit that compiles for the GPU.
	AggregateAtomics bool
}

// L1 is the per-SM L1 data cache.
type L1 struct {
	cache.Config      // Size is derived when UnifiedSize > 0
	CacheGlobal  bool // global loads allocate in L1 (false: L2 only, 32-byte segments)
	UnifiedSize  int  // bytes of L1 + shared memory; 0 = separate arrays
}

// Shared is shared memory and its banks.
type Shared struct {
	Size           int   // carve-out per SM in bytes
	MaxPerCTA      int   // largest allocation one CTA may have
	Banks          int   // banks (32)
	BankWidth      int   // bytes per bank: 4, or 8 in Kepler's 64-bit mode
	Carveouts      []int // legal Size values; empty = any
	AllocUnit      int   // a CTA's shared allocation is rounded up to this
	ReservedPerCTA int   // bytes the system reserves per CTA (1 KB from sm_80 on)
}

// Const is the constant-memory path.
type Const struct {
	Size int          // constant bank size visible to a kernel
	L1   cache.Config // per-SM constant cache (Hopper: IDC)
	L15  cache.Config // second level (Hopper: GCC); size 0 = none
	// AddressCycles is the SM cycles a warp's constant load holds the SM's memory
	// pipe per distinct address it reads: an H200 serves one every 2 cycles, however
	// many warps wait and whether the addresses share a line (scripts/hw/constdiv.cu).
	// 0: as a shared-memory wavefront (32 / sm.lsu_lanes).
	AddressCycles int
}

// L2 is the chip-wide L2: Size is the total, split evenly over Slices.
type L2 struct {
	cache.Config
	Slices int
	// ClockMHz is the L2's own clock, which the slice rates and Latency.L2HitL2Clk count
	// in. 0: the L2 runs at the SM clock. On a GH100 it stays near 1700 MHz while the SM
	// clock moves between 1500 (ncu's base clock) and 1980 (docs/research/hw-facts.md §8).
	ClockMHz    int
	BytesPerClk int // read data one slice returns per L2 clock, for a timing engine
	// InBytesPerClk is what one slice accepts from the crossbar per L2 clock: store
	// data, 32 bytes a sector, while a read request takes one 32-byte slot whatever
	// the sectors it asks for. A request that touches one sector of a line therefore
	// costs the slice as much as one that asks for all four.
	InBytesPerClk int
	// AtomicPassClk is the L2 clocks one atomic pass (a request of coalesce.Atomic)
	// holds its slice's input at least; a pass of more sectors holds it a clock per
	// sector as a store does. On an H200 a pass of one to four words takes 1.25 clocks
	// where stores and wide passes take one per sector (scripts/hw/atomics.sh).
	AtomicPassClk float64
	// SliceMap is how lines are spread over the slices (l2.slice_map).
	SliceMap SliceMap
	// Partitions splits the slices, and the SMs by id, into that many equal groups. A
	// line lives in its home slice (SliceMap); an SM that reads a line homed in another
	// partition keeps a copy of it in the slice of its own partition at the home's
	// place, looks there first and at home on a miss. Stores and atomics are done at
	// home. 1: every SM sees one L2 alike. On an H200 what all SMs read is found again
	// up to 36-40 MB of the 60 MB, 1.5 slots a line (docs/research/hw-facts.md §11).
	Partitions int
	// PartitionBits, when not empty, homes a line in the partition given by the XOR of
	// these address bits (two partitions), and in the slice SliceMap gives among that
	// partition's; empty: the partition is the home slice's. On an H200 a 4 KB block's
	// home is an XOR of address bits 12, 13, 15, 17 and 19 (hw-facts §16).
	PartitionBits AddrBits
	// DirtyMax is the fraction of a slice's lines that may be dirty: a store that
	// dirties one more writes back the least recently written dirty line, which stays,
	// clean. 1: none is written back before it is evicted. An H200 keeps 25.5 MB of
	// stored lines of its 60 (hw-facts §11).
	DirtyMax float64
	// PartialFill reads a written sector from DRAM before its write-back, or before a
	// read of it, unless its every byte was written since the L2 last held it whole:
	// HBM has no byte mask to write part of a sector (hw-facts §11).
	PartialFill bool
	// FetchBytes is what a read miss brings in from DRAM: the missing sector, or the
	// aligned 64- or 128-byte block around it (CUDA's cudaLimitMaxL2FetchGranularity).
	FetchBytes int
}

// SliceMap is the function from an address to its L2 slice.
type SliceMap uint8

const (
	// SliceLines puts consecutive 128-byte lines on consecutive slices, the line
	// number XOR-folded so that strided streams spread ("lines").
	SliceLines SliceMap = iota
	// SliceGranules keeps the two lines of a 256-byte granule on one slice and the four
	// granules of a 1 KB block on two slices, alternately; blocks go to slices as lines
	// do under SliceLines ("granules"). What an H200's atomics show: two lines 128 B
	// or 512 B apart share a slice's atomic throughput, 256 B or 1 KB and more apart do
	// not (scripts/hw/atomics.sh).
	SliceGranules
)

var sliceMapNames = []string{SliceLines: "lines", SliceGranules: "granules"}

func (m SliceMap) String() string {
	if int(m) < len(sliceMapNames) {
		return sliceMapNames[m]
	}
	return fmt.Sprintf("invalid(%d)", int(m))
}

// UnmarshalText parses "lines" or "granules".
func (m *SliceMap) UnmarshalText(b []byte) error {
	for i, n := range sliceMapNames {
		if n == string(b) {
			*m = SliceMap(i)
			return nil
		}
	}
	return fmt.Errorf("unknown slice map %q (want one of %v)", b, sliceMapNames)
}

// MarshalText is the inverse of UnmarshalText.
func (m SliceMap) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// AddrBits is a set of address bits (l2.partition_bits), written as their numbers,
// "12,13,15,17,19", or "none".
type AddrBits uint64

// Parity returns the XOR of addr's bits in b: 0 or 1.
func (b AddrBits) Parity(addr uint64) int { return bits.OnesCount64(addr&uint64(b)) & 1 }

// MarshalText writes the bits' numbers in increasing order, a run of three or more as
// "21-47", or "none".
func (b AddrBits) MarshalText() ([]byte, error) {
	if b == 0 {
		return []byte("none"), nil
	}
	var out []byte
	for v := uint64(b); v != 0; {
		lo := bits.TrailingZeros64(v)
		n := bits.TrailingZeros64(^(v >> lo)) // the run of set bits from lo
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendInt(out, int64(lo), 10)
		switch {
		case n >= 3:
			out = strconv.AppendInt(append(out, '-'), int64(lo+n-1), 10)
		case n == 2:
			out = strconv.AppendInt(append(out, ','), int64(lo+1), 10)
		}
		v &^= (uint64(1)<<n - 1) << lo // n = 64 (every bit): 1<<64 is 0 in Go, the mask all ones
	}
	return out, nil
}

// UnmarshalText parses bit numbers 0 to 63 and runs of them ("21-47") separated by
// commas, or "none" (or nothing).
func (b *AddrBits) UnmarshalText(t []byte) error {
	s := strings.TrimSpace(string(t))
	if s == "" || s == "none" {
		*b = 0
		return nil
	}
	bit := func(f string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 63 {
			return 0, fmt.Errorf("%q is not an address bit (0 to 63; e.g. 12,13,15,21-47 or none)", strings.TrimSpace(f))
		}
		return n, nil
	}
	var v AddrBits
	for _, f := range strings.Split(s, ",") {
		lo, hi := f, f
		if i := strings.Index(f, "-"); i >= 0 {
			lo, hi = f[:i], f[i+1:]
		}
		l, err := bit(lo)
		if err != nil {
			return err
		}
		h, err := bit(hi)
		if err != nil {
			return err
		}
		if h < l {
			return fmt.Errorf("%q: a run goes from its lower bit to its higher", strings.TrimSpace(f))
		}
		for n := l; n <= h; n++ {
			if v&(1<<n) != 0 {
				return fmt.Errorf("bit %d is given twice", n)
			}
			v |= 1 << n
		}
	}
	*b = v
	return nil
}

// Slice returns the slice of n that holds the 128-byte line at address line.
func (m SliceMap) Slice(line uint64, n int) int {
	q := line >> 7
	if m == SliceGranules {
		// The granule's slice within its block's pair XORs in bit 8 of the line number,
		// above a slice's set index, so that each slice still sees every set.
		b := q >> 3
		b ^= b>>7 ^ b>>13
		return int((2*b + (q>>1^q>>8)&1) % uint64(n))
	}
	q ^= q>>7 ^ q>>13
	return int(q % uint64(n))
}

// Slice returns the configuration of one L2 slice.
func (l L2) Slice() cache.Config {
	c := l.Config
	if l.Slices > 0 {
		c.Size /= l.Slices
	}
	return c
}

// DRAM is the memory behind L2.
type DRAM struct {
	dram.Config
	Type         string  // GDDR5, HBM2, ...
	BandwidthGBs float64 // peak, for reports and a later timing model
	RowMissNS    float64 // precharge + activate (tRP + tRCD) before a row-buffer miss is served
	// RowHitNS is how much of RowMissNS a read that finds its row open still waits (0: a
	// row hit saves the whole activation's time in latency; RowMissNS: none of it).
	RowHitNS float64
	// Size is the device memory a program may allocate (cudaGetDeviceProperties'
	// totalGlobalMem), and BusBits the memory interface's width (memoryBusWidth); gtrace
	// run reports both, and refuses a cudaMalloc past Size.
	Size    int
	BusBits int
	// RRDNS is tRRD: the least time between two row activations in one channel, any
	// banks. It caps how many row misses a channel serves per second, which is what
	// limits scattered access well below the data bus's peak. 0: not modelled.
	RRDNS float64
	// Reorder: the controller serves a channel's requests as their banks are ready
	// (FR-FCFS), not in arrival order (dram.Timing.Reorder).
	Reorder bool
	// CCDReadNS and CCDWriteNS are the least time between two column commands of one
	// channel after a read and after a write; the sectors of one line moved together
	// share a command (dram.Timing.CCDReadNS). 0: no limit.
	CCDReadNS, CCDWriteNS float64
	// TurnaroundNS is how long a channel's bus stands idle when it changes between
	// reads and writes; WriteBatch how many lines of writes a channel queues and sends
	// together (dram.Timing.TurnNS, WriteBatch). 0: none.
	TurnaroundNS float64
	WriteBatch   int
	// WriteWindowNS is how long a write holds its channel's reads (dram.Timing's
	// WriteWindowNS). 0: none.
	WriteWindowNS float64
}

// Latency is in SM clock cycles, for a timing engine. ALU..DP are dependent
// issue-to-result latencies; the memory ones are load-to-use on a hit at
// that level.
//
// The way to the L2 and DRAM crosses clock domains: an L2 hit is L2Hit SM cycles plus
// L2HitL2Clk L2 cycles, and with DRAMNS set a DRAM access is an L2 hit plus DRAMNS
// nanoseconds, so replaying at another SM clock moves each part as the hardware does
// (docs/research/hw-facts.md §8). L2HitCycles and DRAMCycles give the sums.
type Latency struct {
	ALU, FMA, SFU, DP int
	// Integer latencies by SASS class, each 0 for ALU's: Int for an add, logic, shift or
	// select (IADD3, VIADD, LOP3, SEL), IMADHi for a high multiply (IMAD.HI), SetP
	// from a compare to the use of the predicate it writes (ISETP).
	Int, IMADHi, SetP int
	// Branch is the cycles from a taken branch's issue to the first issue at its target
	// (fetching from the new pc); the warp's scheduler issues other warps meanwhile. 0:
	// not modelled, the next issue is the cycle after, as after any instruction.
	Branch int
	Shared int
	L1Hit  int
	// LDG64 and LDG128 are the cycles a global load of 8 and of 16 bytes a lane waits
	// beyond a 4-byte one's, from L1, L2 or DRAM alike (the data's way back into the
	// registers); 0: not modelled, every width waits as a 4-byte load.
	LDG64, LDG128 int
	// S2R is the cycles from an S2R's start to its result: a read of a special
	// register the SM keeps per warp or CTA (%tid, %ctaid, %laneid, %lanemask_*,
	// %warpid, %smid), which waits for the shared accesses queued before it and takes
	// the SM sm.s2r_cycles (scripts/hw/s2r.cu: on the H200 a lone warp's arrives 25-35
	// cycles after it issues, 32 warps' 2 cycles apart, and behind a 32-way conflicting
	// load a warp the median waits 600). 0: such a read is an ALU move.
	S2R int
	// Bar is the cycles from the last warp's arrival at a CTA barrier (bar.sync without
	// a result) to the first issue of its warps' next barrier, S2R or constant read;
	// BarShared and BarGlobal the same for a shared-memory access and for a global,
	// local, texture or generic one (0: Bar's). With Bar set a warp issues past its
	// barrier until such an instruction, as SASS's BAR.SYNC.DEFER_BLOCKING does
	// (scripts/hw/barrier.cu: on the H200 the others' clock reads and adds go on; an
	// S2R waits 14 cycles, a shared load about 61, a global store or load about 119).
	// 0: a warp waits at its barrier, and all go the cycle after the last arrives.
	Bar, BarShared, BarGlobal int
	L2Hit                     int // SM cycles of an L2 hit (all of it when L2HitL2Clk is 0)
	L2HitL2Clk                int // L2 cycles of an L2 hit
	// DRAM is load-to-use from DRAM in SM cycles. With DRAMNS > 0 it is derived:
	// L2HitCycles plus DRAMNS at the SM clock.
	DRAM   int
	DRAMNS float64 // time a DRAM access adds to an L2 hit; 0: DRAM is given directly
	// L2FarNS is the time a read adds to an L2 hit when it misses the near L2 partition
	// (l2.partitions) and finds its line at home, in the other partition.
	L2FarNS float64
	// DRAMFarNS is the time a read from DRAM adds when its line's home is in the other
	// L2 partition (the crossing there and back); DRAMNS is then what a read homed in
	// the SM's own partition adds to an L2 hit.
	DRAMFarNS float64
	Texture   int
	Const     int // level-1 constant cache hit
	ConstL15  int // level-1.5 hit
	// MMAK8 and MMAK16: an mma's issue-to-result latency, by its depth as
	// SM.MMACyclesK8/K16 (0 where there are no tensor cores); MMAF64 an f64 mma's.
	MMAK8, MMAK16, MMAF64 int
}

// GlobalLoadMode is the coalescer mode global loads use: Coalescer, except
// that fermi-128B-lines becomes fermi-32B-segments when global loads bypass
// L1 (l1.cache_global=false).
func (c *Config) GlobalLoadMode() coalesce.Mode {
	if c.Coalescer == coalesce.Lines128 && !c.L1.CacheGlobal {
		return coalesce.Segments32
	}
	return c.Coalescer
}

// SharedCarveout returns the smallest legal carve-out holding need bytes of
// shared memory per SM and the L1 size left beside it. Without carve-out
// options (or if none is big enough) it returns the configured split.
func (c *Config) SharedCarveout(need int) (shared, l1 int) {
	if c.L1.UnifiedSize > 0 {
		for _, s := range c.Shared.Carveouts {
			if s >= need {
				return s, c.L1.UnifiedSize - s
			}
		}
	}
	return c.Shared.Size, c.L1.Size
}

// PeakFLOPs is the chip's peak floating-point rate in FLOP per second: every lane of
// the FP32 pipe (or of the FP64 pipe, with fp64) retiring one fused multiply-add, two
// FLOPs, per SM clock, on every SM. It is how vendor datasheets state peak FP32 and
// FP64 throughput (TestPeaksMatchDatasheets), and the compute roof of a roofline.
func (c *Config) PeakFLOPs(fp64 bool) float64 {
	lanes := c.SM.FP32Lanes
	if fp64 {
		lanes = c.SM.DPLanes
	}
	return 2 * float64(lanes) * float64(c.SM.Count) * float64(c.SM.ClockMHz) * 1e6
}

// PeakDRAMBytes is the DRAM's peak bandwidth in bytes per second, a roofline's
// memory roof.
func (c *Config) PeakDRAMBytes() float64 { return c.DRAM.BandwidthGBs * 1e9 }

// PeakL1Bytes is what the SMs' L1s can hand their registers, bytes per second: a
// hierarchical roofline's L1 roof. Each SM's load/store units move one 4-byte word a
// lane a clock (sm.lsu_lanes), 128 B a clock where there are 32, as Nsight Compute's
// L1 roof counts one 128-byte writeback cycle an SM a clock (an H200's
// l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained is 132 over 132 SMs:
// traces/hw/h200-2026-11-29-roofs).
func (c *Config) PeakL1Bytes() float64 {
	return 4 * float64(c.SM.LSULanes) * float64(c.SM.Count) * float64(c.SM.ClockMHz) * 1e6
}

// PeakL2Bytes is what the L2 slices can return to the SMs, bytes per second: a
// hierarchical roofline's L2 roof, l2.bytes_per_clk of every slice at the L2 clock (as
// Nsight Compute's L2 roof counts 32 bytes a cycle of lts__lts2xbar_cycles_active).
func (c *Config) PeakL2Bytes() float64 {
	return float64(c.L2.BytesPerClk) * float64(c.L2.Slices) * float64(c.L2ClockMHz()) * 1e6
}

// MemoryClockKHz is the memory clock, in kHz, that gives the DRAM's peak bandwidth over
// dram.bus_bits at two transfers per clock: the memoryClockRate a program reads to
// compute a peak bandwidth as 2 x memoryClockRate x memoryBusWidth / 8 (CUDA's
// bandwidthTest and deviceQuery do). The H100's reported 2619000 kHz gives 3352 GB/s
// over 5120 bits; the preset's 3350 GB/s gives 2617188.
func (c *Config) MemoryClockKHz() int {
	return int(math.Round(c.DRAM.BandwidthGBs * 1e9 * 8 / (2 * float64(c.DRAM.BusBits)) / 1000))
}

// Source returns where key's value came from ("" for an unknown key).
func (c *Config) Source(key string) string { return c.sources[key] }

// Clone returns a deep copy.
func (c *Config) Clone() *Config {
	d := *c
	d.Shared.Carveouts = slices.Clone(c.Shared.Carveouts)
	d.sources = make(map[string]string, len(c.sources))
	for k, v := range c.sources {
		d.sources[k] = v
	}
	return &d
}

// L2ClockMHz returns the L2's clock: l2.clock_mhz, or the SM clock when that is 0.
func (c *Config) L2ClockMHz() int {
	if c.L2.ClockMHz > 0 {
		return c.L2.ClockMHz
	}
	return c.SM.ClockMHz
}

// L2HitCycles returns an L2 hit's load-to-use latency in SM cycles at the SM clock:
// lat.l2_hit plus lat.l2_hit_l2clk L2 cycles.
func (c *Config) L2HitCycles() int {
	return c.Latency.L2Hit + c.l2ToSM(float64(c.Latency.L2HitL2Clk))
}

// l2ToSM converts L2 cycles to SM cycles, rounded.
func (c *Config) l2ToSM(n float64) int {
	if n == 0 || c.L2ClockMHz() <= 0 {
		return int(n)
	}
	return int(math.Round(n * float64(c.SM.ClockMHz) / float64(c.L2ClockMHz())))
}

// nsToSM converts a time in ns to SM cycles at the SM clock, rounded.
func (c *Config) nsToSM(ns float64) int {
	return int(math.Round(ns * float64(c.SM.ClockMHz) / 1000))
}

// CTALaunchCycles returns sm.cta_launch_ns in SM cycles.
func (c *Config) CTALaunchCycles() int { return c.nsToSM(c.SM.CTALaunchNS) }

// StorePath reports whether stores have a path of their own, apart from the LSU's
// queue (sm.lsu_store_line_cycles or sm.lsu_store_sector_cycles set).
func (c *Config) StorePath() bool {
	return c.SM.LSUStoreLineCycles > 0 || c.SM.LSUStoreSectorCycles > 0
}

// CTARetireCycles returns sm.cta_retire_ns in SM cycles.
func (c *Config) CTARetireCycles() int { return c.nsToSM(c.SM.CTARetireNS) }

// L2FarCycles returns, in SM cycles, what a read that misses its near L2 partition
// and hits at home adds to an L2 hit: lat.l2_far_ns at the SM clock.
func (c *Config) L2FarCycles() int {
	return c.nsToSM(c.Latency.L2FarNS)
}

// DRAMFarCycles returns, in SM cycles, what a DRAM read whose line is homed in the
// other L2 partition adds: lat.dram_far_ns at the SM clock.
func (c *Config) DRAMFarCycles() int { return c.nsToSM(c.Latency.DRAMFarNS) }

// DRAMCycles returns a DRAM access's load-to-use latency in SM cycles: lat.dram, or,
// with lat.dram_ns set, an L2 hit plus lat.dram_ns at the SM clock.
func (c *Config) DRAMCycles() int {
	if c.Latency.DRAMNS > 0 {
		return c.L2HitCycles() + c.nsToSM(c.Latency.DRAMNS)
	}
	return c.Latency.DRAM
}

// L2BytesPerSMCycle returns what one slice's data return (bytes per L2 clock) and
// input port move per SM cycle.
func (c *Config) L2BytesPerSMCycle() (out, in float64) {
	r := float64(c.L2ClockMHz()) / float64(max(c.SM.ClockMHz, 1))
	return float64(c.L2.BytesPerClk) * r, float64(c.L2.InBytesPerClk) * r
}

// derivedWhy says why key cannot be set on c because derive computes it, naming what
// to set instead; "" when it can be set.
func (c *Config) derivedWhy(key string) string {
	switch {
	case key == "l1.size" && c.L1.UnifiedSize > 0:
		return fmt.Sprintf("l1.size is derived on %s (l1.unified_size %s minus shared.size): set shared.size instead",
			c.Arch, formatSize(c.L1.UnifiedSize))
	case key == "lat.dram" && c.Latency.DRAMNS > 0:
		return fmt.Sprintf("lat.dram is derived on %s/%s (lat.l2_hit + lat.l2_hit_l2clk + lat.dram_ns %g at the clocks): set lat.dram_ns instead, or lat.dram_ns=0 first",
			c.Arch, c.GPU, c.Latency.DRAMNS)
	}
	return ""
}

// Derived reports whether key's value is computed from other keys on c, so that
// setting it is refused.
func (c *Config) Derived(key string) bool { return c.derivedWhy(key) != "" }

// derive recomputes the values that follow from others (the keys derivedWhy names).
func (c *Config) derive() {
	if c.sources == nil {
		c.sources = map[string]string{}
	}
	if c.L1.UnifiedSize > 0 {
		c.L1.Size = max(c.L1.UnifiedSize-c.Shared.Size, 0)
		c.sources["l1.size"] = "derived: l1.unified_size - shared.size"
	}
	if c.Latency.DRAMNS > 0 {
		c.Latency.DRAM = c.DRAMCycles()
		c.sources["lat.dram"] = "derived: lat.l2_hit + lat.l2_hit_l2clk + lat.dram_ns at sm.clock_mhz and l2.clock_mhz"
	}
}

// Validate checks the whole configuration and joins every problem found,
// each naming its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, a...)))
	}
	nsKey := func(key string, v float64) {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			bad(key, "must be a finite number of ns, 0 or more, is %g", v)
		}
	}
	pos := func(key string, v int) {
		if v <= 0 {
			bad(key, "must be positive, is %d", v)
		}
	}
	pos("sm.count", c.SM.Count)
	pos("sm.clock_mhz", c.SM.ClockMHz)
	pos("sm.schedulers", c.SM.Schedulers)
	pos("sm.dispatch_per_scheduler", c.SM.DispatchPerScheduler)
	pos("sm.max_warps", c.SM.MaxWarps)
	pos("sm.max_threads", c.SM.MaxThreads)
	pos("sm.max_ctas", c.SM.MaxCTAs)
	pos("sm.max_threads_per_cta", c.SM.MaxThreadsPerCTA)
	pos("sm.registers", c.SM.Registers)
	pos("sm.reg_alloc_unit", c.SM.RegAllocUnit)
	if c.SM.WarpSize != 32 {
		bad("sm.warp_size", "must be 32 (lane masks are 32 bits), is %d", c.SM.WarpSize)
	}
	if c.SM.MaxThreads > c.SM.MaxWarps*c.SM.WarpSize {
		bad("sm.max_threads", "%d exceeds sm.max_warps × warp size = %d", c.SM.MaxThreads, c.SM.MaxWarps*c.SM.WarpSize)
	}
	if c.SM.SIMT != "stack" && c.SM.SIMT != "its" {
		bad("sm.simt", "must be stack or its, is %q", c.SM.SIMT)
	}
	if _, err := sched.New(c.SM.Scheduler); err != nil {
		bad("sm.scheduler", "must be lrr, gto, gtrr or two-level, is %q", c.SM.Scheduler)
	}
	pos("sm.fp32_lanes", c.SM.FP32Lanes)
	pos("sm.sfu_lanes", c.SM.SFULanes)
	pos("sm.dp_lanes", c.SM.DPLanes)
	pos("sm.lsu_lanes", c.SM.LSULanes)
	if c.SM.INT32Lanes < 0 || c.SM.INT32Lanes > c.SM.FP32Lanes {
		bad("sm.int32_lanes", "must be 0 (integer work on the FP32 pipe) to sm.fp32_lanes (%d), is %d", c.SM.FP32Lanes, c.SM.INT32Lanes)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"lat.int", c.Latency.Int}, {"lat.imad_hi", c.Latency.IMADHi}, {"lat.setp", c.Latency.SetP}} {
		if l.v < 0 {
			bad(l.key, "must not be negative (0: lat.alu), is %d", l.v)
		}
	}
	if c.Latency.Branch < 0 {
		bad("lat.branch", "must not be negative (0: not modelled), is %d", c.Latency.Branch)
	}
	if c.Latency.S2R < 0 || c.SM.S2RCycles < 0 {
		bad("lat.s2r", "and sm.s2r_cycles must not be negative (0: an S2R is an ALU move), are %d and %d", c.Latency.S2R, c.SM.S2RCycles)
	}
	if c.SM.S2RCycles > 0 && c.Latency.S2R == 0 {
		bad("sm.s2r_cycles", "is %d but lat.s2r is 0, which makes an S2R an ALU move: set lat.s2r too, or sm.s2r_cycles to 0", c.SM.S2RCycles)
	}
	if c.Latency.Bar < 0 || c.Latency.BarShared < 0 || c.Latency.BarGlobal < 0 {
		bad("lat.bar", "lat.bar_shared and lat.bar_global must not be negative (0: a warp waits at its barrier), are %d, %d and %d", c.Latency.Bar, c.Latency.BarShared, c.Latency.BarGlobal)
	}
	if c.Latency.Bar == 0 && (c.Latency.BarShared > 0 || c.Latency.BarGlobal > 0) {
		bad("lat.bar", "is 0, which makes a warp wait at its barrier, but lat.bar_shared or lat.bar_global is set (%d, %d): set lat.bar too, or them to 0", c.Latency.BarShared, c.Latency.BarGlobal)
	}
	if c.Latency.LDG64 < 0 {
		bad("lat.ldg_64", "must not be negative (0: as a 4-byte load), is %d", c.Latency.LDG64)
	}
	if c.Latency.LDG128 < c.Latency.LDG64 {
		bad("lat.ldg_128", "must not be below lat.ldg_64 (%d), is %d", c.Latency.LDG64, c.Latency.LDG128)
	}
	for _, m := range []struct {
		cycles, lat string
		c, l        int
	}{{"sm.mma_cycles_k8", "lat.mma_k8", c.SM.MMACyclesK8, c.Latency.MMAK8}, {"sm.mma_cycles_k16", "lat.mma_k16", c.SM.MMACyclesK16, c.Latency.MMAK16},
		{"sm.mma_cycles_f64", "lat.mma_f64", c.SM.MMACyclesF64, c.Latency.MMAF64}} {
		switch {
		case m.c < 0:
			bad(m.cycles, "must not be negative (0: no tensor cores), is %d", m.c)
		case m.c > 0 && m.l <= 0:
			bad(m.lat, "must be positive where %s is (%d), is %d", m.cycles, m.c, m.l)
		case m.c == 0 && m.l != 0:
			bad(m.lat, "must be 0 where %s is 0 (no tensor cores), is %d", m.cycles, m.l)
		}
	}
	if c.Const.AddressCycles < 0 {
		bad("const.address_cycles", "must not be negative (0: as a shared-memory wavefront), is %d", c.Const.AddressCycles)
	}
	if c.SM.LaunchCycles < 0 {
		bad("sm.launch_cycles", "must not be negative, is %d", c.SM.LaunchCycles)
	}
	if c.SM.LaunchReadBytes < 0 {
		bad("sm.launch_read_bytes", "must not be negative, is %d", c.SM.LaunchReadBytes)
	}
	if c.SM.InstBytes < 0 {
		bad("sm.inst_bytes", "must not be negative (0: no code fetch), is %d", c.SM.InstBytes)
	}
	if c.SM.ReuseMissCycles < 0 {
		bad("sm.reuse_miss_cycles", "must not be negative, is %d", c.SM.ReuseMissCycles)
	}
	pos("sm.lsu_queue_cycles", c.SM.LSUQueueCycles)
	for _, k := range []struct {
		key string
		v   float64
	}{{"sm.lsu_miss_line_cycles", c.SM.LSUMissLineCycles}, {"sm.lsu_miss_sector_cycles", c.SM.LSUMissSectorCycles},
		{"sm.lsu_store_line_cycles", c.SM.LSUStoreLineCycles}, {"sm.lsu_store_sector_cycles", c.SM.LSUStoreSectorCycles},
		{"sm.lsu_partial_line_cycles", c.SM.LSUPartialLineCycles}, {"sm.lsu_store_reg_cycles", c.SM.LSUStoreRegCycles},
		{"sm.ldgsts_copy_cycles", c.SM.LDGSTSCopyCycles}, {"sm.ldgsts_wavefront_cycles", c.SM.LDGSTSWavefrontCycles}} {
		if !(k.v >= 0 && k.v <= 1e6) {
			bad(k.key, "must be a number of SM cycles from 0 to 1e6, is %g", k.v)
		}
	}
	if c.SM.LSUStores < 0 {
		bad("sm.lsu_stores", "must not be negative, is %d", c.SM.LSUStores)
	}
	// sm.lsu_stores and sm.lsu_store_reg_cycles belong to the stores' own path: the one
	// is needed with it, and neither would do anything without it.
	path := c.StorePath()
	if path && c.SM.LSUStores == 0 {
		bad("sm.lsu_stores", "must be above 0 where stores have their own path (sm.lsu_store_line_cycles %g, sm.lsu_store_sector_cycles %g)", c.SM.LSUStoreLineCycles, c.SM.LSUStoreSectorCycles)
	}
	if !path && c.SM.LSUStores > 0 {
		bad("sm.lsu_stores", "is %d but stores have no path of their own (sm.lsu_store_line_cycles and sm.lsu_store_sector_cycles are 0)", c.SM.LSUStores)
	}
	if c.SM.StoreMergeLines < 0 || c.SM.StoreMergeLines > 1024 {
		bad("sm.store_merge_lines", "must be a number of lines from 0 to 1024, is %d", c.SM.StoreMergeLines)
	}
	if !path && c.SM.StoreMergeLines > 0 {
		bad("sm.store_merge_lines", "is %d but stores have no path of their own (sm.lsu_store_line_cycles and sm.lsu_store_sector_cycles are 0)", c.SM.StoreMergeLines)
	}
	if !path && c.SM.LSUStoreRegCycles > 0 {
		bad("sm.lsu_store_reg_cycles", "is %g but stores have no path of their own (sm.lsu_store_line_cycles and sm.lsu_store_sector_cycles are 0)", c.SM.LSUStoreRegCycles)
	}
	nsKey("sm.cta_launch_ns", c.SM.CTALaunchNS)
	nsKey("sm.cta_retire_ns", c.SM.CTARetireNS)
	if c.L2.ClockMHz < 0 {
		bad("l2.clock_mhz", "must not be negative (0: the SM clock), is %d", c.L2.ClockMHz)
	}
	if c.Latency.L2HitL2Clk < 0 {
		bad("lat.l2_hit_l2clk", "must not be negative, is %d", c.Latency.L2HitL2Clk)
	}
	nsKey("lat.dram_ns", c.Latency.DRAMNS)
	nsKey("lat.l2_far_ns", c.Latency.L2FarNS)
	nsKey("lat.dram_far_ns", c.Latency.DRAMFarNS)
	pos("l2.bytes_per_clk", c.L2.BytesPerClk)
	pos("l2.in_bytes_per_clk", c.L2.InBytesPerClk)
	if c.L2.SliceMap > SliceGranules {
		bad("l2.slice_map", "unknown, is %d", int(c.L2.SliceMap))
	}
	if c.L2.Partitions < 1 || c.L2.Partitions > max(c.L2.Slices, 1) {
		bad("l2.partitions", "must be 1 to l2.slices (%d), is %d", c.L2.Slices, c.L2.Partitions)
	}
	if b := c.L2.PartitionBits; b != 0 {
		if c.L2.Partitions != 2 {
			bad("l2.partition_bits", "an XOR of address bits picks one of two partitions: needs l2.partitions 2, which is %d", c.L2.Partitions)
		}
		if low := bits.TrailingZeros64(uint64(b)); c.L2.Line > 0 && 1<<low < c.L2.Line {
			bad("l2.partition_bits", "bit %d lies within an l2.line of %d B: a line would have two homes", low, c.L2.Line)
		}
	}
	if !(c.L2.DirtyMax > 0 && c.L2.DirtyMax <= 1) {
		bad("l2.dirty_max", "must be a fraction of a slice's lines above 0 and at most 1, is %g", c.L2.DirtyMax)
	}
	if !(c.L2.AtomicPassClk >= 1) || math.IsInf(c.L2.AtomicPassClk, 0) {
		bad("l2.atomic_pass_clk", "must be a finite number of L2 clocks, 1 or more, is %g", c.L2.AtomicPassClk)
	}
	if c.DRAM.RowMissNS < 0 {
		bad("dram.row_miss_ns", "must not be negative, is %g", c.DRAM.RowMissNS)
	}
	if c.DRAM.RowHitNS < 0 || c.DRAM.RowHitNS > c.DRAM.RowMissNS {
		bad("dram.row_hit_ns", "must be from 0 to dram.row_miss_ns (%g), is %g", c.DRAM.RowMissNS, c.DRAM.RowHitNS)
	}
	if c.DRAM.Size <= 0 {
		bad("dram.size", "must be a size in bytes above 0, is %d", c.DRAM.Size)
	}
	if c.DRAM.BusBits <= 0 || c.DRAM.BusBits%8 != 0 {
		bad("dram.bus_bits", "must be a whole number of bytes wide, above 0, is %d bits", c.DRAM.BusBits)
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"dram.rrd_ns", c.DRAM.RRDNS}, {"dram.ccd_read_ns", c.DRAM.CCDReadNS}, {"dram.ccd_write_ns", c.DRAM.CCDWriteNS},
		{"dram.turnaround_ns", c.DRAM.TurnaroundNS}, {"dram.write_batch", float64(c.DRAM.WriteBatch)},
		{"dram.write_window_ns", c.DRAM.WriteWindowNS}} {
		if k.v < 0 {
			bad(k.key, "must not be negative, is %g", k.v)
		}
	}
	if c.Coalescer < coalesce.Lines128 || c.Coalescer > coalesce.Sectors32 {
		bad("coalescer", "not set")
	}
	if c.L1.UnifiedSize > 0 && c.Shared.Size > c.L1.UnifiedSize {
		bad("shared.size", "%d B exceeds l1.unified_size %d B", c.Shared.Size, c.L1.UnifiedSize)
	}
	if len(c.Shared.Carveouts) > 0 && !slices.Contains(c.Shared.Carveouts, c.Shared.Size) {
		bad("shared.size", "%s is not one of shared.carveouts %s", formatSize(c.Shared.Size), formatSizes(c.Shared.Carveouts))
	}
	if c.Shared.MaxPerCTA > c.Shared.Size && len(c.Shared.Carveouts) == 0 {
		bad("shared.max_per_cta", "%d B exceeds shared.size %d B", c.Shared.MaxPerCTA, c.Shared.Size)
	}
	if c.Shared.Banks < 1 || c.Shared.Banks > 32 || bits.OnesCount(uint(c.Shared.Banks)) != 1 {
		bad("shared.banks", "must be a power of two up to 32, is %d", c.Shared.Banks)
	}
	if c.Shared.BankWidth != 4 && c.Shared.BankWidth != 8 {
		bad("shared.bank_width", "must be 4 or 8, is %d", c.Shared.BankWidth)
	}
	for _, cc := range []struct {
		key string
		cfg cache.Config
	}{{"l1", c.L1.Config}, {"tex", c.Tex}, {"const.l1", c.Const.L1}, {"const.l15", c.Const.L15}, {"l2", c.L2.Slice()}} {
		if err := cc.cfg.Validate(); err != nil {
			bad(cc.key, "%v", err)
		}
	}
	if c.Const.L1.Size == 0 {
		bad("const.l1.size", "must be positive")
	}
	if c.L2.Slices < 1 {
		bad("l2.slices", "must be positive, is %d", c.L2.Slices)
	} else if c.L2.Size%c.L2.Slices != 0 {
		bad("l2.size", "%d B does not divide into %d slices", c.L2.Size, c.L2.Slices)
	}
	if err := c.DRAM.Config.Validate(); err != nil {
		bad("dram", "%v", err)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"lat.alu", c.Latency.ALU}, {"lat.fma", c.Latency.FMA}, {"lat.sfu", c.Latency.SFU}, {"lat.dp", c.Latency.DP},
		{"lat.shared", c.Latency.Shared}, {"lat.l1_hit", c.Latency.L1Hit}, {"lat.l2_hit", c.Latency.L2Hit},
		{"lat.dram", c.Latency.DRAM}, {"lat.texture", c.Latency.Texture}, {"lat.const", c.Latency.Const}} {
		pos(l.key, l.v)
	}
	if err := c.PCIe.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("arch %s/%s: %w", c.Arch, c.GPU, errors.Join(errs...))
	}
	return nil
}
