package arch

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/models/cache"
)

// KeyInfo is one parameter as `gtrace archs NAME` prints it.
type KeyInfo struct {
	Key, Value, Source string
}

// field is one key: a pointer into a Config and how to read it.
type field struct {
	key  string
	size bool // an int in bytes: accepts and prints KB/MB suffixes
	ptr  func(c *Config) any
}

var fields = buildFields()

func buildFields() []field {
	f := []field{
		{key: "name", ptr: func(c *Config) any { return &c.Name }},
		{key: "cc", ptr: func(c *Config) any { return &c.CC }},
		{key: "sm.count", ptr: func(c *Config) any { return &c.SM.Count }},
		{key: "sm.clock_mhz", ptr: func(c *Config) any { return &c.SM.ClockMHz }},
		{key: "sm.warp_size", ptr: func(c *Config) any { return &c.SM.WarpSize }},
		{key: "sm.schedulers", ptr: func(c *Config) any { return &c.SM.Schedulers }},
		{key: "sm.dispatch_per_scheduler", ptr: func(c *Config) any { return &c.SM.DispatchPerScheduler }},
		{key: "sm.max_warps", ptr: func(c *Config) any { return &c.SM.MaxWarps }},
		{key: "sm.max_threads", ptr: func(c *Config) any { return &c.SM.MaxThreads }},
		{key: "sm.max_ctas", ptr: func(c *Config) any { return &c.SM.MaxCTAs }},
		{key: "sm.max_threads_per_cta", ptr: func(c *Config) any { return &c.SM.MaxThreadsPerCTA }},
		{key: "sm.registers", ptr: func(c *Config) any { return &c.SM.Registers }},
		{key: "sm.max_regs_per_thread", ptr: func(c *Config) any { return &c.SM.MaxRegsPerThread }},
		{key: "sm.reg_alloc_unit", ptr: func(c *Config) any { return &c.SM.RegAllocUnit }},
		{key: "sm.simt", ptr: func(c *Config) any { return &c.SM.SIMT }},
		{key: "sm.scheduler", ptr: func(c *Config) any { return &c.SM.Scheduler }},
		{key: "sm.fp32_lanes", ptr: func(c *Config) any { return &c.SM.FP32Lanes }},
		{key: "sm.sfu_lanes", ptr: func(c *Config) any { return &c.SM.SFULanes }},
		{key: "sm.dp_lanes", ptr: func(c *Config) any { return &c.SM.DPLanes }},
		{key: "sm.lsu_lanes", ptr: func(c *Config) any { return &c.SM.LSULanes }},
		{key: "sm.int32_lanes", ptr: func(c *Config) any { return &c.SM.INT32Lanes }},
		{key: "sm.mma_cycles_k8", ptr: func(c *Config) any { return &c.SM.MMACyclesK8 }},
		{key: "sm.mma_cycles_k16", ptr: func(c *Config) any { return &c.SM.MMACyclesK16 }},
		{key: "sm.mma_cycles_f64", ptr: func(c *Config) any { return &c.SM.MMACyclesF64 }},
		{key: "sm.launch_cycles", ptr: func(c *Config) any { return &c.SM.LaunchCycles }},
		{key: "sm.launch_read_bytes", ptr: func(c *Config) any { return &c.SM.LaunchReadBytes }},
		{key: "sm.inst_bytes", ptr: func(c *Config) any { return &c.SM.InstBytes }},
		{key: "sm.cta_launch_ns", ptr: func(c *Config) any { return &c.SM.CTALaunchNS }},
		{key: "sm.cta_retire_ns", ptr: func(c *Config) any { return &c.SM.CTARetireNS }},
		{key: "sm.reuse_miss_cycles", ptr: func(c *Config) any { return &c.SM.ReuseMissCycles }},
		{key: "sm.lsu_queue_cycles", ptr: func(c *Config) any { return &c.SM.LSUQueueCycles }},
		{key: "sm.lsu_miss_line_cycles", ptr: func(c *Config) any { return &c.SM.LSUMissLineCycles }},
		{key: "sm.lsu_miss_sector_cycles", ptr: func(c *Config) any { return &c.SM.LSUMissSectorCycles }},
		{key: "sm.lsu_store_line_cycles", ptr: func(c *Config) any { return &c.SM.LSUStoreLineCycles }},
		{key: "sm.lsu_store_sector_cycles", ptr: func(c *Config) any { return &c.SM.LSUStoreSectorCycles }},
		{key: "sm.lsu_partial_line_cycles", ptr: func(c *Config) any { return &c.SM.LSUPartialLineCycles }},
		{key: "sm.lsu_stores", ptr: func(c *Config) any { return &c.SM.LSUStores }},
		{key: "sm.lsu_store_reg_cycles", ptr: func(c *Config) any { return &c.SM.LSUStoreRegCycles }},
		{key: "sm.store_merge_lines", ptr: func(c *Config) any { return &c.SM.StoreMergeLines }},
		{key: "sm.ldgsts_copy_cycles", ptr: func(c *Config) any { return &c.SM.LDGSTSCopyCycles }},
		{key: "sm.ldgsts_wavefront_cycles", ptr: func(c *Config) any { return &c.SM.LDGSTSWavefrontCycles }},
		{key: "sm.drain_stores", ptr: func(c *Config) any { return &c.SM.DrainStores }},
		{key: "sm.s2r_cycles", ptr: func(c *Config) any { return &c.SM.S2RCycles }},
		{key: "sm.aggregate_atomics", ptr: func(c *Config) any { return &c.SM.AggregateAtomics }},
		{key: "coalescer", ptr: func(c *Config) any { return &c.Coalescer }},
	}
	f = append(f, cacheFields("l1", func(c *Config) *cache.Config { return &c.L1.Config })...)
	f = append(f,
		field{key: "l1.cache_global", ptr: func(c *Config) any { return &c.L1.CacheGlobal }},
		field{key: "l1.unified_size", size: true, ptr: func(c *Config) any { return &c.L1.UnifiedSize }},
		field{key: "shared.size", size: true, ptr: func(c *Config) any { return &c.Shared.Size }},
		field{key: "shared.max_per_cta", size: true, ptr: func(c *Config) any { return &c.Shared.MaxPerCTA }},
		field{key: "shared.banks", ptr: func(c *Config) any { return &c.Shared.Banks }},
		field{key: "shared.bank_width", ptr: func(c *Config) any { return &c.Shared.BankWidth }},
		field{key: "shared.carveouts", size: true, ptr: func(c *Config) any { return &c.Shared.Carveouts }},
		field{key: "shared.alloc_unit", size: true, ptr: func(c *Config) any { return &c.Shared.AllocUnit }},
		field{key: "shared.reserved_per_cta", size: true, ptr: func(c *Config) any { return &c.Shared.ReservedPerCTA }},
	)
	f = append(f, cacheFields("tex", func(c *Config) *cache.Config { return &c.Tex })...)
	f = append(f, field{key: "const.size", size: true, ptr: func(c *Config) any { return &c.Const.Size }},
		field{key: "const.address_cycles", ptr: func(c *Config) any { return &c.Const.AddressCycles }})
	f = append(f, cacheFields("const.l1", func(c *Config) *cache.Config { return &c.Const.L1 })...)
	f = append(f, cacheFields("const.l15", func(c *Config) *cache.Config { return &c.Const.L15 })...)
	f = append(f, cacheFields("l2", func(c *Config) *cache.Config { return &c.L2.Config })...)
	f = append(f,
		field{key: "l2.slices", ptr: func(c *Config) any { return &c.L2.Slices }},
		field{key: "l2.clock_mhz", ptr: func(c *Config) any { return &c.L2.ClockMHz }},
		field{key: "l2.bytes_per_clk", ptr: func(c *Config) any { return &c.L2.BytesPerClk }},
		field{key: "l2.in_bytes_per_clk", ptr: func(c *Config) any { return &c.L2.InBytesPerClk }},
		field{key: "l2.slice_map", ptr: func(c *Config) any { return &c.L2.SliceMap }},
		field{key: "l2.atomic_pass_clk", ptr: func(c *Config) any { return &c.L2.AtomicPassClk }},
		field{key: "l2.fetch_bytes", ptr: func(c *Config) any { return &c.L2.FetchBytes }},
		field{key: "l2.partitions", ptr: func(c *Config) any { return &c.L2.Partitions }},
		field{key: "l2.partition_bits", ptr: func(c *Config) any { return &c.L2.PartitionBits }},
		field{key: "l2.dirty_max", ptr: func(c *Config) any { return &c.L2.DirtyMax }},
		field{key: "l2.partial_fill", ptr: func(c *Config) any { return &c.L2.PartialFill }},
		field{key: "dram.type", ptr: func(c *Config) any { return &c.DRAM.Type }},
		field{key: "dram.bandwidth_gbs", ptr: func(c *Config) any { return &c.DRAM.BandwidthGBs }},
		field{key: "dram.size", size: true, ptr: func(c *Config) any { return &c.DRAM.Size }},
		field{key: "dram.bus_bits", ptr: func(c *Config) any { return &c.DRAM.BusBits }},
		field{key: "dram.channels", ptr: func(c *Config) any { return &c.DRAM.Channels }},
		field{key: "dram.banks", ptr: func(c *Config) any { return &c.DRAM.Banks }},
		field{key: "dram.row_bytes", size: true, ptr: func(c *Config) any { return &c.DRAM.RowBytes }},
		field{key: "dram.burst_length", ptr: func(c *Config) any { return &c.DRAM.BurstLength }},
		field{key: "dram.bus_bytes", ptr: func(c *Config) any { return &c.DRAM.BusBytes }},
		field{key: "dram.interleave", size: true, ptr: func(c *Config) any { return &c.DRAM.Interleave }},
		field{key: "dram.hash", ptr: func(c *Config) any { return &c.DRAM.Hash }},
		field{key: "dram.row_miss_ns", ptr: func(c *Config) any { return &c.DRAM.RowMissNS }},
		field{key: "dram.row_hit_ns", ptr: func(c *Config) any { return &c.DRAM.RowHitNS }},
		field{key: "dram.rrd_ns", ptr: func(c *Config) any { return &c.DRAM.RRDNS }},
		field{key: "dram.reorder", ptr: func(c *Config) any { return &c.DRAM.Reorder }},
		field{key: "dram.ccd_read_ns", ptr: func(c *Config) any { return &c.DRAM.CCDReadNS }},
		field{key: "dram.ccd_write_ns", ptr: func(c *Config) any { return &c.DRAM.CCDWriteNS }},
		field{key: "dram.turnaround_ns", ptr: func(c *Config) any { return &c.DRAM.TurnaroundNS }},
		field{key: "dram.write_batch", ptr: func(c *Config) any { return &c.DRAM.WriteBatch }},
		field{key: "dram.write_window_ns", ptr: func(c *Config) any { return &c.DRAM.WriteWindowNS }},
		field{key: "lat.alu", ptr: func(c *Config) any { return &c.Latency.ALU }},
		field{key: "lat.fma", ptr: func(c *Config) any { return &c.Latency.FMA }},
		field{key: "lat.sfu", ptr: func(c *Config) any { return &c.Latency.SFU }},
		field{key: "lat.dp", ptr: func(c *Config) any { return &c.Latency.DP }},
		field{key: "lat.int", ptr: func(c *Config) any { return &c.Latency.Int }},
		field{key: "lat.imad_hi", ptr: func(c *Config) any { return &c.Latency.IMADHi }},
		field{key: "lat.setp", ptr: func(c *Config) any { return &c.Latency.SetP }},
		field{key: "lat.branch", ptr: func(c *Config) any { return &c.Latency.Branch }},
		field{key: "lat.shared", ptr: func(c *Config) any { return &c.Latency.Shared }},
		field{key: "lat.l1_hit", ptr: func(c *Config) any { return &c.Latency.L1Hit }},
		field{key: "lat.ldg_64", ptr: func(c *Config) any { return &c.Latency.LDG64 }},
		field{key: "lat.s2r", ptr: func(c *Config) any { return &c.Latency.S2R }},
		field{key: "lat.bar", ptr: func(c *Config) any { return &c.Latency.Bar }},
		field{key: "lat.bar_shared", ptr: func(c *Config) any { return &c.Latency.BarShared }},
		field{key: "lat.bar_global", ptr: func(c *Config) any { return &c.Latency.BarGlobal }},
		field{key: "lat.ldg_128", ptr: func(c *Config) any { return &c.Latency.LDG128 }},
		field{key: "lat.l2_hit", ptr: func(c *Config) any { return &c.Latency.L2Hit }},
		field{key: "lat.l2_hit_l2clk", ptr: func(c *Config) any { return &c.Latency.L2HitL2Clk }},
		field{key: "lat.dram", ptr: func(c *Config) any { return &c.Latency.DRAM }},
		field{key: "lat.dram_ns", ptr: func(c *Config) any { return &c.Latency.DRAMNS }},
		field{key: "lat.l2_far_ns", ptr: func(c *Config) any { return &c.Latency.L2FarNS }},
		field{key: "lat.dram_far_ns", ptr: func(c *Config) any { return &c.Latency.DRAMFarNS }},
		field{key: "lat.texture", ptr: func(c *Config) any { return &c.Latency.Texture }},
		field{key: "lat.const", ptr: func(c *Config) any { return &c.Latency.Const }},
		field{key: "lat.const_l15", ptr: func(c *Config) any { return &c.Latency.ConstL15 }},
		field{key: "lat.mma_k8", ptr: func(c *Config) any { return &c.Latency.MMAK8 }},
		field{key: "lat.mma_k16", ptr: func(c *Config) any { return &c.Latency.MMAK16 }},
		field{key: "lat.mma_f64", ptr: func(c *Config) any { return &c.Latency.MMAF64 }},
		field{key: "pcie.gen", ptr: func(c *Config) any { return &c.PCIe.Gen }},
		field{key: "pcie.lanes", ptr: func(c *Config) any { return &c.PCIe.Lanes }},
		field{key: "pcie.efficiency", ptr: func(c *Config) any { return &c.PCIe.Efficiency }},
		field{key: "pcie.latency_us", ptr: func(c *Config) any { return &c.PCIe.LatencyUS }},
		field{key: "pcie.staging_gbps", ptr: func(c *Config) any { return &c.PCIe.StagingGBps }},
		field{key: "pcie.copy_engines", ptr: func(c *Config) any { return &c.PCIe.CopyEngines }},
	)
	return f
}

func cacheFields(p string, get func(c *Config) *cache.Config) []field {
	return []field{
		{key: p + ".size", size: true, ptr: func(c *Config) any { return &get(c).Size }},
		{key: p + ".line", ptr: func(c *Config) any { return &get(c).Line }},
		{key: p + ".sector", ptr: func(c *Config) any { return &get(c).Sector }},
		{key: p + ".sets", ptr: func(c *Config) any { return &get(c).Sets }},
		{key: p + ".ways", ptr: func(c *Config) any { return &get(c).Ways }},
		{key: p + ".replacement", ptr: func(c *Config) any { return &get(c).Replacement }},
		{key: p + ".write", ptr: func(c *Config) any { return &get(c).Write }},
		{key: p + ".write_allocate", ptr: func(c *Config) any { return &get(c).WriteAllocate }},
		{key: p + ".set_index", ptr: func(c *Config) any { return &get(c).SetIndex }},
		{key: p + ".mshrs", ptr: func(c *Config) any { return &get(c).MSHRs }},
	}
}

func lookupField(key string) (field, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// KeyNames lists every key in display order.
func KeyNames() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// Keys lists every parameter with its value and source, in display order.
func (c *Config) Keys() []KeyInfo {
	out := make([]KeyInfo, len(fields))
	for i, f := range fields {
		out[i] = KeyInfo{Key: f.key, Value: format(f, c), Source: c.sources[f.key]}
	}
	return out
}

// Get returns key's value as Keys prints it.
func (c *Config) Get(key string) (string, error) {
	f, ok := lookupField(key)
	if !ok {
		return "", unknownKey(key)
	}
	return format(f, c), nil
}

// Set parses value into key and records the source as "set". Derived values
// (l1.size on unified archs) are recomputed. It does not validate the whole
// config: call Validate after the last Set.
func (c *Config) Set(key, value string) error { return c.set(key, value, "set") }

func (c *Config) set(key, value, source string) error {
	f, ok := lookupField(key)
	if !ok {
		return unknownKey(key)
	}
	if why := c.derivedWhy(key); why != "" {
		return errors.New(why)
	}
	value = strings.TrimSpace(value)
	var err error
	switch p := f.ptr(c).(type) {
	case *int:
		if f.size {
			*p, err = ParseSize(value)
		} else {
			*p, err = strconv.Atoi(value)
		}
	case *bool:
		*p, err = strconv.ParseBool(value)
	case *string:
		*p = value
	case *float64:
		*p, err = strconv.ParseFloat(value, 64)
	case *[]int:
		var list []int
		for _, s := range strings.Split(value, ",") {
			var n int
			if n, err = ParseSize(strings.TrimSpace(s)); err != nil {
				break
			}
			list = append(list, n)
		}
		if err == nil {
			sort.Ints(list)
			*p = list
		}
	case encoding.TextUnmarshaler:
		err = p.UnmarshalText([]byte(value))
	default:
		err = fmt.Errorf("internal: key has type %T", p)
	}
	if err != nil {
		return fmt.Errorf("%s = %q: %w", key, value, err)
	}
	if c.sources == nil {
		c.sources = map[string]string{}
	}
	c.sources[key] = source
	c.derive()
	return nil
}

func format(f field, c *Config) string {
	switch p := f.ptr(c).(type) {
	case *int:
		if f.size {
			return formatSize(*p)
		}
		return strconv.Itoa(*p)
	case *bool:
		return strconv.FormatBool(*p)
	case *string:
		return *p
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *[]int:
		return formatSizes(*p)
	case encoding.TextMarshaler:
		b, _ := p.MarshalText()
		return string(b)
	}
	return "?"
}

// ParseSize reads "4096", "4096B", "48KB", "48KiB", "50MB", "1GB" (binary units).
func ParseSize(s string) (int, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := 1
	for _, suf := range []struct {
		s string
		m int
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			u, mult = strings.TrimSpace(strings.TrimSuffix(u, suf.s)), suf.m
			break
		}
	}
	n, err := strconv.Atoi(u)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a size in bytes (e.g. 4096, 48KB, 50MB)")
	}
	if n > math.MaxInt/mult {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n * mult, nil
}

func formatSize(n int) string {
	switch {
	case n != 0 && n%(1<<30) == 0:
		return strconv.Itoa(n>>30) + "GB"
	case n != 0 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MB"
	case n != 0 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KB"
	}
	return strconv.Itoa(n)
}

func formatSizes(l []int) string {
	s := make([]string, len(l))
	for i, n := range l {
		s[i] = formatSize(n)
	}
	return strings.Join(s, ",")
}

func unknownKey(key string) error {
	type cand struct {
		key string
		d   int
	}
	var cs []cand
	for _, f := range fields {
		d := distance(key, f.key)
		last := f.key[strings.LastIndex(f.key, ".")+1:]
		if d <= 3 || strings.HasSuffix(key, "."+last) || strings.HasSuffix(f.key, "."+key) || strings.HasPrefix(f.key, key+".") {
			cs = append(cs, cand{f.key, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var near []string
	for i := 0; i < len(cs) && i < 6; i++ {
		near = append(near, cs[i].key)
	}
	if len(near) == 0 {
		return fmt.Errorf("unknown key %q (`gtrace archs NAME` lists them all)", key)
	}
	return fmt.Errorf("unknown key %q; near: %s", key, strings.Join(near, ", "))
}

// distance is the Levenshtein edit distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
