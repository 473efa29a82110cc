package replay

import (
	"math/bits"
)

// memKind indexes the per-operation counters of global memory, as ncu splits them.
type memKind uint8

const (
	kLd memKind = iota
	kSt
	kAtom
	kRed
	numKinds
)

var kindNames = [numKinds]string{"ld", "st", "atom", "red"}

// counters are the raw event counts of one kernel, or of one pc. Every metric the engine
// reports is derived from them; they only ever add, so SMs can count apart and be summed.
type counters struct {
	Inst, ThreadInst uint64 // PTX instructions (warp, thread) executed
	// The SASS instructions they stand for, as sassWeights estimates them (equal to
	// Inst and ThreadInst where it has no estimate); set once per pc after the run.
	SASS, SASSThread uint64

	// Global memory through the LSU pipe.
	GReq, GSec [numKinds]uint64
	GLdHit     uint64    // global-load sectors that hit in L1
	GStHit     uint64    // global-store sectors whose line was resident in L1
	GTrans     [2]uint64 // ld, st: transactions in the arch's unit (lines, segments or sectors)
	GUseful    [2]uint64 // ld, st: distinct bytes asked for by active lanes
	GBus       [2]uint64 // ld, st: bytes those transactions move

	// LSUWave is the cycles the L1 spends handing global and local accesses' data back
	// to the SM (lsuWavefronts): an estimate of ncu's l1tex__lsu_writeback_active_mem_lg
	// (lgds on sm_90), which the hierarchical roofline's L1 point counts.
	LSUWave uint64

	// Local memory.
	LReq, LSec [2]uint64
	LHit       uint64

	// Shared memory: ld, st, atom.
	SReq, SWave, SIdeal [3]uint64
	SWays               [33]uint64
	// The shared side of cp.async (SASS LDGSTS), which ncu counts apart from the
	// stores: its wavefronts, and the conflicts it reports for them.
	CpWave, CpConf uint64

	// Constant bank: requests to the per-SM constant cache (idc on Volta+).
	CReq, CHit uint64

	// Texture pipe: tex fetches (and, on Kepler, ld.global.nc through the read-only cache).
	TReq, TSec, THit uint64
	// Read-only (non-coherent) global loads served by the texture/read-only cache.
	NCSec, NCHit uint64

	// L2, in 32-byte sectors, from the SMs' L1/texture/constant misses.
	L2Read, L2Write, L2Atom, L2Red, L2Hit uint64
	// DRAM bytes.
	DRAMRead, DRAMWrite uint64
}

func (c *counters) add(o *counters) {
	c.Inst += o.Inst
	c.ThreadInst += o.ThreadInst
	c.SASS += o.SASS
	c.SASSThread += o.SASSThread
	for i := range c.GReq {
		c.GReq[i] += o.GReq[i]
		c.GSec[i] += o.GSec[i]
	}
	c.GLdHit += o.GLdHit
	c.LSUWave += o.LSUWave
	c.GStHit += o.GStHit
	for i := range 2 {
		c.GTrans[i] += o.GTrans[i]
		c.GUseful[i] += o.GUseful[i]
		c.GBus[i] += o.GBus[i]
		c.LReq[i] += o.LReq[i]
		c.LSec[i] += o.LSec[i]
	}
	c.LHit += o.LHit
	for i := range 3 {
		c.SReq[i] += o.SReq[i]
		c.SWave[i] += o.SWave[i]
		c.SIdeal[i] += o.SIdeal[i]
	}
	for i := range c.SWays {
		c.SWays[i] += o.SWays[i]
	}
	c.CpWave += o.CpWave
	c.CpConf += o.CpConf
	c.CReq += o.CReq
	c.CHit += o.CHit
	c.TReq += o.TReq
	c.TSec += o.TSec
	c.THit += o.THit
	c.NCSec += o.NCSec
	c.NCHit += o.NCHit
	c.L2Read += o.L2Read
	c.L2Write += o.L2Write
	c.L2Atom += o.L2Atom
	c.L2Red += o.L2Red
	c.L2Hit += o.L2Hit
	c.DRAMRead += o.DRAMRead
	c.DRAMWrite += o.DRAMWrite
}

func ratioPct(n, d uint64) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// Metric is one named value of a report.
type Metric struct {
	Name  string
	Value float64
}

// metrics derives the reported metrics, ncu's names first, then gtrace's own. The order is
// fixed so that tables, CSV and golden files are stable.
func (c *counters) metrics() []Metric {
	var m []Metric
	put := func(name string, v float64) { m = append(m, Metric{name, v}) }
	for k := range numKinds {
		put("l1tex__t_requests_pipe_lsu_mem_global_op_"+kindNames[k]+".sum", float64(c.GReq[k]))
		put("l1tex__t_sectors_pipe_lsu_mem_global_op_"+kindNames[k]+".sum", float64(c.GSec[k]))
	}
	put("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", float64(c.GLdHit+c.NCHit))
	put("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", float64(c.GSec[kLd]-c.GLdHit-c.NCHit))
	put("l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", float64(c.LReq[0]))
	put("l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", float64(c.LReq[1]))
	put("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", float64(c.LSec[0]))
	put("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", float64(c.LSec[1]))
	put("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", float64(c.SWave[0]))
	put("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", float64(c.SWave[1]))
	put("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", float64(c.SWave[2]))
	put("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", float64(c.SWave[0]-c.SIdeal[0]))
	put("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", float64(c.SWave[1]-c.SIdeal[1]))
	put("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", float64(c.CpWave))
	put("smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum", float64(c.CpConf))
	put("smsp__sass_inst_executed_op_shared_ld.sum", float64(c.SReq[0]))
	put("smsp__sass_inst_executed_op_shared_st.sum", float64(c.SReq[1]))
	// The L1/TEX t-stage sees every sector of global and local LSU traffic and of
	// texture fetches; a store sector hits when its line is resident (ncu counts it so:
	// the write-through L1 updates the line).
	tSec := c.GSec[kLd] + c.GSec[kSt] + c.GSec[kAtom] + c.GSec[kRed] + c.LSec[0] + c.LSec[1] + c.TSec
	put("l1tex__t_sector_hit_rate.pct", ratioPct(c.GLdHit+c.GStHit+c.NCHit+c.LHit+c.THit, tSec))
	put("l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", ratioPct(c.GLdHit+c.NCHit, c.GSec[kLd]))
	put("l1tex__t_requests_pipe_tex_mem_texture.sum", float64(c.TReq))
	put("l1tex__t_sectors_pipe_tex_mem_texture.sum", float64(c.TSec))
	put("lts__t_sectors_srcunit_tex_op_read.sum", float64(c.L2Read))
	put("lts__t_sectors_srcunit_tex_op_write.sum", float64(c.L2Write))
	put("lts__t_sectors_srcunit_tex_op_atom.sum", float64(c.L2Atom))
	put("lts__t_sectors_srcunit_tex_op_red.sum", float64(c.L2Red))
	put("lts__t_sector_hit_rate.pct", ratioPct(c.L2Hit, c.L2Read+c.L2Write+c.L2Atom+c.L2Red))
	put("dram__bytes_read.sum", float64(c.DRAMRead))
	put("dram__bytes_write.sum", float64(c.DRAMWrite))
	put("smsp__inst_executed.sum", float64(c.SASS))
	put("smsp__thread_inst_executed.sum", float64(c.SASSThread))
	put("gtrace__ptx_inst_executed.sum", float64(c.Inst))
	put("idc__requests.sum", float64(c.CReq))
	put("idc__requests_lookup_hit.sum", float64(c.CHit))

	put("gtrace__global_ld_transactions.sum", float64(c.GTrans[0]))
	put("gtrace__global_ld_bus_utilization.pct", ratioPct(c.GUseful[0], c.GBus[0]))
	put("gtrace__global_st_transactions.sum", float64(c.GTrans[1]))
	put("gtrace__global_st_bus_utilization.pct", ratioPct(c.GUseful[1], c.GBus[1]))
	put("gtrace__global_ld_sectors_per_request", ratio(c.GSec[kLd], c.GReq[kLd]))
	put("gtrace__global_st_sectors_per_request", ratio(c.GSec[kSt], c.GReq[kSt]))
	put("gtrace__simd_efficiency.pct", ratioPct(c.ThreadInst, 32*c.Inst))
	put("gtrace__shared_ld_wavefronts_per_request", ratio(c.SWave[0], c.SReq[0]))
	put("gtrace__shared_st_wavefronts_per_request", ratio(c.SWave[1], c.SReq[1]))
	for w, n := range c.SWays {
		if n > 0 {
			put("gtrace__shared_requests_ways_"+itoa(w)+".sum", float64(n))
		}
	}
	put("gtrace__texture_hit_rate.pct", ratioPct(c.THit, c.TSec))
	put("gtrace__lsu_writeback_wavefronts.sum", float64(c.LSUWave))
	return m
}

// lsuWavefronts estimates the L1's writeback cycles for one global or local
// instruction that coalesced into requests and sectors: 128 bytes a cycle, so a
// request's sectors four at a time, and at least one a request (a store takes one too).
// Against ncu on an H200 (scripts/hw/roofs.sh, traces/hw/h200-2026-11-29-roofs):
// exact on test_coalesced and add_vectors, within 1% on matmul_sdk_1 and a column walk
// (tex_column_global: 32 lines a request, 8 cycles), 0.4% and 5.6% under on the
// untiled and tiled matmul at 128²; off where the lanes' lines or the shared memory
// between them change the data path's passes: transpose V1 10% under (its 32-line
// stores), testScattered 25% over (a 484-byte stride, 6.4 cycles a request against
// 8), transpose V2 33% under (1.49 a request for coalesced rows: not explained yet).
func lsuWavefronts(requests, sectors int) uint64 {
	return uint64(max(requests, (sectors+3)/4))
}

func ratio(n, d uint64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func popc(m uint32) uint64 { return uint64(bits.OnesCount32(m)) }
func popc8(m uint8) uint64 { return uint64(bits.OnesCount8(m)) }
